"""Lesson pages rendered once with their holes and kept by key, and the responses made of them.

A page is kept as a :class:`~app.web.splice.SplicedPage`: rendered with holes where the
reader's CSRF token, the forms' key prefix and their issued time (signed with the lesson) go
(:func:`render_page`), compressed once, and filled per response (:func:`respond`). One class,
:class:`KeyedPages`, holds them for the current course version, with two policies (both in the
app's state):

- ``visitor_pages``: every lesson × theme, rendered once per course version even when many
  requests miss at once (a class of 200 opening the same lesson renders it once). The
  front door (:class:`~app.web.front_door.FrontDoor`) answers from it before routing.
- ``learner_pages``: keyed also by the learner's state stamp
  (:attr:`app.learning.usecases.OpenedLesson.stamp`), so a learner's page is rendered again
  only when what it shows moved; the least recently used go past 256 pages (``cachetools``),
  so memory stays bounded however many learners come.

Both the middleware and the lesson route name a page with :func:`lesson_page_key`. The
``ETag`` is the page's digest plus a digest of the token, so a browser revalidating with the
same CSRF cookie gets ``304 Not Modified`` and keeps a page whose token still matches.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from collections.abc import Callable, Hashable, MutableMapping
from typing import Any

from cachetools import LRUCache
from starlette.requests import Request
from starlette.responses import Response

from app.learning.usecases import issued_token
from app.platform.sessions import VISIT_COOKIE
from app.web.cookies import set_cookie
from app.web.fragments import render_with_token_hole
from app.web.splice import SplicedPage, chosen_encoding, new_form_key_prefix, with_key_holes
from app.web.templating import (
    HTML_CACHE,
    TIMEZONE_COOKIE,
    VARY,
    account_name,
    from_lms,
    not_modified,
    theme,
)

LEARNER_PAGES = 256
# Sent with every cached lesson page (private: each carries its reader's token).
CACHED_PAGE_HEADERS = {"Vary": f"{VARY}, Cookie, Accept-Encoding", "Cache-Control": HTML_CACHE}


class KeyedPages:
    """Spliced pages by key, for the course version they were built from; a new course
    version (identity: a reload makes a new one) empties it.

    ``max_pages=None`` keeps every page of the version (a visitor page per lesson and
    theme); a number keeps that many, the least recently used going first.
    """

    def __init__(self, max_pages: int | None = None) -> None:
        self.course: object | None = None
        self.pages: MutableMapping[Hashable, SplicedPage] = (
            {} if max_pages is None else LRUCache(maxsize=max_pages)
        )
        # Rendering happens under it, at most once per key (one render for many misses).
        self.lock = threading.Lock()

    def peek(self, course: object, key: Hashable) -> SplicedPage | None:
        """The page for ``key`` built from ``course``, or ``None``."""
        with self.lock:  # an LRU read reorders its entries
            return self.pages.get(key) if self.course is course else None

    def get(self, course: object, key: Hashable, render: Callable[[], bytes]) -> SplicedPage:
        """The page for ``key``, made from ``render()`` (HTML with its holes) on a miss."""
        with self.lock:
            if self.course is not course:
                self.pages.clear()
                self.course = course
            page = self.pages.get(key)
            if page is None:
                page = self.pages[key] = SplicedPage(render())
            return page


def lesson_page_key(slug: str, request: Request, stamp: tuple[object, ...] = ()) -> tuple:
    """A lesson page's key: the lesson and the theme; for a learner (a ``stamp`` of their
    state, :attr:`app.learning.usecases.OpenedLesson.stamp`), also their time zone, in which
    the page shows dates, and what the header says of the session (the name shown, and
    whether an LMS launch opened it: "Abrir em nova aba")."""
    if not stamp:
        return (slug, theme(request))
    zone = request.cookies.get(TIMEZONE_COOKIE, "")
    return (slug, theme(request), zone, account_name(request), from_lms(request), *stamp)


def render_page(request: Request, name: str, context: dict[str, Any]) -> bytes:
    """Template ``name`` as the caches keep it: the token hole, and each quiz form's key made
    of the key-prefix hole and the form's position, its ``emitida`` the issued-time hole
    (:func:`app.web.splice.with_key_holes`)."""
    env = request.app.state.templates.env
    return with_key_holes(render_with_token_hole(env, name, context, request).encode())


def cached_page(
    request: Request,
    pages: KeyedPages,
    course: object,
    key: tuple,
    context: Callable[[], dict[str, Any]],
) -> Response:
    """The response for the cached ``lesson.html`` at ``key`` (:func:`lesson_page_key`: the
    lesson's slug first), rendered from ``context()`` on a miss (so a hit builds no page)."""
    page = pages.get(course, key, lambda: render_page(request, "lesson.html", context()))
    return respond(request, page, key[0])


VISIT_MAX_AGE_S = 365 * 24 * 3600  # as long as a session lives


def respond(request: Request, page: SplicedPage, slug: str) -> Response:
    """The reader's response to the page of the lesson ``slug``: their token, a new form-key
    prefix and the forms' issued time (now, signed for that lesson) spliced in, or ``304``
    when their copy is current.

    Taking the token (``scope["csrftoken"]``) makes the front door set the cookie for a
    visitor who has none. A browser without the visit cookie (:data:`VISIT_COOKIE`) gets one,
    with the whole page (never a 304): its answer forms' first answer is bound to it.
    """
    token = request.scope["csrftoken"]().encode()
    etag = f'W/"{page.digest}-{hashlib.blake2b(token, digest_size=6).hexdigest()}"'
    headers = {**CACHED_PAGE_HEADERS, "ETag": etag}
    has_visit = VISIT_COOKIE in request.cookies
    unchanged = not_modified(request, etag, headers) if has_visit else None
    if unchanged is not None:
        return unchanged
    encoding = chosen_encoding(request.headers.get("accept-encoding", ""))
    if encoding.name:
        headers["Content-Encoding"] = encoding.name
    issued = issued_token(request.app.state.secret.encode(), slug).encode()
    body = encoding.build(page, token, new_form_key_prefix(), issued)
    response = Response(body, headers=headers, media_type="text/html")
    if not has_visit:
        set_cookie(
            response,
            VISIT_COOKIE,
            secrets.token_urlsafe(16),
            max_age=VISIT_MAX_AGE_S,
            secure=request.app.state.settings.secure_cookies,
        )
    return response
