"""Database reads and writes for learners, attempts, places and walks (no HTTP here)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import (
    Boolean,
    Engine,
    Float,
    Integer,
    String,
    bindparam,
    exists,
    func,
    literal_column,
    null,
    or_,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.elements import Cast
from sqlalchemy.types import TypeEngine
from sqlmodel import Session, SQLModel, col, select

from app.content.quiz import Hint, Question
from app.learning.classes import LessonDue, as_utc
from app.learning.draws import PoolDraw
from app.learning.state import (
    AttemptRow,
    CardRow,
    DrawRow,
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
    ATTEMPT,
    Attempt,
    ClassDue,
    ClassMember,
    Classroom,
    HintReveal,
    Learner,
    LessonRename,
    PoolDrawRecord,
    ReviewCard,
    WalkRecord,
    utcnow,
)

_LEARNER = bindparam("learner", type_=String)
# The highest attempt and walk ids already read (kept in memory): only newer rows are read.
# -1: read every row.
_AFTER_ATTEMPT = bindparam("after_attempt", type_=Integer)
_AFTER_WALK = bindparam("after_walk", type_=Integer)


def _state_statement() -> sa.Select[*tuple[Any, ...]]:
    """One statement for what is new in a learner's state since the rows already read (the
    whole state when ``after_attempt`` and ``after_walk`` are -1): the learner row with its
    counts of attempts and walks, the attempts and walks newer than those read, the review
    cards of the questions those attempts answered (all of them on a whole read), and, read
    whole each time (a few rows, and others change them), the hints opened and not answered yet
    and the due dates of the learner's classes; told apart by ``kind``.

    Built once (see :data:`_STATE`). What each kind puts in the shared columns (NULL where
    it has nothing):

    ====  ===========  ============  =============  ===============  ===================
    kind  row          ``slug``      ``name``       ``detail``       ``at``, ``row_id``
    ====  ===========  ============  =============  ===============  ===================
    0     learner      place lesson  place section                   last card due, attempts
    1     attempt      lesson slug   question id    question hash    created, attempt id
    2     walk         tree id       path           result id        created, walk id
    3     review card  lesson slug   question id    question hash    due, 0
    4     due date     lesson slug   class name     class time zone  due, class id
    5     hint opened  lesson slug   question id    question hash    opened, reveal id
    6     pool draw    lesson slug   pool id        question ids     started, draw id
    ====  ===========  ============  =============  ===============  ===================

    ``chosen``, ``correct``, ``credit`` and ``help`` are the attempt's; a hint opened (and not
    yet answered after) puts its ``worked`` flag in ``correct`` and its number in ``help``; the
    learner row puts its count of attempts in ``row_id``, of walks in ``help``, the latest due
    date of its review cards in ``at`` and the count of lessons ever renamed in ``credit``
    (what tells that cards or rows changed without a new attempt: a rename moves rows, a
    rebuild of the cards moves their dates). ``variant`` is the attempt's variant; a pool draw
    (read whole each time, as the hints) puts its seed in ``chosen`` and its number in ``help``.
    Rows come by kind, then ``at`` (due dates soonest first). SQLAlchemy's ``select``, not
    SQLModel's: its types cover nine columns and a subquery, and it runs the same way.
    """

    def nothing(kind: type[TypeEngine[Any]]) -> Cast[Any]:
        return null().cast(kind)

    def count(table: type[SQLModel], learner: Any) -> Any:
        return sa.select(func.count()).select_from(table).where(learner == _LEARNER)

    learner = sa.select(
        literal_column("0", Integer).label("kind"),
        col(Learner.place_lesson).label("slug"),
        col(Learner.place_section).label("name"),
        nothing(String).label("detail"),
        nothing(String).label("chosen"),
        nothing(Boolean).label("correct"),
        sa.select(func.count())
        .select_from(LessonRename)
        .scalar_subquery()
        .cast(Float)
        .label("credit"),
        sa.select(func.max(col(ReviewCard.due)))
        .where(col(ReviewCard.learner_id) == _LEARNER)
        .scalar_subquery()
        .label("at"),
        count(Attempt, col(Attempt.learner_id)).scalar_subquery().label("row_id"),
        count(WalkRecord, col(WalkRecord.learner_id)).scalar_subquery().label("help"),
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
    ).where(col(Attempt.learner_id) == _LEARNER, col(Attempt.id) > _AFTER_ATTEMPT)
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
    ).where(col(WalkRecord.learner_id) == _LEARNER, col(WalkRecord.id) > _AFTER_WALK)
    answered = ATTEMPT.alias("answered")
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
    ).where(
        col(ReviewCard.learner_id) == _LEARNER,
        or_(
            _AFTER_ATTEMPT < 0,
            exists().where(
                answered.c.learner_id == _LEARNER,
                answered.c.id > _AFTER_ATTEMPT,
                answered.c.lesson_slug == col(ReviewCard.lesson_slug),
                answered.c.question_id == col(ReviewCard.question_id),
            ),
        ),
    )
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


@dataclass
class _Rows:
    """What :data:`_STATE` returned, by kind (see :func:`_state_statement`).

    Attributes:
        attempt_count: how many attempts the learner has now (0 without a learner row).
        walk_count: how many walks.
        last_due: the latest due date of the learner's review cards, ``None`` without one.
        renames: how many lessons were ever renamed.
        attempts: the attempts read, oldest first.
        walks: the walks read, oldest first.
    """

    stored: bool = False
    place: Place | None = None
    attempt_count: int = 0
    walk_count: int = 0
    last_due: datetime | None = None
    renames: float = 0
    attempts: list[AttemptRow] = field(default_factory=list)
    walks: list[WalkRow] = field(default_factory=list)
    cards: list[CardRow] = field(default_factory=list)
    reveals: list[RevealRow] = field(default_factory=list)
    dues: dict[str, LessonDue] = field(default_factory=dict)
    draws: list[DrawRow] = field(default_factory=list)


class _StateText:
    """:data:`_STATE` compiled once per dialect, run by the driver on a DBAPI connection: a
    read on the event loop costs the statement, not SQLAlchemy's compile-cache lookup,
    execution context and result rows (about 0.13 ms of each request's 0.15 ms read).

    Times come as the models' ``UTCDateTime`` reads them: aware, in UTC (SQLite's driver
    gives the stored text, PostgreSQL's an aware time in the session's zone).
    """

    def __init__(self) -> None:
        self._by_dialect: dict[str, tuple[str, tuple[str, ...] | None, dict[str, Any]]] = {}

    def rows(self, engine: Engine, raw: Any, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """The statement's rows for ``params`` (``learner``, ``after_attempt``,
        ``after_walk``), on ``raw``, a DBAPI connection of ``engine``. The engine's cursor
        events (``before_cursor_execute``, ``after_cursor_execute``: what counts statements)
        see it as they see SQLAlchemy's own, without a ``Connection`` (``None``)."""
        dialect = engine.dialect
        compiled = self._by_dialect.get(dialect.name)
        if compiled is None:
            done = _STATE.compile(dialect=dialect)
            order = tuple(done.positiontup or ()) if dialect.positional else None
            compiled = self._by_dialect[dialect.name] = (done.string, order, dict(done.params))
        text, order, defaults = compiled
        values = {**defaults, **params}
        bound = tuple(values[n] for n in order) if order is not None else values
        events = engine.dispatch
        cursor = raw.cursor()
        try:
            for event in events.before_cursor_execute:
                event(None, cursor, text, bound, None, False)
            cursor.execute(text, bound)
            for event in events.after_cursor_execute:
                event(None, cursor, text, bound, None, False)
            rows: list[tuple[Any, ...]] = cursor.fetchall()
        finally:
            cursor.close()
        return [(*row[:7], _utc(row[7]), *row[8:]) for row in rows]


