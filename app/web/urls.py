"""Every URL of the site from one object, as datasette's ``Urls`` does (``url_builder.py``).

``create_app`` builds one :class:`Urls` for the app, keeps it on ``app.state.urls`` and hands
it to the templates as the ``urls`` global; routers reach it with :func:`urls_of`. Templates
and code ask it for every path (``urls.lesson(slug)``, ``urls.question(slug, qid)``,
``urls.tree(tree_id)``...) instead of writing ``/licoes/...`` themselves:
``tests/test_urls.py`` fails on a template that holds a literal route path.

Paths come from the named routes (``app.url_path_for``), worked out once per route and kept.
The shapes the floors below web need (a lesson, a tree, a glossary term) are spelled in
:mod:`app.content.paths`; :meth:`Urls.lesson` and its kin use the named routes, and
``tests/test_urls.py`` checks that both agree. The anchors on a page come from
:mod:`app.content.page_ids`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol
from urllib.parse import quote, urlencode

from starlette.requests import HTTPConnection

from app.content.page_ids import question_anchor

# Where the nav's links live: a page under one of these paths marks that link as current.
NAV_SECTIONS = {
    "lessons": ("home", "lesson"),
    "trees": ("trees",),
    "glossary": ("glossary",),
    "review": ("review",),
    "progress": ("progress",),
    "account": ("account", "my_data"),
}


class _PathFor(Protocol):
    def url_path_for(self, name: str, /, **path_params: Any) -> Any: ...


def _segment(value: object) -> str:
    return quote(str(value), safe="")


class Urls:
    """One method per kind of page, each returning a path on this site (no scheme or host).

    Args:
        app: the app (anything with Starlette's ``url_path_for``); routes may be added after
            the object is built, since each route's shape is read on first use.
    """

    def __init__(self, app: _PathFor) -> None:
        self._app = app
        self._shapes: dict[tuple[str, tuple[str, ...]], str] = {}

    def path(self, name: str, **params: object) -> str:
        """The path of the route called ``name``, with its path parameters filled in.

        Args:
            name: the route's name (``name=`` on its decorator, else its function's name).
            **params: the route's path parameters; each is percent-encoded as one segment.

        Returns:
            The path, e.g. ``path("class_page", class_id=3)`` → ``/instrutor/turmas/3``.

        Raises:
            starlette.routing.NoMatchFound: no route has that name and those parameters.
        """
        key = (name, tuple(sorted(params)))
        shape = self._shapes.get(key)
        if shape is None:
            shape = str(self._app.url_path_for(name, **{p: "{" + p + "}" for p in params}))
            self._shapes[key] = shape
        return shape.format(**{p: _segment(v) for p, v in params.items()})

    def _with(self, path: str, query: dict[str, object] | None = None, anchor: str = "") -> str:
        tail = f"?{urlencode(query)}" if query else ""
        return path + tail + (f"#{anchor}" if anchor else "")

    # --- learners' pages ------------------------------------------------------------------

    def home(self) -> str:
        """The lesson index (the home page).

        Returns:
            ``/``.
        """
        return self.path("home")

    def lesson(self, slug: str, anchor: str = "", query: dict[str, object] | None = None) -> str:
        """A lesson's page.

        Args:
            slug: the lesson's slug.
            anchor: an id on the page (without ``#``) to scroll to; ``""`` for none.
            query: query parameters, or ``None``.

        Returns:
            ``/licoes/<slug>``, then ``?query`` and ``#anchor`` when given.
        """
        return self._with(self.path("lesson", slug=slug), query, anchor)

    def question(self, slug: str, question_id: str) -> str:
        """A question on its lesson's page.

        Args:
            slug: the lesson's slug.
            question_id: the question's id.

        Returns:
            ``/licoes/<slug>#pergunta-<question_id>``.
        """
        return self.lesson(slug, question_anchor(question_id))

    def question_retry(self, slug: str, question_id: str) -> str:
        """A question on its lesson's page, with its form empty again (``?refazer=``).

        Args:
            slug: the lesson's slug.
            question_id: the question's id.

        Returns:
            ``/licoes/<slug>?refazer=<question_id>#pergunta-<question_id>``.
        """
        return self.lesson(slug, question_anchor(question_id), {"refazer": question_id})

    def question_fragment(self, slug: str, question_id: str, retry: bool = False) -> str:
        """A question alone (the htmx fragment); also where its answers are posted.

        Args:
            slug: the lesson's slug.
            question_id: the question's id.
            retry: ask for the form empty again (``?refazer=1``).

        Returns:
            ``/licoes/<slug>/perguntas/<question_id>``, with ``?refazer=1`` when ``retry``.
        """
        path = self.path("question", slug=slug, question_id=question_id)
        return self._with(path, {"refazer": 1} if retry else None)

    def calculator(self, slug: str, calculator_id: str) -> str:
        """A calculator's result for the values in the query (the htmx fragment).

        Args:
            slug: the lesson's slug.
            calculator_id: the calculator's id.

        Returns:
            ``/licoes/<slug>/calculadoras/<calculator_id>``.
        """
        return self.path("calculator", slug=slug, calculator_id=calculator_id)

    def trees(self) -> str:
        """The list of decision trees.

        Returns:
            ``/arvores``.
        """
        return self.path("trees")

    def tree(self, tree_id: str, values: Iterable[str] | None = None) -> str:
        """A decision tree's page, optionally at a point of a walk.

        Args:
            tree_id: the tree's id.
            values: the answers chosen so far (``?c=a,b``), or ``None`` for the start.

        Returns:
            ``/arvores/<tree_id>``, with ``?c=<values joined by commas>`` when ``values``
            is given (even empty).
        """
        path = self.path("tree", tree_id=tree_id)
        if values is None:
            return path
        return f"{path}?c={quote(','.join(values), safe=',')}"

    def tree_step(self, tree_id: str) -> str:
        """Where a step of a tree's walk is posted.

        Args:
            tree_id: the tree's id.

        Returns:
            ``/arvores/<tree_id>/passo``.
        """
        return self.path("tree_step", tree_id=tree_id)

    def compare(self, anchor: str = "") -> str:
        """The page that compares the guides side by side.

        Args:
            anchor: an id on the page (without ``#``), or ``""``.

        Returns:
            ``/arvores/comparar``, then ``#anchor`` when given.
        """
        return self._with(self.path("compare"), anchor=anchor)

    def glossary(self) -> str:
        """The glossary.

        Returns:
            ``/glossario``.
        """
        return self.path("glossary")

    def glossary_term(self, term_slug: str) -> str:
        """A term's entry in the glossary.

        Args:
            term_slug: the term's slug (its id on the glossary page).

        Returns:
            ``/glossario#<term_slug>``.
        """
        return self._with(self.glossary(), anchor=term_slug)

    def search(self, q: str = "") -> str:
        """The search page, with the results for ``q`` when given.

        Args:
            q: the query; ``""`` for the empty page.

        Returns:
            ``/busca``, with ``?q=<q>`` when ``q`` is given.
        """
        return self._with(self.path("search"), {"q": q} if q else None)

    def progress(self) -> str:
        """The learner's progress page.

        Returns:
            ``/progresso``.
        """
        return self.path("progress")

    def review(self) -> str:
        """The spaced review page (the next question due).

        Returns:
            ``/revisar``.
        """
        return self.path("review")

    def review_answer(self, slug: str, question_id: str) -> str:
        """Where a review answer is posted, and the page of that answer graded.

        Args:
            slug: the lesson's slug.
            question_id: the question's id.

        Returns:
            ``/revisar/<slug>/<question_id>``.
        """
        return self.path("review_answer", slug=slug, question_id=question_id)

    def account(self, next_page: str = "") -> str:
        """The account page (sign in, create an account, sign out).

        Args:
            next_page: the path to come back to once signed in (``?proximo=``), or ``""``.

        Returns:
            ``/conta``, with ``?proximo=<next_page>`` when given.
        """
        return self._with(self.path("account"), {"proximo": next_page} if next_page else None)

    def my_data(self) -> str:
        """The page of what is kept about the learner.

        Returns:
            ``/meus-dados``.
        """
        return self.path("my_data")

    def my_data_export(self) -> str:
        """Everything kept about the learner, as JSON (route ``export`` of the data API).

        Returns:
            ``/meus-dados/exportar``.
        """
        return self.path("export")

    def theme(self) -> str:
        """Where the theme switch posts.

        Returns:
            ``/tema``.
        """
        return self.path("theme")

    def class_join(self, code: str) -> str:
        """The page (and form target) that joins a class by its code.

        Args:
            code: the class's join code.

        Returns:
            ``/turmas/entrar/<code>``.
        """
        return self.path("class_join_page", code=code)

    # --- instructors' pages ---------------------------------------------------------------

    def instructor(self, query: dict[str, object] | None = None) -> str:
        """The instructor dashboard.

        Args:
            query: query parameters (``turma``), or ``None``.

        Returns:
            ``/instrutor``, then ``?query`` when given.
        """
        return self._with(self.path("instructor_dashboard"), query)

    def instructor_lesson(self, slug: str, anchor: str = "") -> str:
        """A lesson previewed with its key.

        Args:
            slug: the lesson's slug.
            anchor: an id on the page (without ``#``), or ``""``.

        Returns:
            ``/instrutor/licoes/<slug>``, then ``#anchor`` when given.
        """
        return self._with(self.path("instructor_preview", slug=slug), anchor=anchor)

    def lesson_editor(self, slug: str) -> str:
        """A lesson's editor (also where the edited text is posted).

        Args:
            slug: the lesson's slug.

        Returns:
            ``/instrutor/licoes/<slug>/editar``.
        """
        return self.path("lesson_editor", slug=slug)

    def lesson_history(self, slug: str) -> str:
        """A lesson's published versions.

        Args:
            slug: the lesson's slug.

        Returns:
            ``/instrutor/licoes/<slug>/historico``.
        """
        return self.path("lesson_history", slug=slug)

    def lesson_new(self) -> str:
        """The form that starts a new lesson.

        Returns:
            ``/instrutor/licoes/nova``.
        """
        return self.path("lesson_new")

    def image_upload(self) -> str:
        """The form that sends an image for the lessons.

        Returns:
            ``/instrutor/imagens``.
        """
        return self.path("image_upload")

    def classes(self) -> str:
        """The instructor's classes.

        Returns:
            ``/instrutor/turmas``.
        """
        return self.path("classes")

    def class_page(self, class_id: int) -> str:
        """A class's page.

        Args:
            class_id: the class's id.

        Returns:
            ``/instrutor/turmas/<class_id>``.
        """
        return self.path("class_page", class_id=class_id)

    def export_attempts(self, query: dict[str, object] | None = None) -> str:
        """The attempts as CSV.

        Args:
            query: query parameters (``turma``), or ``None``.

        Returns:
            ``/instrutor/exportar/tentativas.csv``, then ``?query`` when given.
        """
        return self._with(self.path("export_attempts"), query)

    def export_progress(self, query: dict[str, object] | None = None) -> str:
        """The learners' progress as CSV.

        Args:
            query: query parameters (``turma``), or ``None``.

        Returns:
            ``/instrutor/exportar/progresso.csv``, then ``?query`` when given.
        """
        return self._with(self.path("export_progress"), query)

    def export_gift(self) -> str:
        """The question bank in Moodle's GIFT format.

        Returns:
            ``/instrutor/exportar/questoes.gift``.
        """
        return self.path("export_gift")

    # --- the nav --------------------------------------------------------------------------

    def nav_section(self, path: str) -> str:
        """Which link of the site's nav a page belongs to, for its ``aria-current``.

        Args:
            path: the page's path (``request.url.path``).

        Returns:
            ``lessons``, ``trees``, ``glossary``, ``review``, ``progress`` or ``account``
            (keys of :data:`NAV_SECTIONS`); ``""`` for a page under none of them.
        """
        if path == self.home():
            return "lessons"
        for section, names in NAV_SECTIONS.items():
            for name in names:
                if name == "home":
                    continue
                base = self._prefix(name)
                if path.startswith(base):
                    return section
        return ""

    def _prefix(self, name: str) -> str:
        """The path a route's pages start with (``/licoes/{slug}`` → ``/licoes``)."""
        if name == "lesson":
            return self.path("lesson", slug="x").rsplit("/", 1)[0]
        return self.path(name)


def urls_of(request: HTTPConnection) -> Urls:
    """The app's :class:`Urls`, for a route or a helper that has the request.

    Args:
        request: the current request.

    Returns:
        ``request.app.state.urls``, built by ``create_app``.
    """
    return request.app.state.urls
