"""The front door: the one ASGI middleware every request crosses before routing.

In one pass, for each request:

1. reads the headers once, keeping only the RFC 6265 cookie pairs, and parses the cookies once
   (Starlette's ``cookie_parser``); ``HEAD`` is served as ``GET`` (the server drops the body);
2. gives the request its CSRF token (``scope["csrftoken"]``, a
   :class:`~app.web.security.RequestToken`);
3. answers a visitor's cached lesson page (``GET /licoes/<slug>``, no query, no session cookie)
   from ``state.visitor_pages``, before any routing;
4. on a state-changing request, refuses with the first failing rule of :mod:`app.web.security`
   (another site, body type, declared size), reads the body once (size, UTF-8), checks the
   CSRF token, and hands the buffered body on (replayed to the app's ``receive``, and as
   ``scope["curso.body"]``);
5. loads the session (:class:`~app.platform.sessions.SessionStore`) into ``scope["session"]``,
   a plain dict (``request.session``);
6. on the response's start: stores the session only when it changed (or its expiry is a day
   behind), sends ``Set-Cookie`` only then, adds the security headers (CSP, framing, HSTS),
   the CSRF cookie when a page used a new token, and ``X-Request-ID``; with registered LMSs,
   the CSP that lets them frame the pages and (over HTTPS) cookies that work inside their
   iframes;
7. writes one JSON log line (:func:`app.platform.logs.log_request`).
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import State
from starlette.requests import Request, cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.content.links import IMAGES_URL
from app.platform.logs import log_request
from app.platform.models import utcnow
from app.platform.sessions import (
    LEARNER_KEY,
    REQUEST_SESSION,
    SESSION_COOKIE,
    SESSION_MAX_AGE_S,
    RequestSession,
    SessionStore,
    is_session_id,
    needs_write,
    new_session_id,
)
from app.platform.settings import Settings
from app.web.cookies import CSRF_COOKIE, framed
from app.web.errors import error_html
from app.web.headers import security_headers
from app.web.page_cache import lesson_page_key, respond
from app.web.security import (
    EDITOR_ROUTE,
    HEADER_CHECKS,
    UPLOAD_ROUTE,
    CsrfTokens,
    GuardedPaths,
    Post,
    Refusal,
    RequestToken,
    lti_cross_site_posts,
    read_body,
    well_formed_cookies,
)
from app.web.templating import VARY

# Methods that change nothing: no body is read and no CSRF check runs.
SAFE_METHODS = frozenset({"GET", "OPTIONS"})
# Paths served without a session (files): no session read, no cookie.
SESSIONLESS = ("/static/", IMAGES_URL)
BODY_SCOPE_KEY = "curso.body"  # the buffered body of a state-changing request
MAX_REQUEST_ID = 64


class FrontDoor:
    """The ASGI middleware of the steps above, built once the routes exist (Starlette builds
    the stack on the first request).

    Args:
        state: the app's state: ``urls``, ``templates``, ``secret``, ``sessions``,
            ``lms_origins``, ``live_course`` and ``visitor_pages``.
        settings: ``secure_cookies`` marks every cookie ``Secure`` and sends HSTS.
    """

    def __init__(self, app: ASGIApp, state: State, settings: Settings) -> None:
        self.app = app
        self.state = state
        urls = state.urls
        self.paths = GuardedPaths(
            urls.path(UPLOAD_ROUTE), urls.prefix(EDITOR_ROUTE), lti_cross_site_posts(urls)
        )
        self.lesson_prefix = urls.prefix("lesson")
        self.templates = state.templates
        self.tokens = CsrfTokens(state.secret)
        self.sessions: SessionStore = state.sessions
        self.salt = state.secret.encode()
        self.secure = settings.secure_cookies
        self.lms_origins = state.lms_origins
        self.plain_headers = security_headers(self.secure)
        self._by_origins: dict[tuple[str, ...], list[tuple[bytes, bytes]]] = {}
        flags = b"; httponly; samesite=lax" + (b"; secure" if self.secure else b"")
        self._session_cookie = b"%s=%%s; path=/; max-age=%d%s" % (
            SESSION_COOKIE.encode(),
            SESSION_MAX_AGE_S,
            flags,
        )
        self._session_gone = (
            SESSION_COOKIE.encode() + b"=''; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT" + flags
        )
        self._csrf_cookie = b"%s=%%s; Path=/; SameSite=Lax%s" % (
            CSRF_COOKIE.encode(),
            b"; Secure" if self.secure else b"",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        scope = dict(scope)  # the server keeps its own: it drops the body of a HEAD
        request_id = ""
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        for name, value in headers:
            if name == b"x-request-id":
                request_id = value.decode("latin-1")
        if not (0 < len(request_id) <= MAX_REQUEST_ID and request_id.isprintable()):
            request_id = secrets.token_hex(8)
        cleaned, cookie_header = well_formed_cookies(headers)
        if cleaned is not None:
            scope["headers"] = headers = cleaned
        cookies = cookie_parser(cookie_header.decode("latin-1")) if cookie_header else {}
        if scope["method"] == "HEAD":
            scope["method"] = "GET"
        token = RequestToken(self.tokens, cookies.get(CSRF_COOKIE))
        scope["csrftoken"] = token
        response = _Response(self, scope, send, token, request_id)
        try:
            await self._handle(scope, receive, response, cookies)
        finally:
            log_request(
                request_id,
                scope["method"],
                scope["path"],
                response.status,
                time.perf_counter() - started,
                (scope.get("session") or {}).get(LEARNER_KEY),
                self.salt,
            )

    async def _handle(
        self, scope: Scope, receive: Receive, response: _Response, cookies: dict[str, str]
    ) -> None:
        path: str = scope["path"]
        method: str = scope["method"]
        if (
            method == "GET"
            and SESSION_COOKIE not in cookies
            and await self._visitor_page(scope, receive, response)
        ):
            return
        if method not in SAFE_METHODS:
            headers = [(k, v) for k, v in scope["headers"] if k != b"authorization"]
            scope["headers"] = headers  # the app has no token auth
            post = Post.of(scope, self.paths)
            refusal: Refusal | None = next(
                (r for check in HEADER_CHECKS if (r := check(post)) is not None), None
            )
            messages: list[Message] = []
            if refusal is None:
                messages, body, refusal = await read_body(receive, post)
            if refusal is None:
                refusal = await response.token.check(post, body, messages)
            if refusal is not None:
                await response.refuse(refusal)
                return
            scope[BODY_SCOPE_KEY] = body
            receive = _replay(messages, receive)
        if not path.startswith(SESSIONLESS):
            session_id = cookies.get(SESSION_COOKIE)
            stored = self.sessions.load(session_id) if is_session_id(session_id) else None
            session = RequestSession(self.sessions, session_id if stored else None, stored)
            scope["session"] = stored.fresh() if stored else {}
            scope[REQUEST_SESSION] = response.session = session
        await self.app(scope, receive, response.send)

    async def _visitor_page(self, scope: Scope, receive: Receive, response: _Response) -> bool:
        """Answer a visitor's lesson page from the cache; ``False`` when it is not there."""
        path: str = scope["path"]
        slug = path[len(self.lesson_prefix) :]
        if scope["query_string"] or not path.startswith(self.lesson_prefix) or "/" in slug:
            return False
        request = Request(scope)
        course = self.state.live_course.current()
        page = self.state.visitor_pages.peek(course, lesson_page_key(slug, request))
        if page is None:
            return False
        await respond(request, page, slug)(scope, receive, response.send)
        return True

    def security_headers(self) -> tuple[list[tuple[bytes, bytes]], bool]:
        """The security headers, and whether cookies must be framed (registered LMSs over
        HTTPS: ``SameSite=None; Partitioned``, :func:`app.web.cookies.framed`)."""
        origins = self.lms_origins() if self.lms_origins else ()
        if not origins:
            return self.plain_headers, False
        extra = self._by_origins.get(origins)
        if extra is None:
            extra = self._by_origins[origins] = security_headers(self.secure, origins)
        return extra, self.secure

    async def session_cookie(self, scope: Scope, session: RequestSession) -> bytes | None:
        """Store the request's session if it must be, and the ``Set-Cookie`` value to send:
        only for a new, rotated, renewed or ended session."""
        data: dict[str, Any] = scope["session"]
        if not data:
            if session.stored is None or session.rotated or session.id is None:
                return None
            await run_in_threadpool(self.sessions.remove_now, session.id)  # signing out
            return self._session_gone
        if not needs_write(session, data, utcnow()):
            if session.stored is not None and session.id and data != session.stored.data:
                self.sessions.keep_unwritten(session.id, session.stored, data)
            return None
        existed = session.stored is not None and not session.rotated
        session_id = session.id if existed and session.id else new_session_id()
        after = session.stored.expires_at if session.stored else None
        stored = await run_in_threadpool(self.sessions.save_now, session_id, data, existed, after)
        if stored is None:
            return None  # ended meanwhile (sign-out or erasure elsewhere): not brought back
        session.id = session_id
        return self._session_cookie % session_id.encode()


