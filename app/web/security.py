"""The rules of the front door (:mod:`app.web.front_door`) for a state-changing request.

Each check reads the request's headers (:class:`Post`) and returns a refusal (a status and a
message in the reader's language) or ``None``; the front door answers the first refusal.

CSRF (``ARCHITECTURE.md``, "CSRF"): two layers, both checked on every state-changing request
but the LTI login and launch.

- Fetch Metadata, as Go 1.25's ``http.CrossOriginProtection``: ``Sec-Fetch-Site`` must be
  ``same-origin`` or ``none``; a browser that does not send it must send no ``Origin``, or one
  whose host is the request's ``Host`` (:func:`from_another_site`).
- A signed double-submit token (:class:`CsrfTokens`): the ``x-csrftoken`` header (htmx) or the
  ``csrftoken`` form field (plain forms) must equal the ``csrftoken`` cookie, signed with the
  app's secret by itsdangerous (the format asgi-csrf used, so tokens in open pages and cached
  pages stay valid).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import parse_qsl

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.datastructures import Headers
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.types import Message, Receive, Scope

from app.i18n import N_, gettext
from app.web.errors import EXPIRED_MESSAGE
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
# The double-submit token: cookie, form field, header, and the salt it is signed with.
CSRF_FIELD = "csrftoken"
CSRF_HEADER = b"x-csrftoken"
CSRF_NAMESPACE = "csrftoken"
# RFC 6265, section 4.1.1: cookie-name is a token; cookie-value is cookie-octets, maybe quoted.
_COOKIE_OCTETS = rb"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*"
COOKIE_PAIR = re.compile(
    rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+=(?:" + _COOKIE_OCTETS + rb'|"' + _COOKIE_OCTETS + rb'")'
)


def lti_cross_site_posts(urls: Urls) -> frozenset[str]:
    """The paths of :data:`LTI_CROSS_SITE_POSTS`."""
    return frozenset(urls.path(name) for name in LTI_CROSS_SITE_POSTS)


def is_lti_cross_site_post(scope: Scope, lti_posts: Collection[str]) -> bool:
    """True for a POST to one of ``lti_posts`` (:func:`lti_cross_site_posts`), and only them."""
    return scope.get("method") == "POST" and scope.get("path") in lti_posts


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
    """A POST another site started, LTI's two aside (Go 1.25's ``CrossOriginProtection``).

    ``Sec-Fetch-Site`` (every browser since 2023) must be ``same-origin`` or ``none``. Without
    it, an ``Origin`` header must name the request's own host (``null`` names none); a request
    with neither is not from a browser that another page could drive, and passes on to the
    token check.
    """
    if post.lti_post:
        return None
    site = post.headers.get(b"sec-fetch-site")
    if site is not None:
        return forbidden() if site in OTHER_SITES else None
    origin = post.headers.get(b"origin")
    if origin is None:
        return None
    scheme, separator, host = origin.partition(b"://")
    own = post.headers.get(b"host", b"")
    if separator and scheme and host and host.lower() == own.lower():
        return None
    return forbidden()


def unknown_body(post: Post) -> Refusal | None:
    """A body that is neither a URL-encoded form nor JSON (nor the image upload): 415."""
    if post.content_type not in ACCEPTED_BODIES and not post.upload:
        return 415, gettext(WRONG_FORM)
    return None


def upload_without_boundary(post: Post) -> Refusal | None:
    """An upload whose boundary is not written ``; boundary=`` once: 400."""
    raw = post.headers.get(b"content-type", b"")
    if post.upload and (raw.count(b"; boundary=") != 1 or raw.endswith(b"boundary=")):
        return 400, gettext(WRONG_FORM)
    return None


def declared_too_large(post: Post) -> Refusal | None:
    """A ``Content-Length`` over the limit, refused before any of the body is read."""
    declared = post.headers.get(b"content-length", b"")
    return post.too_large() if declared.isdigit() and int(declared) > post.limit else None


# Checked in this order, on the headers alone; the first refusal answers.
HEADER_CHECKS = (from_another_site, unknown_body, upload_without_boundary, declared_too_large)


async def read_body(receive: Receive, post: Post) -> tuple[list[Message], bytes, Refusal | None]:
    """The body's messages and bytes, read once, up to the limit (413 past it); a form that is
    not UTF-8 is 400 (the upload is binary and is read by its own parser)."""
    messages: list[Message] = []
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if size > post.limit:
            return messages, b"", post.too_large()
        if not message.get("more_body"):
            break
    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if not post.upload:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return messages, body, (400, gettext("The form is not in UTF-8."))
    return messages, body, None


class CsrfTokens:
    """Signs and checks the double-submit token (itsdangerous, salt :data:`CSRF_NAMESPACE`)."""

    def __init__(self, secret: str) -> None:
        self.signer = URLSafeSerializer(secret)

    def is_valid(self, cookie: str | None) -> bool:
        """True when ``cookie`` is a token this app signed."""
        if not cookie:
            return False
        try:
            self.signer.loads(cookie, CSRF_NAMESPACE)
        except BadSignature:
            return False
        return True

    def new(self) -> str:
        """A fresh signed token."""
        return self.signer.dumps(secrets.token_urlsafe(12), CSRF_NAMESPACE)


class RequestToken:
    """One request's token: ``scope["csrftoken"]``, called by the templates and the page cache.

    The browser's cookie when it is valid, else a new token, which the response then sets
    (:attr:`set_cookie`). A response that used the token varies by ``Cookie``.
    """

    __slots__ = ("tokens", "cookie", "_valid", "value", "used")

    def __init__(self, tokens: CsrfTokens, cookie: str | None) -> None:
        self.tokens = tokens
        self.cookie = cookie
        self._valid: bool | None = None
        self.value: str | None = None
        self.used = False

    def cookie_is_valid(self) -> bool:
        if self._valid is None:
            self._valid = self.tokens.is_valid(self.cookie)
        return self._valid

    def __call__(self) -> str:
        self.used = True
        if self.value is None:
            valid = self.cookie and self.cookie_is_valid()
            self.value = self.cookie if valid and self.cookie else self.tokens.new()
        return self.value

    @property
    def set_cookie(self) -> bool:
        """True when the response must give the browser the token it used."""
        return self.used and not self.cookie_is_valid()

    async def check(self, post: Post, body: bytes, messages: list[Message]) -> Refusal | None:
        """The CSRF 403 unless the request carries the cookie's token: in the header, else in
        the form field (the URL-encoded form, or the upload's multipart part)."""
        if post.lti_post:
            return None
        if not self.cookie or not self.cookie_is_valid():
            return forbidden()
        sent = post.headers.get(CSRF_HEADER)
        if sent is not None and secrets.compare_digest(sent, self.cookie.encode("ascii")):
            return None
        field: str | None = None
        if post.content_type == b"application/x-www-form-urlencoded":
            field = dict(parse_qsl(body.decode("utf-8"))).get(CSRF_FIELD)
        elif post.upload:
            field = await _multipart_field(post, messages)
        if field is not None and field.isascii() and secrets.compare_digest(field, self.cookie):
            return None
        return forbidden()


async def _multipart_field(post: Post, messages: list[Message]) -> str | None:
    """The upload's :data:`CSRF_FIELD` part (Starlette's parser), or ``None``."""

    async def chunks():
        for message in messages:
            yield message.get("body", b"")

    headers = Headers(raw=post.raw_headers)
    try:
        form = await MultiPartParser(headers, chunks(), max_files=1).parse()
    except MultiPartException:
        return None
    try:
        token = form.get(CSRF_FIELD)
    finally:
        await form.close()
    return token if isinstance(token, str) else None


def well_formed_cookies(
    headers: list[tuple[bytes, bytes]],
) -> tuple[list[tuple[bytes, bytes]] | None, bytes]:
    """Keep only the RFC 6265 pairs of the ``Cookie`` headers.

    Returns:
        The headers to put in the scope (``None`` when every pair complies: keep them as they
        are), and the kept pairs as one ``Cookie`` value. The course's own cookies always
        comply; Python's cookie parser would turn a quoted ``"\\000"`` into a NUL byte, which
        PostgreSQL refuses.
    """
    cleaned: list[tuple[bytes, bytes]] | None = None
    found: list[bytes] = []
    for index, (name, value) in enumerate(headers):
        if name != b"cookie":
            continue
        pairs = [pair.strip(b" \t") for pair in value.split(b";")]
        kept = [pair for pair in pairs if COOKIE_PAIR.fullmatch(pair)]
        if len(kept) != len([pair for pair in pairs if pair]):
            value = b"; ".join(kept)
            cleaned = cleaned if cleaned is not None else list(headers)
            cleaned[index] = (name, value)
        found.append(value)
    return cleaned, b"; ".join(found)