def _utc(value: datetime | str | None) -> datetime | None:
    """A time of the state statement as ``UTCDateTime`` reads it (``None`` stays ``None``)."""
    if value is None:
        return None
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


_STATE_TEXT = _StateText()


def _read(engine: Engine, raw: Any, learner_id: str, after_attempt: int, after_walk: int) -> _Rows:
    """Run :data:`_STATE` (one statement, by the driver): rows newer than the ids given, -1
    for all."""
    got = _Rows()
    params = {"learner": learner_id, "after_attempt": after_attempt, "after_walk": after_walk}
    for row in _STATE_TEXT.rows(engine, raw, params):
        kind, slug, name, detail, chosen, correct, credit, at, row_id, help_, variant = row
        if kind == 0:
            got.stored = True
            got.place = Place(slug, name) if slug is not None else None
            got.attempt_count, got.walk_count = row_id, help_
            got.last_due, got.renames = at, credit
        elif kind == 1:
            got.attempts.append(
                AttemptRow(
                    slug,
                    name,
                    detail,
                    chosen,
                    bool(correct),
                    credit,
                    at,
                    row_id,
                    help_,
                    variant or "",
                )
            )
        elif kind == 2:
            got.walks.append(WalkRow(slug, name, detail, at, row_id))
        elif kind == 3:
            got.cards.append(CardRow(slug, name, detail, at))
        elif kind == 5:
            got.reveals.append(RevealRow(slug, name, detail, help_, bool(correct), row_id))
        elif kind == 6:
            ids = tuple(qid for qid in detail.split(",") if qid)
            got.draws.append(DrawRow(slug, name, help_, chosen, ids, at, row_id))
        else:  # the soonest due date of a lesson wins when two classes set one
            got.dues.setdefault(slug, LessonDue(name, slug, as_utc(at), detail))
    return got


