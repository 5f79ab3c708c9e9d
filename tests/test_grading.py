"""Grading and lesson status rules."""

from __future__ import annotations

import pytest

from app.content.quiz import Option, Question
from app.learning.grading import (
    AnswerError,
    AttemptFact,
    Grade,
    LessonProgress,
    LessonStatus,
    QuestionRecord,
    course_percent,
    grade,
    lesson_progress,
    question_records,
    shuffled_options,
    stored_grade,
    validate_choice,
)


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
        (
            "single",
            ["z"],
            "Essa opção não existe nesta pergunta. Recarregue a página e tente de novo.",
        ),
        ("single", ["a", "b"], "Esta pergunta aceita só uma opção."),
    ],
)
def test_invalid_choices_are_refused_in_portuguese(kind, chosen, message):
    with pytest.raises(AnswerError) as info:
        validate_choice(question(kind, {"a"}), chosen)
    assert str(info.value) == message


def test_lesson_status():
    def status(*facts: AttemptFact) -> LessonStatus:
        return lesson_progress("l", ["q1", "q2"], question_records(list(facts))).status

    assert status() is LessonStatus.NOT_STARTED
    assert status(fact("q1", False)) is LessonStatus.IN_PROGRESS
    assert status(fact("q1", True), fact("q2", False)) is LessonStatus.IN_PROGRESS
    assert status(fact("q1", True), fact("q2", True)) is LessonStatus.DONE
    assert status(fact("old", True)) is LessonStatus.NOT_STARTED


def test_shuffle_is_stable_per_learner_and_differs_between_learners():
    q = question("single", {"b"}, ("a", "b", "c", "d", "e"))
    orders = {tuple(o.id for o in shuffled_options(q, f"{i:032x}", "licao")) for i in range(50)}
    assert len(orders) > 5, "learners see different orders"
    again = [tuple(o.id for o in shuffled_options(q, "f" * 32, "licao")) for _ in range(3)]
    assert len(set(again)) == 1, "one learner always sees the same order"
    assert sorted(again[0]) == ["a", "b", "c", "d", "e"]


def fact(qid: str, correct: bool, version: str = "v1", slug: str = "l") -> AttemptFact:
    return AttemptFact(slug, qid, version, correct)


def test_records_keep_the_first_try_and_the_latest_state():
    records = question_records(
        [fact("q1", False), fact("q1", True), fact("q2", True), fact("q2", False)]
    )
    assert records[("l", "q1")] == QuestionRecord(2, False, True, True, "v1")
    assert records[("l", "q2")] == QuestionRecord(2, True, True, False, "v1")


def test_lesson_progress_counts_current_questions_only():
    records = question_records(
        [fact("q1", False), fact("q1", True), fact("gone", True), fact("q2", False)]
    )
    progress = lesson_progress("l", ["q1", "q2", "q3"], records)
    assert progress == LessonProgress("l", LessonStatus.IN_PROGRESS, 1, 3, 0, 3)
    done = lesson_progress("l", ["q1"], records)
    assert (done.status, done.right, done.total, done.attempts) == (LessonStatus.DONE, 1, 1, 2)
    assert course_percent([progress, done]) == 50
    assert course_percent([]) == 0


def test_an_edited_question_is_outdated_but_keeps_its_grade():
    q = question("single", {"a"})
    edited = Question(
        "q", "single", "Pergunta?", "", q.options, frozenset({"c"}), 1, content_hash="v2"
    )
    record = question_records([fact("q", True, "v1")])[("l", "q")]
    assert record.is_outdated(edited)
    assert not record.is_outdated(
        Question("q", "single", "P", "", q.options, frozenset({"a"}), 1, content_hash="v1")
    )
    assert not question_records([fact("q", True, "")])[("l", "q")].is_outdated(edited), (
        "versão desconhecida"
    )
    assert stored_grade(edited, frozenset({"a", "removida"}), True) == Grade(
        True, frozenset({"a"}), frozenset({"c"})
    )
