"""Decision trees for learners: the walk with its map, the standalone page, the comparison."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
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
QUESTION_CHANGED = N_("This question changed; read it again and answer.")
CHANGED_NOTICE = "mudou"  # ``?aviso=mudou``: the no-JavaScript step came from an older tree


@lru_cache(maxsize=256)
def tree_version(tree: Tree) -> str:
    """The version of a tree as a learner walks it: 16 hex characters of a SHA-256.

    It covers what a step depends on: each question's text and options (label, values, where
    they lead) and each result's engines and verdict. Reasons and notes are left out, as
    explanations are for quiz questions. Trees compare by identity, so the cache holds one
    entry per loaded version.

    Args:
        tree: the tree.

    Returns:
        The version, carried by the step form as ``versao``.
    """
    canonical = {
        "start": tree.start,
        "questions": {
            qid: [q.facet, q.text, [[o.label, list(o.values), o.next] for o in q.options]]
            for qid, q in tree.questions.items()
        },
        "results": {rid: [list(r.engines), str(r.verdict)] for rid, r in tree.results.items()},
    }
    encoded = json.dumps(canonical, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]


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

    @property
    def version(self) -> str:
        """The tree's version (:func:`tree_version`), for the step form."""
        return tree_version(self.tree)

    def url(self, values: tuple[str, ...], notice: str = "") -> str:
        """The page URL that reproduces the walk after ``values`` (``notice``: ``?aviso=``)."""
        extra = {"aviso": notice} if notice else {}
        if self.lesson_slug:
            query = {"arvore": self.tree.id, **({"c": ",".join(values)} if values else {}), **extra}
            return f"/licoes/{self.lesson_slug}?{urlencode(query)}#arvore-{self.tree.id}"
        query = {**({"c": ",".join(values)} if values else {}), **extra}
        return f"/arvores/{self.tree.id}" + (f"?{urlencode(query)}" if query else "")

    def fragment_url(self, values: tuple[str, ...]) -> str:
        """The URL htmx fetches to swap the widget to the walk after ``values``."""
        query = {"c": ",".join(values), "licao": self.lesson_slug}
        return f"/arvores/{self.tree.id}/widget?{urlencode(query)}"


def split_path(raw: str | None) -> tuple[str, ...]:
    """Turn ``"a,b"`` from the URL into ``("a", "b")``."""
    return tuple(v for v in (raw or "").split(",") if v)


def tree_view(
    tree: Tree, raw_path: str | None, lesson_slug: str = "", notice: str | None = None
) -> TreeView:
    """Walk ``tree`` along ``raw_path``; an invalid path restarts with a message.

    ``notice`` is the page's ``?aviso=``: ``mudou`` shows that the tree changed under a step
    sent without JavaScript.
    """
    try:
        walk = walk_path(tree, split_path(raw_path))
        error = gettext(QUESTION_CHANGED) if notice == CHANGED_NOTICE else ""
        return TreeView(tree, walk, layout(tree), lesson_slug, error)
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
    view = tree_view(tree, c, notice=request.query_params.get("aviso"))
    return render(request, "tree.html", {"view": view, "lesson": lesson})


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
              licao: Annotated[str, Form(max_length=100)] = "",
              versao: Annotated[str | None, Form(max_length=64)] = None):
    """Take one step: answer the current question with the option ``escolha``.

    Reaching a result stores the finished walk. htmx gets the widget and an
    ``HX-Push-Url`` with the new path; a plain form post is redirected (303) there.
    The form carries the tree's version (``versao``): when the tree changed since the form
    was shown, no step is taken and nothing is stored; htmx gets 409 with the current
    question and "Esta pergunta mudou; leia de novo e responda.", a plain post is
    redirected (303) to it with the same notice.
    """
    tree = find_tree(course, tree_id)
    slug = _embedding_lesson(course, tree, licao)
    if versao != tree_version(tree):
        view = tree_view(tree, c, slug)
        if not wants_fragment(request):
            url = view.url(view.walk.values, notice=CHANGED_NOTICE)
            return RedirectResponse(url, status_code=303, headers={"Vary": VARY})
        error = view.error or gettext(QUESTION_CHANGED)
        view = TreeView(view.tree, view.walk, view.map, slug, error)
        return render(request, "_tree.html", {"view": view}, status_code=409)
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
