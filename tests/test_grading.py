"""Grading and lesson status rules."""

from __future__ import annotations

import pytest

from app.content.quiz import Option, Question
from app.grading import AnswerError, LessonStatus, grade, lesson_status, validate_choice


def question(kind: str, answer: set[str], ids: tuple[str, ...] = ("a", "b", "c")) -> Question:
    options = tuple(Option(i, i.upper(), f"explica {i}") for i in ids)
    return Question("q", kind, "Pergunta?", "", options, frozenset(answer), 1)


def test_grading_compares_ids_not_positions():
    original = question("single", {"b"})
    reordered = question("single", {"b"}, ("c", "b", "a"))
    assert grade(original, frozenset({"b"})).correct
    assert grade(reordered, frozenset({"b"})).correct
    assert not grade(reordered, frozenset({"c"})).correct  # "c" now sits where "a" was


def test_multiple_needs_the_exact_set():
    q = question("multiple", {"a", "c"})
    assert grade(q, frozenset({"a", "c"})).correct
    assert not grade(q, frozenset({"a"})).correct
    assert not grade(q, frozenset({"a", "b", "c"})).correct


def test_removed_options_are_ignored_when_grading_again():
    result = grade(question("single", {"a"}), frozenset({"a", "gone"}))
    assert result.correct and result.chosen == {"a"}


@pytest.mark.parametrize(
    ("kind", "chosen", "message"),
    [
        ("single", [], "Escolha uma opção antes de enviar a resposta."),
        ("single", ["z"], "Essa opção não existe nesta pergunta. Recarregue a página e tente de novo."),
        ("single", ["a", "b"], "Esta pergunta aceita só uma opção."),
    ],
)
def test_invalid_choices_are_refused_in_portuguese(kind, chosen, message):
    with pytest.raises(AnswerError) as info:
        validate_choice(question(kind, {"a"}), chosen)
    assert str(info.value) == message


def test_lesson_status():
    ids = ["q1", "q2"]
    assert lesson_status(ids, [], []) is LessonStatus.NOT_STARTED
    assert lesson_status(ids, ["q1"], []) is LessonStatus.IN_PROGRESS
    assert lesson_status(ids, ["q1", "q2"], ["q1"]) is LessonStatus.IN_PROGRESS
    assert lesson_status(ids, ["q1", "q2"], ["q1", "q2"]) is LessonStatus.DONE
    assert lesson_status(ids, ["old"], ["old"]) is LessonStatus.NOT_STARTED
