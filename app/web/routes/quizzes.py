"""Quiz answers: graded on the server, stored once, returned as a fragment or a redirect."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.content.lessons import Lesson
from app.content.numbers import AnswerError
from app.content.page_ids import question_anchor
from app.content.quiz import Question
from app.i18n import gettext
from app.learning.usecases import (
    QUESTION_CHANGED,
    FormRefused,
    HintNotFound,
    QuestionPage,
    answer_question,
    reveal_hint,
    show_question,
)
from app.learning.views import VISITOR_ORDER
from app.web import question_modes
from app.web.deps import (
    SESSION_KEY,
    LearnerForWriteDep,
    LearnerIdDep,
    ReaderCourseDep,
    RowId,
    SessionDep,
    answer_place,
    get_reader_course,
    learner_for_write,
    learner_store,
)
from app.web.forms import (
    HINT_NOT_FOUND,
    PostedForm,
    keep_answered,
    keep_form,
    refusal_message,
)
from app.web.launches import launch_query, tab_launch
from app.web.lookups import find_question
from app.web.templating import VARY, render, wants_fragment
from app.web.urls import urls_of

router = APIRouter()


async def answer(request: Request) -> Response:
    """Grade and store one answer, once per form (the ``chave`` idempotency key).

    The answer comes in ``opcao`` (option ids), ``valor`` (a ``numeric`` question's number,
    as typed) or ``posicao`` (an ``ordering`` question's ``<item id>=<position>`` pairs).
    A visitor's first answer gives them their learner id (and session).

    htmx gets the graded question fragment (plus the course navigation, out of band); a
    plain form post is redirected (303) back to the question. Sending the same form again
    stores nothing new and answers the same. A bad choice or key gives 422 with the
    question and a message in Portuguese.

    The form carries the version of the question it showed (``versao``, the question's
    ``content_hash``). When that is not the live version (the lesson was edited while the form
    was open, or the form carries none), nothing is stored: htmx gets 409 with the new version
    of the question and the notice "Esta pergunta mudou; leia de novo e responda."; a plain
    form post is redirected (303) back to the question, with the same notice.

    In a lesson opened from an LMS, the form carries its launch (``lancamento``, signed for
    this learner): the lesson's score is queued for that launch with the answer, in the same
    transaction (:mod:`app.web.launches`).

    Runs on the event loop: the state read is one short statement on the loop's connection,
    and the commit is awaited (the writer's thread wakes it), so no thread waits. A plain
    Starlette endpoint (the busiest POST): no dependency resolution, the form parsed once
    (:class:`app.web.forms.PostedForm`, ``lancamento`` up to 2,000 characters).
    """
    course = await get_reader_course(request)
    learner_id = await learner_for_write(request)
    form = PostedForm(request)
    sent, lancamento = form.answer(), form.get("lancamento", 2000)
    params = request.path_params
    lesson, question = find_question(course, params["slug"], params["question_id"])
    store = learner_store(request)
    # A visitor answering for the first time saw the visitors' option order: keep showing it.
    where = answer_place(
        request, learner_id, course, lesson, lancamento, visitor_order=VISITOR_ORDER
    )
    try:
        page = await answer_question(store, course, lesson, question, learner_id, sent, where)
    except FormRefused as refused:
        status = 409 if refused.reason == QUESTION_CHANGED else 422
        return _invalid(
            request,
            store,
            lesson,
            question,
            refusal_message(refused),
            learner_id,
            status_code=status,
        )
    except AnswerError as exc:
        return _invalid(
            request, store, lesson, question, str(exc), learner_id, typed=sent.value or ""
        )
    if page.learner_id != learner_id:  # the same first answer, sent twice at once
        request.session[SESSION_KEY] = page.learner_id
    if where.outbox:
        request.app.state.lti_sender.wake()  # LTI: the score queued with the answer goes out
    if wants_fragment(request):
        assert page.state is not None  # an answer's page carries the state it was built from
        return _render(request, lesson, question, page, due=page.state.due_for(lesson.slug))
    keep_answered(request, lesson.slug, question.id)  # its explanations open on the lesson
    return _back_to(request, lesson, question)


router.add_route("/licoes/{slug}/perguntas/{question_id}", answer, ["POST"], name="answer")


@router.post(
    "/licoes/{slug}/perguntas/{question_id}/dica", response_class=HTMLResponse, name="hint"
)
def hint(
    request: Request,
    slug: str,
    question_id: str,
    course: ReaderCourseDep,
    session: SessionDep,
    learner_id: LearnerForWriteDep,
    dica: Annotated[RowId, Form()],
    versao: Annotated[str | None, Form(max_length=64)] = None,
    origem: Annotated[str, Form(max_length=20)] = "",
):
    """Open the question's hints up to number ``dica`` (each stored once, as an event the
    learner's next answer to the question takes with it).

    htmx gets the hints block (``_hints.html``) with the hint opened; a plain form post is
    redirected (303) to the question's form: on the lesson, or where ``origem`` says
    (``revisar``: ``/revisar``; ``erradas``: the notebook of mistakes). A hint the question
    does not have is 404; a form of another version of the question is answered like the
    answer form's (409 for htmx, the notice after a redirect); for htmx the new question
    replaces the old one whole (``HX-Retarget``), not the hints block inside its form.
    """
    lesson, question = find_question(course, slug, question_id)
    store = learner_store(request, session)
    try:
        secret = request.app.state.secret.encode()
        page = reveal_hint(store, lesson, question, learner_id, dica, versao, secret)
    except HintNotFound as exc:
        raise HTTPException(status_code=404, detail=gettext(HINT_NOT_FOUND)) from exc
    except FormRefused as refused:
        refusal = _invalid(
            request, store, lesson, question, refusal_message(refused), learner_id, status_code=409
        )
        if wants_fragment(request):  # the whole question, not the hints block the button targets
            refusal.headers["HX-Retarget"] = f"#{question_anchor(question.id)}"
            refusal.headers["HX-Reswap"] = "outerHTML"
        return refusal
    if wants_fragment(request):
        context = {"lesson": lesson, "question": question, "view": page.view, "opened": True}
        return render(request, "_hints.html", context)
    # the answer form the learner had filled in (its hint button posts it here) comes back
    keep_form(request, lesson.slug, question.id)
    back = {"revisar": "review", "erradas": "notebook"}.get(origem)
    if back is not None:
        url = urls_of(request).with_anchor(back, question_anchor(question.id))
        return RedirectResponse(url, status_code=303, headers={"Vary": VARY})
    return _back_to(request, lesson, question, retry=True)


@router.get("/licoes/{slug}/perguntas/{question_id}", response_class=HTMLResponse, name="question")
def question_fragment(
    request: Request,
    slug: str,
    question_id: str,
    course: ReaderCourseDep,
    session: SessionDep,
    learner_id: LearnerIdDep,
    refazer: bool = False,
    lancamento: str | None = None,
):
    """One question: htmx gets the fragment (``?refazer=1``: the form again, to retry);
    a plain request is redirected to the question on the lesson page. ``?lancamento=``: the
    page's LTI launch, carried on by the form."""
    lesson, question = find_question(course, slug, question_id)
    tab_launch(request, learner_id, lancamento)
    if wants_fragment(request):
        store = learner_store(request, session)
        secret = request.app.state.secret.encode()
        page = show_question(store, lesson, question, learner_id, retry=refazer, secret=secret)
        assert page.state is not None  # a shown question carries the state it was built from
        return _render(request, lesson, question, page, due=page.state.due_for(lesson.slug))
    return _back_to(request, lesson, question, retry=refazer)


def _render(request, lesson, question, page: QuestionPage, status_code: int = 422, due=None):
    """The question fragment; ``due``: the learner's due date for the lesson, which marks an
    answer stored after it as late."""
    context = {
        "lesson": lesson,
        "question": question,
        "view": page.view,
        "lesson_due": due,
        "question_mode": question_modes.LESSON.of(request),
    }
    if page.progress is not None:
        context["progress"] = page.progress
        context["pool_draw"] = page.draw
        return render(request, "_answer.html", context)
    return render(
        request, "_question.html", context, status_code=status_code if page.error else 200
    )


def _back_to(request: Request, lesson: Lesson, question: Question, retry: bool = False):
    url = urls_of(request).question(lesson.slug, question.id, retry, launch_query(request))
    return RedirectResponse(url, status_code=303, headers={"Vary": VARY})


def _invalid(request, store, lesson, question, message, learner_id, typed="", status_code=422):
    if wants_fragment(request):
        secret = request.app.state.secret.encode()
        page = show_question(
            store, lesson, question, learner_id, error=message, typed=typed, secret=secret
        )
        return _render(request, lesson, question, page, status_code=status_code)
    # Post/redirect/get: the message (and the form as filled) rides in the session to the
    # question on the lesson page.
    keep_form(request, lesson.slug, question.id, message, form=bool(typed))
    return _back_to(request, lesson, question)