MAX_LEARNERS = 5000  # learners' states kept per process, the least recently read dropped


@dataclass(frozen=True, slots=True)
class _Kept:
    """A learner's state kept in memory, and the highest attempt and walk ids read for it.

    Attributes:
        attempts_read: the highest attempt id read from the database (-1: read it whole).
        walks_read: the same for walks.
        renames: the lessons ever renamed when it was read (:attr:`_Rows.renames`).
    """

    state: LearnerState
    attempts_read: int = -1
    walks_read: int = -1
    renames: float = 0

    @staticmethod
    def of(learner_id: str, kept: _Kept | None, got: _Rows) -> _Kept:
        """``kept`` with the rows ``got`` newer than it (``None``: ``got`` is the whole state)."""
        if not got.stored:  # no learner row (a visitor, or erased): nothing to keep
            return _Kept(LearnerState(learner_id))
        attempts, walks, cards = got.attempts, got.walks, got.cards
        if kept is not None:
            old = kept.state
            attempts = [a for a in old.attempts if a.id <= kept.attempts_read] + attempts
            walks = [w for w in reversed(old.walks) if w.id <= kept.walks_read] + walks
            if got.attempts:  # an attempt read before the other may be newer: oldest first
                attempts.sort(key=lambda a: (a.created_at, a.id))
            if got.walks:
                walks.sort(key=lambda w: (w.created_at, w.id))
            renewed = {(c.lesson_slug, c.question_id) for c in cards}
            cards = [c for c in old.cards if (c.lesson_slug, c.question_id) not in renewed] + cards
        state = LearnerState(
            learner_id,
            True,
            got.place,
            tuple(attempts),
            tuple(reversed(walks)),
            tuple(cards),
            tuple(got.dues.values()),
            tuple(got.reveals),
            tuple(got.draws),
        )
        return _Kept(
            state,
            max(a.id for a in attempts) if attempts else 0,
            max(w.id for w in walks) if walks else 0,
            got.renames,
        )

    def matches(self, got: _Rows, kept: _Kept) -> bool:
        """True when this state, ``kept`` with the new rows ``got``, is the stored one: as many
        attempts and walks as the database counted (not so when older rows came or went: a
        merge of learners, an erasure), the same latest card due date (not so when cards were
        rebuilt), and no lesson renamed since ``kept`` was read."""
        cards = self.state.cards
        return (
            len(self.state.attempts) == got.attempt_count
            and len(self.state.walks) == got.walk_count
            and (max(c.due for c in cards) if cards else None) == got.last_due
            and kept.renames == got.renames
        )


