"""Database reads and writes for learners, attempts, places and walks (no HTTP here)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import (
    Boolean,
    Float,
    Integer,
    String,
    bindparam,
    literal_column,
    null,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.elements import Cast
from sqlalchemy.types import TypeEngine
from sqlmodel import Session, SQLModel, col, select

from app.content.page_ids import question_anchor
from app.content.quiz import Question
from app.learning.aggregates import record_in_aggregates
from app.learning.classes import LessonDue, as_utc
from app.learning.grading import AttemptFact, Grade
from app.learning.review import schedule_after
from app.learning.rules import first_try_order
from app.learning.state import AttemptRow, CardRow, LearnerState, Place, WalkRow
from app.platform.db import begin_write
from app.platform.models import (
    Account,
    Attempt,
    ClassDue,
    ClassMember,
    Classroom,
    Learner,
    ReviewCard,
    WalkRecord,
    utcnow,
)

__all__ = ["Place", "read_state"]  # Place lives in app.learning.state; kept importable here
_LEARNER = bindparam("learner", type_=String)
# How long after a visitor's first answer a second request with the same form key (a double
# submit sent before the first response set the session cookie) joins that learner.
BIRTH_WINDOW = timedelta(seconds=30)


def _state_statement() -> sa.Select[*tuple[Any, ...]]:
    """One statement for a learner's whole state: the learner row, attempts and walks.

    Rows are told apart by ``kind`` (0 learner, 1 attempt, 2 walk, 3 review card, 4 a due date
    of one of the learner's classes, soonest first); the columns
    a kind does not have are NULL. Built once (see :data:`_STATE`). SQLAlchemy's ``select``,
    not SQLModel's: its types cover nine columns and a subquery, and it runs the same way.
    """

    def nothing(kind: type[TypeEngine[Any]]) -> Cast[Any]:
        return null().cast(kind)

    learner = sa.select(
        literal_column("0", Integer).label("kind"),
        col(Learner.place_lesson).label("a"),
        col(Learner.place_section).label("b"),
        nothing(String).label("c"),
        nothing(String).label("d"),
        nothing(Boolean).label("e"),
        nothing(Float).label("f"),
        col(Learner.place_at).label("at"),
        literal_column("0", Integer).label("row_id"),
    ).where(col(Learner.id) == _LEARNER)
    attempts = sa.select(
        literal_column("1", Integer),
        col(Attempt.lesson_slug),
        col(Attempt.question_id),
        col(Attempt.question_hash),
        col(Attempt.chosen),
        col(Attempt.correct),
        col(Attempt.credit),
        col(Attempt.created_at),
        col(Attempt.id),
    ).where(col(Attempt.learner_id) == _LEARNER)
    walks = sa.select(
        literal_column("2", Integer),
        col(WalkRecord.tree_id),
        col(WalkRecord.path),
        col(WalkRecord.result_id),
        nothing(String),
        nothing(Boolean),
        nothing(Float),
        col(WalkRecord.created_at),
        col(WalkRecord.id),
    ).where(col(WalkRecord.learner_id) == _LEARNER)
    cards = sa.select(
        literal_column("3", Integer),
        col(ReviewCard.lesson_slug),
        col(ReviewCard.question_id),
        col(ReviewCard.question_hash),
        nothing(String),
        nothing(Boolean),
        nothing(Float),
        col(ReviewCard.due),
        literal_column("0", Integer),
    ).where(col(ReviewCard.learner_id) == _LEARNER)
    dues = (
        sa.select(
            literal_column("4", Integer),
            col(Classroom.name),
            col(ClassDue.lesson_slug),
            col(Classroom.time_zone),
            nothing(String),
            nothing(Boolean),
            nothing(Float),
            col(ClassDue.due_at),
            col(Classroom.id),
        )
        .select_from(ClassMember)
        .join(Classroom, col(Classroom.id) == col(ClassMember.class_id))
        .join(ClassDue, col(ClassDue.class_id) == col(ClassMember.class_id))
        .where(col(ClassMember.learner_id) == _LEARNER)
    )
    union = union_all(learner, attempts, walks, cards, dues).subquery()
    return sa.select(union).order_by(union.c.kind, union.c.at, union.c.row_id)


_STATE = _state_statement()


def read_state(session: Session, learner_id: str | None) -> LearnerState:
    """Read everything the learner's pages show in one statement (none for a visitor).

    Args:
        session: an open session.
        learner_id: the learner, or ``None`` for a visitor who has stored nothing.

    Returns:
        The state: place, attempts oldest first, walks newest first; empty when the learner
        has no row yet.
    """
    if learner_id is None:
        return LearnerState(None)
    place, stored, attempts, walks, cards = None, False, [], [], []
    dues: dict[str, LessonDue] = {}
    for row in session.execute(_STATE, {"learner": learner_id}):
        if row.kind == 0:
            stored = True
            place = Place(row.a, row.b) if row.a is not None else None
        elif row.kind == 1:
            attempts.append(
                AttemptRow(row.a, row.b, row.c, row.d, bool(row.e), row.f, row.at, row.row_id)
            )
        elif row.kind == 2:
            walks.append(WalkRow(row.a, row.b, row.c, row.at, row.row_id))
        elif row.kind == 3:
            cards.append(CardRow(row.a, row.b, row.c, row.at))
        else:  # the soonest due date of a lesson wins when two classes set one
            dues.setdefault(row.b, LessonDue(row.a, row.b, as_utc(row.at), row.c))
    walks.reverse()
    return LearnerState(
        learner_id,
        stored,
        place,
        tuple(attempts),
        tuple(walks),
        tuple(cards),
        tuple(dues.values()),
    )


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

    The learner row is created if missing, the learner's place moves to the question, and
    the question's review card is rescheduled (in the same transaction).

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
    place = Place(attempt.lesson_slug, question_anchor(attempt.question_id))
    set_place(session, attempt.learner_id, place)
    schedule_after(
        session, [attempt]
    )  # spaced review: rate the question's card (app/learning/review.py)
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
        .order_by(*first_try_order(Attempt.__table__))  # type: ignore[attr-defined]
    )
    return [AttemptFact(*row) for row in rows]


def learner_walks(session: Session, learner_id: str) -> list[WalkRecord]:
    """Return the decision-tree walks the learner finished, newest first."""
    return list(
        session.exec(
            select(WalkRecord)
            .where(WalkRecord.learner_id == learner_id)
            .order_by(col(WalkRecord.created_at).desc(), col(WalkRecord.id).desc())
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


def record_walk(
    session: Session, learner_id: str, tree_id: str, path: tuple[str, ...], result_id: str
) -> None:
    """Store a finished decision-tree walk in one transaction (two statements).

    The learner row is created if missing (``ON CONFLICT DO NOTHING``), then the walk inserted.
    """
    insert = _insert_for(session)
    now = utcnow()
    begin_write(session)
    session.execute(insert(Learner).values(id=learner_id, created_at=now).on_conflict_do_nothing())
    session.execute(
        insert(WalkRecord).values(
            learner_id=learner_id,
            tree_id=tree_id,
            path=",".join(path),
            result_id=result_id,
            created_at=now,
        )
    )
    session.commit()


# Either dialect's ``insert``: two statement classes that both know ``on_conflict_do_*``.
InsertFor = Callable[[type[SQLModel]], postgresql.Insert | sqlite.Insert]


def _insert_for(session: Session) -> InsertFor:
    """The dialect's ``insert`` (SQLite or PostgreSQL), which knows ``ON CONFLICT``."""
    insert: InsertFor
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert


def store_answer(session: Session, attempt: Attempt) -> tuple[AttemptRow, bool]:
    """Store one graded answer once per idempotency key, in three statements.

    The learner row is created if missing and its place moved to the question (one upsert);
    the attempt is inserted unless its key is already stored (``ON CONFLICT DO NOTHING``).
    Only a repeated key costs a further read, to return what was stored the first time.

    Args:
        session: an open session with no transaction in progress; this function commits it.
        attempt: the new attempt, with ``learner_id`` and ``idempotency_key`` set.

    Returns:
        The stored attempt and True, or the attempt already stored with the same key and False.

    Raises:
        DuplicateKeyError: the key was already used for another question.
    """
    insert = _insert_for(session)
    now = utcnow()
    begin_write(session)
    place = {
        "place_lesson": attempt.lesson_slug,
        "place_section": question_anchor(attempt.question_id),
        "place_at": now,
    }
    session.execute(
        insert(Learner)
        .values(id=attempt.learner_id, created_at=now, **place)
        .on_conflict_do_update(index_elements=["id"], set_=place)
    )
    values = {
        "learner_id": attempt.learner_id,
        "lesson_slug": attempt.lesson_slug,
        "question_id": attempt.question_id,
        "question_hash": attempt.question_hash,
        "chosen": attempt.chosen,
        "correct": attempt.correct,
        "credit": attempt.credit,
        "idempotency_key": attempt.idempotency_key,
        "created_at": now,
    }
    new_id = session.execute(
        insert(Attempt)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["learner_id", "idempotency_key"])
        .returning(col(Attempt.id))
    ).scalar()
    if new_id is not None:
        stored = Attempt(id=new_id, **values)  # type: ignore[arg-type]
        record_in_aggregates(session, [stored])  # the dashboard's counters (aggregates.py)
        schedule_after(session, [stored])  # spaced review: rate the question's card (review.py)
        session.commit()
        return AttemptRow(
            attempt.lesson_slug,
            attempt.question_id,
            attempt.question_hash,
            attempt.chosen,
            attempt.correct,
            attempt.credit,
            now,
            new_id,
        ), True
    session.rollback()  # the place stays where the first answer put it
    existing = find_attempt(session, attempt.learner_id, attempt.idempotency_key or "")
    if existing is None or (existing.lesson_slug, existing.question_id) != (
        attempt.lesson_slug,
        attempt.question_id,
    ):
        raise DuplicateKeyError(attempt.idempotency_key)
    return AttemptRow(
        existing.lesson_slug,
        existing.question_id,
        existing.question_hash,
        existing.chosen,
        existing.correct,
        existing.credit,
        existing.created_at,
        existing.id or 0,
    ), False


