"""The forms two routes share: the answer form read once, what a refused one says, and the
session keys that carry a message to the next page (post/redirect/get without JavaScript)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import Depends, Form, HTTPException, Request

from app.i18n import N_, gettext
from app.learning import usecases
from app.learning.usecases import Answer, FormRefused


async def answer_form(
    opcao: Annotated[list[str] | None, Form()] = None,
    chave: Annotated[str | None, Form()] = None,
    versao: Annotated[str | None, Form(max_length=64)] = None,
    valor: Annotated[str | None, Form()] = None,
    posicao: Annotated[list[str] | None, Form()] = None,
    confirmado: Annotated[str | None, Form(max_length=100)] = None,
    variante: Annotated[str | None, Form(max_length=40)] = None,
    dada_em: Annotated[str | None, Form(max_length=40)] = None,
) -> Answer:
    """The answer as sent: ``opcao`` (option ids), ``chave`` (the form's idempotency key),
    ``versao`` (the question version shown), ``valor`` (a ``numeric`` answer as typed) and
    ``posicao`` (an ``ordering`` answer's ``<item id>=<position>`` pairs), and ``confirmado``
    (a ``numeric`` answer the learner confirmed as typed, "3.438" meaning 3438), and
    ``variante`` (the signed variant of a numeric question with parameters).

    ``dada_em`` is when an answer kept on the device offline was given (ISO 8601 with its
    offset, as ``Date.toISOString`` writes it; issue 40); the use-case clamps it.

    Raises:
        HTTPException: 422 when ``dada_em`` is not such a time.
    """
    given_at = None
    if dada_em:
        try:
            given_at = datetime.fromisoformat(dada_em)
        except ValueError:
            given_at = None
        if given_at is None or given_at.tzinfo is None:
            raise HTTPException(status_code=422, detail=gettext(BAD_GIVEN_AT))
    fields = (valor, posicao or [], confirmado, variante, given_at)
    return Answer(chave or "", versao, opcao or [], *fields)


AnswerFormDep = Annotated[Answer, Depends(answer_form)]


QUESTION_NOT_FOUND = N_("Question not found in this lesson. Reload the page.")
STALE_FORM = N_("This form is out of date. Reload the page and answer again.")
REUSED_FORM = N_("This submission belongs to another question. Reload the page and answer again.")
QUESTION_CHANGED = N_("This question changed; read it again and answer.")
HINT_NOT_FOUND = N_("This question has no such hint. Reload the page.")
BAD_GIVEN_AT = N_("The time this answer was given is not valid. Answer the question again.")


def refusal_message(refused: FormRefused) -> str:
    """The message of a form the answer use-case refused, in the learner's language."""
    return gettext(
        {
            usecases.STALE_FORM: STALE_FORM,
            usecases.QUESTION_CHANGED: QUESTION_CHANGED,
            usecases.REUSED_KEY: REUSED_FORM,
        }[refused.reason]
    )


# The session key of a refused answer: {"lesson", "question", "message", "typed"}.
FLASH_KEY = "aviso"
# The session key of a one-line confirmation for the next page (a class joined, an account
# created): a string, shown once by the page the redirect leads to.
NOTICE_KEY = "recado"


def leave_notice(request: Request, text: str) -> None:
    """Keep ``text`` for the next page that shows notices (the course home, the progress page)."""
    request.session[NOTICE_KEY] = text


def take_notice(request: Request, learner_id: str | None) -> str | None:
    """The notice left for this page, removed so a reload does not show it again; a visitor
    (no learner yet) has none, and their session is left unwritten."""
    return request.session.pop(NOTICE_KEY, None) if learner_id is not None else None
