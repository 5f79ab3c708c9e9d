"""``/revisar``: the learner's questions due for spaced review, one at a time, and the notebook
of mistakes (``/revisar/erradas``, "Só as que errei").

Each question is the lesson's own fragment (same form, grading and explanations); its
answer is stored as an attempt marked ``review`` and reschedules the card
(:mod:`app.learning.review`). Works without JavaScript: the form posts, the server redirects (303)
to the graded question, whose "Próxima pergunta" link leads to the next card due.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.content.lessons import Lesson
from app.content.numbers import AnswerError
from app.content.page_ids import question_anchor
from app.content.quiz import Question
from app.i18n import learner_zone
from app.learning import review
from app.learning.notebook import empty_because, notebook, notebook_concepts
from app.learning.progress import course_progress
from app.learning.state import LearnerState
from app.learning.usecases import (
    QUESTION_CHANGED,
    FormRefused,
    QuestionPage,
    answer_question,
    opened,
)
from app.learning.views import question_view
from app.web import question_modes
from app.web.deps import (
    SESSION_KEY,
    CourseDep,
    LearnerForWriteDep,
    LearnerIdDep,
    SessionDep,
    answer_place,
    learner_store,
)
from app.web.forms import AnswerFormDep, Flash, refusal_message, take_flash
from app.web.lookups import find_question, session_place
from app.web.templating import TIMEZONE_COOKIE, VARY, render, wants_fragment
from app.web.urls import urls_of

router = APIRouter()


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
    flash: Flash | None = None,
):
    """Render the review page (or, for htmx, the question fragment alone) from one state;
    ``flash``: the form a hint opened without JavaScript left, kept in the question's form."""
    learner_id = state.learner_id
    progress = course_progress(course, state, state.place or session_place(request))
    due = review.due_of(state.cards, course, review.now()) if learner_id else []
    if question is None and due:
        lesson, question = due[0].lesson, due[0].question
    context: dict = {"progress": progress, "due": due, "lesson": lesson, "question": question}
    if question is not None and lesson is not None:
        attempts = state.in_lesson(lesson.slug)
        kept = flash if flash is not None and flash.is_for(lesson.slug, question.id) else None
        context["view"] = question_view(
            lesson.slug,
            question,
            learner_id,
            attempts.get(question.id, []),
            retry=not graded,
            error=error,
            typed=kept.typed if kept else typed,
            revealed=opened(state, lesson.slug, question),
            secret=request.app.state.secret.encode(),
            draft=kept.draft if kept else None,
        )
        context["question_mode"] = question_modes.REVIEW
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
    state = learner_store(request, db).read_state(learner_id)
    return _page(request, course, state, flash=take_flash(request, learner_id))


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
    lesson, question = find_question(course, slug, question_id)
    state = learner_store(request, db).read_state(learner_id)
    return _page(request, course, state, lesson, question, graded=True)


@dataclass(frozen=True)
class _Refused:
    """A review answer refused before it was stored: the message, what was typed, the status
    and the learner's state to show the form again from."""

    message: str
    typed: str
    status: int
    state: LearnerState


@dataclass(frozen=True)
class _InReview:
    """A question answered in review: the page of the answer stored, or why it was refused."""

    lesson: Lesson
    question: Question
    page: QuestionPage | _Refused


async def _answer_in_review(
    request: Request,
    slug: str,
    question_id: str,
    course: CourseDep,
    learner_id: LearnerForWriteDep,
    sent: AnswerFormDep,
) -> _InReview:
    """The one answer path of ``/revisar`` and of its notebook (a dependency of both answer
    routes; 404 for a question the course does not have): the lesson quiz's use-case
    (:func:`app.learning.usecases.answer_question`), the attempt marked ``review``, the first
    answer's birth bound to this browser's visit cookie, and in a session launched from an
    LMS the lesson's score queued for each launch of that lesson, with the answer. On the
    event loop: the commit is awaited, no thread waits."""
    lesson, question = find_question(course, slug, question_id)
    store = learner_store(request)
    where = answer_place(request, learner_id, course, lesson, review=True)
    try:
        page = await answer_question(store, course, lesson, question, learner_id, sent, where)
    except (FormRefused, AnswerError) as exc:
        if isinstance(exc, FormRefused):
            message, typed = refusal_message(exc), ""
            status = 409 if exc.reason == QUESTION_CHANGED else 422
        else:
            message, typed, status = str(exc), sent.value or "", 422
        state = LearnerState(None) if where.born else store.read_state(learner_id)
        return _InReview(lesson, question, _Refused(message, typed, status, state))
    if page.learner_id != learner_id:  # the same first answer, sent twice at once
        request.session[SESSION_KEY] = page.learner_id
    if where.outbox:
        request.app.state.lti_sender.wake()
    return _InReview(lesson, question, page)


InReviewDep = Annotated[_InReview, Depends(_answer_in_review)]


@router.post("/revisar/{slug}/{question_id}", response_class=HTMLResponse, name="review_answer")
async def review_answer(request: Request, course: CourseDep, answered: InReviewDep):
    """Grade and store one review answer, once per form (``chave``), and reschedule its card:
    the lesson quiz's use-case (:func:`app.learning.usecases.answer_question`), the attempt
    marked ``review``.

    The same fields as the lesson's answer form. htmx gets the graded question; a plain post
    is redirected (303) to it. A refused answer gets the form again with the message (422),
    a form of an older version of the question the new version (409). In a session launched
    from an LMS, the lesson's score is queued for each launch of that lesson, with the answer.
    """
    lesson, question, page = answered.lesson, answered.question, answered.page
    if isinstance(page, _Refused):
        return _page(
            request,
            course,
            page.state,
            lesson,
            question,
            error=page.message,
            typed=page.typed,
            status_code=page.status,
        )
    if wants_fragment(request):
        assert page.state is not None  # an answer's page carries the state it was built from
        return _page(request, course, page.state, lesson, question, graded=True)
    url = urls_of(request).with_anchor(
        "review_answered", question_anchor(question.id), slug=lesson.slug, question_id=question.id
    )
    return RedirectResponse(url, status_code=303, headers={"Vary": VARY})


