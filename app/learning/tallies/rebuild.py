"""The tallies computed again in SQL: everything from ``attempt`` (:func:`rebuild`), or the
score-dependent tables from ``first_try`` when the course's question versions change
(:func:`sync_basis`). The caller commits."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import (
    ColumnElement,
    Connection,
    FunctionElement,
    and_,
    case,
    delete,
    func,
    insert,
    literal,
    select,
    text,
    update,
)
from sqlmodel import Session

from app.learning.rules import capped_sql, done_sql, first_try_order
from app.learning.tallies.codec import aggregate_lines, answer_line
from app.learning.tallies.fold import Basis, PoolKey, VersionKey
from app.learning.tallies.write import FIRST_KEY, FIRST_VALUES, read_basis
from app.platform.models import (
    ATTEMPT,
    FIRST_TRY,
    LEARNER,
    LEARNER_TALLY,
    LESSON_TALLY,
    QUESTION_TALLY,
    SCORE_TALLY,
    TALLY_BASIS,
)

# A first try at the version the basis counts as current.
_AT_BASIS = and_(
    FIRST_TRY.c.lesson_slug == TALLY_BASIS.c.lesson_slug,
    FIRST_TRY.c.question_id == TALLY_BASIS.c.question_id,
    FIRST_TRY.c.question_hash == TALLY_BASIS.c.question_hash,
)


def _count(condition: ColumnElement[bool]) -> FunctionElement[int]:
    return func.sum(case((condition, 1), else_=0))


def rebuild(db: Session | Connection) -> None:
    """Compute every tally again from ``attempt``, in a write transaction.

    Used by the migration that made the tables, by the benchmark's seed (which inserts
    attempts with plain SQL), by a lesson rename and by the tests that check the kept
    figures. The basis is kept; with no basis the score-dependent tables stay empty until
    :func:`sync_basis`.
    """
    connection = db.connection() if isinstance(db, Session) else db
    if connection.dialect.name == "postgresql":
        connection.execute(text("LOCK TABLE attempt, tally_basis IN EXCLUSIVE MODE"))
    for table in (SCORE_TALLY, LESSON_TALLY, LEARNER_TALLY, QUESTION_TALLY, FIRST_TRY):
        connection.execute(delete(table))
    version = [ATTEMPT.c[name] for name in FIRST_KEY]
    ranked = (
        select(
            *version,
            ATTEMPT.c.id.label("attempt_id"),
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
    columns = FIRST_KEY + FIRST_VALUES
    connection.execute(
        insert(FIRST_TRY).from_select(
            columns, select(*(ranked.c[c] for c in columns)).where(ranked.c.n == 1)
        )
    )
    connection.execute(
        insert(QUESTION_TALLY).from_select(
            ["lesson_slug", "question_id", "question_hash", "attempts", "learners", "first_right"],
            select(
                FIRST_TRY.c.lesson_slug,
                FIRST_TRY.c.question_id,
                FIRST_TRY.c.question_hash,
                func.sum(FIRST_TRY.c.attempts),
                func.count(),
                _count(FIRST_TRY.c.correct),
            ).group_by(FIRST_TRY.c.lesson_slug, FIRST_TRY.c.question_id, FIRST_TRY.c.question_hash),
        )
    )
    connection.execute(
        insert(LEARNER_TALLY).from_select(
            ["learner_id", "last_at", "score", "answers"],
            select(
                FIRST_TRY.c.learner_id, func.max(FIRST_TRY.c.last_at), literal(0), literal("")
            ).group_by(FIRST_TRY.c.learner_id),
        )
    )
    _recount_basis(connection)


def sync_basis(
    db: Session | Connection, versions: Iterable[VersionKey], pools: Iterable[PoolKey] = ()
) -> bool:
    """Make ``versions`` (every current ``(lesson slug, question id, version)``) the basis,
    with ``pools`` (each pool's question, its pool and draw), recounting the score-dependent
    tables if it changed.

    When it changes, this writes in the transaction of ``db`` (the caller commits; call
    :func:`app.platform.db.begin_write` first on SQLite).

    Returns:
        True when the basis changed (and the tables were recounted).
    """
    connection = db.connection() if isinstance(db, Session) else db
    wanted = frozenset(versions)
    pooled = frozenset(pools)
    if read_basis(connection) == Basis(wanted, pooled):
        return False
    pool_of = {(slug, qid): (pool, draw) for slug, qid, pool, draw in pooled}
    if connection.dialect.name == "postgresql":
        connection.execute(text("LOCK TABLE tally_basis IN EXCLUSIVE MODE"))
    connection.execute(delete(TALLY_BASIS))
    if wanted:
        connection.execute(
            insert(TALLY_BASIS),
            [
                {
                    "lesson_slug": s,
                    "question_id": q,
                    "question_hash": h,
                    "pool_id": pool_of.get((s, q), ("", 0))[0],
                    "draw": pool_of.get((s, q), ("", 0))[1],
                }
                for s, q, h in sorted(wanted)
            ],
        )
    _recount_basis(connection)
    return True


def _recount_basis(connection: Connection) -> None:
    """Recount what depends on the basis from ``first_try``: ``learner_tally.score`` and
    ``.answers`` first (the score buckets read the scores), then ``lesson_tally`` and
    ``score_tally``."""
    for table in (SCORE_TALLY, LESSON_TALLY):
        connection.execute(delete(table))
    _recount_learner_scores(connection)
    _recount_lessons(connection)
    _recount_score_buckets(connection)


def _recount_learner_scores(connection: Connection) -> None:
    """``learner_tally.score`` and ``.answers``: each learner's right first tries at the basis
    versions, and those first tries as text."""
    at_basis = FIRST_TRY.join(TALLY_BASIS, _AT_BASIS)
    mine = FIRST_TRY.c.learner_id == LEARNER_TALLY.c.learner_id
    score = (
        select(func.count())
        .select_from(at_basis)
        .where(mine, FIRST_TRY.c.correct)
        .scalar_subquery()
    )
    answers = (
        select(aggregate_lines(answer_line(FIRST_TRY)))
        .select_from(at_basis)
        .where(mine)
        .scalar_subquery()
    )
    connection.execute(update(LEARNER_TALLY).values(score=score, answers=answers))


def _recount_lessons(connection: Connection) -> None:
    """``lesson_tally``: per lesson, learners who answered a current question (any version),
    and of them those done by :func:`app.learning.rules.done_sql`, a pool counting as its
    draw. With no basis, no lesson has a current question: nothing to count (so the migration
    that made these tables, 0008, never reads the basis's later columns)."""
    b = TALLY_BASIS.c
    if connection.execute(select(b.lesson_slug).limit(1)).first() is None:
        return
    # A quiz question counts 1; a pool, its draw (app.learning.rules.counted_total).
    weights = (
        select(
            b.lesson_slug,
            case((b.pool_id == "", func.count()), else_=func.max(b.draw)).label("weight"),
        )
        .group_by(b.lesson_slug, b.pool_id)
        .subquery("weights")
    )
    totals = (
        select(weights.c.lesson_slug, func.sum(weights.c.weight).label("total"))
        .group_by(weights.c.lesson_slug)
        .subquery("totals")
    )
    same_question = and_(
        FIRST_TRY.c.lesson_slug == b.lesson_slug,
        FIRST_TRY.c.question_id == b.question_id,
    )
    right_in = func.count(func.distinct(case((FIRST_TRY.c.rights > 0, FIRST_TRY.c.question_id))))
    per_pool = (
        select(
            FIRST_TRY.c.learner_id,
            FIRST_TRY.c.lesson_slug,
            case((b.pool_id == "", right_in), else_=capped_sql(right_in, func.max(b.draw))).label(
                "right"
            ),
        )
        .select_from(FIRST_TRY.join(TALLY_BASIS, same_question))
        .group_by(FIRST_TRY.c.learner_id, FIRST_TRY.c.lesson_slug, b.pool_id)
        .subquery("per_pool")
    )
    per_learner = (
        select(per_pool.c.lesson_slug, func.sum(per_pool.c.right).label("right"))
        .group_by(per_pool.c.learner_id, per_pool.c.lesson_slug)
        .subquery("per_learner")
    )
    connection.execute(
        insert(LESSON_TALLY).from_select(
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


def _recount_score_buckets(connection: Connection) -> None:
    """``score_tally``: first tries at the basis versions by question, learner's score (as
    :func:`_recount_learner_scores` left it) and answer."""
    connection.execute(
        insert(SCORE_TALLY).from_select(
            ["lesson_slug", "question_id", "score", "chosen", "learners", "rights"],
            select(
                FIRST_TRY.c.lesson_slug,
                FIRST_TRY.c.question_id,
                LEARNER_TALLY.c.score,
                FIRST_TRY.c.chosen,
                func.count(),
                _count(FIRST_TRY.c.correct),
            )
            .select_from(
                FIRST_TRY.join(TALLY_BASIS, _AT_BASIS).join(
                    LEARNER_TALLY, LEARNER_TALLY.c.learner_id == FIRST_TRY.c.learner_id
                )
            )
            .group_by(
                FIRST_TRY.c.lesson_slug,
                FIRST_TRY.c.question_id,
                LEARNER_TALLY.c.score,
                FIRST_TRY.c.chosen,
            ),
        )
    )
