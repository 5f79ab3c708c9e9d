"""Database reads and writes for learners, attempts, places and walks (no HTTP here)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from sqlalchemy.sql.elements import Cast
from sqlalchemy.types import TypeEngine
from sqlmodel import Session, SQLModel, col, select

from app.learning.classes import LessonDue, as_utc
from app.learning.state import (
    AttemptRow,
    CardRow,
    DrawRow,
    DuplicateKeyError,
    LearnerState,
    NewAnswer,
    Place,
    RevealRow,
    WalkRow,
    Written,
)
from app.learning.writer import AnswerWriter
from app.platform.db import begin_write
from app.platform.models import (
    Attempt,
    ClassDue,
    ClassMember,
    Classroom,
    HintReveal,
    Learner,
    PoolDrawRecord,
    ReviewCard,
    WalkRecord,
    utcnow,
)

# Place and DuplicateKeyError live in app.learning.state; importable here too
__all__ = ["DuplicateKeyError", "Place", "read_state"]
_LEARNER = bindparam("learner", type_=String)


def _state_statement() -> sa.Select[*tuple[Any, ...]]:
    """One statement for a learner's whole state: the learner row, attempts, walks, review
    cards and the due dates of the learner's classes, told apart by ``kind``.

    Built once (see :data:`_STATE`). What each kind puts in the shared columns (NULL where
    it has nothing):

    ====  ===========  ============  =============  ===============  ===================
    kind  row          ``slug``      ``name``       ``detail``       ``at``, ``row_id``
    ====  ===========  ============  =============  ===============  ===================
    0     learner      place lesson  place section                   place time, 0
    1     attempt      lesson slug   question id    question hash    created, attempt id
    2     walk         tree id       path           result id        created, walk id
    3     review card  lesson slug   question id    question hash    due, 0
    4     due date     lesson slug   class name     class time zone  due, class id
    5     hint opened  lesson slug   question id    question hash    opened, reveal id
    6     pool draw    lesson slug   pool id        question ids     started, draw id
    ====  ===========  ============  =============  ===============  ===================

    ``chosen``, ``correct``, ``credit``, ``help`` and ``variant`` are the attempt's; a hint
    opened (and not yet answered after) puts its ``worked`` flag in ``correct`` and its
    number in ``help``; a pool draw puts its seed in ``chosen`` and its number in ``help``.
    Rows come by kind, then ``at`` (due dates soonest first). SQLAlchemy's ``select``, not
    SQLModel's: its types cover nine columns and a subquery, and it runs the same way.
    """

    def nothing(kind: type[TypeEngine[Any]]) -> Cast[Any]:
        return null().cast(kind)

    learner = sa.select(
        literal_column("0", Integer).label("kind"),
        col(Learner.place_lesson).label("slug"),
        col(Learner.place_section).label("name"),
        nothing(String).label("detail"),
        nothing(String).label("chosen"),
        nothing(Boolean).label("correct"),
        nothing(Float).label("credit"),
        col(Learner.place_at).label("at"),
        literal_column("0", Integer).label("row_id"),
        literal_column("0", Integer).label("help"),
        nothing(String).label("variant"),
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
        col(Attempt.help),
        col(Attempt.variant),
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
        literal_column("0", Integer),
        nothing(String),
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
        literal_column("0", Integer),
        nothing(String),
    ).where(col(ReviewCard.learner_id) == _LEARNER)
    dues = (
        sa.select(
            literal_column("4", Integer),
            col(ClassDue.lesson_slug),
            col(Classroom.name),
            col(Classroom.time_zone),
            nothing(String),
            nothing(Boolean),
            nothing(Float),
            col(ClassDue.due_at),
            col(Classroom.id),
            literal_column("0", Integer),
            nothing(String),
        )
        .select_from(ClassMember)
        .join(Classroom, col(Classroom.id) == col(ClassMember.class_id))
        .join(ClassDue, col(ClassDue.class_id) == col(ClassMember.class_id))
        .where(col(ClassMember.learner_id) == _LEARNER)
    )
    reveals = sa.select(
        literal_column("5", Integer),
        col(HintReveal.lesson_slug),
        col(HintReveal.question_id),
        col(HintReveal.question_hash),
        nothing(String),
        col(HintReveal.worked),
        nothing(Float),
        col(HintReveal.created_at),
        col(HintReveal.id),
        col(HintReveal.hint),
        nothing(String),
    ).where(col(HintReveal.learner_id) == _LEARNER, col(HintReveal.attempt_id).is_(None))
    draws = sa.select(
        literal_column("6", Integer),
        col(PoolDrawRecord.lesson_slug),
        col(PoolDrawRecord.pool_id),
        col(PoolDrawRecord.question_ids),
        col(PoolDrawRecord.seed),
        nothing(Boolean),
        nothing(Float),
        col(PoolDrawRecord.created_at),
        col(PoolDrawRecord.id),
        col(PoolDrawRecord.number),
        nothing(String),
    ).where(col(PoolDrawRecord.learner_id) == _LEARNER)
    union = union_all(learner, attempts, walks, cards, dues, reveals, draws).subquery()
    return sa.select(union).order_by(union.c.kind, union.c.at, union.c.row_id)


_STATE = _state_statement()


def read_state(session: Session, learner_id: str | None) -> LearnerState:
    """Read everything the learner's pages show in one statement (none for a visitor).

    Args:
        learner_id: the learner, or ``None`` for a visitor who has stored nothing.

    Returns:
        The state: place, attempts oldest first, walks newest first; empty when the learner
        has no row yet.
    """
    if learner_id is None:
        return LearnerState(None)
    place, stored, attempts, walks, cards = None, False, [], [], []
    reveals: list[RevealRow] = []
    draws: list[DrawRow] = []
    dues: dict[str, LessonDue] = {}
    for row in session.execute(_STATE, {"learner": learner_id}):
        if row.kind == 0:
            stored = True
            place = Place(row.slug, row.name) if row.slug is not None else None
        elif row.kind == 1:
            attempts.append(
                AttemptRow(
                    row.slug,
                    row.name,
                    row.detail,
                    row.chosen,
                    bool(row.correct),
                    row.credit,
                    row.at,
                    row.row_id,
                    row.help,
                    row.variant or "",
                )
            )
        elif row.kind == 2:
            walks.append(WalkRow(row.slug, row.name, row.detail, row.at, row.row_id))
        elif row.kind == 3:
            cards.append(CardRow(row.slug, row.name, row.detail, row.at))
        elif row.kind == 5:
            reveals.append(
                RevealRow(row.slug, row.name, row.detail, row.help, bool(row.correct), row.row_id)
            )
        elif row.kind == 6:
            draws.append(draw_row(row))
        else:  # the soonest due date of a lesson wins when two classes set one
            dues.setdefault(row.slug, LessonDue(row.name, row.slug, as_utc(row.at), row.detail))
    walks.reverse()
    return LearnerState(
        learner_id,
        stored,
        place,
        tuple(attempts),
        tuple(walks),
        tuple(cards),
        tuple(dues.values()),
        tuple(reveals),
        tuple(draws),
    )


def draw_row(row: Any) -> DrawRow:
    """A ``pool_draw`` row of the state statement as the state holds it."""
    ids = tuple(qid for qid in row.detail.split(",") if qid)
    return DrawRow(row.slug, row.name, row.help, row.chosen, ids, row.at, row.row_id)


def ensure_learner(session: Session, learner_id: str) -> None:
    """Insert the learner row if it is not there yet (learners are created lazily)."""
    if session.get(Learner, learner_id) is None:
        session.add(Learner(id=learner_id))
        session.flush()


def stored_place(session: Session, learner_id: str) -> Place | None:
    """Return the place kept on the learner row, or ``None`` (no row or no place yet)."""
    row = session.exec(
        select(Learner.place_lesson, Learner.place_section).where(Learner.id == learner_id)
    ).first()
    if row is None or row[0] is None:
        return None
    return Place(row[0], row[1])


def has_row(session: Session, learner_id: str) -> bool:
    """True when the learner has a row (they answered, walked a tree or signed up)."""
    found = session.exec(select(Learner.id).where(Learner.id == learner_id)).first()
    return found is not None


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


def record_reveals(
    session: Session,
    learner_id: str,
    slug: str,
    question_id: str,
    question_hash: str,
    hints: Sequence[tuple[int, bool]],
) -> tuple[RevealRow, ...]:
    """Store hints opened on a question in one transaction (the learner row is created if
    missing, as by :func:`record_walk`); they wait for the learner's next answer to it.

    Args:
        hints: ``(hint number, worked)`` of each hint opened.

    Returns:
        The reveals stored, as the state reads them.
    """
    insert = _insert_for(session)
    now = utcnow()
    begin_write(session)
    session.execute(insert(Learner).values(id=learner_id, created_at=now).on_conflict_do_nothing())
    rows = []
    for hint, worked in hints:
        reveal = HintReveal(
            learner_id=learner_id,
            lesson_slug=slug,
            question_id=question_id,
            question_hash=question_hash,
            hint=hint,
            worked=worked,
            created_at=now,
        )
        session.add(reveal)
        rows.append(reveal)
    session.flush()
    stored = tuple(
        RevealRow(slug, question_id, question_hash, r.hint, r.worked, r.id or 0) for r in rows
    )
    session.commit()
    return stored


def record_draw(
    session: Session,
    learner_id: str,
    slug: str,
    pool_id: str,
    number: int,
    seed: str,
    question_ids: Sequence[str],
) -> DrawRow | None:
    """Store a learner's draw ``number`` of a pool in one transaction (the learner row is
    created if missing, as by :func:`record_walk`).

    Returns:
        The draw as the state reads it, or ``None`` when that number was already stored (two
        tabs asking at once: the first one wins).
    """
    insert = _insert_for(session)
    now = utcnow()
    begin_write(session)
    session.execute(insert(Learner).values(id=learner_id, created_at=now).on_conflict_do_nothing())
    stored = session.execute(
        insert(PoolDrawRecord)
        .values(
            learner_id=learner_id,
            lesson_slug=slug,
            pool_id=pool_id,
            number=number,
            seed=seed,
            question_ids=",".join(question_ids),
            created_at=now,
        )
        .on_conflict_do_nothing()
        .returning(col(PoolDrawRecord.id))
    ).first()
    session.commit()
    if stored is None:
        return None
    return DrawRow(slug, pool_id, number, seed, tuple(question_ids), now, stored[0])


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


def forget_birth_key(session: Session, learner_id: str) -> None:
    """End the learner's birth window now (sign-out): no request can join them by their first
    form's key any more (:func:`app.learning.writer._claim`). Commits."""
    begin_write(session)
    session.execute(update(Learner).where(col(Learner.id) == learner_id).values(birth_key=None))
    session.commit()


