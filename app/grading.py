"""Grading and progress rules: plain functions, data in, data out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from app.content.quiz import Question


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
            raise AnswerError("Marque pelo menos uma opção antes de enviar a resposta.")
        raise AnswerError("Escolha uma opção antes de enviar a resposta.")
    known = {option.id for option in question.options}
    if not ids <= known:
        raise AnswerError("Essa opção não existe nesta pergunta. Recarregue a página e tente de novo.")
    if question.kind != "multiple" and len(ids) > 1:
        raise AnswerError("Esta pergunta aceita só uma opção.")
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
    """A learner's status in one lesson; the value is what the learner reads."""

    NOT_STARTED = "não iniciada"
    IN_PROGRESS = "em andamento"
    DONE = "concluída"


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
