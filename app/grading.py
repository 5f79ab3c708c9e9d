"""Grading and progress rules: plain functions, data in, data out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from app.content.quiz import Question
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
