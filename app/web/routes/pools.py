"""Question pools: "Outras perguntas" starts a learner's next draw of a pool."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.content.page_ids import pool_anchor
from app.i18n import N_, gettext
from app.learning.usecases import NoNextDraw, PoolPage, redraw_pool
from app.web.deps import LearnerForWriteDep, ReaderCourseDep, SessionDep, learner_store
from app.web.launches import launch_query, tab_launch
from app.web.lookups import find_lesson
from app.web.templating import VARY, render, wants_fragment
from app.web.urls import urls_of

router = APIRouter()

POOL_NOT_FOUND = N_("This lesson has no such set of drawn questions.")
NOT_ANSWERED = N_("Answer every drawn question before asking for others.")
REDRAWN_ELSEWHERE = N_(
    "These questions were already changed in another tab; here are the current ones."
)


@router.get("/licoes/{slug}/sorteios/{pool_id}", include_in_schema=False, name="redraw_address")
def redraw_address(request: Request, slug: str, pool_id: str, course: ReaderCourseDep):
    """The address bar after a refused plain "Outras perguntas" shows the form's address:
    reloading or opening it leads to the pool on its lesson (303), not to a 405 page. 404 as
    :func:`redraw`."""
    lesson = find_lesson(course, slug)
    if pool_id not in lesson.pools:
        raise HTTPException(status_code=404, detail=gettext(POOL_NOT_FOUND))
    url = urls_of(request).with_anchor("lesson", pool_anchor(pool_id), slug=lesson.slug)
    return RedirectResponse(url, status_code=303)


@router.post("/licoes/{slug}/sorteios/{pool_id}", response_class=HTMLResponse, name="redraw")
def redraw(
    request: Request,
    slug: str,
    pool_id: str,
    course: ReaderCourseDep,
    session: SessionDep,
    learner_id: LearnerForWriteDep,
    lancamento: Annotated[str | None, Form(max_length=2000)] = None,
):
    """Start the learner's next draw of the pool: htmx gets the pool's block with the new
    draw (``_pool.html``); a plain form post goes back to it (303). A pool the lesson does not
    have is 404; a draw with a question not answered yet is 409, and nothing is stored: htmx
    gets the pool's block with the draw the learner has now (a form of a draw changed in
    another tab), a plain post the message. ``lancamento``: the page's LTI launch, which the
    new draw's forms carry on (:mod:`app.web.launches`)."""
    lesson = find_lesson(course, slug)
    if pool_id not in lesson.pools:
        raise HTTPException(status_code=404, detail=gettext(POOL_NOT_FOUND))
    tab_launch(request, learner_id, lancamento)
    store = learner_store(request, session)
    secret = request.app.state.secret.encode()
    try:
        page = redraw_pool(store, lesson, pool_id, learner_id, secret)
    except NoNextDraw as exc:
        if wants_fragment(request):
            refusal = gettext(REDRAWN_ELSEWHERE)
            return _pool(request, lesson, exc.current, refusal=refusal, status_code=409)
        raise HTTPException(status_code=409, detail=gettext(NOT_ANSWERED)) from exc
    if wants_fragment(request):
        return _pool(request, lesson, page, redrawn=True)
    query = launch_query(request)
    url = urls_of(request).with_query("lesson", query, pool_anchor(pool_id), slug=lesson.slug)
    return RedirectResponse(url, status_code=303, headers={"Vary": VARY})


def _pool(request: Request, lesson, page: PoolPage, status_code: int = 200, **context):
    """The pool's block (``_pool.html``) for ``page``; ``context``: ``redrawn`` or
    ``refusal``."""
    pool = {"lesson": lesson, "pool": page.draw.pool, "draw": page.draw, "views": page.views}
    return render(request, "_pool.html", {**pool, **context}, status_code=status_code)
