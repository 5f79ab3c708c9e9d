"""Course home and lesson pages."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.content.course import Course
from app.content.lessons import Lesson
from app.learning.grading import LessonStatus
from app.learning.instructors import instructor_account
from app.learning.progress import course_progress
from app.learning.state import LearnerState
from app.learning.store import read_state
from app.learning.usecases import LessonRequest, visit_lesson
from app.learning.usecases import lesson_page as build_lesson_page
from app.web.deps import AccountNameDep, CourseDep, LearnerIdDep, learner_store, read_session
from app.web.forms import FLASH_KEY, NOTICE_KEY
from app.web.lookups import CheckPanel, check_panel, find_lesson, keep_in_session, session_place
from app.web.page_cache import PLACEHOLDER, VISITOR_HEADERS, respond, with_key_holes
from app.web.templating import TIMEZONE_COOKIE, render, theme

router = APIRouter()


@router.get("/", response_class=HTMLResponse, name="home")
async def home(request: Request, course: CourseDep, learner_id: LearnerIdDep):
    """The course home: every lesson with its summary, minutes and status; overall percentage;
    the due dates of the learner's classes: the lessons overdue (not finished by then), then
    the next ones."""
    now = datetime.now(UTC)
    with read_session(request) as db:
        state = read_state(db, learner_id)
    progress = course_progress(course, state, state.place or session_place(request))
    status = {lesson.slug: p.status for lesson, p in progress.rows}
    due = [
        {"due": item, "title": lesson.meta.title_text, "overdue": item.is_late(now)}
        for item in state.dues
        if (lesson := course.get(item.lesson_slug)) is not None
        # a lesson finished is no longer due, late or not (its late answers show on it)
        and not (item.is_late(now) and status[lesson.slug] == LessonStatus.DONE)
    ]
    due.sort(key=lambda row: not row["overdue"])  # overdue lessons first
    notice = request.session.pop(NOTICE_KEY, None) if learner_id is not None else None
    context = {"rows": progress.rows, "progress": progress, "due": due, "notice": notice}
    return render(request, "home.html", context)


@router.get("/licoes/{slug}", response_class=HTMLResponse, name="lesson")
async def lesson_page(
    request: Request,
    slug: str,
    course: CourseDep,
    learner_id: LearnerIdDep,
    account: AccountNameDep,
    refazer: str | None = None,
):
    """A lesson: table of contents, body, quiz with the learner's graded answers, prev/next.

    ``?refazer=<question id>`` shows that question's form again (retry without JavaScript).
    Opening a lesson moves the learner's place to it (kept only where something is stored).
    A lesson whose file never loaded answers 503 "Lição indisponível". Instructors also see
    what ``curso check`` says about the lesson's file, on top of the page.
    """
    panel = None
    if account is not None:
        with read_session(request) as db:
            panel = instructor_panel(db, account, course, slug)
    if panel is not None:  # an instructor: drafts are read too, with their banner
        course = course.with_drafts
    if course.get(slug) is None and slug in course.unavailable:
        return render(request, "lesson_unavailable.html", {"panel": panel}, status_code=503)
    lesson = find_lesson(course, slug)
    if learner_id is None and account is None and not request.query_params:
        return _visitor_page(request, course, lesson)
    flash = request.session.pop(FLASH_KEY, None) if learner_id is not None else None
    asked = LessonRequest(retry=refazer, query=dict(request.query_params))
    if isinstance(flash, dict) and flash.get("lesson") == lesson.slug:
        question = flash.get("question", "")
        asked.errors[question] = flash.get("message", "")
        asked.typed[question] = str(flash.get("typed") or "")
    # One state read on the event loop; a place moved goes to the writer's queue, unwaited.
    with read_session(request) as db:
        visit = visit_lesson(
            learner_store(request, db),
            lesson,
            learner_id,
            session_place(request),
            not is_prefetch(request),
        )
    if visit.keep_in_session is not None:
        keep_in_session(request, visit.keep_in_session)
    due = visit.state.due_for(lesson.slug)

    def built() -> dict:
        page = build_lesson_page(course, lesson, visit.state, visit.place, asked)
        return {
            **page.context(),
            "lesson_due": due,
            "overdue": due is not None and due.is_late(now),
        }

    now = datetime.now(UTC)

    if panel is None and not asked.errors and not request.query_params:
        # Built and rendered again only when the learner's state moved (app/web/page_cache.py).
        key = (
            lesson.slug,
            theme(request),
            request.cookies.get(TIMEZONE_COOKIE, ""),
            visit.version(course),
            due and (due.class_name, due.due_at, due.zone, due.is_late(now)),
        )
        cached = request.app.state.learner_pages.get(
            course, key, lambda: _with_placeholder(request, "lesson.html", built())
        )
        return respond(request, cached, VISITOR_HEADERS)
    return render(request, "lesson.html", {**built(), "panel": panel})


def _visitor_page(request: Request, course: Course, lesson: Lesson):
    """A visitor's lesson page, from the cache (:mod:`app.web.page_cache`): no database work."""
    key = (lesson.slug, theme(request))

    def rendered() -> bytes:
        page = build_lesson_page(course, lesson, LearnerState(None), None, LessonRequest())
        return _with_placeholder(request, "lesson.html", page.context())

    page = request.app.state.page_cache.get(course, key, rendered)
    return respond(request, page, VISITOR_HEADERS)


def _with_placeholder(request: Request, name: str, context: dict) -> bytes:
    """Render ``name`` for the caches: :data:`PLACEHOLDER` where the CSRF token goes, and
    form keys made of a per-response prefix (:func:`app.web.page_cache.with_key_holes`)."""
    scope = {**request.scope, "csrftoken": lambda: PLACEHOLDER}
    templates = request.app.state.templates
    html = templates.TemplateResponse(Request(scope), name, {**context, "panel": None}).body
    return with_key_holes(bytes(html))


def is_prefetch(request: Request) -> bool:
    """Whether the browser fetches the page ahead, not because the learner opened it.

    Chromium marks ``<link rel="prefetch">`` with ``Sec-Purpose: prefetch`` (older
    versions and other browsers with ``Purpose: prefetch``).
    """
    purpose = request.headers.get("sec-purpose") or request.headers.get("purpose") or ""
    return "prefetch" in purpose.lower()


def instructor_panel(db, account: str | None, course: Course, slug: str) -> CheckPanel | None:
    """The check results of the lesson's file for a signed-in instructor, else ``None``."""
    if account is None or instructor_account(db, account) is None:
        return None
    return check_panel(course, slug)
