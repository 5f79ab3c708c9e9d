"""Quiz answers: graded on the server, stored, returned as a fragment or a redirect."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.deps import CourseDep, ExistingLearnerIdDep, SessionDep
from app.grading import AnswerError, grade, validate_choice
from app.i18n import N_, gettext
from app.store import record_attempt
from app.web.lessons import FLASH_KEY, find_lesson
from app.web.templating import is_htmx, render

router = APIRouter()
QUESTION_NOT_FOUND = N_("Question not found in this lesson. Reload the page.")


@router.post("/licoes/{slug}/perguntas/{question_id}", response_class=HTMLResponse, name="answer")
def answer(
    request: Request,
    slug: str,
    question_id: str,
    course: CourseDep,
    session: SessionDep,
    learner_id: ExistingLearnerIdDep,
    opcao: Annotated[list[str] | None, Form()] = None,
):
    """Grade and store one answer.

    htmx gets the graded question fragment; a plain form post is redirected (303)
    back to the question on the lesson page, which shows the stored grade. A bad
    choice gives 422 with the question and a message in Portuguese.
    """
    lesson = find_lesson(course, slug)
    question = lesson.questions.get(question_id)
    if question is None:
        raise HTTPException(status_code=404, detail=gettext(QUESTION_NOT_FOUND))
    try:
        chosen = validate_choice(question, opcao or [])
    except AnswerError as exc:
        return _invalid(request, lesson, question, str(exc))
    result = grade(question, chosen)
    attempt = record_attempt(session, learner_id, lesson.slug, question.id, chosen, result.correct)
    if is_htmx(request):
        context = {
            "lesson": lesson, "question": question, "result": result, "error": None,
            "answered_at": attempt.created_at,
        }
        return render(request, "_question.html", context)
    url = request.url_for("lesson", slug=lesson.slug).path + f"#pergunta-{question.id}"
    return RedirectResponse(url, status_code=303, headers={"Vary": "HX-Request"})


def _invalid(request, lesson, question, message):
    if is_htmx(request):
        context = {"lesson": lesson, "question": question, "result": None, "error": message}
        return render(request, "_question.html", context, status_code=422)
    # Post/redirect/get: the message rides in the session to the question on the lesson page.
    request.session[FLASH_KEY] = {"lesson": lesson.slug, "question": question.id, "message": message}
    url = request.url_for("lesson", slug=lesson.slug).path + f"#pergunta-{question.id}"
    return RedirectResponse(url, status_code=303, headers={"Vary": "HX-Request"})
