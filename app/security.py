"""CSRF protection (asgi-csrf) and the request guard in front of it.

asgi-csrf checks every non-GET request: the ``x-csrftoken`` header (htmx) or the
``csrftoken`` form field (plain forms) must match the signed ``csrftoken`` cookie.
"""

from __future__ import annotations

import re

from asgi_csrf import asgi_csrf

from app.deps import EXPIRED_MESSAGE
from app.i18n import gettext
from app.web.errors import title_of

MAX_FORM_BYTES = 64 * 1024
# The lesson editor posts a whole lesson file, percent-encoded (an accented letter is 6 bytes).
MAX_EDITOR_FORM_BYTES = 4 * 1024 * 1024
EDITOR_PATHS = "/instrutor/licoes/"
ACCEPTED_BODIES = (b"application/x-www-form-urlencoded", b"application/json", b"")
# Sec-Fetch-Site values of requests that another site started (Fetch Metadata).
OTHER_SITES = (b"same-site", b"cross-site")
# RFC 6265, section 4.1.1: cookie-name is a token; cookie-value is cookie-octets, maybe quoted.
_COOKIE_OCTETS = rb"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*"
COOKIE_PAIR = re.compile(
    rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+=(?:" + _COOKIE_OCTETS + rb'|"' + _COOKIE_OCTETS + rb'")'
)


def render_error(templates, scope, status: int, title: str, message: str) -> str:
    """Render the error page, or only its fragment for an htmx request."""
    headers = dict(scope.get("headers") or [])
    name = "_error.html" if headers.get(b"hx-request") == b"true" else "error.html"
    return templates.get_template(name).render(status=status, title=title, message=message, request=None)


def csrf_middleware(templates, signing_secret: str, secure: bool):
    """Return a middleware factory for ``app.add_middleware`` wrapping asgi-csrf.

    Args:
        templates: the app's Jinja2 templates, for the 403 page.
        signing_secret: the app's secret key.
        secure: mark the CSRF cookie ``Secure``.
    """

    async def send_failed(scope, send, _message_id):
        html = render_error(templates, scope, 403, title_of(403), gettext(EXPIRED_MESSAGE))
        await send_html(send, 403, html)

    def factory(app):
        return asgi_csrf(
            app,
            signing_secret=signing_secret,
            cookie_secure=secure,
            cookie_samesite="Lax",
            send_csrf_failed=send_failed,
        )

    return factory


class RequestGuard:
    """Turn requests the stack below would mishandle into clear 4xx answers.

    - Cookies that break RFC 6265 are dropped (see :func:`well_formed_cookies`); the others
      stay. asgi-csrf fails on a ``Cookie`` header that is not UTF-8, and Python's cookie
      parser turns a quoted ``"\\000"`` into a NUL byte, which PostgreSQL refuses.
    - ``HEAD`` is served as ``GET`` (the server drops the body).
    - A body that is not a URL-encoded form or JSON gets 415: the app accepts no uploads,
      and asgi-csrf's multipart parser fails on odd input.
    - A body over :data:`MAX_FORM_BYTES` (:data:`MAX_EDITOR_FORM_BYTES` for the lesson editor,
      which posts a whole lesson) gets 413; one that is not UTF-8 gets 400.
    - ``Authorization`` is dropped: the app has no token auth, and asgi-csrf would skip
      its check for a ``Bearer`` header.
    - A state-changing request that the browser marks as coming from another site
      (``Sec-Fetch-Site: same-site`` or ``cross-site``) gets the CSRF 403. The CSRF token is
      a double-submit cookie that is not bound to the session, so a sibling subdomain could
      plant a valid pair of its own; and asgi-csrf lets requests without cookies through.
    """

    def __init__(self, app, templates):
        self.app = app
        self.templates = templates

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope = well_formed_cookies(scope)
        if scope["method"] == "HEAD":
            scope = {**scope, "method": "GET"}
        if scope["method"] in ("GET", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope.get("headers") or [] if k != b"authorization"]
        scope = {**scope, "headers": headers}
        if dict(headers).get(b"sec-fetch-site") in OTHER_SITES:
            await self._fail(scope, send, 403, gettext(EXPIRED_MESSAGE))
            return
        content_type = dict(headers).get(b"content-type", b"").split(b";")[0].strip().lower()
        if content_type not in ACCEPTED_BODIES:
            await self._fail(scope, send, 415, gettext("Send the page's own form."))
            return
        messages, body = [], b""
        limit = MAX_EDITOR_FORM_BYTES if scope["path"].startswith(EDITOR_PATHS) else MAX_FORM_BYTES
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > limit:
                await self._fail(scope, send, 413, gettext("The form sent is too large."))
                return
            if not message.get("more_body"):
                break
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            await self._fail(scope, send, 400, gettext("The form is not in UTF-8."))
            return

        async def replay():
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _fail(self, scope, send, status: int, message: str) -> None:
        await send_html(send, status, render_error(self.templates, scope, status, title_of(status), message))


def well_formed_cookies(scope):
    """Return ``scope`` with only the RFC 6265 cookie pairs in its ``Cookie`` headers.

    The course's own cookies always comply; a header whose pairs all comply is kept as it is.
    """
    headers = scope.get("headers") or []
    cleaned, changed = [], False
    for name, value in headers:
        if name == b"cookie":
            pairs = [pair.strip(b" \t") for pair in value.split(b";")]
            kept = [pair for pair in pairs if COOKIE_PAIR.fullmatch(pair)]
            if len(kept) != len([pair for pair in pairs if pair]):
                value, changed = b"; ".join(kept), True
        cleaned.append((name, value))
    return {**scope, "headers": cleaned} if changed else scope


async def send_html(send, status: int, html: str) -> None:
    """Send a complete HTML response through a raw ASGI ``send``."""
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"text/html; charset=utf-8"), (b"vary", b"HX-Request")],
    })
    await send({"type": "http.response.body", "body": html.encode("utf-8")})
