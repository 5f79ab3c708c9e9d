"""The dashboard's aggregates, kept as each answer is written.

Tables (``app/platform/models.py``):

- ``first_try``: per learner × question version, the first attempt (see
  :data:`app.learning.rules.FIRST_TRY_ORDER`) and the counts since. This is a learner's *state*.
- ``question_tally``: per question version, attempts, learners and right first tries.
- ``learner_tally``: per learner, the latest attempt and the course score.
- ``lesson_tally``: per lesson, learners who started it and who completed it.
- ``score_tally``: first tries at a current version, by course score and answer (what
  the 27% groups are cut from).
- ``tally_basis``: the question versions the last three count as current.

Every counter is a sum over learners of what :func:`contributions` gives for one
learner's state. Writing answers folds them into the learners' states (:func:`fold`)
and adds the difference of the contributions, in the caller's transaction
(:func:`record_in_aggregates`); deleting or moving attempts recounts the learners from
their attempts (:func:`recount_learners`). :func:`rebuild` computes everything again
from ``attempt`` in SQL, and :func:`sync_basis` recounts the score-dependent tables
when the course's question versions change.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy import (
    ColumnElement,
    Connection,
    FunctionElement,
    Insert,
    Table,
    and_,
    case,
    delete,
    func,
    insert,
    literal,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from app.learning.rules import done_sql, first_try_key, first_try_order, is_done
from app.platform.models import (
    Attempt,
    FirstTry,
    Learner,
    LearnerTally,
    LessonTally,
    QuestionTally,
    ScoreTally,
    TallyBasis,
)

# SQLModel sets ``__table__`` on each table class; its types do not declare it.
ATTEMPT = Attempt.__table__  # type: ignore[attr-defined]
LEARNER = Learner.__table__  # type: ignore[attr-defined]
FIRST = FirstTry.__table__  # type: ignore[attr-defined]
QUESTION = QuestionTally.__table__  # type: ignore[attr-defined]
LEARNER_TALLY = LearnerTally.__table__  # type: ignore[attr-defined]
LESSON = LessonTally.__table__  # type: ignore[attr-defined]
SCORE = ScoreTally.__table__  # type: ignore[attr-defined]
BASIS = TallyBasis.__table__  # type: ignore[attr-defined]

Key = tuple[str, str, str]  # lesson slug, question id, question version
K = TypeVar("K")  # a counter's key
KeyT = TypeVar("KeyT", bound=tuple[Any, ...])  # a counter's key, as a tuple of its columns
FIRST_KEY = ("learner_id", "lesson_slug", "question_id", "question_hash")
FIRST_VALUES = ("attempt_id", "created_at", "chosen", "correct", "attempts", "rights", "last_at")
LEARNER_VALUES = ("last_at", "score", "answers")


@dataclass(frozen=True)
class Try:
    """A learner's history on one question version (a ``first_try`` row).

    Attributes:
        attempt_id: the first attempt's id.
        created_at: the first attempt's time (UTC, aware).
        chosen: the first attempt's answer.
        correct: the first attempt's grade.
        attempts: attempts at this version.
        rights: right attempts at this version.
        last_at: the latest attempt's time (UTC, aware).
    """

    attempt_id: int
    created_at: datetime
    chosen: str
    correct: bool
    attempts: int
    rights: int
    last_at: datetime


State = dict[Key, Try]


class Answer(Protocol):
    """What :func:`fold` reads of an attempt: an ``Attempt`` or a row of the ``attempt`` table."""

    @property
    def id(self) -> int | None: ...
    @property
    def lesson_slug(self) -> str: ...
    @property
    def question_id(self) -> str: ...
    @property
    def question_hash(self) -> str: ...
    @property
    def chosen(self) -> str: ...
    @property
    def correct(self) -> bool: ...
    @property
    def created_at(self) -> datetime: ...


class LearnerAnswer(Answer, Protocol):
    """A stored attempt with its learner: what every follow-up of an answer batch reads (the
    tallies here, :func:`app.learning.review.schedule_batch`,
    :func:`app.learning.mastery.record_in_mastery`)."""

    @property
    def learner_id(self) -> str: ...


@dataclass(frozen=True)
class Basis:
    """The question versions counted as current.

    Attributes:
        versions: ``(lesson slug, question id, version)`` of every current question.
    """

    versions: frozenset[Key]

    @property
    def questions(self) -> dict[str, frozenset[str]]:
        """Lesson slug → its current question ids."""
        out: dict[str, set[str]] = defaultdict(set)
        for slug, qid, _ in self.versions:
            out[slug].add(qid)
        return {slug: frozenset(ids) for slug, ids in out.items()}


@dataclass
class Contribution:
    """What one learner adds to each counter.

    Attributes:
        questions: version → ``(attempts, learners, first_right)``.
        lessons: lesson slug → ``(started, completed)``.
        scores: ``(slug, question id, score, chosen)`` → ``(learners, rights)``.
        learner: ``(last_at, score, answers)``, or ``None`` for a learner with no attempt.
    """

    questions: dict[Key, tuple[int, ...]]
    lessons: dict[str, tuple[int, ...]]
    scores: dict[tuple[str, str, int, str], tuple[int, ...]]
    learner: tuple[datetime, int, str] | None


FIELD, LINE = "\t", "\n"


def encode_answers(answers: Iterable[tuple[str, str, str, bool]]) -> str:
    """``learner_tally.answers``: ``(slug, question id, chosen, correct)`` as text lines."""
    return LINE.join(
        FIELD.join((slug, qid, chosen, "1" if correct else "0"))
        for slug, qid, chosen, correct in sorted(answers)
    )


def decode_answers(text_: str | None) -> dict[tuple[str, str], tuple[str, bool]]:
    """Read ``learner_tally.answers``: ``(slug, question id)`` → ``(chosen, correct)``."""
    out = {}
    for line in filter(None, (text_ or "").split(LINE)):
        slug, qid, chosen, correct = line.split(FIELD)
        out[(slug, qid)] = (chosen, correct == "1")
    return out


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC time (a naive one is taken as UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def fold(state: Mapping[Key, Try], attempts: Iterable[Answer]) -> State:
    """Fold attempts into a learner's state, in any order (pure).

    Args:
        state: the learner's state before (left unchanged).
        attempts: objects with ``id``, ``lesson_slug``, ``question_id``, ``question_hash``,
            ``chosen``, ``correct`` and ``created_at``; ``id`` must be set.

    Returns:
        The new state: the first try is the oldest by :func:`app.learning.rules.first_try_key`.
    """
    out = dict(state)
    for a in attempts:
        assert a.id is not None  # a stored attempt (see ``attempts``)
        key = (a.lesson_slug, a.question_id, a.question_hash)
        when = utc(a.created_at)
        before = out.get(key)
        if before is None:
            out[key] = Try(a.id, when, a.chosen, bool(a.correct), 1, int(bool(a.correct)), when)
            continue
        now = replace(
            before,
            attempts=before.attempts + 1,
            rights=before.rights + int(bool(a.correct)),
            last_at=max(before.last_at, when),
        )
        if first_try_key(when, a.id) < first_try_key(before.created_at, before.attempt_id):
            now = replace(
                now, attempt_id=a.id, created_at=when, chosen=a.chosen, correct=bool(a.correct)
            )
        out[key] = now
    return out


def course_score(state: Mapping[Key, Try], basis: Basis) -> int:
    """The learner's course score: current versions whose first try was right."""
    return sum(1 for key, t in state.items() if key in basis.versions and t.correct)


