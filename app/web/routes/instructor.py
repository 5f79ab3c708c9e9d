"""Instructor pages: the dashboard, the lesson preview with keys, and the CSV exports.

Every route needs a signed-in instructor (:data:`app.web.deps.InstructorDep`): an anonymous
visitor is sent to sign in, any other account gets 403.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from app.analytics import dashboard_cache
from app.analytics.dashboard_view import dashboard_view
from app.analytics.exports import (
    ATTEMPT_COLUMNS,
    PROGRESS_COLUMNS,
    attempt_rows,
    csv_lines,
    progress_rows,
)
from app.analytics.item_analysis import EASY_ABOVE, GROUP_PERCENT, HARD_BELOW, MIN_LEARNERS, percent
from app.content.gift import gift_document
from app.content.item_checks import warnings_by_question
from app.i18n import N_, gettext
from app.learning.classes import class_for, classes_of, due_label, due_rows
from app.learning.lti import passback_state
from app.learning.mastery import LAST_N, course_mastery
from app.web.deps import CourseDep, InstructorDep, RowId, SessionDep, is_row_id
from app.web.lookups import check_panel
from app.web.templating import render
from app.web.urls import urls_of

router = APIRouter(prefix="/instrutor")
NO_CLASS = N_("There is no class with this address, or it is not one of yours.")
UNKNOWN_LESSON = N_("There is no lesson or file with this address in the lessons folder.")


@router.get("", response_class=HTMLResponse, name="instructor_dashboard")
def dashboard(
    request: Request,
    course: CourseDep,
    db: SessionDep,
    instructor: InstructorDep,
    turma: str = "",
):
    """Learners, completion funnel, item analysis per question, walks per tree, file problems.

    The figures are reused for ``CURSO_DASHBOARD_MAX_AGE`` seconds
    (``app/analytics/dashboard_cache.py``);
    the page says when they were computed. ``?turma=<id>`` (the select on the page, a GET
    form): the same figures for one class the instructor teaches (any class for an admin),
    computed on each visit, with its due dates and the answers on time and late; 404 for
    another class, 422 for an id that is not a number; empty means every learner.
    """
    max_age = request.app.state.settings.dashboard_max_age
    classroom = None
    if turma.strip():
        if not is_row_id(turma.strip()):
            raise HTTPException(status_code=422, detail=gettext(NO_CLASS))
        classroom = class_for(db, instructor, int(turma))
        if classroom is None:
            raise HTTPException(status_code=404, detail=gettext(NO_CLASS))
    now = datetime.now(UTC)
    if classroom is None:
        found = dashboard_cache.figures(db, course, now, max_age)
    else:
        found = dashboard_cache.compute(db, course, now, classroom.id)
    context = {
        "course": course,
        "view": dashboard_view(course, found),
        "activity": found.activity,
        "computed_at": found.computed_at,
        "max_age_minutes": max(1, round(max_age / 60)),
        "instructor": instructor,
        "percent": percent,
        "min_learners": MIN_LEARNERS,
        "easy_above": EASY_ABOVE,
        "hard_below": HARD_BELOW,
        "group_percent": GROUP_PERCENT,
        "classes": classes_of(db, instructor),
        "classroom": classroom,
        "dues": due_rows(db, classroom) if classroom else [],
        "due_label": due_label,
        "titles": {lesson.slug: lesson.meta.title for lesson in course.lessons},
        # one aggregate query, bounded by the concepts
        "concepts": course_mastery(db, course, classroom.id if classroom else None),
        "mastery_last": LAST_N,
        # grades sent to the LMS, per class of an LMS course
        "passback": passback_state(db, classroom.id if classroom else None),
    }
    return render(request, "instructor.html", context)


@router.post("/recalcular", name="instructor_recompute")
def recompute(request: Request, course: CourseDep, db: SessionDep, instructor: InstructorDep):
    """Compute the dashboard's figures now ("Recalcular agora"), then show the dashboard."""
    dashboard_cache.figures(db, course, datetime.now(UTC), 0, refresh=True)
    return RedirectResponse(urls_of(request).path("instructor_dashboard"), status_code=303)


@router.get("/licoes/{slug}", response_class=HTMLResponse, name="instructor_preview")
def preview(request: Request, slug: str, course: CourseDep, instructor: InstructorDep):
    """A lesson with its keys and every explanation shown, and its check results on top.

    A lesson that never loaded shows only its problems.
    """
    panel = check_panel(course, slug, preview=True)
    if panel is None:
        raise HTTPException(status_code=404, detail=gettext(UNKNOWN_LESSON))
    context = {
        "panel": panel,
        "lesson": panel.lesson,
        "path": panel.path,
        "slug": slug,
        "item_warnings": warnings_by_question(panel.lesson) if panel.lesson else {},
        "level": 1,
    }
    return render(request, "instructor_preview.html", context)


def _csv(request: Request, name: str, lines) -> StreamingResponse:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    return StreamingResponse(
        lines,
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{name}-{stamp}.csv"',
            "Cache-Control": "no-store",
        },
    )


def _class_filter(db, instructor, turma: int | None) -> int | None:
    """The class id of ``?turma=``, checked: 404 for a class the instructor does not teach."""
    if turma is None:
        return None
    if class_for(db, instructor, turma) is None:
        raise HTTPException(status_code=404, detail=gettext(NO_CLASS))
    return turma


@router.get("/exportar/tentativas.csv", name="export_attempts")
def export_attempts(
    request: Request,
    course: CourseDep,
    db: SessionDep,
    instructor: InstructorDep,
    turma: RowId | None = None,
):
    """Every attempt, one row each (columns in ``app/analytics/exports.py`` and the README).

    ``?turma=<id>``: only the attempts of that class's learners.
    """
    class_id = _class_filter(db, instructor, turma)
    state = request.app.state
    rows = attempt_rows(state.engine, course, state.pseudonym_salt, class_id)
    return _csv(request, "tentativas", csv_lines(ATTEMPT_COLUMNS, rows))


@router.get("/exportar/progresso.csv", name="export_progress")
def export_progress(
    request: Request,
    course: CourseDep,
    db: SessionDep,
    instructor: InstructorDep,
    turma: RowId | None = None,
):
    """One row per learner × lesson (columns in ``app/analytics/exports.py`` and the README).

    ``?turma=<id>``: only that class's learners.
    """
    class_id = _class_filter(db, instructor, turma)
    state = request.app.state
    rows = progress_rows(state.engine, course, state.pseudonym_salt, class_id)
    return _csv(request, "progresso", csv_lines(PROGRESS_COLUMNS, rows))


@router.get("/exportar/questoes.gift", name="export_gift")
def export_gift(course: CourseDep, instructor: InstructorDep):
    """The whole question bank in Moodle's GIFT format (:mod:`app.content.gift`), to import
    under "Banco de questões > Importar"."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    return Response(
        gift_document(course.lessons),
        media_type="text/plain; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="questoes-{stamp}.gift"',
            "Cache-Control": "no-store",
        },
    )
