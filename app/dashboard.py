"""The instructor dashboard's figures, each one an aggregate computed by the database.

No query returns one row per learner or per attempt: the rows that come back are
bounded by the number of lessons, questions, options and tree results, so the page
costs the same with ten learners or ten thousand. The SQL runs on SQLite (≥ 3.25, for
window functions) and on PostgreSQL. The rules that judge the figures are in
``app/item_analysis.py``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Select, case, func, select, true, tuple_, union_all
from sqlmodel import SQLModel, Session

from app.content.course import Course
from app.item_analysis import ItemStats, OptionCounts
from app.models import Attempt, ClassMember, Learner, Walk

ATTEMPT = SQLModel.metadata.tables[Attempt.__tablename__]
WALK = SQLModel.metadata.tables[Walk.__tablename__]
LEARNER = SQLModel.metadata.tables[Learner.__tablename__]


@dataclass(frozen=True)
class Activity:
    """How many learners did something (answered or finished a walk).

    Attributes:
        total: learners with anything stored.
        last_7_days: learners active in the last 7 days.
        last_30_days: learners active in the last 30 days.
    """

    total: int
    last_7_days: int
    last_30_days: int


@dataclass(frozen=True)
class FunnelStep:
    """One lesson of the completion funnel.

    Attributes:
        slug: the lesson.
        started: learners who answered at least one of its current questions.
        completed: learners who got every current question right at least once.
    """

    slug: str
    started: int
    completed: int


def class_learners(class_id: int):
    """The ids of a class's learners, as a subquery for ``IN``."""
    return select(ClassMember.learner_id).where(ClassMember.class_id == class_id)


def _in_class(learner_column, class_id: int | None):
    """A filter keeping the rows of one class's learners (all rows when ``class_id`` is None)."""
    return true() if class_id is None else learner_column.in_(class_learners(class_id))


def current_versions(course: Course) -> list[tuple[str, str, str]]:
    """``(lesson slug, question id, version)`` of every question as it is now."""
    return [
        (lesson.slug, q.id, q.content_hash)
        for lesson in course.lessons
        for q in lesson.questions.values()
    ]


def activity(db: Session, now: datetime, class_id: int | None = None) -> Activity:
    """Count the learners active in the last 7 and 30 days (one query).

    ``class_id``: only that class's learners.
    """
    events = union_all(
        select(ATTEMPT.c.learner_id, ATTEMPT.c.created_at).where(
            _in_class(ATTEMPT.c.learner_id, class_id)
        ),
        select(WALK.c.learner_id, WALK.c.created_at).where(_in_class(WALK.c.learner_id, class_id)),
    ).subquery("events")

    def since(days: int):
        return func.count(
            func.distinct(
                case((events.c.created_at >= now - timedelta(days=days), events.c.learner_id))
            )
        )

    row = db.exec(select(func.count(func.distinct(events.c.learner_id)), since(7), since(30))).one()
    return Activity(*row)


def funnel(db: Session, course: Course, class_id: int | None = None) -> list[FunnelStep]:
    """Per lesson, in course order: learners who started it and learners who completed it.

    Completion follows the learner's own rule: every current question answered right at
    least once, in any version (one query). ``class_id``: only that class's learners.
    """
    totals = {lesson.slug: len(lesson.questions) for lesson in course.lessons if lesson.questions}
    if not totals:
        return []
    ids = [(slug, qid) for slug, qid, _ in current_versions(course)]
    per_learner = (
        select(
            ATTEMPT.c.lesson_slug,
            func.count(func.distinct(case((ATTEMPT.c.correct, ATTEMPT.c.question_id)))).label(
                "right"
            ),
        )
        .where(tuple_(ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id).in_(ids))
        .where(_in_class(ATTEMPT.c.learner_id, class_id))
        .group_by(ATTEMPT.c.learner_id, ATTEMPT.c.lesson_slug)
        .subquery("per_learner")
    )
    total = case(totals, value=per_learner.c.lesson_slug, else_=0)
    rows = db.exec(
        select(
            per_learner.c.lesson_slug,
            func.count(),
            func.sum(case((per_learner.c.right >= total, 1), else_=0)),
        ).group_by(per_learner.c.lesson_slug)
    )
    found = {slug: (started, completed or 0) for slug, started, completed in rows}
    return [FunnelStep(slug, *found.get(slug, (0, 0))) for slug in totals]


