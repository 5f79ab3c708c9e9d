"""Course home and lesson pages."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from app.content.course import Course
from app.content.lessons import Lesson
from app.deps import CourseDep, LearnerIdDep, SessionDep
from app.grading import grade, lesson_status
from app.i18n import N_, gettext
from app.store import latest_attempts, question_summary
from app.web.templating import render
from app.web.trees import tree_view

router = APIRouter()
FLASH_KEY = "aviso"
NOT_FOUND = N_("Lesson not found. Its address may have changed: go back to the start of the course.")


@router.get("/", response_class=HTMLResponse, name="home")
def home(request: Request, course: CourseDep, session: SessionDep, learner_id: LearnerIdDep):
    """The course home: every lesson in order with its summary, minutes and status."""
    summary = question_summary(session, learner_id)
    rows = []
    for lesson in course.lessons:
        answered, right = summary.get(lesson.slug, (set(), set()))
        rows.append((lesson, lesson_status(lesson.questions, answered, right)))
    return render(request, "home.html", {"rows": rows})


@router.get("/licoes/{slug}", response_class=HTMLResponse, name="lesson")
def lesson_page(
    request: Request, slug: str, course: CourseDep, session: SessionDep, learner_id: LearnerIdDep
):
    """A lesson: table of contents, body, quiz with the learner's graded answers, prev/next."""
    lesson = find_lesson(course, slug)
    context = lesson_context(course, lesson, session, learner_id, dict(request.query_params))
    flash = request.session.pop(FLASH_KEY, None)
    if isinstance(flash, dict) and flash.get("lesson") == lesson.slug:
        context["errors"] = {flash.get("question"): flash.get("message")}
    return render(request, "lesson.html", context)


def find_lesson(course: Course, slug: str) -> Lesson:
    """Return the lesson or raise a 404 with a message in Portuguese."""
    lesson = course.get(slug)
    if lesson is None:
        raise HTTPException(status_code=404, detail=gettext(NOT_FOUND))
    return lesson


def lesson_context(
    course: Course, lesson: Lesson, session, learner_id: str, query: dict | None = None
) -> dict:
    """Build the template context of a lesson page, grading stored answers again.

    ``query`` may hold ``arvore`` and ``c``: that tree is shown at that point of its walk.
    """
    query = query or {}
    attempts = latest_attempts(session, learner_id, lesson.slug)
    results = {
        qid: grade(question, attempts[qid].chosen_ids())
        for qid, question in lesson.questions.items()
        if qid in attempts
    }
    answered = {qid: attempts[qid].created_at for qid in results}
    previous, following = course.neighbours(lesson.slug)
    return {
        "lesson": lesson,
        "results": results,
        "answered": answered,
        "errors": {},
        "tree_views": {
            tid: tree_view(tree, query.get("c") if query.get("arvore") == tid else None, lesson.slug)
            for tid, tree in lesson.trees.items()
        },
        "previous": previous,
        "following": following,
        "position": course.lessons.index(lesson) + 1,
        "total": len(course.lessons),
    }
