"""ASGI middleware: a visitor's lesson page straight from the cache, before any routing."""

from __future__ import annotations

from starlette.datastructures import State
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.platform.sessions import SESSION_COOKIE
from app.web.page_cache import lesson_page_key, respond

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
        self.lesson_prefix = state.urls.prefix("lesson")  # the stack is built after the routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if _eligible(scope, self.lesson_prefix):
            request = Request(scope)
            course = self.state.live_course.current()
            key = lesson_page_key(scope["path"][len(self.lesson_prefix) :], request)
            page = self.state.visitor_pages.peek(course, key)
            if page is not None:
                await respond(request, page)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _eligible(scope: Scope, lesson_prefix: str) -> bool:
    if scope["type"] != "http" or scope["method"] != "GET" or scope["query_string"]:
        return False
    path = scope["path"]
    if not path.startswith(lesson_prefix) or "/" in path[len(lesson_prefix) :]:
        return False
    for name, value in scope["headers"]:
        if name == b"cookie" and SESSION_COOKIE_NAME + b"=" in value:
            return False
    return True
