"""Grading and progress rules: plain functions, data in, data out."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, TypeVar

from pydantic import Field

from app.content.numbers import (
    AnswerError,
    decimal_point_reading,
    format_number,
    parse_number,
    plain_number,
)
from app.content.quiz import Item, Option, Question
from app.i18n import N_, LabeledEnum, gettext
from app.learning.rules import counted, counted_total, is_done

T = TypeVar("T")


@dataclass(frozen=True)
class Grade:
    """The result of grading one answer.

    Attributes:
        correct: True when the chosen set equals the key (``numeric``: the value is within
            the tolerance; ``ordering``: every item is in its place).
        chosen: the option ids the learner chose (those still in the question).
        answer: the ids of the correct options.
        value: ``numeric``: the learner's value.
        wrong_html: ``numeric``: the explanation of the wrong value the learner typed, if
            the author foresaw it ("você subtraiu em vez de dividir"), else "".
        order: ``ordering``: the learner's order of item ids.
        in_place: ``ordering``: how many items are in their right position.
    """

    correct: bool
    chosen: frozenset[str]
    answer: frozenset[str]
    value: Decimal | None = None
    wrong_html: str = ""
    order: tuple[str, ...] = ()
    in_place: int = 0

    @property
    def credit(self) -> float | None:
        """``ordering``: the share of items in their right position (0 to 1); else ``None``."""
        return self.in_place / len(self.order) if self.order else None


def validate_choice(question: Question, chosen: Iterable[str]) -> frozenset[str]:
    """Check a submitted choice against the question's options.

    Args:
        chosen: option ids from the form.

    Raises:
        AnswerError: nothing chosen, an unknown id, or several ids for a ``single`` question.
    """
    ids = frozenset(chosen)
    if not ids:
        if question.kind == "multiple":
            raise AnswerError(gettext("Tick at least one option before sending your answer."))
        raise AnswerError(gettext("Choose an option before sending your answer."))
    known = {option.id for option in question.options}
    if not ids <= known:
        raise AnswerError(
            gettext("That option is not part of this question. Reload the page and try again.")
        )
    if question.kind != "multiple" and len(ids) > 1:
        raise AnswerError(gettext("This question takes only one option."))
    return ids


def grade(question: Question, chosen: frozenset[str]) -> Grade:
    """Grade an answer by option ids, never by position.

    Args:
        chosen: the chosen option ids (ids no longer in the question are ignored).

    Returns:
        The grade: correct when the chosen set equals the key exactly.
    """
    known = {option.id for option in question.options}
    kept = chosen & known
    return Grade(kept == question.answer, kept, question.answer)


def stored_grade(question: Question, chosen: frozenset[str], correct: bool) -> Grade:
    """Show a stored attempt against the current question, keeping the grade it was given.

    Args:
        question: the question as it is now.
        chosen: the option ids stored with the attempt.
        correct: the grade stored with the attempt (never recomputed).

    Returns:
        The stored grade, with the chosen ids that still exist and the current key.
    """
    known = {option.id for option in question.options}
    return Grade(correct, chosen & known, question.answer)


def grade_numeric(question: Question, value: Decimal) -> Grade:
    """Grade a ``numeric`` answer: right within the question's tolerance.

    Args:
        question: a ``numeric`` question.
        value: the learner's number (see :func:`parse_number`).

    Returns:
        The grade, with the explanation of the foreseen wrong value that matches, if any.
    """
    key = question.numeric
    assert key is not None, "grade_numeric needs a numeric question"
    correct = key.accepts(value)
    wrong_html = ""
    if not correct:
        wrong_html = next((html for target, html in key.wrong if key.accepts(value, target)), "")
    return Grade(correct, frozenset(), frozenset(), value=value, wrong_html=wrong_html)


def validate_order(question: Question, positions: Iterable[str]) -> tuple[str, ...]:
    """Read the positions an ``ordering`` form sends, ``"<item id>=<position>"`` each.

    Args:
        question: an ``ordering`` question.
        positions: the form's ``posicao`` values; positions are 1-based.

    Returns:
        The item ids in the learner's order.

    Raises:
        AnswerError: an item without a position, an unknown item, a position that is not a
            number (ASCII digits, at most :data:`POSITION_DIGITS`), or a position used twice.
    """
    known = {item.id for item in question.items}
    by_item: dict[str, int] = {}
    for entry in positions:
        item_id, _, number = entry.partition("=")
        if item_id not in known or item_id in by_item:
            raise AnswerError(gettext(STALE_ORDER))
        if not POSITION_RE.fullmatch(number):
            raise AnswerError(gettext(BAD_POSITION) % {"num": len(known)})
        by_item[item_id] = int(number)
    if set(by_item) != known:
        raise AnswerError(gettext("Give every step a position before sending your answer."))
    if sorted(by_item.values()) != list(range(1, len(known) + 1)):
        raise AnswerError(
            gettext(
                "Each position can hold only one step: give the steps positions 1 to %(num)s, "
                "without repeating one."
            )
            % {"num": len(known)}
        )
    return tuple(sorted(by_item, key=by_item.__getitem__))


# ASCII digits only: str.isdigit() also takes "²" and "①", which int() refuses.
POSITION_DIGITS = 4
POSITION_RE = re.compile(f"[0-9]{{1,{POSITION_DIGITS}}}")
BAD_POSITION = N_("Each position must be a whole number from 1 to %(num)s.")
STALE_ORDER = N_("Those steps are not part of this question. Reload the page and try again.")


def grade_order(question: Question, order: Sequence[str]) -> Grade:
    """Grade an order: right only when every item is in its place; partial credit counted.

    Args:
        question: an ``ordering`` question.
        order: the learner's item ids, first to last.

    Returns:
        The grade with ``in_place`` (items in their right position) and ``order``.
    """
    in_place = sum(a == b for a, b in zip(order, question.order, strict=False))
    correct = tuple(order) == question.order
    return Grade(correct, frozenset(), frozenset(), order=tuple(order), in_place=in_place)


class ThousandsToConfirm(AnswerError):
    """A ``numeric`` answer such as "3.438": pt-BR reads 3438, which is wrong, and the learner
    may have meant 3,438. The form asks them to confirm or to write a comma."""


def grade_form(
    question: Question,
    options: Sequence[str] | None,
    typed: str | None,
    positions: Sequence[str] | None,
    confirmation: str | None = None,
) -> tuple[Grade, str]:
    """Grade an answer form by the question's kind (the lesson's and the review's forms).

    Args:
        options: chosen option ids (``single``, ``multiple``, ``scenario``; the form's
            ``opcao``).
        typed: the number as typed (``numeric``; ``valor``).
        positions: ``"<item id>=<position>"`` pairs (``ordering``; ``posicao``).
        confirmation: ``numeric``: the text the learner confirmed they meant as typed, after
            :class:`ThousandsToConfirm` (``confirmado``).

    Returns:
        The grade and what to store in the attempt's ``chosen`` column: the option ids sorted
        and comma-joined, the number in plain form, or the item ids in the learner's order,
        comma-joined.

    Raises:
        ThousandsToConfirm: a ``numeric`` answer whose point reads as thousands ("3.438" is
            3438) and is then wrong, not yet confirmed as typed.
        AnswerError: the answer cannot be graded; the message is in Portuguese.
    """
    if question.kind == "numeric":
        unit = question.numeric.unit if question.numeric else None
        value = parse_number(typed or "", unit)
        result = grade_numeric(question, value)
        decimal = decimal_point_reading(typed or "", unit)
        confirmed = (confirmation or "").strip() == (typed or "").strip()
        if not result.correct and decimal is not None and not confirmed:
            raise ThousandsToConfirm(
                gettext(
                    "In “%(typed)s”, the point separates thousands, as written in Brazil: the "
                    "number is %(thousands)s, not %(decimal)s. If you meant %(decimal)s, write "
                    "it with a comma. If you meant %(thousands)s, tick the confirmation and "
                    "answer again."
                )
                % {
                    "typed": (typed or "").strip(),
                    "thousands": plain_number(value),
                    "decimal": format_number(decimal),
                }
            )
        return result, plain_number(value)
    if question.kind == "ordering":
        order = validate_order(question, positions or [])
        return grade_order(question, order), ",".join(order)
    chosen = validate_choice(question, options or [])
    return grade(question, chosen), ",".join(sorted(chosen))


def regrade_stored(question: Question, chosen: str, correct: bool) -> Grade:
    """Show a stored answer of any kind against the current question, keeping its grade.

    Args:
        question: the question as it is now.
        chosen: the stored ``chosen`` column: option ids, the number, or the item order.
        correct: the grade stored with the attempt (never recomputed).

    Returns:
        The grade to show: the stored verdict with the details worked out again.
    """
    if question.kind == "numeric":
        try:
            value = Decimal(chosen)
        except ArithmeticError:
            value = Decimal(0)
        shown = grade_numeric(question, value)
        return Grade(correct, frozenset(), frozenset(), value=value, wrong_html=shown.wrong_html)
    if question.kind == "ordering":
        shown = grade_order(question, tuple(filter(None, chosen.split(","))))
        return Grade(correct, frozenset(), frozenset(), order=shown.order, in_place=shown.in_place)
    return stored_grade(question, frozenset(filter(None, chosen.split(","))), correct)


def stable_shuffle(
    things: Sequence[T], learner_id: str, lesson_slug: str, question_id: str
) -> list[T]:
    """Shuffle ``things`` in this learner's own, stable order for one question.

    Seeded by learner, lesson and question: the same on every visit, different between
    learners.
    """
    seed = hashlib.sha256(f"{learner_id}\0{lesson_slug}\0{question_id}".encode()).digest()
    shuffled = list(things)
    random.Random(seed).shuffle(shuffled)
    return shuffled


def shuffled_items(question: Question, learner_id: str, lesson_slug: str) -> tuple[Item, ...]:
    """Return an ``ordering`` question's items in this learner's stable order, never the key.

    Args:
        question: an ``ordering`` question.

    Returns:
        The items shuffled; when the shuffle lands on the right order, it is turned by one
        step, so the question never starts answered.
    """
    items = stable_shuffle(question.items, learner_id, lesson_slug, question.id)
    if tuple(item.id for item in items) == question.order:
        items = items[1:] + items[:1]
    return tuple(items)


def shuffled_options(question: Question, learner_id: str, lesson_slug: str) -> tuple[Option, ...]:
    """Return the question's options in this learner's own, stable order.

    The order is seeded by learner, lesson and question, so it is the same on every
    visit and differs between learners. Grading never looks at it: it goes by id.
    """
    return tuple(stable_shuffle(question.options, learner_id, lesson_slug, question.id))


class LessonStatus(LabeledEnum):
    """Where a learner is in one lesson: "não iniciada" (no attempt yet on its current
    questions), "em andamento" (attempted, not done yet) or "concluída" (answered right at
    least once as many questions as the lesson counts)."""

    # The docstring is also the status's description in the API (/api/openapi.json): plain
    # words, no markup. Each member's label is what the learner reads ("Não iniciada").

    NOT_STARTED = "não iniciada", N_("Not started")
    IN_PROGRESS = "em andamento", N_("In progress")
    DONE = "concluída", N_("Done")


@dataclass(frozen=True)
class AttemptFact:
    """What progress needs from one stored attempt.

    Attributes:
        question_hash: the version answered ("" when unknown).
    """

    lesson_slug: str
    question_id: str
    question_hash: str
    correct: bool


@dataclass(frozen=True)
class QuestionRecord:
    """A learner's history on one question.

    Attributes:
        attempts: how many attempts, over every version.
        first_correct: the grade of the first attempt.
        ever_right: any attempt was right (progress survives content updates).
        latest_correct: the grade of the latest attempt.
        latest_hash: the version the latest attempt answered ("" when unknown).
    """

    attempts: int
    first_correct: bool
    ever_right: bool
    latest_correct: bool
    latest_hash: str

    def is_outdated(self, question: Question) -> bool:
        """True when the latest attempt answered an older version of ``question``."""
        return self.latest_hash not in ("", question.content_hash)


def question_records(facts: Iterable[AttemptFact]) -> dict[tuple[str, str], QuestionRecord]:
    """Fold attempts, oldest first, into one record per (lesson slug, question id)."""
    records: dict[tuple[str, str], QuestionRecord] = {}
    for fact in facts:
        key = (fact.lesson_slug, fact.question_id)
        before = records.get(key)
        records[key] = QuestionRecord(
            attempts=(before.attempts if before else 0) + 1,
            first_correct=before.first_correct if before else fact.correct,
            ever_right=(before.ever_right if before else False) or fact.correct,
            latest_correct=fact.correct,
            latest_hash=fact.question_hash,
        )
    return records


@dataclass(frozen=True)
class LessonProgress:
    """A learner's progress in one lesson, counted over its current questions only. Each
    field's description is also the API's (``/api/openapi.json``), so plain words."""

    slug: Annotated[str, Field(description="The lesson's id, as in its address /licoes/<slug>.")]
    status: Annotated[LessonStatus, Field(description="Where the learner is in the lesson.")]
    right: Annotated[
        int,
        Field(
            description="Questions answered right at least once (of a question pool's, at "
            "most as many as it draws)."
        ),
    ]
    total: Annotated[
        int,
        Field(
            description="Questions the lesson counts now: its quiz questions, plus as many "
            "as each question pool draws."
        ),
    ]
    first_try_right: Annotated[int, Field(description="Questions whose first attempt was right.")]
    attempts: Annotated[int, Field(description="Attempts on the lesson's current questions.")]


def lesson_progress(
    slug: str,
    question_ids: Iterable[str],
    records: Mapping[tuple[str, str], QuestionRecord],
    pools: Sequence[tuple[int, Collection[str]]] = (),
) -> LessonProgress:
    """Count one lesson's progress; removed questions simply drop out of the totals.

    Args:
        question_ids: the lesson's current quiz question ids (not those of its pools).
        records: the learner's records (see :func:`question_records`).
        pools: per pool, how many questions it draws and the ids it draws from; counted by
            :func:`app.learning.rules.counted`.
    """
    ids = list(question_ids)
    every = ids + [qid for _, pooled in pools for qid in pooled]
    mine = {qid: records[(slug, qid)] for qid in every if (slug, qid) in records}
    right = [qid for qid, record in mine.items() if record.ever_right]
    first = [qid for qid, record in mine.items() if record.first_correct]
    shape = (ids, pools)
    total = counted_total(len(ids), (draw for draw, _ in pools))
    right_count = counted(shape, right)
    if is_done(right_count, total):
        status = LessonStatus.DONE
    elif mine:
        status = LessonStatus.IN_PROGRESS
    else:
        status = LessonStatus.NOT_STARTED
    return LessonProgress(
        slug=slug,
        status=status,
        right=right_count,
        total=total,
        first_try_right=counted(shape, first),
        attempts=sum(record.attempts for record in mine.values()),
    )


def course_percent(lessons: Sequence[LessonProgress]) -> int:
    """Return the share of the course's questions answered right at least once, 0 to 100.

    Returns:
        The percentage, rounded down (100 only when everything is done); 0 for no questions.
    """
    total = sum(lesson.total for lesson in lessons)
    return 100 * sum(lesson.right for lesson in lessons) // total if total else 0