def contributions(state: Mapping[Key, Try], basis: Basis) -> Contribution:
    """What one learner's state adds to every counter (pure).

    Args:
        state: the learner's state.
        basis: the versions counted as current.

    Returns:
        The learner's share of ``question_tally``, ``lesson_tally``, ``score_tally`` and
        their ``learner_tally`` row.
    """
    questions: dict[Key, tuple[int, ...]] = {
        key: (t.attempts, 1, int(t.correct)) for key, t in state.items()
    }
    answered: dict[str, set[str]] = defaultdict(set)
    right: dict[str, set[str]] = defaultdict(set)
    for (slug, qid, _), t in state.items():
        answered[slug].add(qid)
        if t.rights:
            right[slug].add(qid)
    lessons: dict[str, tuple[int, ...]] = {}
    for slug, ids in basis.questions.items():
        if answered[slug] & ids:
            lessons[slug] = (1, int(is_done(len(right[slug] & ids), len(ids))))
    score = course_score(state, basis)
    scores: dict[tuple[str, str, int, str], tuple[int, ...]] = {}
    answers = []
    for (slug, qid, version), t in state.items():
        if (slug, qid, version) in basis.versions:
            scores[(slug, qid, score, t.chosen)] = (1, int(t.correct))
            answers.append((slug, qid, t.chosen, t.correct))
    learner = (
        (max(t.last_at for t in state.values()), score, encode_answers(answers)) if state else None
    )
    return Contribution(questions, lessons, scores, learner)


