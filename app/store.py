"""Database reads and writes for learners, attempts, places and walks (no HTTP here)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.aggregates import record_in_aggregates
from app.db import begin_write
from app.grading import AttemptFact
from app.models import Attempt, Learner, Walk, utcnow
from app.rules import first_try_order


@dataclass(frozen=True)
class Place:
    """Where a learner was: a lesson and, optionally, a section anchor inside it."""

    lesson_slug: str
    section: str | None = None


class DuplicateKeyError(ValueError):
    """An idempotency key already used by this learner for another question."""


def ensure_learner(session: Session, learner_id: str) -> None:
    """Insert the learner row if it is not there yet (learners are created lazily)."""
    if session.get(Learner, learner_id) is None:
        session.add(Learner(id=learner_id))
        session.flush()


def find_attempt(session: Session, learner_id: str, key: str) -> Attempt | None:
    """Return the learner's attempt sent with idempotency ``key``, or ``None``."""
    return session.exec(
        select(Attempt).where(Attempt.learner_id == learner_id, Attempt.idempotency_key == key)
    ).first()


def record_attempt(session: Session, attempt: Attempt) -> tuple[Attempt, bool]:
    """Store one graded answer once, however many times its form is sent.

    The learner row is created if missing, and the learner's place moves to the question.

    Args:
        session: an open session; this function commits it.
        attempt: the new attempt, with its ``learner_id`` and ``idempotency_key`` set.

    Returns:
        The stored attempt and True, or the attempt already stored with the same key and False.

    Raises:
        DuplicateKeyError: the key was already used for another question.
    """
    try:
        begin_write(session)
        return _store_once(session, attempt)
    except IntegrityError:
        # The same form was sent twice at once and the other request stored it first.
        session.rollback()
        begin_write(session)
        return _store_once(session, attempt)


def _store_once(session: Session, attempt: Attempt) -> tuple[Attempt, bool]:
    existing = find_attempt(session, attempt.learner_id, attempt.idempotency_key or "")
    if existing is not None:
        if (existing.lesson_slug, existing.question_id) != (
            attempt.lesson_slug,
            attempt.question_id,
        ):
            raise DuplicateKeyError(attempt.idempotency_key)
        return existing, False
    ensure_learner(session, attempt.learner_id)
    session.add(attempt)
    session.flush()  # the attempt's id, which the aggregates keep
    record_in_aggregates(session, [attempt])
    place = Place(attempt.lesson_slug, f"pergunta-{attempt.question_id}")
    set_place(session, attempt.learner_id, place)
    session.commit()
    session.refresh(attempt)
    return attempt, True


def lesson_attempts(session: Session, learner_id: str, lesson_slug: str) -> list[Attempt]:
    """Return the learner's attempts in one lesson, oldest first (one query)."""
    return list(
        session.exec(
            select(Attempt)
            .where(Attempt.learner_id == learner_id, Attempt.lesson_slug == lesson_slug)
            .order_by(col(Attempt.created_at), col(Attempt.id))
        )
    )


def attempt_facts(session: Session, learner_id: str) -> list[AttemptFact]:
    """Return what progress needs from every attempt of the learner, oldest first."""
    rows = session.exec(
        select(Attempt.lesson_slug, Attempt.question_id, Attempt.question_hash, Attempt.correct)
        .where(Attempt.learner_id == learner_id)
        .order_by(*first_try_order(Attempt.__table__))
    )
    return [AttemptFact(*row) for row in rows]


def learner_walks(session: Session, learner_id: str) -> list[Walk]:
    """Return the decision-tree walks the learner finished, newest first."""
    return list(
        session.exec(
            select(Walk)
            .where(Walk.learner_id == learner_id)
            .order_by(col(Walk.created_at).desc(), col(Walk.id).desc())
        )
    )


def stored_place(session: Session, learner_id: str) -> Place | None:
    """Return the place kept on the learner row, or ``None`` (no row or no place yet)."""
    row = session.exec(
        select(Learner.place_lesson, Learner.place_section).where(Learner.id == learner_id)
    ).first()
    if row is None or row[0] is None:
        return None
    return Place(row[0], row[1])


def save_place(session: Session, learner_id: str, place: Place) -> bool:
    """Keep ``place`` on the learner row, if the row exists; browsing never creates one.

    Args:
        session: an open session; this function commits it.
        learner_id: the learner.
        place: where they are.

    Returns:
        True when a learner row was updated, False when there is none.
    """
    if session.get(Learner, learner_id) is None:
        return False  # an anonymous visitor: no write transaction, no wait for the write lock
    begin_write(session)
    updated = set_place(session, learner_id, place)
    session.commit()
    return updated


def set_place(session: Session, learner_id: str, place: Place) -> bool:
    """Update the learner row's place without committing; True when a row was updated."""
    result = session.exec(
        update(Learner)
        .where(col(Learner.id) == learner_id)
        .values(place_lesson=place.lesson_slug, place_section=place.section, place_at=utcnow())
    )
    return result.rowcount > 0


def record_walk(session: Session, learner_id: str, tree_id: str, path: tuple[str, ...], result_id: str) -> Walk:
    """Store a finished decision-tree walk in one transaction and return it."""
    begin_write(session)
    ensure_learner(session, learner_id)
    walk = Walk(learner_id=learner_id, tree_id=tree_id, path=",".join(path), result_id=result_id)
    session.add(walk)
    session.commit()
    session.refresh(walk)
    return walk
