"""Grading one answer as a form sent it, by the question's kind (no HTTP, no storage).

The rules live in :func:`app.learning.grading.grade_form`, shared with the review page.
"""

from __future__ import annotations

from app.content.quiz import Question
from app.learning.grading import Grade, grade_form


def graded_answer(
    question: Question,
    options: list[str] | None,
    value: str | None,
    positions: list[str] | None,
    confirmed: str | None = None,
) -> tuple[Grade, str]:
    """Grade the form's answer by the question's kind; return the grade and what to store.

    Args:
        question: the question (its live version).
        options: the option ids chosen (single, multiple, scenario).
        value: a ``numeric`` answer as typed (pt-BR or plain decimals).
        positions: an ``ordering`` answer's ``<item id>=<position>`` pairs.
        confirmed: a ``numeric`` answer the learner confirmed as typed ("3.438" is 3438).

    Returns:
        The grade, and the answer as stored: option ids sorted and comma-joined, the number
        in plain form, or the item ids in the learner's order, comma-joined.

    Raises:
        AnswerError: the answer is not valid for the question (message in Portuguese).
    """
    return grade_form(question, options, value, positions, confirmed)
