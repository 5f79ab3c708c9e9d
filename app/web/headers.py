"""Security headers on every response: CSP without inline scripts, framing, sniffing, referrer."""

from __future__ import annotations

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        # Inline style attributes are allowed (the tree map sizes itself with one); never inline
        # scripts.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
HSTS = (b"strict-transport-security", b"max-age=31536000")
# Responses about one learner that no cache may keep (JSON; HTML pages revalidate by ETag).
PERSONAL = "private, no-store"


def security_headers(
    hsts: bool = False, lms_origins: tuple[str, ...] = ()
) -> list[tuple[bytes, bytes]]:
    """The headers every response carries: :data:`HEADERS`, plus HSTS when served over HTTPS.

    With ``lms_origins`` (the registered LTI platforms, ``https://moodle.example.org``), the
    pages may be framed by those sites only (``frame-ancestors``; ``X-Frame-Options`` goes,
    since it cannot name them) and forms may post to them (the deep-linking answer).
    """
    if not lms_origins:
        return [*HEADERS, *([HSTS] if hsts else [])]
    allowed = " ".join(lms_origins)
    policy = CSP.replace("frame-ancestors 'none'", f"frame-ancestors 'self' {allowed}").replace(
        "form-action 'self'", f"form-action 'self' {allowed}"
    )
    headers = [(b"content-security-policy", policy.encode())]
    headers += [h for h in HEADERS if h[0] not in (b"content-security-policy", b"x-frame-options")]
    return [*headers, *([HSTS] if hsts else [])]