def _notebook_page(
    request: Request,
    course,
    state: LearnerState,
    concept: str | None = None,
    just: tuple[Lesson, Question] | None = None,
    error: str | None = None,
    typed: str = "",
    status_code: int = 200,
    flash: Flash | None = None,
):
    """Render the notebook of mistakes from one state; ``just``: the question just answered
    here, shown graded (or with ``error``) even once it has left the notebook; ``flash``: the
    form a hint opened without JavaScript left, kept in that question's form."""
    now = review.now()
    zone = learner_zone(request.cookies.get(TIMEZONE_COOKIE))
    known = concept if concept and course.glossary.get(concept) else None
    groups = notebook(course, state, now, zone, known)
    views = {}
    listed = [(e.lesson, e.question) for g in groups for e in g.entries]
    for lesson, question in ([just] if just and just not in listed else []) + listed:
        key = (lesson.slug, question.id)
        kept = flash if flash is not None and flash.is_for(*key) else None
        views[key] = question_view(
            lesson.slug,
            question,
            state.learner_id,
            state.in_lesson(lesson.slug).get(question.id, []),
            retry=just != (lesson, question),
            error=error if just == (lesson, question) else None,
            typed=kept.typed if kept else typed if just == (lesson, question) else "",
            revealed=opened(state, lesson.slug, question),
            secret=request.app.state.secret.encode(),
            draft=kept.draft if kept else None,
        )
    context = {
        "progress": course_progress(course, state, state.place or session_place(request)),
        "groups": groups,
        "views": views,
        "question_mode": question_modes.NOTEBOOK.of(request),
        "just": just if just and just not in listed else None,
        "concepts": notebook_concepts(course, state),
        "concept": known,
        "glossary": course.glossary,
        "empty_because": empty_because(state),
    }
    if just is not None and wants_fragment(request):
        lesson, question = just
        key = (lesson.slug, question.id)
        fragment = {
            "lesson": lesson,
            "question": question,
            "view": views[key],
            "question_mode": question_modes.NOTEBOOK.of(request),
            "left": just not in listed,  # answered right: it leaves the list
        }
        return render(request, "_notebook_answer.html", fragment, status_code=status_code)
    return render(request, "notebook.html", context, status_code=status_code)


@router.get("/revisar/erradas", response_class=HTMLResponse, name="notebook")
def notebook_page(
    request: Request,
    course: CourseDep,
    db: SessionDep,
    learner_id: LearnerIdDep,
    conceito: Annotated[str | None, Query(max_length=100)] = None,
    licao: Annotated[str | None, Query(max_length=100)] = None,
    pergunta: Annotated[str | None, Query(max_length=100)] = None,
):
    """ "Só as que errei": every question the learner answered wrong and has not answered
    right since, by lesson, each with why it is there and its form to answer it in place;
    ``conceito`` keeps the questions of one glossary term. ``licao`` and ``pergunta``: the
    question just answered here without JavaScript, shown graded."""
    just = None
    if licao and pergunta:
        just = find_question(course, licao, pergunta)
    state = learner_store(request, db).read_state(learner_id)
    flash = take_flash(request, learner_id)
    return _notebook_page(request, course, state, conceito, just, flash=flash)


@router.get(
    "/revisar/erradas/{slug}/{question_id}", include_in_schema=False, name="notebook_address"
)
def notebook_address(request: Request, slug: str, question_id: str, course: CourseDep):
    """The address bar after a refused plain answer in the notebook shows the form's address:
    reloading or opening it leads to the notebook at the question (303), not to a 405 page.
    404 for a question the course does not have."""
    _lesson, question = find_question(course, slug, question_id)
    url = urls_of(request).with_anchor("notebook", question_anchor(question.id))
    return RedirectResponse(url, status_code=303)


@router.post(
    "/revisar/erradas/{slug}/{question_id}", response_class=HTMLResponse, name="notebook_answer"
)
async def notebook_answer(request: Request, course: CourseDep, answered: InReviewDep):
    """Answer a question of the notebook in place: the review's use-case
    (:func:`app.learning.usecases.answer_question`, the attempt marked ``review``). htmx gets
    the graded question; a plain post is redirected (303) to the notebook, where it shows
    graded. A refused answer gets the form again with the message (422; 409 for a form of
    an older version)."""
    lesson, question, page = answered.lesson, answered.question, answered.page
    if isinstance(page, _Refused):
        just = (lesson, question)
        return _notebook_page(
            request, course, page.state, None, just, page.message, page.typed, page.status
        )
    if wants_fragment(request):
        assert page.state is not None  # an answer's page carries the state it was built from
        return _notebook_page(request, course, page.state, None, (lesson, question))
    url = urls_of(request).with_query(
        "notebook", {"licao": lesson.slug, "pergunta": question.id}, question_anchor(question.id)
    )
    return RedirectResponse(url, status_code=303, headers={"Vary": VARY})
