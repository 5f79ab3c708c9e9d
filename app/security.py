"""CSRF protection (asgi-csrf) and the body guard in front of it.

asgi-csrf checks every non-GET request: the ``x-csrftoken`` header (htmx) or the
``csrftoken`` form field (plain forms) must match the signed ``csrftoken`` cookie.
"""

from __future__ import annotations

from asgi_csrf import asgi_csrf

from app.deps import EXPIRED_MESSAGE

MAX_FORM_BYTES = 64 * 1024


def csrf_middleware(templates, signing_secret: str, secure: bool):
    """Return a middleware factory for ``app.add_middleware`` wrapping asgi-csrf.

    Args:
        templates: the app's Jinja2 templates, for the 403 page.
        signing_secret: the app's secret key.
        secure: mark the CSRF cookie ``Secure``.
    """

    async def send_failed(scope, send, _message_id):
        html = templates.get_template("error.html").render(
            status=403, title="Acesso negado", message=EXPIRED_MESSAGE, request=None
        )
        await _send_html(send, 403, html)

    def factory(app):
        return asgi_csrf(
            app,
            signing_secret=signing_secret,
            cookie_secure=secure,
            cookie_samesite="Lax",
            send_csrf_failed=send_failed,
        )

    return factory


class FormGuard:
    """Reject request bodies that the CSRF parser would choke on, with a clear 4xx.

    A form body over :data:`MAX_FORM_BYTES` gets 413, a body that is not UTF-8 or a
    multipart form without a boundary gets 400. Everything else passes unchanged.
    """

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        content_type = dict(scope.get("headers") or []).get(b"content-type", b"").lower()
        if content_type.startswith(b"multipart/form-data") and b"boundary=" not in content_type:
            await _send_text(send, 400, "Formulário malformado.")
            return
        messages, body = [], b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > MAX_FORM_BYTES:
                await _send_text(send, 413, "Envio grande demais.")
                return
            if not message.get("more_body"):
                break
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            await _send_text(send, 400, "O formulário não está em UTF-8.")
            return

        async def replay():
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


async def _send_text(send, status: int, text: str) -> None:
    await _send_html(send, status, f"<p>{text}</p>")


async def _send_html(send, status: int, html: str) -> None:
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"text/html; charset=utf-8")],
    })
    await send({"type": "http.response.body", "body": html.encode("utf-8")})
