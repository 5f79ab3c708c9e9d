"""Security headers on every response: CSP without inline scripts, framing, sniffing, referrer."""

from __future__ import annotations

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    # Inline style attributes are allowed (the tree map sizes itself with one); never inline scripts.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
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


def security_headers(hsts: bool = False) -> list[tuple[bytes, bytes]]:
    """The headers every response carries: :data:`HEADERS`, plus HSTS when served over HTTPS."""
    return [*HEADERS, *([HSTS] if hsts else [])]


class SecurityHeaders:
    """ASGI middleware adding :func:`security_headers` (HSTS when cookies are ``Secure``).

    Starlette answers an unhandled exception outside every middleware, so the 500 handler
    (``app/web/errors.py``) adds the same headers itself.
    """

    def __init__(self, app, hsts: bool = False):
        self.app = app
        self.extra = security_headers(hsts)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def add_headers(message):
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers") or []}
                extra = [(k, v) for k, v in self.extra if k not in present]
                message = {**message, "headers": [*(message.get("headers") or []), *extra]}
            await send(message)

        await self.app(scope, receive, add_headers)
