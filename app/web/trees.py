"""Decision trees for learners: the walk with its map, the standalone page, the comparison."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.content.course import Course
from app.content.layout import Layout, layout
from app.content.trees import Tree
from app.content.walk import Walk, WalkError, walk_path
from app.deps import CourseDep, ExistingLearnerIdDep, LearnerIdDep, SessionDep
from app.i18n import N_, gettext
from app.store import record_walk
from app.web.compare import compare_context
from app.web.templating import VARY, render, wants_fragment

router = APIRouter()
TREE_NOT_FOUND = N_("Decision tree not found.")
BAD_PATH = N_("That path does not exist in this tree; we started again from the beginning.")
UNKNOWN_OPTION = N_("That option is not part of this question. Choose one of the options below.")


@dataclass(frozen=True)
class TreeView:
    """Everything ``_tree.html`` needs to draw one tree at one point of a walk.

    Attributes:
        tree: the tree.
        walk: where the learner stands.
        map: the map's layout.
        lesson_slug: the lesson that embeds it ("" on the standalone page).
        error: a message when the requested path was invalid.
    """

    tree: Tree
    walk: Walk
    map: Layout
    lesson_slug: str = ""
    error: str = ""

    def url(self, values: tuple[str, ...]) -> str:
        """The page URL that reproduces the walk after ``values``."""
        if self.lesson_slug:
            query = {"arvore": self.tree.id, **({"c": ",".join(values)} if values else {})}
            return f"/licoes/{self.lesson_slug}?{urlencode(query)}#arvore-{self.tree.id}"
        return f"/arvores/{self.tree.id}" + (f"?{urlencode({'c': ','.join(values)})}" if values else "")

    def fragment_url(self, values: tuple[str, ...]) -> str:
        """The URL htmx fetches to swap the widget to the walk after ``values``."""
        query = {"c": ",".join(values), "licao": self.lesson_slug}
        return f"/arvores/{self.tree.id}/widget?{urlencode(query)}"


def split_path(raw: str | None) -> tuple[str, ...]:
    """Turn ``"a,b"`` from the URL into ``("a", "b")``."""
    return tuple(v for v in (raw or "").split(",") if v)


def tree_view(tree: Tree, raw_path: str | None, lesson_slug: str = "") -> TreeView:
    """Walk ``tree`` along ``raw_path``; an invalid path restarts with a message."""
    try:
        return TreeView(tree, walk_path(tree, split_path(raw_path)), layout(tree), lesson_slug)
    except WalkError:
        return TreeView(tree, walk_path(tree, ()), layout(tree), lesson_slug, gettext(BAD_PATH))


def find_tree(course: Course, tree_id: str) -> Tree:
    """Return the tree or raise a 404 with a message in Portuguese."""
    tree = course.trees.get(tree_id)
    if tree is None:
        raise HTTPException(status_code=404, detail=gettext(TREE_NOT_FOUND))
    return tree


def _embedding_lesson(course: Course, tree: Tree, slug: str) -> str:
    return slug if slug and course.tree_lessons.get(tree.id) == slug else ""


@router.get("/arvores", response_class=HTMLResponse, name="trees")
async def trees_index(request: Request, course: CourseDep, learner_id: LearnerIdDep):
    """Every decision tree in the course, with links to walk or compare them."""
    rows = [(tree, course.get(course.tree_lessons[tree.id])) for tree in course.trees.values()]
    return render(request, "trees.html", {"rows": rows})


@router.get("/arvores/comparar", response_class=HTMLResponse, name="compare")
async def compare(request: Request, course: CourseDep, learner_id: LearnerIdDep):
    """Answer each facet once and see every guide's result side by side."""
    context = compare_context(course, dict(request.query_params))
    return render(request, "compare.html", context)


@router.get("/arvores/{tree_id}", response_class=HTMLResponse, name="tree")
async def tree_page(request: Request, tree_id: str, course: CourseDep, learner_id: LearnerIdDep,
              c: Annotated[str | None, Query(max_length=2000)] = None):
    """The standalone page of one tree: walk and map at full width."""
    tree = find_tree(course, tree_id)
    lesson = course.get(course.tree_lessons[tree.id])
    return render(request, "tree.html", {"view": tree_view(tree, c), "lesson": lesson})


@router.get("/arvores/{tree_id}/widget", response_class=HTMLResponse, name="tree_widget")
async def tree_widget(request: Request, tree_id: str, course: CourseDep, learner_id: LearnerIdDep,
                c: Annotated[str | None, Query(max_length=2000)] = None,
                licao: Annotated[str, Query(max_length=100)] = ""):
    """The widget alone (for htmx): back one step, restart, or any path."""
    tree = find_tree(course, tree_id)
    view = tree_view(tree, c, _embedding_lesson(course, tree, licao))
    return render(request, "_tree.html", {"view": view})


@router.post("/arvores/{tree_id}/passo", response_class=HTMLResponse, name="tree_step")
def tree_step(request: Request, tree_id: str, course: CourseDep, session: SessionDep,
              learner_id: ExistingLearnerIdDep,
              escolha: Annotated[str, Form(max_length=100)],
              c: Annotated[str, Form(max_length=2000)] = "",
              licao: Annotated[str, Form(max_length=100)] = ""):
    """Take one step: answer the current question with the option ``escolha``.

    Reaching a result stores the finished walk. htmx gets the widget and an
    ``HX-Push-Url`` with the new path; a plain form post is redirected (303) there.
    """
    tree = find_tree(course, tree_id)
    slug = _embedding_lesson(course, tree, licao)
    try:
        walk = walk_path(tree, (*split_path(c), escolha))
    except WalkError:
        view = tree_view(tree, c, slug)
        if not wants_fragment(request):  # a stale page: show the current question again
            return RedirectResponse(view.url(view.walk.values), status_code=303, headers={"Vary": VARY})
        view = TreeView(view.tree, view.walk, view.map, slug, gettext(UNKNOWN_OPTION))
        return render(request, "_tree.html", {"view": view}, status_code=422)
    if walk.result is not None:
        record_walk(session, learner_id, tree.id, walk.values, walk.result.id)
    view = TreeView(tree, walk, layout(tree), slug)
    if wants_fragment(request):
        response = render(request, "_tree.html", {"view": view})
        response.headers["HX-Push-Url"] = view.url(walk.values)
        return response
    return RedirectResponse(view.url(walk.values), status_code=303, headers={"Vary": VARY})