def _minus(
    new: Mapping[K, tuple[int, ...]],
    old: Mapping[K, tuple[int, ...]],
    into: dict[K, tuple[int, ...]],
) -> None:
    """Add ``new - old`` (tuples, cell by cell) to ``into``."""
    for key in new.keys() | old.keys():
        a, b = new.get(key), old.get(key)
        width = len(a or b or ())
        a, b = a or (0,) * width, b or (0,) * width
        into[key] = tuple(
            x + y - z for x, y, z in zip(into.get(key, (0,) * width), a, b, strict=True)
        )


_UPSERTS: dict[tuple[str, str], Insert] = {}


def upsert(
    connection: Connection, table: Table, keys: Sequence[str], values: Sequence[str], add: bool
) -> Insert:
    """The dialect's ``INSERT ... ON CONFLICT (keys) DO UPDATE`` for ``table``, built once.

    ``add``: the conflicting row's ``values`` are increased by the new ones (counters);
    otherwise replaced.
    """
    dialect = "postgresql" if connection.dialect.name == "postgresql" else "sqlite"
    cached = _UPSERTS.get((dialect, table.name))
    if cached is None:
        stmt = (postgresql if dialect == "postgresql" else sqlite).insert(table)
        change = {v: (table.c[v] + stmt.excluded[v]) if add else stmt.excluded[v] for v in values}
        cached = stmt.on_conflict_do_update(index_elements=list(keys), set_=change)
        _UPSERTS[(dialect, table.name)] = cached
    return cached


def _add(
    connection: Connection,
    table: Table,
    keys: Sequence[str],
    values: Sequence[str],
    deltas: Mapping[KeyT, tuple[int, ...]],
) -> None:
    """Add ``deltas`` (key tuple → value tuple) to ``table``'s counters, inserting missing rows.

    Rows go in key order so two transactions never wait for each other in a cycle.
    """
    rows = [
        dict(zip((*keys, *values), (*key, *delta), strict=True))
        for key, delta in sorted(deltas.items())
        if any(delta)
    ]
    if not rows:
        return
    connection.execute(upsert(connection, table, keys, values, add=True), rows)


def _lock(connection: Connection, learner_ids: Sequence[str]) -> Basis:
    """Serialise writers of the same learners and read the basis (PostgreSQL; SQLite
    transactions that write already run one at a time)."""
    if connection.dialect.name == "postgresql":
        connection.execute(
            select(LEARNER.c.id)
            .where(LEARNER.c.id.in_(learner_ids))
            .order_by(LEARNER.c.id)
            .with_for_update()
        )
        connection.execute(text("LOCK TABLE tally_basis IN ROW SHARE MODE"))
    return read_basis(connection)


def read_basis(connection: Connection) -> Basis:
    """The versions the score-dependent counters count as current."""
    rows = connection.execute(
        select(BASIS.c.lesson_slug, BASIS.c.question_id, BASIS.c.question_hash)
    )
    return Basis(frozenset(tuple(row) for row in rows))


def stored_states(connection: Connection, learner_ids: Sequence[str]) -> dict[str, State]:
    """The learners' states as stored in ``first_try`` (a learner with none is left out)."""
    out: dict[str, State] = defaultdict(dict)
    if not learner_ids:
        return out
    rows = connection.execute(select(FIRST).where(FIRST.c.learner_id.in_(learner_ids)))
    for r in rows:
        out[r.learner_id][(r.lesson_slug, r.question_id, r.question_hash)] = Try(
            r.attempt_id,
            utc(r.created_at),
            r.chosen,
            bool(r.correct),
            r.attempts,
            r.rights,
            utc(r.last_at),
        )
    return out


