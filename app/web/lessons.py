"""Course home and lesson pages."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from app.classes import upcoming
from app.content.calculators import calculator_results
from app.content.course import Course
from app.content.lessons import Lesson
from app.deps import AccountNameDep, CourseDep, LearnerIdDep, read_session, write_session
from app.i18n import N_, gettext
from app.instructors import instructor_account
from app.models import Attempt
from app.store import Place, lesson_attempts
from app.web.progress import course_progress, current_place, remember_place
from app.web.question_view import question_view
from app.web.templating import render
from app.web.trees import tree_view

router = APIRouter()
FLASH_KEY = "aviso"
NOT_FOUND = N_("Lesson not found. Its address may have changed: go back to the start of the course.")
UNAVAILABLE = N_(
    "This lesson is unavailable right now. Continue with the other lessons and come back later."
)


@router.get("/", response_class=HTMLResponse, name="home")
async def home(request: Request, course: CourseDep, learner_id: LearnerIdDep):
    """The course home: every lesson with its summary, minutes and status; overall percentage;
    the next due dates of the learner's classes."""
    with read_session(request) as db:
        progress = course_progress(request, course, db, learner_id)
        due = upcoming(db, learner_id, datetime.now(UTC))
    titles = {lesson.slug: lesson.meta.title for lesson in course.lessons}
    due = [{**item, "title": titles[item["slug"]]} for item in due if item["slug"] in titles]
    context = {"rows": progress.rows, "progress": progress, "due": due}
    return render(request, "home.html", context)


@router.get("/licoes/{slug}", response_class=HTMLResponse, name="lesson")
async def lesson_page(
    request: Request, slug: str, course: CourseDep, learner_id: LearnerIdDep,
    account: AccountNameDep, refazer: str | None = None,
):
    """A lesson: table of contents, body, quiz with the learner's graded answers, prev/next.

    ``?refazer=<question id>`` shows that question's form again (retry without JavaScript).
    Opening a lesson moves the learner's place to it (kept only where something is stored).
    A lesson whose file never loaded answers 503 "Lição indisponível". Instructors also see
    what ``curso check`` says about the lesson's file, on top of the page.
    """
    with read_session(request) as db:
        panel = instructor_panel(db, account, course, slug)
        place = current_place(request, db, learner_id)
    if course.get(slug) is None and slug in course.unavailable:
        return render(request, "lesson_unavailable.html", {"panel": panel}, status_code=503)
    lesson = find_lesson(course, slug)
    if place is None or place.lesson_slug != lesson.slug:
        await run_in_threadpool(_remember_lesson, request, learner_id, lesson.slug)
        place = None  # read it again below: it is stored now
    flash = request.session.pop(FLASH_KEY, None)
    errors = typed = None
    if isinstance(flash, dict) and flash.get("lesson") == lesson.slug:
        errors = {flash.get("question"): flash.get("message")}
        typed = {flash.get("question"): str(flash.get("typed") or "")}
    with read_session(request) as db:
        context = lesson_context(
            request, course, lesson, db, learner_id, retry=refazer, errors=errors,
            query=dict(request.query_params), place=place, typed=typed,
        )
    return render(request, "lesson.html", {**context, "panel": panel})


def _remember_lesson(request: Request, learner_id: str, slug: str) -> None:
    with write_session(request) as db:
        remember_place(request, db, learner_id, Place(slug))


def find_lesson(course: Course, slug: str) -> Lesson:
    """Return the lesson, or raise 503 for one whose file has errors and 404 for anything else."""
    lesson = course.get(slug)
    if lesson is None and slug in course.unavailable:
        raise HTTPException(status_code=503, detail=gettext(UNAVAILABLE))
    if lesson is None:
        raise HTTPException(status_code=404, detail=gettext(NOT_FOUND))
    return lesson


def instructor_panel(db, account: str | None, course: Course, slug: str) -> dict | None:
    """The check results of the lesson's file for a signed-in instructor, else ``None``."""
    lesson = course.get(slug)
    path = lesson.path if lesson else course.unavailable.get(slug)
    if path is None or account is None or instructor_account(db, account) is None:
        return None
    problems = course.problems_of(path)
    return {"path": path, "problems": problems, "stale": path in course.stale, "lesson": lesson}


def attempts_by_question(attempts: list[Attempt]) -> dict[str, list[Attempt]]:
    """Group attempts (oldest first) by question id."""
    grouped: dict[str, list[Attempt]] = {}
    for attempt in attempts:
        grouped.setdefault(attempt.question_id, []).append(attempt)
    return grouped


def lesson_context(
    request: Request, course: Course, lesson: Lesson, session, learner_id: str,
    retry: str | None = None, errors: dict[str, str] | None = None, query: dict | None = None,
    place: Place | None = None, typed: dict[str, str] | None = None,
) -> dict:
    """Build the template context of a lesson page from the learner's stored attempts.

    Args:
        request: the request.
        course: the course.
        lesson: the lesson shown.
        session: a database session.
        learner_id: the learner.
        retry: a question id to show as a form again.
        errors: messages by question id (a refused answer).
        query: the page's query string; ``arvore`` and ``c`` show that tree at that point of its walk.
        place: the learner's place, when the caller already read it.
        typed: a refused ``numeric`` answer by question id, to show in its input again.

    Returns:
        The context: the lesson, a :class:`QuestionView` per question, neighbours, position,
        and the course progress for the navigation.
    """
    grouped = attempts_by_question(lesson_attempts(session, learner_id, lesson.slug))
    errors = errors or {}
    query = query or {}
    typed = typed or {}
    views = {
        qid: question_view(
            lesson.slug, question, learner_id, grouped.get(qid, []), qid == retry, errors.get(qid),
            typed.get(qid, ""),
        )
        for qid, question in lesson.questions.items()
    }
    previous, following = course.neighbours(lesson.slug)
    return {
        "lesson": lesson,
        "views": views,
        "tree_views": {
            tid: tree_view(tree, query.get("c") if query.get("arvore") == tid else None, lesson.slug,
                           notice=query.get("aviso") if query.get("arvore") == tid else None)
            for tid, tree in lesson.trees.items()
        },
        "previous": previous,
        "following": following,
        "position": course.lessons.index(lesson) + 1,
        "total": len(course.lessons),
        "progress": course_progress(request, course, session, learner_id, place),
        # calculadora blocks (app/web/calculators.py): results from the query, no query to the db
        "calc_results": calculator_results(lesson.calculators, query),
    }
