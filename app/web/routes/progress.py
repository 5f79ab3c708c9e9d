"""Where the learner stands: the progress page, ``/api/progresso`` and the place to resume."""

from __future__ import annotations

from babel.numbers import format_decimal
from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from app.i18n import N_, gettext
from app.learning import mastery
from app.learning.progress import course_progress, section_titles
from app.learning.state import Place
from app.learning.trees import walk_summary
from app.web.deps import (
    CourseDep,
    LearnerIdDep,
    get_course,
    learner_for_write,
    learner_store,
    read_session,
)
from app.web.forms import PostedForm, take_notice
from app.web.headers import PERSONAL
from app.web.lookups import keep_in_session, session_place
from app.web.public import ProgressPublic, progress_public
from app.web.templating import render
from app.web.urls import urls_of

router = APIRouter()
BAD_PLACE = N_("Unknown place in this lesson.")


@router.get("/progresso", response_class=HTMLResponse, name="progress", include_in_schema=False)
async def progress_page(request: Request, course: CourseDep, learner_id: LearnerIdDep):
    """Per lesson: status, right out of total, first-try score, attempts; mastery per concept
    (``app/learning/mastery.py``); then finished walks."""
    state = learner_store(request).read_state(learner_id)
    with read_session(request) as db:
        concepts = (
            mastery.learner_mastery(db, course, learner_id)
            if learner_id
            else mastery.no_mastery(course)  # a visitor: every concept, nothing answered yet
        )
    progress = course_progress(course, state, state.place or session_place(request))
    context = {
        "progress": progress,
        "walks": [walk_summary(course, walk) for walk in state.walks],
        "mastery": concepts,
        "mastery_last": mastery.LAST_N,
        "mastery_decay": format_decimal(mastery.DECAY, locale="pt_BR"),
        "notice": take_notice(request, learner_id),
    }
    return render(request, "progress.html", context)


@router.get("/api/progresso", response_model=ProgressPublic, tags=["progresso"])
async def progress_api(
    request: Request, response: Response, course: CourseDep, learner_id: LearnerIdDep
) -> ProgressPublic:
    """The current learner's progress: each lesson's status and counts, and the finished walks.

    Only the learner of the session cookie is ever read; no parameter names another learner.
    """
    response.headers["Cache-Control"] = PERSONAL
    state = learner_store(request).read_state(learner_id)
    progress = course_progress(course, state, state.place or session_place(request))
    resume = progress.resume
    url = resume and urls_of(request).with_anchor("lesson", resume.section, slug=resume.lesson.slug)
    return progress_public(progress, state, url or "")


async def save_place_route(request: Request) -> Response:
    """Remember the section the learner is reading (sent by ``static/js/place.js`` as they scroll).

    Returns 204; an unknown lesson or section gives 422 with a message in Portuguese. Like every
    POST, it gives a visitor their learner id; the place stays in the session until the learner
    has a row (their first answer). On the event loop: the learner's state says whether they
    have a row, and the move's commit is awaited (no thread waits). A plain Starlette endpoint
    (sent as the learner scrolls): no dependency resolution, the form parsed once
    (:class:`app.web.forms.PostedForm`: ``licao`` required, up to 100 characters; ``secao`` up
    to 200).
    """
    course = await get_course(request)
    learner_id = await learner_for_write(request)
    form = PostedForm(request)
    licao, secao = form.required("licao", 100), form.get("secao", 200) or ""
    lesson = course.get(licao)
    if lesson is None or (secao and secao not in section_titles(lesson)):
        return Response(gettext(BAD_PLACE), status_code=422, media_type="text/plain; charset=utf-8")
    place = Place(lesson.slug, secao or None)
    store = learner_store(request)
    if store.read_state(learner_id).stored:
        await store.keep_place(learner_id, place)
    else:
        keep_in_session(request, place)
    return Response(status_code=204)


router.add_route("/progresso/lugar", save_place_route, ["POST"], name="place")