def record_in_aggregates(db: Session | Connection, attempts: Sequence[LearnerAnswer]) -> None:
    """Count newly inserted attempts in every aggregate, inside the caller's transaction.

    Call it once per write, with every attempt that write inserted (a batch writer passes
    its whole batch); nothing is committed here.

    Args:
        db: the session (or connection) that inserted the attempts, in its write transaction.
        attempts: the new attempts, stored (their ``id`` set): ``Attempt`` rows or the writer's.
    """
    if not attempts:
        return
    connection = db.connection() if isinstance(db, Session) else db
    learner_ids = sorted({a.learner_id for a in attempts})
    basis = _lock(connection, learner_ids)
    before = stored_states(connection, learner_ids)
    mine: dict[str, list[LearnerAnswer]] = defaultdict(list)
    for a in attempts:
        mine[a.learner_id].append(a)
    after = {learner: fold(before.get(learner, {}), mine[learner]) for learner in learner_ids}
    _write(connection, basis, before, after)


def recount_learners(db: Session | Connection, learner_ids: Iterable[str]) -> None:
    """Recount learners from their attempts as stored now, inside the caller's transaction.

    Call it after deleting or moving attempts (and before deleting a learner row, whose
    ``first_try`` rows go with it): their old share of every counter is taken away and the
    new one added.

    Args:
        db: the session (or connection) in its write transaction.
        learner_ids: the learners whose attempts changed.
    """
    connection = db.connection() if isinstance(db, Session) else db
    ids = sorted(set(learner_ids))
    if not ids:
        return
    basis = _lock(connection, ids)
    before = stored_states(connection, ids)
    attempts = connection.execute(
        select(
            ATTEMPT.c.id,
            ATTEMPT.c.learner_id,
            ATTEMPT.c.lesson_slug,
            ATTEMPT.c.question_id,
            ATTEMPT.c.question_hash,
            ATTEMPT.c.chosen,
            ATTEMPT.c.correct,
            ATTEMPT.c.created_at,
        ).where(ATTEMPT.c.learner_id.in_(ids))
    ).all()
    mine: dict[str, list[Answer]] = defaultdict(list)
    for a in attempts:
        mine[a.learner_id].append(a)
    after = {learner: fold({}, mine[learner]) for learner in ids}
    _write(connection, basis, before, after)


def _write(
    connection: Connection, basis: Basis, before: Mapping[str, State], after: Mapping[str, State]
) -> None:
    """Store the learners' new states and add the change of their contributions."""
    questions: dict[Key, tuple[int, ...]] = {}
    lessons: dict[str, tuple[int, ...]] = {}
    scores: dict[tuple[str, str, int, str], tuple[int, ...]] = {}
    changed: list[dict[str, object]] = []
    tallies: list[dict[str, object]] = []
    for learner, new_state in after.items():
        old_state = before.get(learner, {})
        old, new = contributions(old_state, basis), contributions(new_state, basis)
        _minus(new.questions, old.questions, questions)
        _minus(new.lessons, old.lessons, lessons)
        _minus(new.scores, old.scores, scores)
        gone = [key for key in old_state if key not in new_state]
        if gone:  # only a recount takes attempts away
            connection.execute(
                delete(FIRST).where(
                    FIRST.c.learner_id == learner,
                    tuple_(FIRST.c.lesson_slug, FIRST.c.question_id, FIRST.c.question_hash).in_(
                        gone
                    ),
                )
            )
        changed += [
            {
                "learner_id": learner,
                "lesson_slug": k[0],
                "question_id": k[1],
                "question_hash": k[2],
                "attempt_id": t.attempt_id,
                "created_at": t.created_at,
                "chosen": t.chosen,
                "correct": t.correct,
                "attempts": t.attempts,
                "rights": t.rights,
                "last_at": t.last_at,
            }
            for k, t in sorted(new_state.items())
            if old_state.get(k) != t
        ]
        if new.learner is None:
            connection.execute(delete(LEARNER_TALLY).where(LEARNER_TALLY.c.learner_id == learner))
        elif new.learner != old.learner:
            last_at, score, answers = new.learner
            tallies.append(
                {"learner_id": learner, "last_at": last_at, "score": score, "answers": answers}
            )
    # One statement per table for the whole batch, whatever the number of learners in it.
    if changed:
        connection.execute(upsert(connection, FIRST, FIRST_KEY, FIRST_VALUES, add=False), changed)
    if tallies:
        connection.execute(
            upsert(connection, LEARNER_TALLY, ("learner_id",), LEARNER_VALUES, add=False), tallies
        )
    _add(
        connection,
        QUESTION,
        ("lesson_slug", "question_id", "question_hash"),
        ("attempts", "learners", "first_right"),
        questions,
    )
    _add(
        connection,
        LESSON,
        ("lesson_slug",),
        ("started", "completed"),
        {(slug,): v for slug, v in lessons.items()},
    )
    _add(
        connection,
        SCORE,
        ("lesson_slug", "question_id", "score", "chosen"),
        ("learners", "rights"),
        scores,
    )
    _drop_empty(connection, questions, lessons, scores)


