"""CSRF protection (asgi-csrf) and the request guard in front of it.

asgi-csrf checks every non-GET request: the ``x-csrftoken`` header (htmx) or the
``csrftoken`` form field (plain forms) must match the signed ``csrftoken`` cookie.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from asgi_csrf import DEFAULT_COOKIE_NAME, DEFAULT_FORM_INPUT, DEFAULT_SIGNING_NAMESPACE, asgi_csrf
from itsdangerous import BadSignature, URLSafeSerializer
from starlette.datastructures import Headers
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import N_, gettext
from app.web.cookies import framed
from app.web.errors import EXPIRED_MESSAGE, error_html
from app.web.headers import security_headers
from app.web.templating import VARY
from app.web.urls import Urls

MAX_FORM_BYTES = 64 * 1024
# The lesson editor posts a whole lesson file, percent-encoded (an accented letter is 6 bytes).
MAX_EDITOR_FORM_BYTES = 4 * 1024 * 1024
EDITOR_ROUTE = "lesson_editor"  # the editor's forms all post under this route's prefix
EDITOR_TOO_LARGE = N_(
    "The lesson text sent is over %(max)s MB, so it could not be read: nothing was published "
    "or kept on the server. The editor keeps a copy of what you sent in this browser: go back "
    "to the editor (the browser's Back button, or open it again) to recover it, then shorten "
    "the text."
)
# The only route that takes a multipart body: the editor's image upload. Its limit is the
# image's (app.authoring.image_upload.MAX_IMAGE_BYTES) plus room for the token and the part headers.
UPLOAD_ROUTE = "image_upload_save"
MAX_UPLOAD_BYTES = 2 * 1024 * 1024 + 16 * 1024
ACCEPTED_BODIES = (b"application/x-www-form-urlencoded", b"application/json", b"")
# Sec-Fetch-Site values of requests that another site started (Fetch Metadata).
OTHER_SITES = (b"same-site", b"cross-site")
# The only POSTs another site may send: an LMS starting an LTI 1.3 login, and posting the
# launch's id_token. They carry no CSRF cookie or token, and Sec-Fetch-Site says cross-site.
# Their proof is the LTI protocol itself (app/web/routes/lti.py): the login only stores a nonce and
# redirects to a registered platform; the launch is accepted only with an id_token signed by
# a registered platform's key, for our client id and deployment, unexpired, whose nonce we
# issued and is used once, and whose state matches the cookie set at the login.
LTI_CROSS_SITE_POSTS = ("lti_login", "lti_launch")  # route names
# RFC 6265, section 4.1.1: cookie-name is a token; cookie-value is cookie-octets, maybe quoted.
_COOKIE_OCTETS = rb"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*"
COOKIE_PAIR = re.compile(
    rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+=(?:" + _COOKIE_OCTETS + rb'|"' + _COOKIE_OCTETS + rb'")'
)


def csrf_middleware(templates, urls: Urls, signing_secret: str, secure: bool):
    """Return a middleware factory for ``app.add_middleware`` wrapping asgi-csrf.

    Args:
        templates: the app's Jinja2 templates, for the 403 page.
        urls: the app's URL builder, for the LTI posts it lets through.
        secure: mark the CSRF cookie ``Secure``.
    """

    async def send_failed(scope, send, _message_id):
        html = error_html(templates, scope, 403, gettext(EXPIRED_MESSAGE))
        await send_html(send, 403, html)

    def factory(app):
        lti_posts = lti_cross_site_posts(urls)  # built with the stack, once the routes exist
        return asgi_csrf(
            app,
            signing_secret=signing_secret,
            cookie_secure=secure,
            cookie_samesite="Lax",
            send_csrf_failed=send_failed,
            skip_if_scope=lambda scope: is_lti_cross_site_post(scope, lti_posts),
        )

    return factory


def lti_cross_site_posts(urls: Urls) -> frozenset[str]:
    """The paths of :data:`LTI_CROSS_SITE_POSTS`."""
    return frozenset(urls.path(name) for name in LTI_CROSS_SITE_POSTS)


def is_lti_cross_site_post(scope: Scope, lti_posts: Collection[str]) -> bool:
    """True for a POST to one of ``lti_posts`` (:func:`lti_cross_site_posts`), and only them."""
    return scope.get("method") == "POST" and scope.get("path") in lti_posts


class RequestGuard:
    """Turn requests the stack below would mishandle into clear 4xx answers, and add the
    security headers (:func:`app.web.headers.security_headers`, HSTS with ``hsts``) to every
    response.

    - Cookies that break RFC 6265 are dropped (see :func:`well_formed_cookies`); the others
      stay. asgi-csrf fails on a ``Cookie`` header that is not UTF-8, and Python's cookie
      parser turns a quoted ``"\\000"`` into a NUL byte, which PostgreSQL refuses.
    - ``HEAD`` is served as ``GET`` (the server drops the body).
    - A body that is not a URL-encoded form or JSON gets 415, except a ``multipart/form-data``
      POST to :data:`UPLOAD_ROUTE` (the image upload), which must name its boundary as
      asgi-csrf parses it (``; boundary=``, else 400) and whose ``Content-Length``, when sent,
      is checked before any of it is read. asgi-csrf 0.11's own multipart parser no longer
      works with python-multipart (``FormParser`` lost its ``FileClass`` argument), so the
      guard reads the ``csrftoken`` field with Starlette's parser, refuses with the CSRF 403
      unless it equals the signed ``csrftoken`` cookie (itsdangerous, as asgi-csrf signs it),
      and hands it to asgi-csrf as the ``x-csrftoken`` header, which asgi-csrf then checks.
    - A body over :data:`MAX_FORM_BYTES` (:data:`MAX_EDITOR_FORM_BYTES` for the lesson editor,
      which posts a whole lesson) gets 413; one that is not UTF-8 gets 400.
    - ``Authorization`` is dropped: the app has no token auth, and asgi-csrf would skip
      its check for a ``Bearer`` header.
    - A state-changing request without the CSRF cookie gets the CSRF 403 (asgi-csrf lets a
      request without cookies through, and a visitor's first POST now gives them a learner).
    - A state-changing request that the browser marks as coming from another site
      (``Sec-Fetch-Site: same-site`` or ``cross-site``) gets the CSRF 403. The CSRF token is
      a double-submit cookie that is not bound to the session, so a sibling subdomain could
      plant a valid pair of its own; and asgi-csrf lets requests without cookies through.
    - The two LTI POSTs (:data:`LTI_CROSS_SITE_POSTS`) skip those two checks (and asgi-csrf's):
      an LMS sends them from its own site, and the protocol is their proof.
    - With registered LMSs (``lms_origins``), the CSP lets them frame the pages and receive
      forms; over HTTPS, the session and CSRF cookies become ``SameSite=None; Partitioned``
      (inside the LMS's iframe the course is a third party; the Sec-Fetch-Site check above
      still refuses POSTs that another site starts).
    """

    def __init__(
        self,
        app: ASGIApp,
        templates: Any,
        urls: Urls,
        signing_secret: str = "",
        hsts: bool = False,
        lms_origins: Callable[[], tuple[str, ...]] | None = None,
    ) -> None:
        self.app = app
        self.templates = templates
        # Starlette builds the middleware on the first request, once every route is there.
        self.paths = GuardedPaths(
            urls.path(UPLOAD_ROUTE), urls.prefix(EDITOR_ROUTE), lti_cross_site_posts(urls)
        )
        self.signer = URLSafeSerializer(signing_secret)
        self.hsts = hsts
        self.lms_origins = lms_origins
        self.extra_headers = security_headers(hsts)
        self._by_origins: dict[tuple[str, ...], list[tuple[bytes, bytes]]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = self._with_security_headers(send)
        scope = well_formed_cookies(scope)
        if scope["method"] == "HEAD":
            scope = {**scope, "method": "GET"}
        if scope["method"] in ("GET", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope.get("headers") or [] if k != b"authorization"]
        scope = {**scope, "headers": headers}
        post = Post.of(scope, self.paths)
        refusal = next((r for check in HEADER_CHECKS if (r := check(post)) is not None), None)
        if refusal is None:
            messages, refusal = await read_body(receive, post)
        if refusal is None and post.upload:
            token = await self._upload_token(scope, messages)
            if token is None:
                refusal = forbidden()
            else:
                kept = [(k, v) for k, v in headers if k != b"x-csrftoken"]
                scope = {**scope, "headers": [*kept, (b"x-csrftoken", token.encode("ascii"))]}
        if refusal is None:
            refusal = no_csrf_cookie(post)
        if refusal is not None:
            status, message = refusal
            await self._fail(scope, send, status, message)
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    def _with_security_headers(self, send: Send) -> Send:
        """``send`` adding the security headers; with registered LMSs, the CSP that lets them
        frame the pages, and (over HTTPS) the framed cookies."""
        origins = self.lms_origins() if self.lms_origins else ()
        if not origins:
            return with_headers(send, self.extra_headers)
        extra = self._by_origins.get(origins)
        if extra is None:
            extra = self._by_origins[origins] = security_headers(self.hsts, origins)
        send = with_headers(send, extra)
        return framed_cookies(send) if self.hsts else send

    async def _upload_token(self, scope: Scope, messages: list[Message]) -> str | None:
        """The upload's ``csrftoken`` field when it matches the signed cookie, else ``None``."""

        async def chunks():
            for message in messages:
                yield message.get("body", b"")

        try:
            form = await MultiPartParser(Headers(scope=scope), chunks(), max_files=1).parse()
        except MultiPartException:
            return None
        try:
            token = form.get(DEFAULT_FORM_INPUT)
        finally:
            await form.close()
        cookie = cookie_parser(Headers(scope=scope).get("cookie", "")).get(DEFAULT_COOKIE_NAME, "")
        if not isinstance(token, str) or not token.isascii() or not cookie:
            return None
        try:
            self.signer.loads(cookie, DEFAULT_SIGNING_NAMESPACE)
        except BadSignature:
            return None
        return token if secrets.compare_digest(token, cookie) else None

    async def _fail(self, scope: Scope, send: Send, status: int, message: str) -> None:
        await send_html(send, status, error_html(self.templates, scope, status, message))


# A refusal: the status and the message, in the reader's language.
Refusal = tuple[int, str]
WRONG_FORM = N_("Send the page's own form.")


def forbidden() -> Refusal:
    """The CSRF 403 ("Sessão expirada, recarregue a página.")."""
    return 403, gettext(EXPIRED_MESSAGE)


@dataclass(frozen=True)
class GuardedPaths:
    """The paths the guard treats apart, from the route table."""

    upload: str  # the image upload: multipart, with its own limit
    editor: str  # the editor's prefix: a whole lesson fits
    lti_posts: frozenset[str]  # LTI's cross-site POSTs


@dataclass(frozen=True)
class Post:
    """What the guard's checks read of a state-changing request."""

    path: str
    raw_headers: list[tuple[bytes, bytes]]  # as sent, a header maybe repeated
    headers: dict[bytes, bytes]  # the last of each
    content_type: bytes  # lower-case, without parameters
    upload: bool  # a multipart POST to the upload route
    lti_post: bool  # one of LTI_CROSS_SITE_POSTS
    limit: int  # bytes the body may have

    @classmethod
    def of(cls, scope: Scope, paths: GuardedPaths) -> Post:
        raw_headers = list(scope.get("headers") or [])
        headers = dict(raw_headers)
        content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        upload = (
            scope["path"] == paths.upload
            and scope["method"] == "POST"
            and content_type == b"multipart/form-data"
        )
        if upload:
            limit = MAX_UPLOAD_BYTES
        elif scope["path"].startswith(paths.editor):
            limit = MAX_EDITOR_FORM_BYTES
        else:
            limit = MAX_FORM_BYTES
        lti_post = is_lti_cross_site_post(scope, paths.lti_posts)
        return cls(scope["path"], raw_headers, headers, content_type, upload, lti_post, limit)

    def too_large(self) -> Refusal:
        if self.limit == MAX_EDITOR_FORM_BYTES:
            return 413, gettext(EDITOR_TOO_LARGE) % {"max": self.limit // (1024 * 1024)}
        return 413, gettext("The form sent is too large.")


def from_another_site(post: Post) -> Refusal | None:
    """A POST the browser says another site started (Sec-Fetch-Site), LTI's two aside."""
    if post.headers.get(b"sec-fetch-site") in OTHER_SITES and not post.lti_post:
        return forbidden()
    return None


def unknown_body(post: Post) -> Refusal | None:
    """A body that is neither a URL-encoded form nor JSON (nor the image upload): 415."""
    if post.content_type not in ACCEPTED_BODIES and not post.upload:
        return 415, gettext(WRONG_FORM)
    return None


def upload_without_boundary(post: Post) -> Refusal | None:
    """An upload whose boundary asgi-csrf could not read (``; boundary=`` once): 400."""
    raw = post.headers.get(b"content-type", b"")
    if post.upload and (raw.count(b"; boundary=") != 1 or raw.endswith(b"boundary=")):
        return 400, gettext(WRONG_FORM)
    return None


def declared_too_large(post: Post) -> Refusal | None:
    """A ``Content-Length`` over the limit, refused before any of the body is read."""
    declared = post.headers.get(b"content-length", b"")
    return post.too_large() if declared.isdigit() and int(declared) > post.limit else None


def no_csrf_cookie(post: Post) -> Refusal | None:
    """asgi-csrf checks nothing on a request without cookies; every form of the site comes
    from a page that set the CSRF cookie, so a POST without it is not ours."""
    if not _has_csrf_cookie(post.raw_headers) and not post.lti_post:
        return forbidden()
    return None


# Checked in this order, on the headers alone; the first refusal answers.
HEADER_CHECKS = (from_another_site, unknown_body, upload_without_boundary, declared_too_large)


async def read_body(receive: Receive, post: Post) -> tuple[list[Message], Refusal | None]:
    """The body's messages, read up to the limit (413 past it); a form that is not UTF-8 is
    400 (the upload is binary and is read by its own parser)."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        size += len(message.get("body", b""))
        if size > post.limit:
            return messages, post.too_large()
        if not message.get("more_body"):
            break
    if not post.upload:
        try:
            b"".join(m.get("body", b"") for m in messages).decode("utf-8")
        except UnicodeDecodeError:
            return messages, (400, gettext("The form is not in UTF-8."))
    return messages, None


def _has_csrf_cookie(headers: list[tuple[bytes, bytes]]) -> bool:
    """True when a ``Cookie`` header carries asgi-csrf's cookie (its value is checked later)."""
    prefix = DEFAULT_COOKIE_NAME.encode() + b"="
    return any(
        name == b"cookie" and any(pair.strip().startswith(prefix) for pair in value.split(b";"))
        for name, value in headers
    )


def with_headers(send, extra: list[tuple[bytes, bytes]]):
    """Wrap an ASGI ``send`` so every response carries ``extra`` (unless it set them itself).

    The guard is the outermost of our layers, so its own refusals get them too. Starlette
    answers an unhandled exception outside every middleware, so the 500 handler
    (``app/web/errors.py``) adds the same headers itself.
    """

    async def send_with_headers(message):
        if message["type"] == "http.response.start":
            headers = message.get("headers") or []
            present = {k.lower() for k, _ in headers}
            message = {**message, "headers": [*headers, *(h for h in extra if h[0] not in present)]}
        await send(message)

    return send_with_headers


def framed_cookies(send):
    """Wrap ``send`` so every cookie the course sets (the session's, the CSRF token's, the
    theme's...) is ``SameSite=None; Partitioned`` (:func:`app.web.cookies.framed`)."""

    async def send_framed(message):
        if message["type"] == "http.response.start":
            headers = []
            for name, value in message.get("headers") or []:
                if name.lower() == b"set-cookie":
                    value = framed(value)
                headers.append((name, value))
            message = {**message, "headers": headers}
        await send(message)

    return send_framed


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
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/html; charset=utf-8"), (b"vary", VARY.encode())],
        }
    )
    await send({"type": "http.response.body", "body": html.encode("utf-8")})
