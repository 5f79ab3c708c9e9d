"""Question pools: "Outras perguntas" starts a learner's next draw of a pool."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.content.page_ids import pool_anchor
from app.i18n import N_, gettext
from app.learning.usecases import NoNextDraw, redraw_pool
from app.web.deps import LearnerForWriteDep, ReaderCourseDep, SessionDep, learner_store
from app.web.lookups import find_lesson
from app.web.templating import VARY, render, wants_fragment
from app.web.urls import urls_of

router = APIRouter()

POOL_NOT_FOUND = N_("This lesson has no such set of drawn questions.")
NOT_ANSWERED = N_("Answer every drawn question before asking for others.")


@router.post("/licoes/{slug}/sorteios/{pool_id}", response_class=HTMLResponse, name="redraw")
def redraw(
    request: Request,
    slug: str,
    pool_id: str,
    course: ReaderCourseDep,
    session: SessionDep,
    learner_id: LearnerForWriteDep,
):
    """Start the learner's next draw of the pool: htmx gets the pool's block with the new
    draw (``_pool.html``); a plain form post goes back to it (303). A pool the lesson does not
    have is 404; a draw with a question not answered yet is 409, and nothing is stored."""
    lesson = find_lesson(course, slug)
    if pool_id not in lesson.pools:
        raise HTTPException(status_code=404, detail=gettext(POOL_NOT_FOUND))
    store = learner_store(request, session)
    secret = request.app.state.secret.encode()
    try:
        page = redraw_pool(store, lesson, pool_id, learner_id, secret)
    except NoNextDraw as exc:
        raise HTTPException(status_code=409, detail=gettext(NOT_ANSWERED)) from exc
    if wants_fragment(request):
        context = {
            "lesson": lesson,
            "pool": page.draw.pool,
            "draw": page.draw,
            "views": page.views,
            "redrawn": True,
        }
        return render(request, "_pool.html", context)
    url = urls_of(request).with_anchor("lesson", pool_anchor(pool_id), slug=lesson.slug)
    return RedirectResponse(url, status_code=303, headers={"Vary": VARY})
