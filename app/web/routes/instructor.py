"""Instructor pages: the dashboard, the lesson preview with keys, and the CSV exports.

The dashboard's figures and the CSV exports are open to a class's instructors for their class
(:data:`app.web.deps.StaffDep` and ``?turma=``, an LMS course's instructor included); every
learner's figures, the lesson files, the preview with keys and the question bank need a site
instructor (:data:`app.web.deps.InstructorDep`). An anonymous visitor is sent to sign in, any
other account gets 403.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, TypeVar

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from sqlmodel import Session

from app.analytics import dashboard_cache
from app.analytics.dashboard_cache import ACTIVITY, FUNNEL, ITEMS, WALKS, Kept, Part
from app.analytics.dashboard_view import (
    flagged,
    funnel_rows,
    lesson_files,
    problems_found,
    question_reports,
    trees_walks,
)
from app.analytics.exports import (
    ATTEMPT_COLUMNS,
    PROGRESS_COLUMNS,
    attempt_rows,
    csv_lines,
    progress_rows,
)
from app.analytics.item_analysis import EASY_ABOVE, GROUP_PERCENT, HARD_BELOW, MIN_LEARNERS, percent
from app.content.course import Course
from app.content.gift import gift_document
from app.content.item_checks import warnings_by_question
from app.content.moodle_xml import moodle_xml_export
from app.i18n import N_, gettext
from app.learning.classes import class_for, classes_of, due_label, due_rows
from app.learning.mastery import LAST_N, course_mastery
from app.lti.scores import passback_state
from app.platform.models import Account, Classroom
from app.web.deps import (
    CourseDep,
    InstructorDep,
    SessionDep,
    StaffDep,
    StreamedSessionDep,
    is_row_id,
)
from app.web.lookups import check_panel
from app.web.templating import render
from app.web.urls import urls_of

router = APIRouter(prefix="/instrutor")
NO_CLASS = N_("There is no class with this address, or it is not one of yours.")
T = TypeVar("T")
UNKNOWN_LESSON = N_("There is no lesson or file with this address in the lessons folder.")


@dataclass(frozen=True)
class Tab:
    """One tab of the dashboard: its own address, its route and what it holds.

    Attributes:
        key: its name in the "Recalcular agora" form (``aba``).
        route: the name of its route; ``fragment``: its template, ``_dashboard_<fragment>.html``.
        label: its link's text (a catalog id); ``summary``: what it shows, on the overview.
        sections: ids of the one-page dashboard's sections it now holds; a prefix ending
            in ``-`` stands for every id that starts with it. ``static/js/dashboard-tabs.js``
            sends an old link (``/instrutor#revisar``) to the tab that holds its section.
    """

    key: str
    route: str
    fragment: str
    label: str
    summary: str
    sections: tuple[str, ...] = ()


TABS = (
    Tab("geral", "instructor_dashboard", "overview", N_("Overview"), ""),
    Tab(
        "funil",
        "instructor_funnel",
        "funnel",
        N_("Funnel"),
        N_("Per lesson, how many learners started it and how many completed it."),
        ("funil",),
    ),
    Tab(
        "perguntas",
        "instructor_questions",
        "questions",
        N_("Questions"),
        N_("The questions to review, and each question's figures and answer chart."),
        ("revisar", "perguntas", "como-calculamos", "q-"),
    ),
    Tab(
        "dominio",
        "instructor_mastery",
        "mastery",
        N_("Mastery"),
        N_("The learners' mean mastery of each concept."),
        ("conceitos",),
    ),
    Tab(
        "arvores",
        "instructor_trees",
        "trees",
        N_("Trees"),
        N_("Where the learners' walks through each decision tree ended."),
        ("arvores",),
    ),
    Tab(
        "arquivos",
        "instructor_files",
        "files",
        N_("Files"),
        N_("The lesson files, their problems and their editor."),
        ("arquivos",),
    ),
)
TAB_BY_KEY = {tab.key: tab for tab in TABS}
TAB_BY_ROUTE = {tab.route: tab for tab in TABS}


def _classroom(
    request: Request, db: SessionDep, instructor: StaffDep, turma: str = ""
) -> Classroom | None:
    """The class of ``?turma=``, for the dashboard's tabs and its exports alike: ``None`` when
    empty (every learner), 422 for an id that is not a number, 404 for a class the instructor
    does not teach (any class for an admin). Every learner is for site instructors: anyone
    else asking for them (an LMS course's instructor) is sent to their newest class's page."""
    if not turma.strip():
        if instructor.is_instructor:
            return None
        taught = classes_of(db, instructor)
        if not taught:  # their last class went since StaffDep looked
            raise HTTPException(status_code=403, detail=gettext(NO_CLASS))
        route = request.scope["route"].name
        location = urls_of(request).with_query(route, {"turma": taught[0].id})
        raise HTTPException(status_code=303, headers={"Location": location})
    if not is_row_id(turma.strip()):
        raise HTTPException(status_code=422, detail=gettext(NO_CLASS))
    classroom = class_for(db, instructor, int(turma))
    if classroom is None:
        raise HTTPException(status_code=404, detail=gettext(NO_CLASS))
    return classroom


ClassroomDep = Annotated[Classroom | None, Depends(_classroom)]


@dataclass(frozen=True)
class _Frame:
    """What every tab of the dashboard starts from: the request, the course, the database, the
    instructor, and the class of ``?turma=`` (``None`` for every learner)."""

    request: Request
    course: Course
    db: Session
    instructor: Account
    classroom: Classroom | None

    def figures(self, part: Part[T]) -> Kept[T]:
        """A part of the figures: kept for every learner, computed now for a class."""
        now = datetime.now(UTC)
        if self.classroom is None:
            max_age = self.request.app.state.settings.dashboard_max_age
            return dashboard_cache.figures(self.db, self.course, part, now, max_age)
        return dashboard_cache.compute(self.db, self.course, part, now, self.classroom.id)

    def render(self, computed_at: datetime | None = None, **context) -> Response:
        """Render the tab of the request's route in the dashboard's frame: the tools, the class
        filter, when the figures were computed, and the tabs' nav (each link keeps the class
        filter)."""
        max_age = self.request.app.state.settings.dashboard_max_age
        classroom = self.classroom
        return render(
            self.request,
            "instructor.html",
            {
                **context,
                "tab": TAB_BY_ROUTE[self.request.scope["route"].name],
                "tabs": TABS,
                "only": {"turma": classroom.id} if classroom else None,
                "instructor": self.instructor,
                "site": self.instructor.is_instructor,  # lessons, files, every learner
                "admin": self.instructor.is_admin,  # the LMSs
                "classes": classes_of(self.db, self.instructor),
                "classroom": classroom,
                "computed_at": computed_at,
                "max_age_minutes": max(1, round(max_age / 60)),
            },
        )


def _frame(
    request: Request,
    course: CourseDep,
    db: SessionDep,
    instructor: StaffDep,
    classroom: ClassroomDep,
) -> _Frame:
    return _Frame(request, course, db, instructor, classroom)


FrameDep = Annotated[_Frame, Depends(_frame)]


@router.get("", response_class=HTMLResponse, name="instructor_dashboard")
def dashboard(tab: FrameDep):
    """The dashboard's overview: active learners, a class's due dates, grades sent to the
    LMS, the exports, and a line on each of the other tabs.

    Every tab computes only what it shows. The figures of every learner are reused for
    ``CURSO_DASHBOARD_MAX_AGE`` seconds (``app/analytics/dashboard_cache.py``); the page
    says when they were computed. ``?turma=<id>`` (the select on every tab, a GET form): the
    same figures for one class the instructor teaches (any class for an admin), computed on
    each visit, with its due dates and the answers on time and late; 404 for another
    class, 422 for an id that is not a number; empty means every learner.
    """
    found = tab.figures(ACTIVITY)
    classroom = tab.classroom
    return tab.render(
        found.computed_at,
        activity=found.value,
        dues=due_rows(tab.db, classroom) if classroom else [],
        due_label=due_label,
        titles={lesson.slug: lesson.meta.title for lesson in tab.course.lessons},
        # grades sent to the LMS, per class of an LMS course
        passback=passback_state(tab.db, classroom.id if classroom else None),
    )


@router.get("/funil", response_class=HTMLResponse, name="instructor_funnel")
def funnel_tab(tab: FrameDep):
    """The completion funnel: per lesson, learners who started it and who completed it."""
    found = tab.figures(FUNNEL)
    return tab.render(found.computed_at, funnel=funnel_rows(tab.course, found.value))


@router.get("/perguntas", response_class=HTMLResponse, name="instructor_questions")
def questions_tab(tab: FrameDep):
    """Item analysis: the flagged questions, then every question's figures and chart, and
    how they are computed."""
    found = tab.figures(ITEMS)
    reports = question_reports(tab.course, found.value)
    return tab.render(
        found.computed_at,
        reports=reports,
        flagged=flagged(reports),
        percent=percent,
        min_learners=MIN_LEARNERS,
        easy_above=EASY_ABOVE,
        hard_below=HARD_BELOW,
        group_percent=GROUP_PERCENT,
    )


@router.get("/dominio", response_class=HTMLResponse, name="instructor_mastery")
def mastery_tab(tab: FrameDep):
    """Mean mastery per concept (one aggregate query, bounded by the concepts; computed on
    each visit)."""
    class_id = tab.classroom.id if tab.classroom else None
    return tab.render(
        concepts=course_mastery(tab.db, tab.course, class_id),
        mastery_last=LAST_N,
    )


@router.get("/arvores", response_class=HTMLResponse, name="instructor_trees")
def trees_tab(tab: FrameDep):
    """Finished walks per decision tree and result."""
    found = tab.figures(WALKS)
    return tab.render(found.computed_at, trees=trees_walks(tab.course, found.value))


@router.get("/arquivos", response_class=HTMLResponse, name="instructor_files")
def files_tab(_site: InstructorDep, tab: FrameDep):
    """The lesson files and their state; nothing from the answers (site instructors only)."""
    return tab.render(
        course=tab.course,
        problems_found=problems_found(tab.course),
        files=lesson_files(tab.course),
    )


@router.post("/recalcular", name="instructor_recompute")
def recompute(
    request: Request,
    db: SessionDep,
    instructor: InstructorDep,
    aba: Annotated[str, Form(max_length=40)] = "",
):
    """Drop the kept figures ("Recalcular agora"), then show the tab the button was on
    (``aba``, the overview for an unknown one), its figures computed anew."""
    dashboard_cache.forget(db)
    tab = TAB_BY_KEY.get(aba, TABS[0])
    return RedirectResponse(urls_of(request).path(tab.route), status_code=303)


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


@router.get("/exportar/tentativas.csv", name="export_attempts")
def export_attempts(
    request: Request,
    db: StreamedSessionDep,
    course: CourseDep,
    instructor: StaffDep,
    classroom: ClassroomDep,
):
    """Every attempt, one row each (columns in ``app/analytics/exports.py`` and the README).

    ``?turma=<id>``: only the attempts of that class's learners.
    """
    state = request.app.state
    class_id = classroom.id if classroom else None
    rows = attempt_rows(db, course, state.pseudonym_salt, class_id)
    return _csv(request, "tentativas", csv_lines(ATTEMPT_COLUMNS, rows))


@router.get("/exportar/progresso.csv", name="export_progress")
def export_progress(
    request: Request,
    db: StreamedSessionDep,
    course: CourseDep,
    instructor: StaffDep,
    classroom: ClassroomDep,
):
    """One row per learner × lesson (columns in ``app/analytics/exports.py`` and the README).

    ``?turma=<id>``: only that class's learners.
    """
    state = request.app.state
    class_id = classroom.id if classroom else None
    rows = progress_rows(db, course, state.pseudonym_salt, class_id)
    return _csv(request, "progresso", csv_lines(PROGRESS_COLUMNS, rows))


def _question_bank(body: str, media_type: str, extension: str) -> Response:
    """A question bank to download, named ``questoes-<date>.<extension>``."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    return Response(
        body,
        media_type=media_type,
        headers={
            "Content-Disposition": f'attachment; filename="questoes-{stamp}.{extension}"',
            "Cache-Control": "no-store",
        },
    )


@router.get("/exportar/questoes.gift", name="export_gift")
def export_gift(course: CourseDep, instructor: InstructorDep):
    """The whole question bank in Moodle's GIFT format (:mod:`app.content.gift`), to import
    under "Banco de questões > Importar"."""
    return _question_bank(gift_document(course.lessons), "text/plain; charset=utf-8", "gift")


@router.get("/exportar/questoes.xml", name="export_moodle_xml")
def export_moodle_xml(course: CourseDep, instructor: InstructorDep):
    """The whole question bank in Moodle XML (:mod:`app.content.moodle_xml`): the course's
    all-or-nothing credit for multiple-answer and ordering questions."""
    body = moodle_xml_export(course.lessons).document()
    return _question_bank(body, "application/xml; charset=utf-8", "xml")
