"""The answer form's fields, read once for every route that grades one (lesson quiz, review)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Form

from app.learning.usecases import Answer


async def answer_form(
    opcao: Annotated[list[str] | None, Form()] = None,
    chave: Annotated[str | None, Form()] = None,
    versao: Annotated[str | None, Form(max_length=64)] = None,
    valor: Annotated[str | None, Form()] = None,
    posicao: Annotated[list[str] | None, Form()] = None,
    confirmado: Annotated[str | None, Form(max_length=100)] = None,
) -> Answer:
    """The answer as sent: ``opcao`` (option ids), ``chave`` (the form's idempotency key),
    ``versao`` (the question version shown), ``valor`` (a ``numeric`` answer as typed) and
    ``posicao`` (an ``ordering`` answer's ``<item id>=<position>`` pairs), and ``confirmado``
    (a ``numeric`` answer the learner confirmed as typed, "3.438" meaning 3438)."""
    return Answer(chave or "", versao, opcao or [], valor, posicao or [], confirmado)


AnswerFormDep = Annotated[Answer, Depends(answer_form)]
