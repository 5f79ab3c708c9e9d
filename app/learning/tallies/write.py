"""The tallies' incremental writes, in the caller's transaction: new answers add the change
of their learners' contributions (:func:`record_in_tallies`); deleted or moved attempts
recount their learners (:func:`recount_learners`). Also the reads they start from: the
basis and the learners' stored states."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import Connection, Table, delete, select, text, tuple_
from sqlmodel import Session

from app.learning.tallies.fold import (
    AttemptLike,
    Basis,
    CounterKey,
    LearnerAnswer,
    QuestionHistory,
    State,
    VersionKey,
    add_difference,
    contributions,
    fold,
)
from app.platform.db import Plain, Upsert, driver_list, stored_time
from app.platform.models import (
    ATTEMPT,
    FIRST_TRY,
    LEARNER_TALLY,
    LESSON_TALLY,
    QUESTION_TALLY,
    SCORE_TALLY,
)

RowKey = TypeVar("RowKey", bound=tuple[Any, ...])  # a counter's key, as a tuple of its columns
FIRST_KEY = ("learner_id", "lesson_slug", "question_id", "question_hash")
FIRST_VALUES = ("attempt_id", "created_at", "chosen", "correct", "attempts", "rights", "last_at")
LEARNER_VALUES = ("last_at", "score", "answers")
_FIRST_TRIES = Upsert("first_try", FIRST_KEY, FIRST_VALUES, add=False)
_LEARNER_TALLIES = Upsert("learner_tally", ("learner_id",), LEARNER_VALUES, add=False)
_ADDS: dict[str, Upsert] = {}  # the counters' upserts, by table


_BASIS = Plain("SELECT lesson_slug, question_id, question_hash, pool_id, draw FROM tally_basis")
_STORED = Plain(
    """SELECT learner_id, lesson_slug, question_id, question_hash, attempt_id, created_at, chosen,
    correct, attempts, rights, last_at FROM first_try
    WHERE learner_id IN (SELECT value FROM json_each(?))""",
    """SELECT learner_id, lesson_slug, question_id, question_hash, attempt_id, created_at, chosen,
    correct, attempts, rights, last_at FROM first_try WHERE learner_id = ANY(?)""",
)
# PostgreSQL: writers of the same learners take turns (rows locked in id order).
_LOCK_LEARNERS = Plain("SELECT id FROM learner WHERE id = ANY(?) ORDER BY id FOR UPDATE")


def read_basis(connection: Connection) -> Basis:
    """The versions the score-dependent counters count as current."""
    rows = _BASIS.rows(connection, ())
    return Basis(
        frozenset((slug, qid, version) for slug, qid, version, _, _ in rows),
        frozenset((slug, qid, pool, draw) for slug, qid, _, pool, draw in rows if pool),
    )


def stored_states(connection: Connection, learner_ids: Sequence[str]) -> dict[str, State]:
    """The learners' states as stored in ``first_try`` (a learner with none is left out)."""
    out: dict[str, State] = defaultdict(dict)
    if not learner_ids:
        return out
    for r in _STORED.rows(connection, [driver_list(connection, learner_ids)]):
        out[r.learner_id][(r.lesson_slug, r.question_id, r.question_hash)] = QuestionHistory(
            r.attempt_id,
            stored_time(r.created_at),
            r.chosen,
            bool(r.correct),
            r.attempts,
            r.rights,
            stored_time(r.last_at),
        )
    return out


def record_in_tallies(db: Session | Connection, attempts: Sequence[LearnerAnswer]) -> None:
    """Count newly inserted, stored attempts in every tally, inside the caller's write
    transaction (nothing is committed here).

    Call it once per write, with every attempt that write inserted (a batch writer passes
    its whole batch).
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
    """Recount learners from their attempts as stored now, inside the caller's write
    transaction.

    Call it after deleting or moving attempts (and before deleting a learner row, whose
    ``first_try`` rows go with it): their old share of every counter is taken away and the
    new one added.
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
    mine: dict[str, list[AttemptLike]] = defaultdict(list)
    for a in attempts:
        mine[a.learner_id].append(a)
    after = {learner: fold({}, mine[learner]) for learner in ids}
    _write(connection, basis, before, after)