class SqlLearnerStore:
    """The storage of :mod:`app.learning.usecases` (:class:`~app.learning.usecases.LearnerStore`).

    Reads go through ``session`` (the request's one state read); every write goes through the
    process's :class:`~app.learning.writer.AnswerWriter`.
    """

    def __init__(self, session: Session, writer: AnswerWriter) -> None:
        self.session = session
        self.writer = writer

    def read_state(self, learner_id: str | None) -> LearnerState:
        """See :func:`read_state`; the session's connection goes back to its pool at once,
        so a request waiting for the writer never holds one the writer may need."""
        try:
            return read_state(self.session, learner_id)
        finally:
            self.session.rollback()

    def move_place(self, learner_id: str, place: Place) -> None:
        """Queue the move of the learner row's place (:meth:`AnswerWriter.move_place`)."""
        self.writer.move_place(learner_id, place)

    def store_answer(self, answer: NewAnswer) -> Written:
        """See :meth:`AnswerWriter.store`."""
        return self.writer.store(answer)

    def store_reveals(
        self,
        learner_id: str,
        slug: str,
        question_id: str,
        question_hash: str,
        hints: Sequence[tuple[int, bool]],
    ) -> tuple[RevealRow, ...]:
        """See :func:`record_reveals`."""
        return record_reveals(self.session, learner_id, slug, question_id, question_hash, hints)

    def store_draw(
        self,
        learner_id: str,
        slug: str,
        pool_id: str,
        number: int,
        seed: str,
        question_ids: Sequence[str],
    ) -> DrawRow | None:
        """See :func:`record_draw`."""
        return record_draw(self.session, learner_id, slug, pool_id, number, seed, question_ids)