class LearnerStates:
    """Each active learner's state, kept in memory by this process (least recently read
    dropped beyond ``max_learners``) and checked against the database on every read.

    A read is one statement (:data:`_STATE`): the learner row with its counts of attempts and
    walks, and only the rows newer than the highest ids already kept, so an answer stored by
    another worker or machine costs its own rows, never the learner's whole history. When the
    counts say older rows came or went (learners merged at sign-in, an erasure), the state is
    read whole again (a second statement). What this process writes is read back the same way
    on the next read: the database stays the one source.

    Thread-safe: the event loop and the threadpool read through the same instance.
    """

    def __init__(self, max_learners: int = MAX_LEARNERS) -> None:
        self.max_learners = max_learners
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        self._lock = threading.Lock()
        self.rows_read = 0  # attempts and walks read from the database (the tests read it)

    def read(self, engine: Engine, learner_id: str | None) -> LearnerState:
        """The learner's state as stored now (empty for ``None``), read through a DBAPI
        connection of ``engine``'s pool, taken for the read alone (SQLite's run without the
        driver's ``BEGIN``: one statement reads one snapshot; PostgreSQL's pool rolls back
        what the read began when the connection is returned)."""
        if learner_id is None:
            return LearnerState(None)
        raw = engine.raw_connection()
        try:
            return self._read(engine, raw, learner_id)
        finally:
            raw.close()

    def _read(self, engine: Engine, raw: Any, learner_id: str) -> LearnerState:
        with self._lock:
            kept = self._kept.get(learner_id)
        if kept is not None and kept.attempts_read < 0:
            kept = None
        got = _read(
            engine,
            raw,
            learner_id,
            kept.attempts_read if kept else -1,
            kept.walks_read if kept else -1,
        )
        fresh = _Kept.of(learner_id, kept, got)
        if kept is not None and got.stored and not fresh.matches(got, kept):
            got = _read(engine, raw, learner_id, -1, -1)
            fresh = _Kept.of(learner_id, None, got)
        self.rows_read += len(got.attempts) + len(got.walks)
        with self._lock:
            self._kept[learner_id] = fresh
            self._kept.move_to_end(learner_id)
            while len(self._kept) > self.max_learners:
                self._kept.popitem(last=False)
        return fresh.state

    def forget(self) -> None:
        """Drop every kept state (the next reads read whole)."""
        with self._lock:
            self._kept.clear()


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


def set_place(session: Session, learner_id: str, place: Place) -> bool:
    """Update the learner row's place without committing; True when a row was updated."""
    result = session.exec(
        update(Learner)
        .where(col(Learner.id) == learner_id)
        .values(place_lesson=place.lesson_slug, place_section=place.section, place_at=utcnow())
    )
    return result.rowcount > 0


def record_walk(
    session: Session,
    learner_id: str,
    tree_id: str,
    path: tuple[str, ...],
    result_id: str,
    key: str | None = None,
    at: datetime | None = None,
) -> None:
    """Store a finished decision-tree walk in one transaction (two statements).

    The learner row is created if missing (``ON CONFLICT DO NOTHING``), then the walk inserted.

    Args:
        key: the device's key of a walk finished offline: a walk whose key the learner
            already has is not stored again (sent twice, stored once).
        at: when it was finished (a walk finished offline); ``None``: now.
    """
    insert = _insert_for(session)
    now = utcnow()
    begin_write(session)
    session.execute(insert(Learner).values(id=learner_id, created_at=now).on_conflict_do_nothing())
    session.execute(
        insert(WalkRecord)
        .values(
            learner_id=learner_id,
            tree_id=tree_id,
            path=",".join(path),
            result_id=result_id,
            created_at=at or now,
            idempotency_key=key,
        )
        .on_conflict_do_nothing()
    )
    session.commit()