def _drop_empty(
    connection: Connection,
    questions: Mapping[Key, tuple[int, ...]],
    lessons: Mapping[str, tuple[int, ...]],
    scores: Mapping[tuple[str, str, int, str], tuple[int, ...]],
) -> None:
    """Delete counter rows that went back to zero (so a recount finds the same rows).

    Only a table that was decreased can hold one: new answers alone decrease only the
    score buckets a learner left.
    """

    def decreased(deltas: Mapping[K, tuple[int, ...]]) -> bool:
        return any(v < 0 for delta in deltas.values() for v in delta)

    if decreased(questions):
        connection.execute(
            delete(QUESTION).where(QUESTION.c.learners == 0, QUESTION.c.attempts == 0)
        )
    if decreased(scores):
        connection.execute(delete(SCORE).where(SCORE.c.learners == 0))
    if decreased(lessons):
        connection.execute(delete(LESSON).where(LESSON.c.started == 0, LESSON.c.completed == 0))


def _count(condition: ColumnElement[bool]) -> FunctionElement[int]:
    return func.sum(case((condition, 1), else_=0))


def rebuild(db: Session | Connection) -> None:
    """Compute every aggregate again from ``attempt``, in SQL (the caller commits).

    Used by the migration that made the tables, by the benchmark's seed (which inserts
    attempts with plain SQL) and by the tests that check the kept figures. The basis is
    kept; with no basis the score-dependent tables stay empty until :func:`sync_basis`.

    Args:
        db: a session or connection in a write transaction.
    """
    connection = db.connection() if isinstance(db, Session) else db
    if connection.dialect.name == "postgresql":
        connection.execute(text("LOCK TABLE attempt, tally_basis IN EXCLUSIVE MODE"))
    for table in (SCORE, LESSON, LEARNER_TALLY, QUESTION, FIRST):
        connection.execute(delete(table))
    version = (
        ATTEMPT.c.learner_id,
        ATTEMPT.c.lesson_slug,
        ATTEMPT.c.question_id,
        ATTEMPT.c.question_hash,
    )
    ranked = (
        select(
            *version,
            ATTEMPT.c.id,
            ATTEMPT.c.created_at,
            ATTEMPT.c.chosen,
            ATTEMPT.c.correct,
            func.row_number()
            .over(partition_by=version, order_by=first_try_order(ATTEMPT))
            .label("n"),
            func.count().over(partition_by=version).label("attempts"),
            _count(ATTEMPT.c.correct).over(partition_by=version).label("rights"),
            func.max(ATTEMPT.c.created_at).over(partition_by=version).label("last_at"),
        )
        .where(ATTEMPT.c.learner_id.in_(select(LEARNER.c.id)))
        .subquery("ranked")
    )
    columns = [
        "learner_id",
        "lesson_slug",
        "question_id",
        "question_hash",
        "attempt_id",
        "created_at",
        "chosen",
        "correct",
        "attempts",
        "rights",
        "last_at",
    ]
    connection.execute(
        insert(FIRST).from_select(
            columns,
            select(
                ranked.c.learner_id,
                ranked.c.lesson_slug,
                ranked.c.question_id,
                ranked.c.question_hash,
                ranked.c.id,
                ranked.c.created_at,
                ranked.c.chosen,
                ranked.c.correct,
                ranked.c.attempts,
                ranked.c.rights,
                ranked.c.last_at,
            ).where(ranked.c.n == 1),
        )
    )
    connection.execute(
        insert(QUESTION).from_select(
            ["lesson_slug", "question_id", "question_hash", "attempts", "learners", "first_right"],
            select(
                FIRST.c.lesson_slug,
                FIRST.c.question_id,
                FIRST.c.question_hash,
                func.sum(FIRST.c.attempts),
                func.count(),
                _count(FIRST.c.correct),
            ).group_by(FIRST.c.lesson_slug, FIRST.c.question_id, FIRST.c.question_hash),
        )
    )
    connection.execute(
        insert(LEARNER_TALLY).from_select(
            ["learner_id", "last_at", "score", "answers"],
            select(FIRST.c.learner_id, func.max(FIRST.c.last_at), literal(0), literal("")).group_by(
                FIRST.c.learner_id
            ),
        )
    )
    _recount_basis(connection)


