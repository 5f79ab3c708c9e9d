"""Spaced review: one FSRS card per learner × question, scheduled by the ``fsrs`` package.

Every question a learner answers becomes a card. Each stored answer rates the card:

- wrong → ``Again`` (due again in :data:`STEP`, ten minutes);
- right just after a wrong answer to the same question (a retry) → ``Hard``;
- right otherwise (first try, or right again) → ``Good``, which moves the card out by
  FSRS's intervals (days, then weeks).

A card remembers the question version (``content_hash``) it was last answered in; when the
author edits the question, the card counts as new (due at once) and its next answer starts
it over. No HTTP here: :mod:`app.web.review` serves ``/revisar``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, Scheduler, State
from sqlalchemy import ColumnElement, delete, func, literal, or_, tuple_, update
from sqlmodel import Session, col, select

from app.content.course import Course
from app.content.lessons import Lesson
from app.content.quiz import Question
from app.learning.grading import AttemptFact
from app.platform.models import Attempt, ReviewCard

STEP = timedelta(minutes=10)
# One learning step: a miss comes back in ten minutes, a right first answer graduates at once
# (FSRS's first interval, two days). No fuzzing: the same answers give the same dates.
SCHEDULER = Scheduler(learning_steps=(STEP,), relearning_steps=(STEP,), enable_fuzzing=False)


def now() -> datetime:
    """The review clock: the current time, UTC (tests replace it to freeze time)."""
    return datetime.now(UTC)


def rating_for(correct: bool, previous_correct: bool | None) -> Rating:
    """Map a graded answer to an FSRS rating.

    Args:
        correct: the answer's grade.
        previous_correct: the grade of the learner's previous answer to the same question
            (``None`` for the first answer).

    Returns:
        ``Again`` when wrong, ``Hard`` when right after a wrong answer (a retry), else ``Good``.
    """
    if not correct:
        return Rating.Again
    if previous_correct is False:
        return Rating.Hard
    return Rating.Good


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)  # SQLite hands back naive UTC
    return value


def card_of(row: ReviewCard) -> Card:
    """Turn a stored row into an ``fsrs.Card``."""
    return Card(
        state=State(row.state),
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=_aware(row.due),
        last_review=_aware(row.last_review),
    )


def _store(row: ReviewCard, card: Card, question_hash: str) -> None:
    row.question_hash = question_hash
    row.state = int(card.state)
    row.step = card.step
    row.stability = card.stability
    row.difficulty = card.difficulty
    row.due = card.due
    row.last_review = card.last_review


def schedule_after(db: Session, attempts: Sequence[Attempt]) -> None:
    """Rate the cards of newly stored attempts and reschedule them (no commit).

    Call it once per stored attempt batch, inside the transaction that stores them, and only
    with attempts that were really stored (a form sent twice is rated once).

    Args:
        db: the session that stores the attempts; the cards are added to it.
        attempts: the new attempts, each with ``learner_id`` and ``created_at`` set.
    """
    if not attempts:
        return
    db.flush()  # the attempts have ids: "the previous answer" is the one before each
    previous: dict[tuple[str, str, str], bool | None] = {}
    cards: dict[tuple[str, str, str], ReviewCard | None] = {}
    for attempt in sorted(attempts, key=lambda a: (a.created_at, a.id or 0)):
        key = (attempt.learner_id, attempt.lesson_slug, attempt.question_id)
        if key not in previous:
            previous[key] = db.exec(
                select(Attempt.correct)
                .where(
                    col(Attempt.learner_id) == attempt.learner_id,
                    col(Attempt.lesson_slug) == attempt.lesson_slug,
                    col(Attempt.question_id) == attempt.question_id,
                    col(Attempt.id) < attempt.id,
                )
                .order_by(col(Attempt.id).desc())
                .limit(1)
            ).first()
            cards[key] = db.get(ReviewCard, key)
        row = cards[key]
        if row is None or row.question_hash != attempt.question_hash:
            card = Card(due=_aware(attempt.created_at))  # new, or reset by an edited question
        else:
            card = card_of(row)
        rating = rating_for(attempt.correct, previous[key])
        card, _ = SCHEDULER.review_card(card, rating, review_datetime=_aware(attempt.created_at))
        if row is None:
            row = ReviewCard(
                learner_id=attempt.learner_id,
                lesson_slug=attempt.lesson_slug,
                question_id=attempt.question_id,
                state=int(card.state),
                due=card.due,
            )
            cards[key] = row
        _store(row, card, attempt.question_hash)
        db.add(row)
        previous[key] = attempt.correct
    db.flush()


@dataclass(frozen=True)
class DueReview:
    """A question due for review.

    Attributes:
        lesson: its lesson.
        question: the question as it is now.
        due: when it fell due, UTC.
        changed: the question was edited since the learner's last answer (the card is new).
    """

    lesson: Lesson
    question: Question
    due: datetime
    changed: bool


def due_reviews(db: Session, learner_id: str, course: Course, at: datetime) -> list[DueReview]:
    """Return the learner's questions due at ``at``, oldest due first (one query).

    A card of a removed question is left out; a card of an edited question is due at once.
    """
    rows = db.exec(select(ReviewCard).where(col(ReviewCard.learner_id) == learner_id))
    due: list[DueReview] = []
    for row in rows:
        lesson = course.get(row.lesson_slug)
        question = lesson.questions.get(row.question_id) if lesson else None
        if lesson is None or question is None:
            continue
        changed = row.question_hash != question.content_hash
        when = _aware(row.due)
        assert when is not None  # ReviewCard.due is NOT NULL
        if changed or when <= at:
            due.append(DueReview(lesson, question, when, changed))
    due.sort(key=lambda item: (not item.changed, item.due, item.lesson.slug, item.question.id))
    return due


def due_count_column(learner_id: str, course: Course, at: datetime) -> ColumnElement[int]:
    """A scalar subquery: how many of the learner's current questions are due at ``at``.

    Same rule as :func:`due_reviews`, in SQL, so a page can read it in a statement it runs
    anyway (see :func:`facts_and_due`).
    """
    pairs = [(lesson.slug, qid) for lesson in course.lessons for qid in lesson.questions]
    versions = [
        (lesson.slug, q.id, q.content_hash)
        for lesson in course.lessons
        for q in lesson.questions.values()
    ]
    if not pairs:
        return literal(0)
    ids = tuple_(col(ReviewCard.lesson_slug), col(ReviewCard.question_id))
    version = tuple_(
        col(ReviewCard.lesson_slug), col(ReviewCard.question_id), col(ReviewCard.question_hash)
    )
    return (
        select(func.count())
        .select_from(ReviewCard)
        .where(
            col(ReviewCard.learner_id) == learner_id,
            ids.in_(pairs),
            or_(col(ReviewCard.due) <= at, version.not_in(versions)),
        )
        .scalar_subquery()
    )


def facts_and_due(
    db: Session, learner_id: str, course: Course, at: datetime
) -> tuple[list[AttemptFact], int]:
    """Read what progress needs from every attempt, and the count due, in one statement.

    The count rides on each attempt row; a learner without attempts has no cards either.

    Returns:
        The attempt facts, oldest first, and how many questions are due for review at ``at``.
    """
    # sqlmodel.select() is typed for at most 4 columns.
    rows = db.exec(
        select(  # type: ignore[call-overload]
            Attempt.lesson_slug,
            Attempt.question_id,
            Attempt.question_hash,
            Attempt.correct,
            due_count_column(learner_id, course, at).label("due"),
        )
        .where(col(Attempt.learner_id) == learner_id)
        .order_by(col(Attempt.created_at), col(Attempt.id))
    ).all()
    facts = [AttemptFact(slug, qid, qhash, correct) for slug, qid, qhash, correct, _ in rows]
    return facts, int(rows[0][4]) if rows else 0


def merge_cards(db: Session, source_id: str, target_id: str) -> None:
    """Move the cards of ``source_id`` to ``target_id`` (no commit).

    Where both have a card for the same question, the one reviewed most recently wins.
    """
    source = {
        (row.lesson_slug, row.question_id): row
        for row in db.exec(select(ReviewCard).where(col(ReviewCard.learner_id) == source_id))
    }
    if not source:
        return
    target = {
        (row.lesson_slug, row.question_id): row
        for row in db.exec(select(ReviewCard).where(col(ReviewCard.learner_id) == target_id))
    }
    oldest = datetime.min.replace(tzinfo=UTC)
    for key, theirs in source.items():
        ours = target.get(key)
        if ours is None:
            continue
        if (_aware(theirs.last_review) or oldest) > (_aware(ours.last_review) or oldest):
            db.delete(ours)
        else:
            db.delete(theirs)
    db.flush()
    db.execute(
        update(ReviewCard)
        .where(col(ReviewCard.learner_id) == source_id)
        .values(learner_id=target_id)
    )


def learner_cards(db: Session, learner_id: str) -> list[ReviewCard]:
    """Return every card of the learner, soonest due first (for "Meus dados")."""
    return list(
        db.exec(
            select(ReviewCard)
            .where(col(ReviewCard.learner_id) == learner_id)
            .order_by(col(ReviewCard.due), col(ReviewCard.lesson_slug), col(ReviewCard.question_id))
        )
    )


def delete_cards(db: Session, learner_id: str) -> None:
    """Delete every card of the learner (no commit)."""
    db.exec(delete(ReviewCard).where(col(ReviewCard.learner_id) == learner_id))