class _Response:
    """One request's ``send``: what the front door adds to the response's start, and what the
    log line reads back (the status)."""

    __slots__ = ("door", "scope", "downstream", "token", "request_id", "session", "status")

    def __init__(
        self, door: FrontDoor, scope: Scope, send: Send, token: RequestToken, request_id: str
    ) -> None:
        self.door = door
        self.scope = scope
        self.downstream = send
        self.token = token
        self.request_id = request_id
        self.session: RequestSession | None = None
        self.status = 500

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            message = await self._start(message)
        await self.downstream(message)

    async def _start(self, message: Message) -> Message:
        door = self.door
        headers = list(message.get("headers") or [])
        if self.session is not None:
            cookie = await door.session_cookie(self.scope, self.session)
            if cookie is not None:
                headers.append((b"set-cookie", cookie))
        if self.token.used:
            headers = _vary_cookie(headers)
            if self.token.set_cookie:
                value = self.token()
                headers.append((b"set-cookie", door._csrf_cookie % value.encode("ascii")))
        extra, frame = door.security_headers()
        present = {name for name, _ in headers}
        headers += [h for h in extra if h[0] not in present]
        headers.append((b"x-request-id", self.request_id.encode("latin-1")))
        if frame:
            headers = [(k, framed(v) if k == b"set-cookie" else v) for k, v in headers]
        self.status = message["status"]  # a save that failed above leaves the 500 logged
        return {**message, "headers": headers}

    async def refuse(self, refusal: Refusal) -> None:
        """Answer ``refusal`` (status, message in Portuguese) with the error page, or its
        fragment for htmx."""
        status, text = refusal
        html = error_html(self.door.templates, self.scope, status, text)
        await self.send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"vary", VARY.encode()),
                ],
            }
        )
        await self.send({"type": "http.response.body", "body": html.encode("utf-8")})


def _vary_cookie(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with ``Cookie`` in ``Vary``: the page carries the reader's token."""
    for index, (name, value) in enumerate(headers):
        if name == b"vary":
            if b"cookie" not in value.lower():
                headers[index] = (name, value + b", Cookie")
            return headers
    headers.append((b"vary", b"Cookie"))
    return headers


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """``receive`` that hands out the buffered ``messages`` first."""

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return replay
