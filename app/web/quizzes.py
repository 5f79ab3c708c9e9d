"""Quiz answers: graded on the server, stored once, returned as a fragment or a redirect."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.content.lessons import Lesson
from app.content.quiz import Question
from app.deps import CourseDep, ExistingLearnerIdDep, LearnerIdDep, SessionDep
from app.grading import (
    AnswerError,
    Grade,
    grade_form,
)
from app.i18n import N_, gettext
from app.models import Attempt
from app.store import DuplicateKeyError, lesson_attempts, record_attempt
from app.web.lessons import FLASH_KEY, attempts_by_question, find_lesson
from app.web.progress import course_progress
from app.web.question_view import KEY_RE, question_view
from app.web.templating import VARY, render, wants_fragment

router = APIRouter()
QUESTION_NOT_FOUND = N_("Question not found in this lesson. Reload the page.")
STALE_FORM = N_("This form is out of date. Reload the page and answer again.")
REUSED_FORM = N_("This submission belongs to another question. Reload the page and answer again.")
QUESTION_CHANGED = N_("This question changed; read it again and answer.")


@router.post("/licoes/{slug}/perguntas/{question_id}", response_class=HTMLResponse, name="answer")
def answer(
    request: Request,
    slug: str,
    question_id: str,
    course: CourseDep,
    session: SessionDep,
    learner_id: ExistingLearnerIdDep,
    opcao: Annotated[list[str] | None, Form()] = None,
    chave: Annotated[str | None, Form()] = None,
    versao: Annotated[str | None, Form(max_length=64)] = None,
    valor: Annotated[str | None, Form()] = None,
    posicao: Annotated[list[str] | None, Form()] = None,
):
    """Grade and store one answer, once per form (the ``chave`` idempotency key).

    The answer comes in ``opcao`` (option ids), ``valor`` (a ``numeric`` question's number,
    as typed) or ``posicao`` (an ``ordering`` question's ``<item id>=<position>`` pairs).

    htmx gets the graded question fragment (plus the course navigation, out of band); a
    plain form post is redirected (303) back to the question. Sending the same form again
    stores nothing new and answers the same. A bad choice or key gives 422 with the
    question and a message in Portuguese.

    The form carries the version of the question it showed (``versao``, the question's
    ``content_hash``). When that is not the live version (the lesson was edited while the form
    was open, or the form carries none), nothing is stored: htmx gets 409 with the new version
    of the question and the notice "Esta pergunta mudou; leia de novo e responda."; a plain
    form post is redirected (303) back to the question, with the same notice.
    """
    lesson, question = _find(course, slug, question_id)
    if not chave or not KEY_RE.match(chave):
        return _invalid(request, lesson, question, gettext(STALE_FORM), course, session, learner_id)
    if versao != question.content_hash:
        return _invalid(request, lesson, question, gettext(QUESTION_CHANGED), course, session,
                        learner_id, status_code=409)
    try:
        result, stored = _grade(question, opcao, valor, posicao)
    except AnswerError as exc:
        return _invalid(
            request, lesson, question, str(exc), course, session, learner_id, typed=valor or ""
        )
    attempt = Attempt(
        learner_id=learner_id, lesson_slug=lesson.slug, question_id=question.id,
        question_hash=question.content_hash, chosen=stored,
        correct=result.correct, idempotency_key=chave, credit=result.credit,
    )
    try:
        record_attempt(session, attempt)
    except DuplicateKeyError:
        return _invalid(request, lesson, question, gettext(REUSED_FORM), course, session, learner_id)
    if wants_fragment(request):
        return _fragment(request, lesson, question, course, session, learner_id, answered=True)
    return _back_to(request, lesson, question)


@router.get("/licoes/{slug}/perguntas/{question_id}", response_class=HTMLResponse, name="question")
def question_fragment(
    request: Request, slug: str, question_id: str, course: CourseDep, session: SessionDep,
    learner_id: LearnerIdDep, refazer: bool = False,
):
    """One question: htmx gets the fragment (``?refazer=1``: the form again, to retry);
    a plain request is redirected to the question on the lesson page."""
    lesson, question = _find(course, slug, question_id)
    if wants_fragment(request):
        return _fragment(request, lesson, question, course, session, learner_id, retry=refazer)
    return _back_to(request, lesson, question, retry=refazer)


def _grade(
    question: Question, opcao: list[str] | None, valor: str | None, posicao: list[str] | None
) -> tuple[Grade, str]:
    """Grade the form's answer by the question's kind; return the grade and what to store."""
    return grade_form(question, opcao, valor, posicao)  # shared with /revisar (app/web/review.py)


def _find(course, slug: str, question_id: str) -> tuple[Lesson, Question]:
    lesson = find_lesson(course, slug)
    question = lesson.questions.get(question_id)
    if question is None:
        raise HTTPException(status_code=404, detail=gettext(QUESTION_NOT_FOUND))
    return lesson, question


def _fragment(
    request, lesson, question, course, session, learner_id, retry=False, answered=False,
    error=None, typed="", status_code=422,
):
    grouped = attempts_by_question(lesson_attempts(session, learner_id, lesson.slug))
    attempts = grouped.get(question.id, [])
    view = question_view(
        lesson.slug, question, learner_id, attempts, retry=retry, error=error, typed=typed
    )
    context = {"lesson": lesson, "question": question, "view": view}
    if answered:
        context["progress"] = course_progress(request, course, session, learner_id)
        return render(request, "_answer.html", context)
    return render(request, "_question.html", context, status_code=status_code if error else 200)


def _back_to(request: Request, lesson: Lesson, question: Question, retry: bool = False):
    url = request.url_for("lesson", slug=lesson.slug).path
    url += (f"?refazer={question.id}" if retry else "") + f"#pergunta-{question.id}"
    return RedirectResponse(url, status_code=303, headers={"Vary": VARY})


def _invalid(
    request, lesson, question, message, course, session, learner_id, typed="", status_code=422
):
    if wants_fragment(request):
        return _fragment(
            request, lesson, question, course, session, learner_id, error=message, typed=typed,
            status_code=status_code,
        )
    # Post/redirect/get: the message (and a refused number) rides in the session to the
    # question on the lesson page.
    request.session[FLASH_KEY] = {
        "lesson": lesson.slug, "question": question.id, "message": message, "typed": typed[:100],
    }
    return _back_to(request, lesson, question)