def _lock(connection: Connection, learner_ids: Sequence[str]) -> Basis:
    """Serialise writers of the same learners and read the basis (PostgreSQL; SQLite
    transactions that write already run one at a time)."""
    if connection.dialect.name == "postgresql":
        _LOCK_LEARNERS.rows(connection, [list(learner_ids)])
        connection.execute(text("LOCK TABLE tally_basis IN ROW SHARE MODE"))
    return read_basis(connection)


def _write(
    connection: Connection, basis: Basis, before: Mapping[str, State], after: Mapping[str, State]
) -> None:
    """Store the learners' new states and add the change of their contributions."""
    questions: dict[VersionKey, tuple[int, ...]] = {}
    lessons: dict[str, tuple[int, ...]] = {}
    scores: dict[tuple[str, str, int, str], tuple[int, ...]] = {}
    changed: list[dict[str, object]] = []
    tallies: list[dict[str, object]] = []
    for learner, new_state in after.items():
        old_state = before.get(learner, {})
        old, new = contributions(old_state, basis), contributions(new_state, basis)
        add_difference(new.questions, old.questions, questions)
        add_difference(new.lessons, old.lessons, lessons)
        add_difference(new.scores, old.scores, scores)
        gone = [key for key in old_state if key not in new_state]
        if gone:  # only a recount takes attempts away
            connection.execute(
                delete(FIRST_TRY).where(
                    FIRST_TRY.c.learner_id == learner,
                    tuple_(
                        FIRST_TRY.c.lesson_slug, FIRST_TRY.c.question_id, FIRST_TRY.c.question_hash
                    ).in_(gone),
                )
            )
        changed += [
            dict(
                zip(
                    FIRST_KEY + FIRST_VALUES,
                    (
                        learner,
                        *k,
                        t.attempt_id,
                        t.created_at,
                        t.chosen,
                        t.correct,
                        t.attempts,
                        t.rights,
                        t.last_at,
                    ),
                    strict=True,
                )
            )
            for k, t in sorted(new_state.items())
            if old_state.get(k) != t
        ]
        if new.learner is None:
            connection.execute(delete(LEARNER_TALLY).where(LEARNER_TALLY.c.learner_id == learner))
        elif new.learner != old.learner:
            tallies.append(
                dict(zip(("learner_id", *LEARNER_VALUES), (learner, *new.learner), strict=True))
            )
    # One statement per table for the whole batch, whatever the number of learners in it.
    _FIRST_TRIES.run(connection, changed)
    _LEARNER_TALLIES.run(connection, tallies)
    _add(
        connection,
        QUESTION_TALLY,
        ("lesson_slug", "question_id", "question_hash"),
        ("attempts", "learners", "first_right"),
        questions,
    )
    _add(
        connection,
        LESSON_TALLY,
        ("lesson_slug",),
        ("started", "completed"),
        {(slug,): v for slug, v in lessons.items()},
    )
    _add(
        connection,
        SCORE_TALLY,
        ("lesson_slug", "question_id", "score", "chosen"),
        ("learners", "rights"),
        scores,
    )
    _drop_empty(connection, questions, lessons, scores)


def _add(
    connection: Connection,
    table: Table,
    keys: Sequence[str],
    values: Sequence[str],
    deltas: Mapping[RowKey, tuple[int, ...]],
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
    plain = _ADDS.get(table.name)
    if plain is None:
        plain = _ADDS[table.name] = Upsert(table.name, keys, values, add=True)
    plain.run(connection, rows)


def _drop_empty(
    connection: Connection,
    questions: Mapping[VersionKey, tuple[int, ...]],
    lessons: Mapping[str, tuple[int, ...]],
    scores: Mapping[tuple[str, str, int, str], tuple[int, ...]],
) -> None:
    """Delete counter rows that went back to zero (so a recount finds the same rows).

    Only a table that was decreased can hold one: new answers alone decrease only the
    score buckets a learner left.
    """

    def decreased(deltas: Mapping[CounterKey, tuple[int, ...]]) -> bool:
        return any(v < 0 for delta in deltas.values() for v in delta)

    if decreased(questions):
        connection.execute(
            delete(QUESTION_TALLY).where(
                QUESTION_TALLY.c.learners == 0, QUESTION_TALLY.c.attempts == 0
            )
        )
    if decreased(scores):
        connection.execute(delete(SCORE_TALLY).where(SCORE_TALLY.c.learners == 0))
    if decreased(lessons):
        connection.execute(
            delete(LESSON_TALLY).where(LESSON_TALLY.c.started == 0, LESSON_TALLY.c.completed == 0)
        )
