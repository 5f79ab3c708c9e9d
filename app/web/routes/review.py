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
from app.i18n import gettext
from app.learning import review
from app.learning.progress import course_progress
from app.learning.state import LearnerState
from app.learning.store import read_state
from app.learning.usecases import QUESTION_CHANGED, AnswerPlace, FormRefused, answer_question
from app.learning.views import question_view
from app.web.deps import (
    SESSION_KEY,
    CourseDep,
    LearnerForWriteDep,
    LearnerIdDep,
    SessionDep,
    born_in_this_request,
    learner_store,
)
from app.web.forms import QUESTION_NOT_FOUND, AnswerFormDep, refusal_message
from app.web.lookups import find_lesson, session_place
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
    state: LearnerState,
    lesson: Lesson | None = None,
    question: Question | None = None,
    graded: bool = False,
    error: str | None = None,
    typed: str = "",
    status_code: int = 200,
):
    """Render the review page (or, for htmx, the question fragment alone) from one state."""
    learner_id = state.learner_id
    progress = course_progress(course, state, state.place or session_place(request))
    due = review.due_of(state.cards, course, review.now()) if learner_id else []
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
        context["answer_url"] = urls_of(request).path(
            "review_answer", slug=lesson.slug, question_id=question.id
        )
        context["in_review"] = True
        context["remaining"] = sum(
            1 for item in due if (item.lesson.slug, item.question.id) != (lesson.slug, question.id)
        )
    if wants_fragment(request):  # the card alone: an answer, or "Próxima pergunta"
        card = "_review_question.html" if question is not None else "_review_none.html"
        return render(request, card, context, status_code=status_code)
    return render(request, "review.html", context, status_code=status_code)


@router.get("/revisar", response_class=HTMLResponse, name="review")
def review_page(request: Request, course: CourseDep, db: SessionDep, learner_id: LearnerIdDep):
    """The first question due for review (edited questions first, then the oldest due), or a
    note that nothing is due, with the count left."""
    return _page(request, course, read_state(db, learner_id))


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
    return _page(request, course, read_state(db, learner_id), lesson, question, graded=True)


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
    """Grade and store one review answer, once per form (``chave``), and reschedule its card:
    the lesson quiz's use-case (:func:`app.learning.usecases.answer_question`), the attempt
    marked ``review``.

    The same fields as the lesson's answer form. htmx gets the graded question; a plain post
    is redirected (303) to it. A refused answer gets the form again with the message (422),
    a form of an older version of the question the new version (409).
    """
    lesson, question = _find(course, slug, question_id)
    store = learner_store(request, db)
    born = born_in_this_request(request)
    try:
        page = answer_question(
            store, course, lesson, question, learner_id, sent, AnswerPlace(review=True, born=born)
        )
    except (FormRefused, AnswerError) as exc:
        if isinstance(exc, FormRefused):
            message, typed = refusal_message(exc), ""
            status = 409 if exc.reason == QUESTION_CHANGED else 422
        else:
            message, typed, status = str(exc), sent.value or "", 422
        state = LearnerState(None) if born else store.read_state(learner_id)
        return _page(
            request, course, state, lesson, question, error=message, typed=typed, status_code=status
        )
    if page.learner_id != learner_id:  # the same first answer, sent twice at once
        request.session[SESSION_KEY] = page.learner_id
    if wants_fragment(request):
        assert page.state is not None  # an answer's page carries the state it was built from
        return _page(request, course, page.state, lesson, question, graded=True)
    url = urls_of(request).with_anchor(
        "review_answered", question_anchor(question.id), slug=lesson.slug, question_id=question.id
    )
    return RedirectResponse(url, status_code=303, headers={"Vary": VARY})
