"""Rendering with a token hole, and the tree widget's fragments rendered once and reused.

HTML kept for more than one reader is rendered with :data:`~app.web.splice.TOKEN_HOLE` where
the reader's CSRF token goes (:func:`render_with_token_hole`): the lesson pages of
:mod:`app.web.page_cache` and the tree widgets here. A page fills its hole per response
(:mod:`app.web.splice`); a widget fills it when it goes into a page, and inside a cached
page's own render the widget's hole is filled with the hole, so the page's splice covers it.

A tree's widget (its walk, its map and its outline) depends only on the tree, the point
of the walk, the lesson that embeds it and its heading level, yet drawing the map costs
more than the rest of a lesson page (the profile in the README). Each combination is
rendered once; the cache is bounded, and a reloaded tree is a new key.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from jinja2 import Environment
from markupsafe import Markup
from starlette.requests import Request

from app.web.splice import TOKEN_HOLE

MAX_ENTRIES = 2048
# A request that carries nothing but the hole: what a fragment shared by every reader sees.
_NO_REQUEST_SCOPE: dict[str, Any] = {"type": "http", "headers": [], "query_string": b""}


def _hole() -> str:
    return TOKEN_HOLE


def render_with_token_hole(
    env: Environment, name: str, context: dict[str, Any], request: Request | None = None
) -> str:
    """Template ``name`` with :data:`~app.web.splice.TOKEN_HOLE` where the CSRF token goes.

    The template sees ``request`` (its cookies, URL and app) with only the token changed;
    without one, a request with no cookies and no headers, for a fragment that must be the
    same for every reader.
    """
    scope = request.scope if request is not None else _NO_REQUEST_SCOPE
    holed = Request({**scope, "csrftoken": _hole})
    return env.get_template(name).render({**context, "request": holed})


class RenderedTrees:
    """A bounded, thread-safe cache of rendered ``_tree_widget.html`` fragments.

    Args:
        max_entries: how many renders to keep (least recently used go first).
    """

    def __init__(self, env: Environment, max_entries: int = MAX_ENTRIES) -> None:
        self.env = env
        self.max_entries = max_entries
        self._cache: OrderedDict[tuple, tuple[Any, str]] = OrderedDict()
        self._lock = threading.Lock()

    def html(self, request: Any, view: Any, heading: str = "") -> Markup:
        """The widget for ``view`` (a ``TreeView``) with ``request``'s CSRF token (none without
        a request); ``heading`` is the tree title's tag (``h1``…), ``""`` for the default."""
        key = (id(view.tree), view.walk.values, view.lesson_slug, view.error, heading)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and hit[0] is view.tree:
                self._cache.move_to_end(key)
                rendered = hit[1]
            else:
                rendered = None
        if rendered is None:
            context = {"view": view, **({"heading": heading} if heading else {})}
            rendered = render_with_token_hole(self.env, "_tree_widget.html", context)
            with self._lock:
                # The tree is kept with its render, so its id cannot be reused by another tree.
                self._cache[key] = (view.tree, rendered)
                while len(self._cache) > self.max_entries:
                    self._cache.popitem(last=False)
        getter = request.scope.get("csrftoken") if request is not None else None
        return Markup(rendered.replace(TOKEN_HOLE, getter() if getter else ""))
