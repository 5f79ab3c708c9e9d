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
from app.learning.usecases import LessonRequest, OpenedLesson, open_lesson, visitor_lesson
from app.web import question_modes
from app.web.deps import AccountNameDep, CourseDep, LearnerIdDep, learner_store, read_session
from app.web.forms import take_answered, take_flash, take_notice
from app.web.launches import tab_launch
from app.web.lookups import CheckPanel, check_panel, find_lesson, keep_in_session, session_place
from app.web.page_cache import cached_page, lesson_page_key
from app.web.templating import render

router = APIRouter()


@router.get("/", response_class=HTMLResponse, name="home")
async def home(request: Request, course: CourseDep, learner_id: LearnerIdDep):
    """The course home: every lesson with its summary, minutes and status; overall percentage;
    the due dates of the learner's classes: the lessons overdue (not finished by then), then
    the next ones."""
    now = datetime.now(UTC)
    state = learner_store(request).read_state(learner_id)
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
    context = {
        "rows": progress.rows,
        "progress": progress,
        "due": due,
        "notice": take_notice(request, learner_id),
    }
    return render(request, "home.html", context)


@router.get("/licoes/{slug}", response_class=HTMLResponse, name="lesson")
async def lesson_page(
    request: Request,
    slug: str,
    course: CourseDep,
    learner_id: LearnerIdDep,
    account: AccountNameDep,
    refazer: str | None = None,
    lancamento: str | None = None,
    baixar: str | None = None,
):
    """A lesson: table of contents, body, quiz with the learner's graded answers, prev/next.

    ``?refazer=<question id>`` shows that question's form again (retry without JavaScript).
    ``?lancamento=`` is the LTI launch the page came from: its forms carry it, so their
    answers are graded for that launch (:mod:`app.web.launches`).
    Opening a lesson moves the learner's place to it (kept only where something is stored).
    A lesson whose file never loaded answers 503 "Lição indisponível". Instructors also see
    what ``curso check`` says about the lesson's file, on top of the page.
    ``?baixar=1`` is the copy a device downloads to read offline (``static/js/offline.js``,
    issue 40): the page as learners see it, an instructor's too (no drafts, no check panel).
    """
    panel = None if baixar else instructor_panel(request, account, course, slug)
    if panel is not None:  # an instructor: drafts are read too, with their banner
        course = course.with_drafts
    if course.get(slug) is None and slug in course.unavailable:
        return render(request, "lesson_unavailable.html", {"panel": panel}, status_code=503)
    lesson = find_lesson(course, slug)
    if learner_id is None and account is None and not request.query_params:
        # Every visitor's page, kept once: the front door answers the next visits.
        secret = request.app.state.secret.encode()
        key, visitor = lesson_page_key(lesson.slug, request), visitor_lesson(course, lesson, secret)
        return cached_page(request, request.app.state.visitor_pages, course, key, visitor.context)
    tab_launch(request, learner_id, lancamento)
    answered = take_answered(request, learner_id, lesson.slug)  # a graded POST without JS
    opened = opened_lesson(request, course, lesson, learner_id, refazer)
    asked = opened.asked
    fresh = asked.errors or asked.drafts or asked.typed or answered or request.query_params
    if panel is not None or fresh:
        # An instructor's page is never kept: the notice of a lesson just published shows here.
        # Nor is one carrying a form kept from the last POST (a refusal, a hint without JS), or
        # the question it just graded (without JS), open.
        notice = take_notice(request, learner_id) if panel is not None else None
        # A search result's ``?destaque=``: its words marked in the text (never on a kept page).
        highlight = request.query_params.get("destaque", "")
        context = {**opened.context(), "panel": panel, "notice": notice, "highlight": highlight}
        if answered:  # its explanations open, as they do with htmx
            context["question_mode"] = question_modes.LESSON.after_answer(answered)
        return render(request, "lesson.html", context)
    key = lesson_page_key(lesson.slug, request, opened.stamp)
    return cached_page(request, request.app.state.learner_pages, course, key, opened.context)


def opened_lesson(
    request: Request, course: Course, lesson: Lesson, learner_id: str | None, retry: str | None
) -> OpenedLesson:
    """The lesson opened by this request's learner: one state read on the event loop; a
    moved place goes to the writer's queue, unwaited, or to the session."""
    asked = lesson_request(request, lesson.slug, learner_id, retry)
    store, place, moves = learner_store(request), session_place(request), not is_prefetch(request)
    secret = request.app.state.secret.encode()
    opened = open_lesson(store, course, lesson, learner_id, place, asked, moves, secret)
    if opened.keep_in_session is not None:
        keep_in_session(request, opened.keep_in_session)
    return opened


def lesson_request(
    request: Request, slug: str, learner_id: str | None, retry: str | None
) -> LessonRequest:
    """What the learner asked of the lesson page: a retry, the query string, and the refused
    answer their last POST left in the session (a learner's only)."""
    flash = take_flash(request, learner_id)
    asked = LessonRequest(retry=retry, query=dict(request.query_params))
    if flash is not None and flash.lesson == slug:
        if flash.message:
            asked.errors[flash.question] = flash.message
        asked.typed[flash.question] = flash.typed
        asked.drafts[flash.question] = flash.draft
    return asked


def is_prefetch(request: Request) -> bool:
    """Whether the browser fetches the page ahead, not because the learner opened it.

    Chromium marks ``<link rel="prefetch">`` with ``Sec-Purpose: prefetch`` (older
    versions and other browsers with ``Purpose: prefetch``).
    """
    purpose = request.headers.get("sec-purpose") or request.headers.get("purpose") or ""
    return "prefetch" in purpose.lower()


def instructor_panel(
    request: Request, account: str | None, course: Course, slug: str
) -> CheckPanel | None:
    """The check results of the lesson's file for a signed-in instructor, else ``None``."""
    if account is None:
        return None
    with read_session(request) as db:
        if instructor_account(db, account) is None:
            return None
    return check_panel(course, slug)
