"""Every path of the site from its named routes, as datasette's ``Urls`` does (``url_builder.py``).

``create_app`` keeps one :class:`Urls` on ``app.state.urls``; templates have it as the
``urls`` global, routes and middleware reach it with :func:`urls_of` or the app's state.
Nobody writes ``/licoes/...``: ``tests/test_urls.py`` fails on a literal route path in a
template or in the web kit. Links baked into rendered lesson HTML, below the web floor,
are spelled in :mod:`app.content.paths`, and the same test checks both agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote, urlencode

from starlette.requests import HTTPConnection
from starlette.routing import NoMatchFound

from app.content.page_ids import question_anchor, tree_anchor


def safe_return_path(path: str) -> str:
    """``path`` when it is a path on this site, else ``/`` (never another host)."""
    if path.startswith("/") and not path.startswith(("//", "/\\")):
        return path
    return "/"


if TYPE_CHECKING:
    from app.learning.trees import TreeView

# The nav's links: a page under one of these routes marks that link as current.
NAV_SECTIONS = {
    "lessons": ("home", "lesson"),
    "trees": ("trees",),
    "glossary": ("glossary",),
    "review": ("review",),
    "progress": ("progress",),
    "account": ("account", "my_data"),
}


class _RouteTable(Protocol):
    @property
    def routes(self) -> list[Any]: ...

    def url_path_for(self, name: str, /, **path_params: Any) -> Any: ...


class Urls:
    """Paths on this site (no scheme or host). Routes may be added after it is built: each
    route's shape is read from the app on first use, then kept."""

    def __init__(self, app: _RouteTable) -> None:
        self._app = app
        self._shapes: dict[tuple[str, tuple[str, ...]], str] = {}
        self._prefixes: dict[str, str] = {}

    def _shape(self, name: str, params: Iterable[str]) -> str:
        key = (name, tuple(sorted(params)))
        shape = self._shapes.get(key)
        if shape is None:
            placeholders = {p: "{" + p + "}" for p in key[1]}
            shape = self._shapes[key] = str(self._app.url_path_for(name, **placeholders))
        return shape

    def path(self, name: str, /, **params: object) -> str:
        """The path of the route ``name``, each parameter percent-encoded as one segment.

        Raises ``starlette.routing.NoMatchFound`` for an unknown name or wrong parameters.
        """
        return self._shape(name, params).format(
            **{p: quote(str(v), safe="") for p, v in params.items()}
        )

    def with_anchor(self, name: str, anchor: str | None, /, **params: object) -> str:
        """``path(name, **params)#anchor``; no ``#`` when ``anchor`` is empty."""
        return self.path(name, **params) + (f"#{anchor}" if anchor else "")

    def with_query(
        self,
        name: str,
        query: Mapping[str, object] | None,
        anchor: str | None = "",
        /,
        **params: object,
    ) -> str:
        """``path(name, **params)?query#anchor``; no ``?`` when ``query`` is empty."""
        tail = f"?{urlencode(query)}" if query else ""
        return self.path(name, **params) + tail + (f"#{anchor}" if anchor else "")

    def question(
        self,
        slug: str,
        question_id: str,
        retry: bool = False,
        also: Mapping[str, str] | None = None,
    ) -> str:
        """A question on its lesson's page; ``retry`` asks for its form empty (``?refazer=``);
        ``also``: more of the query (the page's LTI launch)."""
        query = {**({"refazer": question_id} if retry else {}), **(also or {})}
        return self.with_query("lesson", query, question_anchor(question_id), slug=slug)

    def tree_at(self, tree_id: str, values: Iterable[str]) -> str:
        """A tree's page after the walk ``values`` (``?c=a,b``, commas kept readable)."""
        return f"{self.path('tree', tree_id=tree_id)}?c={quote(','.join(values), safe=',')}"

    def walk(self, view: TreeView, values: tuple[str, ...], notice: str = "") -> str:
        """The page that shows ``view``'s tree after ``values``: its lesson's, else its own."""
        query = view.page_query(values, notice)
        if view.lesson_slug:
            anchor = tree_anchor(view.tree.id)
            return self.with_query("lesson", query, anchor, slug=view.lesson_slug)
        return self.with_query("tree", query, tree_id=view.tree.id)

    def prefix(self, name: str) -> str:
        """What every path of the route ``name`` starts with: its shape up to its first
        parameter (``lesson`` → ``/licoes/``)."""
        found = self._prefixes.get(name)
        if found is None:
            route = next((r for r in every_route(self._app.routes) if r.name == name), None)
            if route is None:
                raise NoMatchFound(name, {})
            shape = self._shape(name, getattr(route, "param_convertors", {}))
            found = self._prefixes[name] = shape.partition("{")[0]
        return found

    def nav_section(self, path: str) -> str:
        """The key of :data:`NAV_SECTIONS` whose link ``path`` belongs under, or ``""``."""
        if path == self.path("home"):
            return "lessons"
        for section, names in NAV_SECTIONS.items():
            if any(name != "home" and path.startswith(self.prefix(name)) for name in names):
                return section
        return ""


def every_route(routes: Iterable[Any]) -> Iterator[Any]:
    """Every route and mount of a route table, through FastAPI's included routers."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from every_route(inner.routes)
        else:
            yield route


def urls_of(connection: HTTPConnection) -> Urls:
    """The app's :class:`Urls` (``app.state.urls``)."""
    return connection.app.state.urls
