"""The forms two routes share: the answer form read once, what a refused one says, and the
session keys that carry a message to the next page (post/redirect/get without JavaScript)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated
from urllib.parse import parse_qsl

from fastapi import Depends, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from app.i18n import N_, gettext
from app.learning import usecases
from app.learning.trees import QUESTION_CHANGED  # one message id for an answer and a tree step
from app.learning.usecases import Answer, FormRefused
from app.learning.views import Draft
from app.web.front_door import BODY_SCOPE_KEY

FORM_TYPE = "application/x-www-form-urlencoded"
MAX_FIELDS = 1000  # Starlette's limit of a form's fields (Request.form's max_fields)


async def answer_form(request: Request) -> Answer:
    """The answer as sent: ``opcao`` (option ids), ``chave`` (the form's idempotency key),
    ``versao`` (the question version shown), ``valor`` (a ``numeric`` answer as typed) and
    ``posicao`` (an ``ordering`` answer's ``<item id>=<position>`` pairs), and ``confirmado``
    (a ``numeric`` answer the learner confirmed as typed, "3.438" meaning 3438), and
    ``variante`` (the signed variant of a numeric question with parameters), and ``dada_em``
    (when an answer kept on the device offline was given; issue 40) with ``emitida`` (the
    signed time the form's page was sent); read by
    :meth:`PostedForm.answer`."""
    return PostedForm(request).answer()


AnswerFormDep = Annotated[Answer, Depends(answer_form)]


class PostedForm:
    """A POST's url-encoded form, parsed once from the body the front door buffered
    (``scope["curso.body"]``), for the busiest routes, which skip FastAPI's form parsing and
    dependency resolution. Read as FastAPI reads ``Form()`` parameters: the last value of a
    field, an empty value as absent; a value longer than its limit, or a required field
    absent, raises :class:`~fastapi.exceptions.RequestValidationError` (the 422 page "Dados
    inválidos", :mod:`app.web.errors`). Another body type is an empty form.

    Raises:
        HTTPException: 400 for more than :data:`MAX_FIELDS` fields, as Starlette's parser.
    """

    def __init__(self, request: Request) -> None:
        body: bytes = request.scope.get(BODY_SCOPE_KEY, b"")
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        text = body.decode("utf-8", "replace") if kind == FORM_TYPE else ""
        self.fields: dict[str, list[str]] = {}
        try:
            pairs = parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FIELDS)
        except ValueError as exc:
            raise HTTPException(status_code=400, detail="Too many fields") from exc
        for name, value in pairs:
            self.fields.setdefault(name, []).append(value)

    def get(self, name: str, max_length: int | None = None) -> str | None:
        """The field's last value, ``None`` when absent or empty."""
        values = self.fields.get(name)
        value = values[-1] if values else None
        if not value:
            return None
        if max_length is not None and len(value) > max_length:
            raise RequestValidationError([{"loc": ("body", name), "type": "string_too_long"}])
        return value

    def required(self, name: str, max_length: int | None = None) -> str:
        """As :meth:`get`, for a field that must be there."""
        value = self.get(name, max_length)
        if value is None:
            raise RequestValidationError([{"loc": ("body", name), "type": "missing"}])
        return value

    def every(self, name: str) -> list[str]:
        """Every value of the field, in order (``[]`` when absent)."""
        return self.fields.get(name, [])

    def answer(self) -> Answer:
        """The answer form (:func:`answer_form`): ``versao`` up to 64 characters,
        ``confirmado`` 100, ``variante`` and ``dada_em`` 40, ``emitida`` 64.

        ``dada_em`` is when an answer kept on the device offline was given (ISO 8601 with its
        offset, as ``Date.toISOString`` writes it; issue 40); the use-case clamps it to
        between ``emitida`` (the signed time the page was sent) and now.

        Raises:
            HTTPException: 422 when ``dada_em`` is not such a time.
        """
        return Answer(
            self.get("chave") or "",
            self.get("versao", 64),
            self.every("opcao"),
            self.get("valor"),
            self.every("posicao"),
            self.get("confirmado", 100),
            self.get("variante", 40),
            given_time_field(self.get("dada_em", 40)),
            self.get("emitida", 64),
        )


def given_time_field(text: str | None) -> datetime | None:
    """``dada_em`` read as an aware time; ``None`` when absent.

    Raises:
        HTTPException: 422 when it is not an ISO 8601 time with its offset.
    """
    if not text:
        return None
    try:
        given_at = datetime.fromisoformat(text)
    except ValueError:
        given_at = None
    if given_at is None or given_at.tzinfo is None:
        raise HTTPException(status_code=422, detail=gettext(BAD_GIVEN_AT))
    return given_at


STALE_FORM = N_("This form is out of date. Reload the page and answer again.")
REUSED_FORM = N_("This submission belongs to another question. Reload the page and answer again.")
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


# The session key of a refused answer, or of a form kept while a hint opened without
# JavaScript: {"lesson", "question", "message", "typed", "options", "positions"}.
FLASH_KEY = "aviso"
# At most this many values of a kept form's field, each at most KEPT_CHARS characters.
KEPT_VALUES = 50
KEPT_CHARS = 100


@dataclass(frozen=True)
class Flash:
    """What a POST without JavaScript left in the session for the question's next page: a
    message (a refused answer; ``""`` for none) and the form as the learner had filled it."""

    lesson: str
    question: str
    message: str
    typed: str
    draft: Draft

    def is_for(self, slug: str, question_id: str) -> bool:
        """It belongs to that question of that lesson."""
        return (self.lesson, self.question) == (slug, question_id)


def keep_form(
    request: Request, slug: str, question_id: str, message: str = "", form: bool = True
) -> None:
    """Keep ``message`` and, with ``form``, the posted answer form (what was typed, ticked or
    ordered) in the session for the question's next page (post/redirect/get)."""
    posted = PostedForm(request)

    def kept(name: str) -> list[str]:
        return [value[:KEPT_CHARS] for value in posted.every(name)[:KEPT_VALUES]] if form else []

    request.session[FLASH_KEY] = {
        "lesson": slug,
        "question": question_id,
        "message": message,
        "typed": (posted.get("valor") or "")[:KEPT_CHARS] if form else "",
        "options": kept("opcao"),
        "positions": kept("posicao"),
    }


def take_flash(request: Request, learner_id: str | None) -> Flash | None:
    """The form and message a POST left for this page, removed so a reload does not show them
    again; ``None`` when there is none (a visitor has none, and their session stays unread)."""
    flash = request.session.pop(FLASH_KEY, None) if learner_id is not None else None
    if not isinstance(flash, dict):
        return None

    def values(name: str) -> tuple[str, ...]:
        found = flash.get(name)
        return tuple(str(v) for v in found) if isinstance(found, list) else ()

    return Flash(
        str(flash.get("lesson") or ""),
        str(flash.get("question") or ""),
        str(flash.get("message") or ""),
        str(flash.get("typed") or ""),
        Draft(values("options"), values("positions")),
    )


# The session key of the question a POST without JavaScript just graded, [lesson, question]:
# its lesson page, the redirect's target, shows its explanations open once.
ANSWERED_KEY = "respondida"


def keep_answered(request: Request, slug: str, question_id: str) -> None:
    """Remember, for the lesson page the redirect leads to, the question just graded."""
    request.session[ANSWERED_KEY] = [slug, question_id]


def take_answered(request: Request, learner_id: str | None, slug: str) -> str | None:
    """The id of the question of lesson ``slug`` a POST just graded, removed so a reload or a
    later visit shows it folded; ``None`` when there is none (a visitor's session stays
    unread)."""
    kept = request.session.pop(ANSWERED_KEY, None) if learner_id is not None else None
    if isinstance(kept, list) and len(kept) == 2 and kept[0] == slug:
        return str(kept[1])
    return None


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
