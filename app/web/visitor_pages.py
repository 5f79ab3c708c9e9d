"""ASGI middleware: a visitor's lesson page straight from the cache, before any routing."""

from __future__ import annotations

from starlette.datastructures import State
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.content import paths
from app.platform.sessions import SESSION_COOKIE
from app.web.page_cache import lesson_page_key, respond

LESSON_PREFIX = paths.LESSONS_PREFIX  # the lesson route's shape, from its one home
SESSION_COOKIE_NAME = SESSION_COOKIE.encode()


class VisitorPages:
    """Answers ``GET /licoes/<slug>`` without a query string, from a browser with no session
    cookie, when that page is in ``state.visitor_pages`` for the current course version.

    It sits just inside asgi-csrf (which gives the request its token). Anything else, and
    every first request for a page, goes on to the lesson route, which renders and keeps it.
    """

    def __init__(self, app: ASGIApp, state: State) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if _eligible(scope):
            request = Request(scope)
            course = self.state.live_course.current()
            key = lesson_page_key(scope["path"][len(LESSON_PREFIX) :], request)
            page = self.state.visitor_pages.peek(course, key)
            if page is not None:
                await respond(request, page)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _eligible(scope: Scope) -> bool:
    if scope["type"] != "http" or scope["method"] != "GET" or scope["query_string"]:
        return False
    path = scope["path"]
    if not path.startswith(LESSON_PREFIX) or "/" in path[len(LESSON_PREFIX) :]:
        return False
    for name, value in scope["headers"]:
        if name == b"cookie" and SESSION_COOKIE_NAME + b"=" in value:
            return False
    return True
