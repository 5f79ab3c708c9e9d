"""Fragments rendered once and reused: the decision-tree widget.

A tree's widget (its walk, its map and its outline) depends only on the tree, the point
of the walk, the lesson that embeds it and its heading level, yet drawing the map costs
more than the rest of a lesson page (the profile in the README). Each combination is
rendered once, with a marker where the CSRF token goes; every request gets the cached
HTML with its own token put in. The cache is bounded, and a reloaded tree is a new key.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from types import SimpleNamespace
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

CSRF_MARK = "curso-csrf-token-placeholder"
MAX_ENTRIES = 2048
# What the cached render sees as ``request``: only ``csrf_token(request)`` reads it there.
_MARK_REQUEST = SimpleNamespace(scope={"csrftoken": lambda: CSRF_MARK}, cookies={})


class RenderedTrees:
    """A bounded, thread-safe cache of rendered ``_tree_widget.html`` fragments.

    Args:
        env: the app's Jinja2 environment.
        max_entries: how many renders to keep (least recently used go first).
    """

    def __init__(self, env: Environment, max_entries: int = MAX_ENTRIES) -> None:
        self.env = env
        self.max_entries = max_entries
        self._cache: OrderedDict[tuple, tuple[Any, str]] = OrderedDict()
        self._lock = threading.Lock()

    def html(self, request: Any, view: Any, heading: str = "") -> Markup:
        """The widget for ``view`` (a ``TreeView``) with ``request``'s CSRF token.

        Args:
            request: the request (its ``csrftoken`` from asgi-csrf), or ``None``.
            view: the tree at one point of its walk.
            heading: the tree title's heading tag (``h1``…), or ``""`` for the default.

        Returns:
            The widget's HTML, safe to insert.
        """
        key = (id(view.tree), view.walk.values, view.lesson_slug, view.error, heading)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and hit[0] is view.tree:
                self._cache.move_to_end(key)
                rendered = hit[1]
            else:
                rendered = None
        if rendered is None:
            context = {"view": view, "request": _MARK_REQUEST}
            if heading:
                context["heading"] = heading
            rendered = self.env.get_template("_tree_widget.html").render(context)
            with self._lock:
                # The tree is kept with its render, so its id cannot be reused by another tree.
                self._cache[key] = (view.tree, rendered)
                while len(self._cache) > self.max_entries:
                    self._cache.popitem(last=False)
        getter = request.scope.get("csrftoken") if request is not None else None
        return Markup(rendered.replace(CSRF_MARK, getter() if getter else ""))
