"""Decision trees for learners: the walk with its map, the standalone page, the comparison."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.content.course import Course
from app.content.layout import layout
from app.content.trees import Tree
from app.content.walk import WalkError, walk_path
from app.i18n import gettext
from app.learning.compare import compare_context
from app.learning.store import record_walk
from app.learning.trees import (
    CHANGED_NOTICE,
    QUESTION_CHANGED,
    UNKNOWN_OPTION,
    TreeView,
    embedding_lesson,
    split_path,
    tree_version,
    tree_view,
)
from app.learning.usecases import OFFLINE_WINDOW, given_time
from app.platform.models import utcnow
from app.web.deps import CourseDep, LearnerForWriteDep, ReaderCourseDep, SessionDep
from app.web.forms import given_time_field
from app.web.lookups import find_tree
from app.web.templating import VARY, render, wants_fragment
from app.web.urls import urls_of

router = APIRouter()


@dataclass(frozen=True)
class AskedWalk:
    """The walk a tree's page or widget is asked for: the tree of the address, the option
    ids chosen so far (``?c=``, comma-separated; ``None``: the start) and the course as its
    reader sees it."""

    course: Course
    tree: Tree
    path: str | None

    def view(self, lesson_slug: str = "", notice: str | None = None) -> TreeView:
        """The walk along :attr:`path` (:func:`app.learning.trees.tree_view`)."""
        return tree_view(self.tree, self.path, lesson_slug, notice)


async def asked_walk(
    tree_id: str,
    course: ReaderCourseDep,
    c: Annotated[str | None, Query(max_length=2000)] = None,
) -> AskedWalk:
    """The walk of the address and its ``?c=``.

    Raises:
        HTTPException: 404 with a message in Portuguese when the course has no such tree.
    """
    return AskedWalk(course, find_tree(course, tree_id), c)


AskedWalkDep = Annotated[AskedWalk, Depends(asked_walk)]


@router.get("/arvores", response_class=HTMLResponse, name="trees")
async def trees_index(request: Request, course: CourseDep):
    """Every decision tree in the course, with links to walk or compare them."""
    rows = [(tree, course.get(course.tree_lessons[tree.id])) for tree in course.trees.values()]
    return render(request, "trees.html", {"rows": rows})


@router.get("/arvores/comparar", response_class=HTMLResponse, name="compare")
async def compare(request: Request, course: CourseDep):
    """Answer each facet once and see every guide's result side by side."""
    context = compare_context(course, dict(request.query_params))
    return render(request, "compare.html", context)


@router.get("/arvores/{tree_id}", response_class=HTMLResponse, name="tree")
async def tree_page(request: Request, asked: AskedWalkDep):
    """The standalone page of one tree: walk and map at full width."""
    lesson = asked.course.get(asked.course.tree_lessons[asked.tree.id])
    view = asked.view(notice=request.query_params.get("aviso"))
    return render(request, "tree.html", {"view": view, "lesson": lesson})


@router.get("/arvores/{tree_id}/widget", response_class=HTMLResponse, name="tree_widget")
async def tree_widget(
    request: Request, asked: AskedWalkDep, licao: Annotated[str, Query(max_length=100)] = ""
):
    """The widget alone (for htmx): back one step, restart, or any path."""
    view = asked.view(embedding_lesson(asked.course, asked.tree, licao))
    return render(request, "_tree.html", {"view": view})


@router.post("/arvores/{tree_id}/passo", response_class=HTMLResponse, name="tree_step")
def tree_step(
    request: Request,
    tree_id: str,
    course: ReaderCourseDep,
    session: SessionDep,
    learner_id: LearnerForWriteDep,
    escolha: Annotated[str, Form(max_length=100)],
    c: Annotated[str, Form(max_length=2000)] = "",
    licao: Annotated[str, Form(max_length=100)] = "",
    versao: Annotated[str | None, Form(max_length=64)] = None,
    chave: Annotated[str | None, Form(min_length=8, max_length=64)] = None,
    dada_em: Annotated[str | None, Form(max_length=40)] = None,
):
    """Take one step: answer the current question with the option ``escolha``.

    Reaching a result stores the finished walk. htmx gets the widget and an
    ``HX-Push-Url`` with the new path; a plain form post is redirected (303) there.
    A walk finished offline is this last step sent again by its device
    (``static/js/offline-answers.js``), with the key the device gave it (``chave``: sent
    twice, stored once) and when it was finished (``dada_em``, ISO 8601 with its offset,
    clamped to the last :data:`~app.learning.usecases.OFFLINE_WINDOW`; 422 when not a time).
    The form carries the tree's version (``versao``): when the tree changed since the form
    was shown, no step is taken and nothing is stored; htmx gets 409 with the current
    question and "Esta pergunta mudou; leia de novo e responda.", a plain post is
    redirected (303) to it with the same notice.
    """
    tree = find_tree(course, tree_id)
    slug = embedding_lesson(course, tree, licao)
    if versao != tree_version(tree):
        view = tree_view(tree, c, slug)
        if not wants_fragment(request):
            url = urls_of(request).walk(view, view.walk.values, CHANGED_NOTICE)
            return RedirectResponse(url, status_code=303, headers={"Vary": VARY})
        error = view.error or gettext(QUESTION_CHANGED)
        view = TreeView(view.tree, view.walk, view.map, slug, error)
        return render(request, "_tree.html", {"view": view}, status_code=409)
    try:
        walk = walk_path(tree, (*split_path(c), escolha))
    except WalkError:
        view = tree_view(tree, c, slug)
        if not wants_fragment(request):  # a stale page: show the current question again
            url = urls_of(request).walk(view, view.walk.values)
            return RedirectResponse(url, status_code=303, headers={"Vary": VARY})
        view = TreeView(view.tree, view.walk, view.map, slug, gettext(UNKNOWN_OPTION))
        return render(request, "_tree.html", {"view": view}, status_code=422)
    if walk.result is not None:
        now = utcnow()
        at = given_time(given_time_field(dada_em), now, now - OFFLINE_WINDOW)
        record_walk(session, learner_id, tree.id, walk.values, walk.result.id, chave, at)
    view = TreeView(tree, walk, layout(tree), slug)
    url = urls_of(request).walk(view, walk.values)
    if wants_fragment(request):
        response = render(request, "_tree.html", {"view": view})
        response.headers["HX-Push-Url"] = url
        return response
    return RedirectResponse(url, status_code=303, headers={"Vary": VARY})
