"""The rules behind every progress and dashboard figure, each written once.

Python code and SQL both read these constants and helpers, so the learner's own
progress, the dashboard, the exports and the kept aggregates (``app/learning/tallies/``)
cannot drift apart:

- **First try**: a learner's first attempt at a question (or at one version of it) is the
  oldest by :data:`FIRST_TRY_ORDER` (time, then id).
- **Done**: a lesson is done when every one of its current questions was answered right
  at least once, in any version (:func:`is_done`, :func:`done_sql`).
- **Help**: what the learner saw before answering, kept on the attempt (``attempt.help``):
  :data:`NO_HELP`, :data:`HINTED` (one hint or more) or :data:`WORKED` (the worked answer).
  A right answer counts whole with no help, :data:`HINT_CREDIT` with a hint and nothing
  after the worked answer (:func:`answer_credit`, :func:`answer_credit_sql`: mastery).
- **Pools**: a ``pool`` block counts as the questions it draws, whichever the learner was
  given: a lesson has its quiz questions plus ``draw`` per pool (:func:`counted_total`), and
  in a pool a learner counts the pool's questions they answered right (or right on the first
  try), up to ``draw`` (:func:`counted`, :func:`capped_sql`). So a new draw ("Outras
  perguntas") never takes back what the learner had, and the SQL side needs no draw.
- **The 27% groups**: the learners who answered a question are ranked by their course
  score (current questions right on the first try), highest first, ties by learner id;
  the top and the bottom :func:`group_size` learners form the upper and lower groups.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, FromClause, and_, case

GROUP_PERCENT = 27
FIRST_TRY_ORDER = ("created_at", "id")  # the attempt columns that say which came first

T = TypeVar("T")

NO_HELP = 0  # answered without opening a hint
HINTED = 1  # answered after one hint or more, short of the worked answer
WORKED = 2  # answered after the worked answer
HINT_CREDIT = 0.5  # what a right answer after a hint counts for in mastery


def help_of(worked: Sequence[bool]) -> int:
    """The help of an answer given after revealing hints whose ``worked`` flags are given."""
    if not worked:
        return NO_HELP
    return WORKED if any(worked) else HINTED


def answer_credit(correct: bool, help: int) -> float:
    """What one answer counts for in mastery: 1 right alone, :data:`HINT_CREDIT` right after a
    hint, 0 wrong or right after the worked answer."""
    if not correct or help == WORKED:
        return 0.0
    return HINT_CREDIT if help == HINTED else 1.0


def answer_credit_sql(
    correct: ColumnElement[Any], help: ColumnElement[Any]
) -> ColumnElement[float]:
    """:func:`answer_credit` as a SQL expression over the attempt's two columns."""
    return case(
        (and_(correct, help == NO_HELP), 1.0),
        (and_(correct, help == HINTED), HINT_CREDIT),
        else_=0.0,
    )


# A lesson's questions as the counts see them: the quiz questions' ids, and per pool how many
# questions it draws and the ids it draws from.
Shape = tuple[Collection[str], Sequence[tuple[int, Collection[str]]]]


def counted_total(fixed: int, draws: Iterable[int]) -> int:
    """The questions a lesson counts: ``fixed`` quiz questions plus each pool's ``draw``."""
    return fixed + sum(draws)


def counted(shape: Shape, hit: Collection[str]) -> int:
    """How many of a lesson's counted questions the ids in ``hit`` (answered right, or right
    on the first try) fill: each quiz question in ``hit`` is one, each pool gives the number
    of its questions in ``hit``, up to its ``draw``."""
    fixed, pools = shape
    hits = set(hit)
    return len(hits.intersection(fixed)) + sum(
        min(draw, len(hits.intersection(ids))) for draw, ids in pools
    )


def capped_sql(count: ColumnElement[int], draw: int | ColumnElement[int]) -> ColumnElement[int]:
    """A pool's share of :func:`counted` as SQL: ``count`` (its questions hit), up to ``draw``."""
    return case((count > draw, draw), else_=count)


def group_size(learners: int) -> int:
    """The size of the top and of the bottom group: 27% of ``learners``, rounded half up.

    Args:
        learners: how many learners answered the question.

    Returns:
        ``k``, never more than half of ``learners`` (the groups never overlap).
    """
    return (learners * GROUP_PERCENT + 50) // 100


def first_try_key(created_at: datetime, attempt_id: int) -> tuple[datetime, int]:
    """The sort key that puts a learner's first try first (see :data:`FIRST_TRY_ORDER`)."""
    return (created_at, attempt_id)


def first_try_order(table: FromClause) -> list[ColumnElement[Any]]:
    """The ``ORDER BY`` columns of :data:`FIRST_TRY_ORDER` for an attempt table or subquery."""
    return [table.c[name] for name in FIRST_TRY_ORDER]


def is_done(right: int, total: int) -> bool:
    """A lesson with ``total`` current questions, ``right`` of them answered right once: done?"""
    return total > 0 and right >= total


def done_sql(right: ColumnElement[int], total: ColumnElement[int]) -> ColumnElement[bool]:
    """:func:`is_done` as a SQL condition over two integer expressions."""
    return and_(total > 0, right >= total)


def ranked(learners: Sequence[tuple[int, str, T]]) -> tuple[list[T], list[T]]:
    """Split the learners who answered a question into the upper and the lower group.

    Args:
        learners: ``(course score, learner id, anything)`` for each learner who answered.

    Returns:
        The ``anything`` of the upper group and of the lower group (:func:`group_size` each),
        ranked by score (highest first), ties by learner id.
    """
    order = sorted(learners, key=lambda row: (-row[0], row[1]))
    k = group_size(len(order))
    if not k:
        return [], []
    return [row[2] for row in order[:k]], [row[2] for row in order[len(order) - k :]]