def first_tries(versions: list[tuple[str, str, str]], class_id: int | None = None):
    """A subquery: each learner's first attempt at each question's current version, with the
    learner's course score (how many current questions they got right on the first try).

    "First" is the oldest (by time, then id), as in the learner's own progress. The score
    is a window over the same rows, so no join is needed (the plan stays a few sorts).
    ``class_id``: only that class's learners.
    """
    order = func.row_number().over(
        partition_by=(ATTEMPT.c.learner_id, ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id),
        order_by=(ATTEMPT.c.created_at, ATTEMPT.c.id),
    )
    current = tuple_(ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id, ATTEMPT.c.question_hash)
    tries = (
        select(
            ATTEMPT.c.learner_id,
            ATTEMPT.c.lesson_slug,
            ATTEMPT.c.question_id,
            ATTEMPT.c.chosen,
            ATTEMPT.c.correct,
            order.label("try_number"),
        )
        .where(current.in_(versions))
        .where(_in_class(ATTEMPT.c.learner_id, class_id))
        .subquery("tries")
    )
    score = func.sum(case((tries.c.correct, 1), else_=0)).over(partition_by=tries.c.learner_id)
    return (
        select(
            tries.c.learner_id,
            tries.c.lesson_slug,
            tries.c.question_id,
            tries.c.chosen,
            tries.c.correct,
            score.label("score"),
        )
        .where(tries.c.try_number == 1)
        .subquery("first_try")
    )


def _grouped_first_tries(
    versions: list[tuple[str, str, str]], class_id: int | None = None
) -> Select:
    """First tries counted by question, chosen options and group (top, middle, bottom 27%)."""
    first = first_tries(versions, class_id)
    question = (first.c.lesson_slug, first.c.question_id)
    rank = func.row_number().over(
        partition_by=question, order_by=(first.c.score.desc(), first.c.learner_id)
    )
    ranked = select(
        first.c.lesson_slug,
        first.c.question_id,
        first.c.chosen,
        first.c.correct,
        rank.label("position"),
        func.count().over(partition_by=question).label("learners"),
    ).subquery("ranked")
    k = (ranked.c.learners * 27 + 50) // 100  # app.item_analysis.group_size, in SQL
    group = case(
        (ranked.c.position <= k, "upper"),
        (ranked.c.position > ranked.c.learners - k, "lower"),
        else_="middle",
    )
    return select(
        ranked.c.lesson_slug,
        ranked.c.question_id,
        ranked.c.chosen,
        group.label("grp"),
        func.count(),
        func.sum(case((ranked.c.correct, 1), else_=0)),
    ).group_by(ranked.c.lesson_slug, ranked.c.question_id, ranked.c.chosen, group)


def item_stats(
    db: Session, course: Course, class_id: int | None = None
) -> dict[tuple[str, str], ItemStats]:
    """Every current question's item analysis, by ``(lesson slug, question id)`` (two queries).

    ``class_id``: only that class's learners (the top and bottom groups are then the class's).

    Returns:
        The figures of each question; a question nobody answered has zeros.
    """
    versions = current_versions(course)
    if not versions:
        return {}
    totals = db.exec(
        select(ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id, func.count())
        .where(
            tuple_(ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id, ATTEMPT.c.question_hash).in_(
                versions
            )
        )
        .where(_in_class(ATTEMPT.c.learner_id, class_id))
        .group_by(ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id)
    )
    attempts = {(slug, qid): count for slug, qid, count in totals}
    cells: dict[tuple[str, str], list[tuple[str, str, int, int]]] = defaultdict(list)
    for slug, qid, chosen, grp, count, right in db.exec(_grouped_first_tries(versions, class_id)):
        cells[(slug, qid)].append((chosen, grp, count, right or 0))
    out = {}
    for lesson in course.lessons:
        for question in lesson.questions.values():
            key = (lesson.slug, question.id)
            out[key] = _fold(
                attempts.get(key, 0), cells.get(key, []), question.options, question.answer
            )
    return out


def _fold(attempts: int, cells, options, answer: frozenset[str]) -> ItemStats:
    """Add up one question's aggregated cells (a handful of rows, not one per learner)."""
    learners = sum(count for _, _, count, _ in cells)
    by_group: dict[str, int] = defaultdict(int)
    chosen_by: dict[tuple[str, str], int] = defaultdict(int)
    for chosen, grp, count, right in cells:
        by_group[grp] += right
        for option_id in filter(None, chosen.split(",")):
            chosen_by[(option_id, grp)] += count
    counts = tuple(
        OptionCounts(
            o.id,
            o.id in answer,
            sum(chosen_by[(o.id, g)] for g in ("upper", "middle", "lower")),
            chosen_by[(o.id, "upper")],
            chosen_by[(o.id, "lower")],
        )
        for o in options
    )
    first_right = sum(by_group.values())
    return ItemStats(attempts, learners, first_right, by_group["upper"], by_group["lower"], counts)


def tree_walks(db: Session, class_id: int | None = None) -> dict[str, dict[str, int]]:
    """Finished walks: tree id → result id → how many (one query).

    ``class_id``: only the walks of that class's learners.
    """
    rows = db.exec(
        select(WALK.c.tree_id, WALK.c.result_id, func.count())
        .where(_in_class(WALK.c.learner_id, class_id))
        .group_by(WALK.c.tree_id, WALK.c.result_id)
    )
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for tree_id, result_id, count in rows:
        out[tree_id][result_id] = count
    return dict(out)