def claim_learner(session: Session, learner_id: str, key: str) -> str:
    """Make the learner of a visitor's first answer, once per answer form, in one transaction.

    ``learner_id`` is new (random, from the request's new session) and ``key`` is the answer
    form's idempotency key, unique to the page view that printed it. The learner row is created
    with ``key`` as its birth key, unless another request made one with the same key first: a
    double submit of the same form, both sent before the first response set the session cookie.
    That learner is returned when it was made less than :data:`BIRTH_WINDOW` ago and has no
    account; otherwise (a form sent again long after, or by someone who has since signed up)
    ``learner_id`` is made without a birth key. Nothing here reads a cookie.

    Args:
        session: an open session with no transaction in progress; this function commits it.

    Returns:
        The learner id the answer belongs to, which the caller keeps in the session.
    """
    insert = _insert_for(session)
    now = utcnow()
    begin_write(session)
    session.execute(
        insert(Learner)
        .values(id=learner_id, created_at=now, birth_key=key)
        .on_conflict_do_nothing()
    )
    born = session.execute(
        select(col(Learner.id), col(Learner.created_at)).where(col(Learner.birth_key) == key)
    ).first()
    owner = learner_id
    if born is not None and born[0] != learner_id:
        created = born[1] if born[1].tzinfo else born[1].replace(tzinfo=UTC)
        signed_up = session.execute(
            select(col(Account.learner_id)).where(col(Account.learner_id) == born[0])
        ).first()
        if now - created < BIRTH_WINDOW and signed_up is None:
            owner = born[0]
        else:
            session.execute(
                insert(Learner).values(id=learner_id, created_at=now).on_conflict_do_nothing()
            )
    session.commit()
    return owner