def record_reveals(
    session: Session, learner_id: str, slug: str, question: Question, hints: Sequence[Hint]
) -> tuple[RevealRow, ...]:
    """Store hints opened on a question in one transaction (the learner row is created if
    missing, as by :func:`record_walk`); they wait for the learner's next answer to it.

    Args:
        hints: the hints opened, of ``question`` as it is now (its ``content_hash``).

    Returns:
        The reveals stored, as the state reads them.
    """
    insert = _insert_for(session)
    now = utcnow()
    begin_write(session)
    session.execute(insert(Learner).values(id=learner_id, created_at=now).on_conflict_do_nothing())
    rows = []
    for hint in hints:
        reveal = HintReveal(
            learner_id=learner_id,
            lesson_slug=slug,
            question_id=question.id,
            question_hash=question.content_hash,
            hint=hint.number,
            worked=hint.worked,
            created_at=now,
        )
        session.add(reveal)
        rows.append(reveal)
    session.flush()
    stored = tuple(
        RevealRow(slug, question.id, question.content_hash, r.hint, r.worked, r.id or 0)
        for r in rows
    )
    session.commit()
    return stored


def record_draw(session: Session, learner_id: str, slug: str, draw: PoolDraw) -> DrawRow | None:
    """Store a learner's draw of a pool (its number, seed and questions) in one transaction
    (the learner row is created if missing, as by :func:`record_walk`).

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
            pool_id=draw.pool.id,
            number=draw.number,
            seed=draw.seed,
            question_ids=",".join(draw.question_ids),
            created_at=now,
        )
        .on_conflict_do_nothing()
        .returning(col(PoolDrawRecord.id))
    ).first()
    session.commit()
    if stored is None:
        return None
    return DrawRow(slug, draw.pool.id, draw.number, draw.seed, draw.question_ids, now, stored[0])


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

    Reads go through the process's :class:`LearnerStates` on a connection of ``engine``, taken
    and given back within the read, so a request awaiting the writer never holds one; every
    answer and place goes through the process's :class:`~app.learning.writer.AnswerWriter`.
    """

    def __init__(self, engine: Engine, writer: AnswerWriter, states: LearnerStates) -> None:
        self.engine = engine
        self.writer = writer
        self.states = states

    def read_state(self, learner_id: str | None) -> LearnerState:
        """See :meth:`LearnerStates.read`."""
        if learner_id is None:
            return LearnerState(None)
        return self.states.read(self.engine, learner_id)

    def move_place(self, learner_id: str, place: Place) -> None:
        """Queue the move of the learner row's place (:meth:`AnswerWriter.move_place`)."""
        self.writer.move_place(learner_id, place)

    async def keep_place(self, learner_id: str, place: Place) -> None:
        """Move the learner row's place and return once committed (:meth:`AnswerWriter.place`)."""
        await self.writer.place(learner_id, place)

    async def store_answer(self, answer: NewAnswer) -> Written:
        """See :meth:`AnswerWriter.write`."""
        return await self.writer.write(answer)

    def store_reveals(
        self, learner_id: str, slug: str, question: Question, hints: Sequence[Hint]
    ) -> tuple[RevealRow, ...]:
        """See :func:`record_reveals`."""
        with Session(self.engine) as session:
            return record_reveals(session, learner_id, slug, question, hints)

    def store_draw(self, learner_id: str, slug: str, draw: PoolDraw) -> DrawRow | None:
        """See :func:`record_draw` (a blocking write: an async caller runs it in a thread)."""
        with Session(self.engine) as session:
            return record_draw(session, learner_id, slug, draw)
