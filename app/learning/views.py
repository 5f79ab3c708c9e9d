"""What ``_question.html`` shows for one learner: their option order, grade and history.

A visitor who has stored nothing yet (no learner id) sees the options in the order of
:data:`VISITOR_ORDER`: the same for every visitor, so their page can be served from cache.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from app.content.numbers import decimal_point_reading
from app.content.quiz import Hint, Item, Option, Question
from app.learning.grading import (
    Grade,
    QuestionRecord,
    question_records,
    regrade_stored,
    shuffled_items,
    shuffled_options,
)
from app.learning.state import AttemptRow, facts_of
from app.learning.variants import answered_variant, form_variant

KEY_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
# The shuffle seed of visitors without a learner id (still a shuffle: the right option is not
# always where the author wrote it).
VISITOR_ORDER = "visitante"


@dataclass(frozen=True)
class GradedOption:
    """An option the graded answer shows with its explanation: chosen, right, or both."""

    option: Option
    chosen: bool
    right: bool


@dataclass(frozen=True)
class Draft:
    """What the learner had chosen in a form they did not send as an answer, shown again in
    it: without JavaScript, opening a hint posts the answer form to the hint's address, and
    the page that follows keeps the choices (a ``numeric`` answer rides in ``typed``).

    Attributes:
        options: the option ids ticked (``opcao``).
        positions: an ``ordering`` question's ``<item id>=<position>`` pairs (``posicao``).
    """

    options: tuple[str, ...] = ()
    positions: tuple[str, ...] = ()

    def position_of(self, item_id: str, default: int) -> int:
        """The position chosen for ``item_id``, or ``default`` (none, or not a number)."""
        for pair in self.positions:
            name, _, number = pair.partition("=")
            if name == item_id and number.isascii() and number.isdigit() and len(number) < 4:
                return int(number)
        return default


@dataclass(frozen=True)
class QuestionView:
    """One question as one learner sees it.

    Attributes:
        options: the options in the learner's stable shuffled order.
        result: the latest attempt's stored grade when it is shown graded, else ``None`` (form).
        record: the learner's history on the question, or ``None`` before any attempt.
        outdated: the learner's latest answer was to an older version of the question.
        key: a fresh idempotency key for the form.
        error: a message in Portuguese about the last submission, or ``None``.
        answered_at: when the graded attempt shown was stored (UTC), or ``None`` with the form.
        items: ``ordering``: the items in the learner's stable shuffled order.
        typed: ``numeric``: what the learner typed, kept in the form after a refused answer.
        confirm: ``numeric``: the refused answer reads in thousands ("3.438" is 3438); the
            form asks the learner to confirm it as typed.
        hints: the hints the learner opened since their last answer, in order (only these
            reach the page: a hint not opened, the worked answer above all, never does).
        next_hint: the number of the next hint to open, or 0 when none is left.
        help: the help the graded answer shown had (:mod:`app.learning.rules`).
        graded: with a result, the options chosen or right, in the learner's order.
        others: with a result, the other options ("por que as outras estão certas ou erradas").
        question: a numeric question with variants: the variant shown (its numbers and key),
            else ``None`` (the question as written).
        variant_token: the form's ``variante`` (which variant it shows, signed), or ``""``.
        draft: the choices kept in the form (:class:`Draft`).
    """

    options: tuple[Option, ...]
    result: Grade | None
    record: QuestionRecord | None
    outdated: bool
    key: str
    error: str | None = None
    answered_at: datetime | None = None
    items: tuple[Item, ...] = ()
    typed: str = ""
    confirm: bool = False
    hints: tuple[Hint, ...] = ()
    next_hint: int = 0
    help: int = 0
    graded: tuple[GradedOption, ...] = ()
    others: tuple[Option, ...] = ()
    question: Question | None = None
    variant_token: str = ""
    draft: Draft = Draft()


def new_key() -> str:
    """Return a fresh idempotency key for one answer form."""
    return secrets.token_urlsafe(16)


def question_view(
    lesson_slug: str,
    question: Question,
    learner_id: str | None,
    attempts: Sequence[AttemptRow],
    retry: bool = False,
    error: str | None = None,
    typed: str = "",
    revealed: Sequence[int] = (),
    secret: bytes = b"",
    draft: Draft | None = None,
) -> QuestionView:
    """Decide how to show ``question`` to the learner.

    Args:
        question: the question as it is now.
        learner_id: the learner (seeds the option order); ``None`` for a visitor, who gets
            :data:`VISITOR_ORDER`.
        attempts: the learner's attempts on this question, oldest first.
        retry: show the form even after an answer ("Responder de novo").
        error: a message to show with the form.
        typed: what the learner typed in a refused ``numeric`` answer.
        revealed: the numbers of the hints opened since the last answer
            (:meth:`app.learning.state.LearnerState.revealed`).
        secret: the server's secret, which picks and signs a learner's variant of a numeric
            question with ``params`` (:mod:`app.learning.variants`).
        draft: the choices to keep in the form (with ``typed``, a draft's number).

    Returns:
        The graded latest attempt, or the form when there is none, when the learner asked to
        retry, when there is an error, or when the question changed since their latest answer.
    """
    record = question_records(facts_of(attempts)).get((lesson_slug, question.id))
    outdated = record is not None and record.is_outdated(question)
    result = None
    answered_at = None
    help = 0
    shown, token = question, ""
    answered = bool(attempts) and not (retry or error or outdated)
    if question.variants is not None:
        if answered:
            shown = answered_variant(question, attempts[-1])
        else:
            owner = None if learner_id in (None, VISITOR_ORDER) else learner_id
            shown, token = form_variant(secret, owner, lesson_slug, question, len(attempts))
    if answered:
        latest = attempts[-1]
        result = regrade_stored(shown, latest.chosen, latest.correct)
        answered_at = latest.created_at
        help = latest.help
    opened = sorted({n for n in revealed if 1 <= n <= len(question.hints)})
    hints = tuple(question.hints[n - 1] for n in opened)
    next_hint = len(hints) + 1 if len(hints) < len(question.hints) else 0
    seed = learner_id or VISITOR_ORDER
    options = shuffled_options(question, seed, lesson_slug)
    items = shuffled_items(question, seed, lesson_slug) if question.items else ()
    unit = shown.numeric.unit if shown.numeric else None
    confirm = bool(error) and decimal_point_reading(typed, unit) is not None
    graded: list[GradedOption] = []
    others: list[Option] = []
    if result is not None:
        for option in options:
            chosen, right = option.id in result.chosen, option.id in result.answer
            if chosen or right:
                graded.append(GradedOption(option, chosen, right))
            else:
                others.append(option)
    return QuestionView(
        options,
        result,
        record,
        outdated,
        new_key(),
        error,
        answered_at,
        items,
        typed[:100],
        confirm,
        hints,
        next_hint,
        help,
        tuple(graded),
        tuple(others),
        shown if question.variants is not None else None,
        token,
        draft or Draft(),
    )