def sync_basis(db: Session | Connection, versions: Iterable[Key]) -> bool:
    """Make ``versions`` the basis, recounting the score-dependent tables if it changed.

    Args:
        db: a session or connection; when the basis changes, this writes in its transaction
            (the caller commits; call :func:`app.platform.db.begin_write` first on SQLite).
        versions: every current ``(lesson slug, question id, version)``.

    Returns:
        True when the basis changed (and the tables were recounted).
    """
    connection = db.connection() if isinstance(db, Session) else db
    wanted = frozenset(versions)
    if read_basis(connection).versions == wanted:
        return False
    if connection.dialect.name == "postgresql":
        connection.execute(text("LOCK TABLE tally_basis IN EXCLUSIVE MODE"))
    connection.execute(delete(BASIS))
    if wanted:
        connection.execute(
            insert(BASIS),
            [
                {"lesson_slug": s, "question_id": q, "question_hash": h}
                for s, q, h in sorted(wanted)
            ],
        )
    _recount_basis(connection)
    return True


def _recount_basis(connection: Connection) -> None:
    """Recount ``learner_tally.score`` and ``.answers``, ``lesson_tally`` and ``score_tally``
    in SQL, from ``first_try`` and the basis."""
    for table in (SCORE, LESSON):
        connection.execute(delete(table))
    current = and_(
        FIRST.c.lesson_slug == BASIS.c.lesson_slug,
        FIRST.c.question_id == BASIS.c.question_id,
        FIRST.c.question_hash == BASIS.c.question_hash,
    )
    score = (
        select(func.count())
        .select_from(FIRST.join(BASIS, current))
        .where(FIRST.c.learner_id == LEARNER_TALLY.c.learner_id, FIRST.c.correct)
        .scalar_subquery()
    )
    line = (
        FIRST.c.lesson_slug
        + FIELD
        + FIRST.c.question_id
        + FIELD
        + FIRST.c.chosen
        + FIELD
        + case((FIRST.c.correct, "1"), else_="0")
    )
    answers = (
        select(func.coalesce(func.aggregate_strings(line, LINE), ""))
        .select_from(FIRST.join(BASIS, current))
        .where(FIRST.c.learner_id == LEARNER_TALLY.c.learner_id)
        .scalar_subquery()
    )
    connection.execute(update(LEARNER_TALLY).values(score=score, answers=answers))
    totals = (
        select(BASIS.c.lesson_slug, func.count().label("total"))
        .group_by(BASIS.c.lesson_slug)
        .subquery("totals")
    )
    same_question = and_(
        FIRST.c.lesson_slug == BASIS.c.lesson_slug, FIRST.c.question_id == BASIS.c.question_id
    )
    per_learner = (
        select(
            FIRST.c.lesson_slug,
            func.count(func.distinct(case((FIRST.c.rights > 0, FIRST.c.question_id)))).label(
                "right"
            ),
        )
        .select_from(FIRST.join(BASIS, same_question))
        .group_by(FIRST.c.learner_id, FIRST.c.lesson_slug)
        .subquery("per_learner")
    )
    connection.execute(
        insert(LESSON).from_select(
            ["lesson_slug", "started", "completed"],
            select(
                per_learner.c.lesson_slug,
                func.count(),
                _count(done_sql(per_learner.c.right, totals.c.total)),
            )
            .select_from(
                per_learner.join(totals, totals.c.lesson_slug == per_learner.c.lesson_slug)
            )
            .group_by(per_learner.c.lesson_slug),
        )
    )
    connection.execute(
        insert(SCORE).from_select(
            ["lesson_slug", "question_id", "score", "chosen", "learners", "rights"],
            select(
                FIRST.c.lesson_slug,
                FIRST.c.question_id,
                LEARNER_TALLY.c.score,
                FIRST.c.chosen,
                func.count(),
                _count(FIRST.c.correct),
            )
            .select_from(
                FIRST.join(BASIS, current).join(
                    LEARNER_TALLY, LEARNER_TALLY.c.learner_id == FIRST.c.learner_id
                )
            )
            .group_by(
                FIRST.c.lesson_slug, FIRST.c.question_id, LEARNER_TALLY.c.score, FIRST.c.chosen
            ),
        )
    )
