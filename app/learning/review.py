"""Spaced review: one FSRS card per learner × question, scheduled by the ``fsrs`` package.

Every question a learner answers becomes a card. The first answer, and then the first
answer once the card is due, rates it (a card is reviewed at most once per due period; an
answer before the due date, from a second tab or a retry, is stored but rates nothing):

- wrong, or right after opening the worked answer → ``Again`` (due again in :data:`STEP`,
  ten minutes): the learner was told, not remembering;
- right after a hint, or right when the answer that last reviewed the card was wrong (a
  retry) → ``Hard``;
- right otherwise (first try, or right again, no hint) → ``Good``, which moves the card out
  by FSRS's intervals (days, then weeks).

A card remembers the question version (``content_hash``) it was last answered in; when the
author edits the question, the card counts as new (due at once) and its next answer starts
it over. No HTTP here: :mod:`app.web.routes.review` serves ``/revisar``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fsrs import Card, Rating, Scheduler, State
from sqlalchemy import Connection, Row, delete, update
from sqlmodel import Session, col, select

from app.content.course import Course
from app.content.lessons import Lesson
from app.content.quiz import Question
from app.learning.rules import HINTED, NO_HELP, WORKED
from app.learning.state import CardRow
from app.learning.tallies.fold import AttemptLike, LearnerAnswer
from app.platform.db import Plain, Upsert, stored_time
from app.platform.models import ATTEMPT, LEARNER, REVIEW_CARD, ReviewCard

STEP = timedelta(minutes=10)
# fsrs.Card makes an id from the clock, and sleeps 1 ms to keep ids apart, when given none. A card
# here is known by its row's key (learner, lesson, question), so every card gets this one.
CARD_ID = 0
# One learning step: a miss comes back in ten minutes, a right first answer graduates at once
# (FSRS's first interval, two days). No fuzzing: the same answers give the same dates.
SCHEDULER = Scheduler(learning_steps=(STEP,), relearning_steps=(STEP,), enable_fuzzing=False)


def now() -> datetime:
    """The review clock: the current time, UTC (tests replace it to freeze time)."""
    return datetime.now(UTC)


def rating_for(correct: bool, previous_correct: bool | None, help: int = NO_HELP) -> Rating:
    """Map a graded answer to an FSRS rating.

    Args:
        previous_correct: the grade of the answer that last reviewed the card (``None`` for
            a new card).
        help: what the learner opened before answering (:mod:`app.learning.rules`).

    Returns:
        ``Again`` when wrong or right after the worked answer, ``Hard`` when right after a
        hint or after a wrong answer (a retry), else ``Good``.
    """
    if not correct or help == WORKED:
        return Rating.Again
    if previous_correct is False or help == HINTED:
        return Rating.Hard
    return Rating.Good


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)  # SQLite hands back naive UTC
    return value


def _stored_card(row: Row[Any]) -> Card:
    """A card read by the driver itself (:data:`_CARDS_OF`: on SQLite its times are text)."""
    return Card(
        card_id=CARD_ID,
        state=State(row.state),
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=stored_time(row.due),
        last_review=row.last_review and stored_time(row.last_review),
    )


def next_card(
    card: Card | None,
    card_hash: str | None,
    answer: AttemptLike,
    previous_correct: bool | None,
) -> Card | None:
    """The card after one answer, or ``None`` when the answer does not review it.

    A question answered for the first time, or in a version its card was not made for, gets
    a new card, rated at once. Otherwise a card is reviewed at most once per due period: an
    answer given before its due date (a second tab, a retry in the lesson) is stored and
    graded, but leaves the card as it was.

    Args:
        card: the question's card, or ``None`` before its first answer.
        card_hash: the question version ``card`` was last answered in.
        previous_correct: the grade of the answer that last reviewed ``card`` (an answer
            that reviewed nothing does not make the next one a retry).
    """
    at = _aware(answer.created_at)
    assert at is not None  # every attempt has its time
    if card is None or card_hash != answer.question_hash:
        card = Card(card_id=CARD_ID, due=at)  # new, or reset by an edited question
        previous_correct = None
    elif at < card.due:
        return None
    # :func:`replay` reads only the columns of migration 0009, which knew no hints.
    rating = rating_for(answer.correct, previous_correct, getattr(answer, "help", NO_HELP))
    reviewed, _ = SCHEDULER.review_card(card, rating, review_datetime=at)
    return reviewed


CardKey = tuple[str, str, str]  # learner id, lesson slug, question id
CARD_KEY = ("learner_id", "lesson_slug", "question_id")
CARD_VALUES = ("question_hash", "state", "step", "stability", "difficulty", "due", "last_review")
_CARDS = Upsert("review_card", CARD_KEY, CARD_VALUES, add=False)
_CARD_COLUMNS = """learner_id, lesson_slug, question_id, question_hash, state, step, stability,
    difficulty, due, last_review"""
# The batch's cards, by (learner, lesson, question): a JSON array of rows on SQLite (the
# learner's index first), one array per column on PostgreSQL.
_CARDS_OF = Plain(
    f"""SELECT {_CARD_COLUMNS} FROM review_card
    WHERE learner_id IN (SELECT value FROM json_each(?))
    AND (learner_id, lesson_slug, question_id) IN (SELECT json_extract(value, '$[0]'),
    json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?))""",
    f"""SELECT {_CARD_COLUMNS} FROM review_card WHERE (learner_id, lesson_slug, question_id)
    IN (SELECT * FROM unnest(?::text[], ?::text[], ?::text[]))""",
)
# The grades of the answers that last reviewed those cards, oldest first (the latest wins).
_GRADES_OF = Plain(
    """SELECT learner_id, lesson_slug, question_id, correct FROM attempt
    WHERE learner_id IN (SELECT value FROM json_each(?))
    AND (learner_id, lesson_slug, question_id, created_at) IN (SELECT json_extract(value, '$[0]'),
    json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]')
    FROM json_each(?)) ORDER BY id""",
    """SELECT learner_id, lesson_slug, question_id, correct FROM attempt
    WHERE (learner_id, lesson_slug, question_id, created_at)
    IN (SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::timestamp[])) ORDER BY id""",
)


def _keyed(connection: Connection, rows: Sequence[tuple[Any, ...]]) -> list[object]:
    """The parameters of :data:`_CARDS_OF` and :data:`_GRADES_OF` for ``rows``."""
    if connection.dialect.name == "postgresql":
        return [list(column) for column in zip(*rows, strict=True)]
    return [json.dumps(sorted({row[0] for row in rows})), json.dumps(rows)]


def schedule_batch(
    connection: Connection, attempts: Sequence[LearnerAnswer]
) -> dict[CardKey, CardRow]:
    """Rate the cards of a batch of newly stored attempts and reschedule them (no commit).

    Call it once per stored batch, inside the transaction that stores it, and only with
    attempts that were really stored (a form sent twice is rated once). Each attempt goes
    through :func:`next_card`, in the order given (time, then id). Three statements whatever
    the batch's size: the batch's cards, the grades that last reviewed them, one upsert.

    Returns:
        The cards the batch changed, by key, as the pages show them.
    """
    if not attempts:
        return {}
    keys = sorted({(a.learner_id, a.lesson_slug, a.question_id) for a in attempts})
    cards: dict[CardKey, tuple[Card, str]] = {}
    stamps: list[tuple[str, str, str, object]] = []
    for row in _CARDS_OF.rows(connection, _keyed(connection, keys)):
        key = (row.learner_id, row.lesson_slug, row.question_id)
        cards[key] = (_stored_card(row), row.question_hash)
        if row.last_review is not None:  # as the driver read it: compared as stored
            stamps.append((*key, row.last_review))
    previous: dict[CardKey, bool | None] = {}
    if stamps:  # the grade of the answer that last reviewed each card (the latest of a tie)
        for learner, slug, question, correct in _GRADES_OF.rows(
            connection, _keyed(connection, stamps)
        ):
            previous[(learner, slug, question)] = bool(correct)
    changed: set[CardKey] = set()
    for attempt in sorted(attempts, key=lambda a: (_aware(a.created_at), a.id or 0)):
        key = (attempt.learner_id, attempt.lesson_slug, attempt.question_id)
        card, card_hash = cards.get(key, (None, None))
        reviewed = next_card(card, card_hash, attempt, previous.get(key))
        if reviewed is None:
            continue
        cards[key] = (reviewed, attempt.question_hash)
        previous[key] = attempt.correct
        changed.add(key)
    if not changed:
        return {}
    rows = [_card_row(key, *cards[key]) for key in sorted(changed)]
    _CARDS.run(connection, rows)
    return {
        key: CardRow(key[1], key[2], question_hash, card.due)
        for key in changed
        for card, question_hash in (cards[key],)
    }


def replay(connection: Connection, batch: int = 1000) -> int:
    """Rebuild every review card from the stored attempts, as the app would have kept them.

    Each learner's answers to each question go through :func:`next_card` in the order they
    were given (time, then id), exactly as :func:`schedule_batch` rates them, so
    the cards come out as if spaced review had existed since the first answer. Every card
    there is gets replaced: a card is only ever made from the attempts, so nothing else is lost.

    Used by the migration that gives cards to the answers stored before spaced review
    existed (``migrations/versions/0011_review_cards_from_history.py``); it names only the
    columns that migration 0009 made, so later migrations may add others.

    Args:
        connection: a connection in the caller's write transaction (the caller commits).
        batch: attempts read, and cards written, per round trip.

    Returns:
        How many cards were written.
    """
    connection.execute(delete(REVIEW_CARD))
    attempts = connection.execute(
        # SQLAlchemy's select() is typed for a fixed number of columns; this one has more.
        select(  # type: ignore[call-overload]
            ATTEMPT.c.learner_id,
            ATTEMPT.c.lesson_slug,
            ATTEMPT.c.question_id,
            ATTEMPT.c.question_hash,
            ATTEMPT.c.correct,
            ATTEMPT.c.created_at,
        )
        .join(LEARNER, LEARNER.c.id == ATTEMPT.c.learner_id)  # an orphan attempt gets no card
        .order_by(
            ATTEMPT.c.learner_id,
            ATTEMPT.c.lesson_slug,
            ATTEMPT.c.question_id,
            ATTEMPT.c.created_at,
            ATTEMPT.c.id,
        )
        .execution_options(yield_per=batch)
    )
    pending: list[dict[str, object]] = []
    written = 0

    def keep(key: tuple[str, str, str], card: Card, question_hash: str) -> None:
        nonlocal pending, written
        pending.append(_card_row(key, card, question_hash))
        if len(pending) == batch:
            connection.execute(REVIEW_CARD.insert(), pending)
            written, pending = written + len(pending), []

    key: tuple[str, str, str] | None = None
    card: Card | None = None
    card_hash = ""
    previous: bool | None = None
    for answer in attempts:
        if (answer.learner_id, answer.lesson_slug, answer.question_id) != key:
            if key is not None and card is not None:
                keep(key, card, card_hash)
            key = (answer.learner_id, answer.lesson_slug, answer.question_id)
            card, card_hash, previous = None, "", None
        reviewed = next_card(card, card_hash, answer, previous)
        if reviewed is not None:
            card, card_hash, previous = reviewed, answer.question_hash, answer.correct
    if key is not None and card is not None:
        keep(key, card, card_hash)
    if pending:
        connection.execute(REVIEW_CARD.insert(), pending)
    return written + len(pending)


def _card_row(key: tuple[str, str, str], card: Card, question_hash: str) -> dict[str, object]:
    learner_id, lesson_slug, question_id = key
    return {
        "learner_id": learner_id,
        "lesson_slug": lesson_slug,
        "question_id": question_id,
        "question_hash": question_hash,
        "state": int(card.state),
        "step": card.step,
        "stability": card.stability,
        "difficulty": card.difficulty,
        "due": card.due,
        "last_review": card.last_review,
    }


@dataclass(frozen=True)
class DueReview:
    """A question due for review.

    Attributes:
        question: the question as it is now.
        due: when it fell due, UTC.
        changed: the question was edited since the learner's last answer (the card is new).
    """

    lesson: Lesson
    question: Question
    due: datetime
    changed: bool


def due_of(cards: Sequence[CardRow], course: Course, at: datetime) -> list[DueReview]:
    """The questions of ``cards`` due at ``at``, oldest due first (no storage).

    A card of a removed question is left out; a card of an edited question is due at once.
    """
    due: list[DueReview] = []
    for row in cards:
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
