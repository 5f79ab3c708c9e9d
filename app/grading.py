"""Grading and progress rules: plain functions, data in, data out."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from app.content.quiz import Option, Question
from app.i18n import N_, gettext


class AnswerError(ValueError):
    """A submitted answer that cannot be graded; ``str(exc)`` is the message in Portuguese."""


@dataclass(frozen=True)
class Grade:
    """The result of grading one answer.

    Attributes:
        correct: True when the chosen set equals the key.
        chosen: the option ids the learner chose (those still in the question).
        answer: the ids of the correct options.
    """

    correct: bool
    chosen: frozenset[str]
    answer: frozenset[str]


def validate_choice(question: Question, chosen: Iterable[str]) -> frozenset[str]:
    """Check a submitted choice against the question's options.

    Args:
        question: the question answered.
        chosen: option ids from the form.

    Returns:
        The chosen ids as a set.

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
        raise AnswerError(gettext("That option is not part of this question. Reload the page and try again."))
    if question.kind != "multiple" and len(ids) > 1:
        raise AnswerError(gettext("This question takes only one option."))
    return ids


def grade(question: Question, chosen: frozenset[str]) -> Grade:
    """Grade an answer by option ids, never by position.

    Args:
        question: the question.
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


def shuffled_options(question: Question, learner_id: str, lesson_slug: str) -> tuple[Option, ...]:
    """Return the question's options in this learner's own, stable order.

    The order is seeded by learner, lesson and question, so it is the same on every
    visit and differs between learners. Grading never looks at it: it goes by id.

    Args:
        question: the question.
        learner_id: the learner's id.
        lesson_slug: the lesson's slug.

    Returns:
        The options, shuffled.
    """
    seed = hashlib.sha256(f"{learner_id}\0{lesson_slug}\0{question.id}".encode()).digest()
    options = list(question.options)
    random.Random(seed).shuffle(options)
    return tuple(options)


class LessonStatus(StrEnum):
    """A learner's status in one lesson; :attr:`label` is what the learner reads."""

    NOT_STARTED = "não iniciada"
    IN_PROGRESS = "em andamento"
    DONE = "concluída"

    @property
    def label(self) -> str:
        """The status as the learner reads it, from the catalog ("Não iniciada")."""
        return gettext(_STATUS_LABELS[self.name])


_STATUS_LABELS = {"NOT_STARTED": N_("Not started"), "IN_PROGRESS": N_("In progress"), "DONE": N_("Done")}


def lesson_status(question_ids: Iterable[str], answered: Iterable[str], right: Iterable[str]) -> LessonStatus:
    """Return the status of a lesson for one learner.

    Args:
        question_ids: the lesson's current question ids.
        answered: question ids the learner has attempted at least once.
        right: question ids the learner has answered correctly at least once.

    Returns:
        ``DONE`` when every current question was answered right at least once;
        ``IN_PROGRESS`` when any current question was attempted; else ``NOT_STARTED``.
    """
    current = set(question_ids)
    if current and current <= set(right):
        return LessonStatus.DONE
    if current & set(answered):
        return LessonStatus.IN_PROGRESS
    return LessonStatus.NOT_STARTED


@dataclass(frozen=True)
class AttemptFact:
    """What progress needs from one stored attempt.

    Attributes:
        lesson_slug: the lesson.
        question_id: the question.
        question_hash: the version answered ("" when unknown).
        correct: the stored grade.
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
    """Fold attempts, oldest first, into one record per (lesson slug, question id).

    Args:
        facts: the learner's attempts in chronological order.

    Returns:
        The records by ``(lesson_slug, question_id)``.
    """
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
    """A learner's progress in one lesson, counted over its current questions only.

    Attributes:
        slug: the lesson.
        status: its status.
        right: questions answered right at least once.
        total: questions the lesson has now.
        first_try_right: questions whose first attempt was right.
        attempts: attempts on the lesson's current questions.
    """

    slug: str
    status: LessonStatus
    right: int
    total: int
    first_try_right: int
    attempts: int


def lesson_progress(
    slug: str, question_ids: Iterable[str], records: Mapping[tuple[str, str], QuestionRecord]
) -> LessonProgress:
    """Count one lesson's progress; removed questions simply drop out of the totals.

    Args:
        slug: the lesson's slug.
        question_ids: the lesson's current question ids.
        records: the learner's records (see :func:`question_records`).

    Returns:
        The lesson's progress.
    """
    ids = list(question_ids)
    mine = {qid: records[(slug, qid)] for qid in ids if (slug, qid) in records}
    right = [qid for qid, record in mine.items() if record.ever_right]
    return LessonProgress(
        slug=slug,
        status=lesson_status(ids, mine, right),
        right=len(right),
        total=len(ids),
        first_try_right=sum(record.first_correct for record in mine.values()),
        attempts=sum(record.attempts for record in mine.values()),
    )


def course_percent(lessons: Sequence[LessonProgress]) -> int:
    """Return the share of the course's questions answered right at least once, 0 to 100.

    Args:
        lessons: every lesson's progress.

    Returns:
        The percentage, rounded down (100 only when everything is done); 0 for no questions.
    """
    total = sum(lesson.total for lesson in lessons)
    return 100 * sum(lesson.right for lesson in lessons) // total if total else 0