def forget_birth_key(session: Session, learner_id: str) -> None:
    """End the learner's birth window now (sign-out): no request can join them by their first
    form's key any more (:func:`claim_learner`). Commits."""
    begin_write(session)
    session.execute(update(Learner).where(col(Learner.id) == learner_id).values(birth_key=None))
    session.commit()


class SqlLearnerStore:
    """The storage of :mod:`app.learning.usecases` (:class:`~app.learning.usecases.LearnerStore`).

    Args:
        session: the session reads go through (the event loop's, inside ``async`` routes).
        writer: the session writes go through (the threadpool's); ``session`` when ``None``.
    """

    def __init__(self, session: Session, writer: Session | None = None) -> None:
        self.session = session
        self.writer = writer or session

    def read_state(self, learner_id: str | None) -> LearnerState:
        """See :func:`read_state`."""
        return read_state(self.session, learner_id)

    def save_place(self, learner_id: str, place: Place) -> bool:
        """Keep ``place`` on the learner row (one UPDATE); False when there is no row."""
        begin_write(self.writer)
        updated = set_place(self.writer, learner_id, place)
        self.writer.commit()
        return updated

    def claim_learner(self, learner_id: str, key: str) -> str:
        """See :func:`claim_learner`."""
        return claim_learner(self.writer, learner_id, key)

    def record_answer(
        self,
        learner_id: str,
        lesson_slug: str,
        question: Question,
        chosen: str,
        grade: Grade,
        key: str,
    ) -> tuple[AttemptRow, bool]:
        """Store a graded answer once per ``key`` (:func:`store_answer`)."""
        attempt = Attempt(
            learner_id=learner_id,
            lesson_slug=lesson_slug,
            question_id=question.id,
            question_hash=question.content_hash,
            chosen=chosen,
            correct=grade.correct,
            idempotency_key=key,
            credit=grade.credit,
        )
        return store_answer(self.writer, attempt)
