"""The notebook of mistakes ("Só as que errei" on ``/revisar``): every current question whose
latest answer is wrong, that is, answered wrong and not answered right since.

Built from the learner's state already read (no storage here), in course order, each entry
with why it is there: when it was missed, when its review card falls due, and whether that
answer had a hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from app.content.course import Course
from app.content.lessons import Lesson
from app.content.quiz import Question
from app.learning.state import AttemptRow, LearnerState


@dataclass(frozen=True)
class NotebookEntry:
    """One question in the notebook.

    Attributes:
        missed: the wrong answer that put it there (the learner's latest to it).
        due: when its review card falls due (UTC), or ``None`` without a card.
        due_today: it falls due today or has fallen due (in the learner's zone).
        changed: the question was edited since that answer.
    """

    lesson: Lesson
    question: Question
    missed: AttemptRow
    due: datetime | None
    due_today: bool
    changed: bool


@dataclass(frozen=True)
class NotebookLesson:
    """A lesson's entries, in the lesson's question order."""

    lesson: Lesson
    entries: tuple[NotebookEntry, ...]


def in_notebook(attempts: list[AttemptRow]) -> AttemptRow | None:
    """The wrong answer that keeps a question in the notebook, or ``None``: the rule is that
    the latest answer (oldest first in ``attempts``) is wrong, so a right answer after the
    last miss takes it out and a miss after a right answer puts it back."""
    return attempts[-1] if attempts and not attempts[-1].correct else None


def notebook(
    course: Course, state: LearnerState, now: datetime, zone: tzinfo, concept: str | None = None
) -> list[NotebookLesson]:
    """The learner's notebook by lesson, in course order.

    Args:
        now: the review clock (UTC).
        zone: the learner's time zone: "today" ends at its midnight.
        concept: only the questions tagged with this glossary slug, or every one.
    """
    cards = {(c.lesson_slug, c.question_id): c for c in state.cards}
    end_of_day = now.astimezone(zone).replace(hour=23, minute=59, second=59, microsecond=999999)
    out = []
    for lesson in course.lessons:
        grouped = state.in_lesson(lesson.slug)
        entries = []
        for question in lesson.questions.values():
            missed = in_notebook(grouped.get(question.id, []))
            if missed is None or (concept is not None and concept not in question.concepts):
                continue
            card = cards.get((lesson.slug, question.id))
            due = card.due if card is not None else None
            if due is not None and due.tzinfo is None:
                due = due.replace(tzinfo=UTC)  # SQLite hands back naive UTC
            entries.append(
                NotebookEntry(
                    lesson,
                    question,
                    missed,
                    due,
                    due is not None and due <= end_of_day,
                    missed.question_hash != question.content_hash,
                )
            )
        if entries:
            out.append(NotebookLesson(lesson, tuple(entries)))
    return out


# Why a notebook is empty (:func:`empty_because`): nothing answered yet, nothing ever missed,
# or every miss answered right since.
NOTHING_ANSWERED = "unanswered"
NOTHING_MISSED = "unmissed"
ALL_CORRECTED = "corrected"


def empty_because(state: LearnerState) -> str:
    """Why the learner's notebook is empty, told from their attempts (any lesson, any
    version): :data:`NOTHING_ANSWERED`, :data:`NOTHING_MISSED` or :data:`ALL_CORRECTED`."""
    if not state.attempts:
        return NOTHING_ANSWERED
    if all(a.correct for a in state.attempts):
        return NOTHING_MISSED
    return ALL_CORRECTED


def notebook_concepts(course: Course, state: LearnerState) -> list[tuple[str, str, int]]:
    """The glossary terms the notebook's questions test: ``(slug, term, how many)``, in
    glossary order (a filter of the notebook by concept)."""
    counts: dict[str, int] = {}
    for lesson in course.lessons:
        grouped = state.in_lesson(lesson.slug)
        for question in lesson.questions.values():
            if in_notebook(grouped.get(question.id, [])) is not None:
                for slug in question.concepts:
                    counts[slug] = counts.get(slug, 0) + 1
    return [(t.slug, t.term, counts[t.slug]) for t in course.glossary.terms if t.slug in counts]
