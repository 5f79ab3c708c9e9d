"""``/revisar``: the learner's questions due for spaced review, one at a time.

Each question is the lesson's own fragment (same form, grading and explanations); its
answer is stored as an attempt marked ``review`` and reschedules the card
(:mod:`app.learning.review`). Works without JavaScript: the form posts, the server redirects (303)
to the graded question, whose "Próxima pergunta" link leads to the next card due.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.content.lessons import Lesson
from app.content.numbers import AnswerError
from app.content.page_ids import question_anchor
from app.content.quiz import Question
from app.learning import review
from app.learning.grading import grade_form
from app.learning.mastery import concept_tags
from app.learning.progress import course_progress
from app.learning.store import DuplicateKeyError, read_state, record_attempt
from app.learning.views import KEY_RE, question_view
from app.platform.i18n import gettext
from app.platform.models import Attempt
from app.web.answer_form import AnswerFormDep
from app.web.deps import CourseDep, LearnerForWriteDep, LearnerIdDep, SessionDep
from app.web.form_messages import QUESTION_CHANGED, QUESTION_NOT_FOUND, REUSED_FORM, STALE_FORM
from app.web.lookups import find_lesson
from app.web.places import session_place
from app.web.templating import VARY, render, wants_fragment
from app.web.urls import urls_of

router = APIRouter()


def _find(course, slug: str, question_id: str) -> tuple[Lesson, Question]:
    lesson = find_lesson(course, slug)
    question = lesson.questions.get(question_id)
    if question is None:
        raise HTTPException(status_code=404, detail=gettext(QUESTION_NOT_FOUND))
    return lesson, question


def _page(
    request: Request,
    course,
    db,
    learner_id: str | None,
    lesson: Lesson | None = None,
    question: Question | None = None,
    graded: bool = False,
    error: str | None = None,
    typed: str = "",
    status_code: int = 200,
):
    """Render the review page (or, for htmx, the question fragment alone)."""
    state = read_state(db, learner_id)
    progress = course_progress(course, state, state.place or session_place(request))
    due = review.due_reviews(db, learner_id, course, review.now()) if learner_id else []
    if question is None and due:
        lesson, question = due[0].lesson, due[0].question
    context: dict = {"progress": progress, "due": due, "lesson": lesson, "question": question}
    if question is not None and lesson is not None:
        attempts = state.in_lesson(lesson.slug)
        context["view"] = question_view(
            lesson.slug,
            question,
            learner_id,
            attempts.get(question.id, []),
            retry=not graded,
            error=error,
            typed=typed,
        )
        context["answer_url"] = urls_of(request).review_answer(lesson.slug, question.id)
        context["in_review"] = True
        context["remaining"] = sum(
            1 for item in due if (item.lesson.slug, item.question.id) != (lesson.slug, question.id)
        )
    if wants_fragment(request) and question is not None:
        return render(request, "_review_question.html", context, status_code=status_code)
    return render(request, "review.html", context, status_code=status_code)


@router.get("/revisar", response_class=HTMLResponse, name="review")
def review_page(request: Request, course: CourseDep, db: SessionDep, learner_id: LearnerIdDep):
    """The first question due for review (edited questions first, then the oldest due), or a
    note that nothing is due, with the count left."""
    return _page(request, course, db, learner_id)


@router.get("/revisar/{slug}/{question_id}", response_class=HTMLResponse, name="review_answered")
def review_answered(
    request: Request,
    slug: str,
    question_id: str,
    course: CourseDep,
    db: SessionDep,
    learner_id: LearnerIdDep,
):
    """A reviewed question, graded with its explanations, and the link to the next one."""
    lesson, question = _find(course, slug, question_id)
    return _page(request, course, db, learner_id, lesson, question, graded=True)


@router.post("/revisar/{slug}/{question_id}", response_class=HTMLResponse, name="review_answer")
def review_answer(
    request: Request,
    slug: str,
    question_id: str,
    course: CourseDep,
    db: SessionDep,
    learner_id: LearnerForWriteDep,
    sent: AnswerFormDep,
):
    """Grade and store one review answer, once per form (``chave``), and reschedule its card.

    The same fields as the lesson's answer form. htmx gets the graded question; a plain post
    is redirected (303) to it. A refused answer gets the form again with the message (422),
    a form of an older version of the question the new version (409).
    """
    lesson, question = _find(course, slug, question_id)

    def again(message: str, status_code: int = 422, typed: str = ""):
        return _page(
            request,
            course,
            db,
            learner_id,
            lesson,
            question,
            error=message,
            typed=typed,
            status_code=status_code,
        )

    if not KEY_RE.match(sent.key):
        return again(gettext(STALE_FORM))
    if sent.version != question.content_hash:
        return again(gettext(QUESTION_CHANGED), status_code=409)
    try:
        result, stored = grade_form(
            question, sent.options, sent.value, sent.positions, sent.confirmed
        )
    except AnswerError as exc:
        return again(str(exc), typed=sent.value or "")
    attempt = Attempt(
        learner_id=learner_id,
        lesson_slug=lesson.slug,
        question_id=question.id,
        question_hash=question.content_hash,
        chosen=stored,
        correct=result.correct,
        idempotency_key=sent.key,
        credit=result.credit,
        review=True,
    )
    try:
        record_attempt(db, attempt, concept_tags(course))
    except DuplicateKeyError:
        return again(gettext(REUSED_FORM))
    if wants_fragment(request):
        return _page(request, course, db, learner_id, lesson, question, graded=True)
    url = request.url_for("review_answered", slug=lesson.slug, question_id=question.id).path
    return RedirectResponse(
        url + "#" + question_anchor(question.id), status_code=303, headers={"Vary": VARY}
    )
