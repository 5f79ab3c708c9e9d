"""The instructor dashboard's figures, read from the tallies kept as answers are written.

For every learner the figures come from the tallies' counters (``app/learning/tallies/``):
the rows read are bounded by the number of lessons, questions, scores and answers, plus at
most the two 27% groups' boundary learners of each question, so the page costs about the
same with ten learners or ten thousand. A class's figures come from its learners'
``first_try`` rows, judged in Python by the same rules (:func:`python_funnel`,
:func:`python_items`). The rules are in ``app/learning/rules.py``; the judgement of the
figures in ``app/analytics/item_analysis.py``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import Subquery, and_, case, func, select, tuple_, union_all
from sqlmodel import Session

from app.analytics.item_analysis import ItemStats, OptionCounts, VariantFacility
from app.content.course import Course
from app.content.variants import encode
from app.learning.classes import class_learners, in_class
from app.learning.progress import lesson_shape
from app.learning.rules import NO_HELP, counted, counted_total, group_size, is_done, ranked
from app.learning.tallies.codec import count_answers, join_answers
from app.learning.tallies.fold import Basis, QuestionHistory, State, course_score
from app.learning.tallies.rebuild import sync_basis
from app.learning.tallies.write import read_basis, stored_states
from app.platform.db import begin_write
from app.platform.models import (
    ATTEMPT,
    LEARNER_TALLY,
    LESSON_TALLY,
    QUESTION_TALLY,
    SCORE_TALLY,
    WALK,
)


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
        started: learners who answered at least one of its current questions.
        completed: learners who got every current question right at least once.
    """

    slug: str
    started: int
    completed: int


def current_versions(course: Course) -> list[tuple[str, str, str]]:
    """``(lesson slug, question id, version)`` of every question as it is now."""
    return [
        (lesson.slug, q.id, q.content_hash)
        for lesson in course.lessons
        for q in lesson.questions.values()
    ]


def current_pools(course: Course) -> list[tuple[str, str, str, int]]:
    """``(lesson slug, question id, pool id, draw)`` of every pool's question (its first
    pool): a pool counts as its draw in completion (:func:`app.learning.rules.counted`)."""
    found: dict[tuple[str, str], tuple[str, str, str, int]] = {}
    for lesson in course.lessons:
        for pool in lesson.pools.values():
            for qid in pool.candidates:
                found.setdefault((lesson.slug, qid), (lesson.slug, qid, pool.id, pool.draw))
    return list(found.values())


def sync_tally_basis(db: Session, course: Course) -> None:
    """Make the course's current question versions the tallies' basis (committed).

    Cheap when nothing changed; after a question is edited, added or removed, the
    score-dependent counters are recounted once
    (:func:`app.learning.tallies.rebuild.sync_basis`).
    """
    versions, pools = current_versions(course), current_pools(course)
    if Basis(frozenset(versions), frozenset(pools)) == read_basis(db.connection()):
        return
    begin_write(db)
    sync_basis(db, versions, pools)
    db.commit()


def activity(db: Session, now: datetime, class_id: int | None = None) -> Activity:
    """Count the learners active in the last 7 and 30 days (one query over the learners'
    latest attempt, kept in ``learner_tally``, and their walks).

    ``class_id``: only that class's learners.
    """
    events = union_all(
        select(LEARNER_TALLY.c.learner_id, LEARNER_TALLY.c.last_at.label("created_at")).where(
            in_class(LEARNER_TALLY.c.learner_id, class_id)
        ),
        select(WALK.c.learner_id, WALK.c.created_at).where(in_class(WALK.c.learner_id, class_id)),
    ).subquery("events")

    latest = (
        select(func.max(events.c.created_at).label("at"))
        .group_by(events.c.learner_id)
        .subquery("latest")
    )

    def since(days: int):
        recent = case((latest.c.at >= now - timedelta(days=days), 1), else_=0)
        return func.coalesce(func.sum(recent), 0)

    row = db.execute(select(func.count(), since(7), since(30))).one()
    return Activity(*row)


def funnel(db: Session, course: Course, class_id: int | None = None) -> list[FunnelStep]:
    """Per lesson, in course order: learners who started it and learners who completed it.

    Completion follows the learner's own rule (:func:`app.learning.rules.is_done`). Every learner:
    read from ``lesson_tally`` (after :func:`sync_tally_basis`); ``class_id``: only that class's
    learners, judged in Python from their ``first_try`` rows.
    """
    if class_id is not None:
        return python_funnel(class_states(db, class_id), course)
    sync_tally_basis(db, course)
    found = {
        slug: (started, completed)
        for slug, started, completed in db.execute(
            select(LESSON_TALLY.c.lesson_slug, LESSON_TALLY.c.started, LESSON_TALLY.c.completed)
        )
    }
    return [
        FunnelStep(lesson.slug, *found.get(lesson.slug, (0, 0)))
        for lesson in course.lessons
        if lesson.questions
    ]


def class_states(db: Session, class_id: int) -> dict[str, State]:
    """The ``first_try`` states of a class's learners (a learner with no answer is left out)."""
    ids = [row[0] for row in db.execute(class_learners(class_id))]
    return stored_states(db.connection(), ids)


def python_funnel(states: Mapping[str, State], course: Course) -> list[FunnelStep]:
    """The funnel judged in Python from learners' states (the rules of ``app/learning/rules.py``).

    Args:
        states: learner id → state (see :func:`app.learning.tallies.fold.fold`).

    Returns:
        One step per lesson with questions, in course order.
    """
    out = []
    for lesson in course.lessons:
        if not lesson.questions:
            continue
        ids = set(lesson.questions)
        fixed, pools = lesson_shape(lesson)
        total = counted_total(len(fixed), (draw for draw, _ in pools))
        started = completed = 0
        for state in states.values():
            if not any(slug == lesson.slug and qid in ids for slug, qid, _ in state):
                continue
            started += 1
            right = {
                qid
                for (slug, qid, _), t in state.items()
                if slug == lesson.slug and qid in ids and t.rights
            }
            completed += is_done(counted((fixed, pools), right), total)
        out.append(FunnelStep(lesson.slug, started, completed))
    return out


def python_items(states: Mapping[str, State], course: Course) -> dict[tuple[str, str], ItemStats]:
    """Every current question's item analysis judged in Python from learners' states.

    Args:
        states: learner id → state.

    Returns:
        The figures by ``(lesson slug, question id)``; zeros for a question nobody answered.
    """
    basis = Basis(frozenset(current_versions(course)))
    scores = {learner: course_score(state, basis) for learner, state in states.items()}
    out = {}
    for lesson in course.lessons:
        for question in lesson.questions.values():
            key = (lesson.slug, question.id, question.content_hash)
            answered = [(scores[lr], lr, st[key]) for lr, st in states.items() if key in st]
            upper, lower = ranked(answered)
            every = [t for _, _, t in answered]
            out[(lesson.slug, question.id)] = _stats(
                sum(t.attempts for t in every),
                _cells(every),
                _cells(upper),
                _cells(lower),
                question,
            )
    return out


def _cells(tries: list[QuestionHistory]) -> list[tuple[str, int, int]]:
    """First tries as ``(chosen, learners, rights)`` cells, one learner each."""
    return [(t.chosen, 1, int(t.correct)) for t in tries]


def _stats(attempts: int, every, upper, lower, question) -> ItemStats:
    """One question's figures from ``(chosen, learners, rights)`` cells of all learners and
    of the two groups."""

    def chose(cells, option_id: str) -> int:
        return sum(n for chosen, n, _ in cells if option_id in chosen.split(","))

    counts = tuple(
        OptionCounts(
            o.id,
            o.id in question.answer,
            chose(every, o.id),
            chose(upper, o.id),
            chose(lower, o.id),
        )
        for o in question.options
    )
    return ItemStats(
        attempts,
        sum(n for _, n, _ in every),
        sum(r for _, _, r in every),
        sum(r for _, _, r in upper),
        sum(r for _, _, r in lower),
        counts,
    )


def item_stats(
    db: Session, course: Course, class_id: int | None = None
) -> dict[tuple[str, str], ItemStats]:
    """Every current question's item analysis, by ``(lesson slug, question id)``.

    Every learner: from ``question_tally`` and ``score_tally`` (after
    :func:`sync_tally_basis`), plus the ``learner_tally`` rows of the learners whose score is
    cut by the edge of a 27% group (one query; they are taken by learner id). ``class_id``:
    only that class's learners (the groups are then the class's), judged in Python.

    Returns:
        The figures of each question; a question nobody answered has zeros. Hint use comes
        from the attempts themselves (:func:`_helped`).
    """
    if class_id is not None:
        items = python_items(class_states(db, class_id), course)
        hinted = _hinted_counts(db, current_versions(course), class_id)
        items = {key: replace(stats, hinted=hinted.get(key, 0)) for key, stats in items.items()}
        return with_variants(db, course, items, class_id)
    versions = current_versions(course)
    if not versions:
        return {}
    sync_tally_basis(db, course)
    attempts, hinted = _attempt_counts(db, versions)
    buckets = _score_buckets(db)
    plans = {}
    for lesson in course.lessons:
        for question in lesson.questions.values():
            key = (lesson.slug, question.id)
            by_score = buckets.get(key, {})
            k = group_size(sum(n for cells in by_score.values() for _, n, _ in cells))
            plans[key] = (by_score, _plan(by_score, k, top=True), _plan(by_score, k, top=False))
    edges = {edge[0] for _, *groups in plans.values() for _, edge in groups if edge}
    edge_cells = _edge_answers(db, edges)
    out = {}
    for lesson in course.lessons:
        for question in lesson.questions.values():
            key = (lesson.slug, question.id)
            by_score, (upper, upper_edge), (lower, lower_edge) = plans[key]
            every = [cell for cells in by_score.values() for cell in cells]
            out[key] = replace(
                _stats(
                    attempts.get(key, 0),
                    every,
                    upper + edge_cells(key, upper_edge, True),
                    lower + edge_cells(key, lower_edge, False),
                    question,
                ),
                hinted=hinted.get(key, 0),
            )
    return with_variants(db, course, out)


def with_variants(
    db: Session,
    course: Course,
    items: dict[tuple[str, str], ItemStats],
    class_id: int | None = None,
) -> dict[tuple[str, str], ItemStats]:
    """``items`` with each variant's facility for the numeric questions with ``params``: the
    attempts at their current version grouped by the variant stored with them (one query,
    only when the course has such questions)."""
    varied = {
        (lesson.slug, question.id): question
        for lesson in course.lessons
        for question in lesson.questions.values()
        if question.variants is not None
    }
    if not varied:
        return items
    a = ATTEMPT.c
    versions = [(slug, qid, q.content_hash) for (slug, qid), q in varied.items()]
    found: dict[tuple[str, str], dict[str, tuple[int, int]]] = defaultdict(dict)
    for slug, qid, variant, n, right in db.execute(
        select(
            a.lesson_slug,
            a.question_id,
            a.variant,
            func.count(),
            func.sum(case((a.correct, 1), else_=0)),
        )
        .where(
            tuple_(a.lesson_slug, a.question_id, a.question_hash).in_(versions),
            a.variant != "",
            in_class(a.learner_id, class_id),
        )
        .group_by(a.lesson_slug, a.question_id, a.variant)
    ):
        found[(slug, qid)][variant] = (n, int(right or 0))
    out = dict(items)
    for key, question in varied.items():
        variants = question.variants
        assert variants is not None
        rows = []
        for point in variants.grid:
            params = dict(zip(variants.names, point, strict=True))
            n, right = found[key].get(encode(params), (0, 0))
            if n:
                rows.append(VariantFacility(tuple(params.items()), n, right))
        out[key] = replace(out[key], variants=tuple(rows))
    return out


# (question, edge ``(score, how many)`` or None, top group?) → the edge's cells.
EdgeCells = Callable[[tuple[str, str], tuple[int, int] | None, bool], list]


def _helped(versions: list[tuple[str, str, str]], class_id: int | None = None) -> Subquery:
    """Attempts at each question's current version given after a hint (``attempt.help``),
    counted in SQL; the partial index ``ix_attempt_helped`` holds only those attempts."""
    a = ATTEMPT.c
    return (
        select(a.lesson_slug, a.question_id, a.question_hash, func.count().label("hinted"))
        .where(
            a.help != NO_HELP,
            tuple_(a.lesson_slug, a.question_id, a.question_hash).in_(versions),
            in_class(a.learner_id, class_id),
        )
        .group_by(a.lesson_slug, a.question_id, a.question_hash)
        .subquery("helped")
    )


def _hinted_counts(
    db: Session, versions: list[tuple[str, str, str]], class_id: int
) -> dict[tuple[str, str], int]:
    """:func:`_helped` for one class, by question."""
    if not versions:
        return {}
    h = _helped(versions, class_id).c
    rows = db.execute(select(h.lesson_slug, h.question_id, h.hinted))
    return {(slug, qid): n for slug, qid, n in rows}


def _attempt_counts(
    db: Session, versions: list[tuple[str, str, str]]
) -> tuple[dict[tuple[str, str], int], dict[tuple[str, str], int]]:
    """Attempts at each question's current version (``question_tally``), and those of them
    given after a hint (:func:`_helped`), in one query."""
    q = QUESTION_TALLY.c
    h = _helped(versions)
    attempts, hinted = {}, {}
    for slug, qid, n, helped in db.execute(
        select(q.lesson_slug, q.question_id, q.attempts, func.coalesce(h.c.hinted, 0))
        .select_from(
            QUESTION_TALLY.outerjoin(
                h,
                and_(
                    h.c.lesson_slug == q.lesson_slug,
                    h.c.question_id == q.question_id,
                    h.c.question_hash == q.question_hash,
                ),
            )
        )
        .where(tuple_(q.lesson_slug, q.question_id, q.question_hash).in_(versions))
    ):
        attempts[(slug, qid)] = n
        hinted[(slug, qid)] = helped
    return attempts, hinted


def _score_buckets(db: Session) -> dict[tuple[str, str], dict[int, list]]:
    """``score_tally`` as question → learners' score → ``(chosen, learners, rights)`` cells."""
    t = SCORE_TALLY.c
    buckets: dict[tuple[str, str], dict[int, list]] = defaultdict(lambda: defaultdict(list))
    for slug, qid, score, chosen, learners, rights in db.execute(
        select(t.lesson_slug, t.question_id, t.score, t.chosen, t.learners, t.rights).where(
            t.learners > 0
        )
    ):
        buckets[(slug, qid)][score].append((chosen, learners, rights))
    return buckets


def _edge_answers(db: Session, edges: set[int]) -> EdgeCells:
    """Read the answers of the learners whose score is an edge of a group (one query, in
    learner id order), and return how to count a question's cells on one edge.

    The returned function takes the question, the edge ``(score, how many)`` or ``None``, and
    whether the group is the top one: the first learners by id (the last, for the bottom) of
    that score, counted as ``(chosen, learners, rights)`` cells.
    """
    on_edge: dict[int, list[str]] = defaultdict(list)
    if edges:
        for score, answers in db.execute(
            select(LEARNER_TALLY.c.score, LEARNER_TALLY.c.answers)
            .where(LEARNER_TALLY.c.score.in_(sorted(edges)))
            .order_by(LEARNER_TALLY.c.learner_id)
        ):
            on_edge[score].append(answers)
    joined = {score: join_answers(rows) for score, rows in on_edge.items()}

    def edge_cells(key: tuple[str, str], edge: tuple[int, int] | None, top: bool) -> list:
        if edge is None:
            return []
        score, wanted = edge
        counted = count_answers(joined[score], key, wanted, top)
        return [(chosen, n, n * int(right)) for (chosen, right), n in counted.items()]

    return edge_cells


def _plan(by_score: dict[int, list], k: int, top: bool) -> tuple[list, tuple[int, int] | None]:
    """The upper (``top``) or lower group of ``k`` learners, cut from the score buckets.

    Returns:
        The cells of the whole buckets in the group, and the edge: ``(score, how many)`` of
        the bucket the group's edge cuts (``None`` when it cuts none). Those learners are
        taken by id, ascending for the top and descending for the bottom: the ranking's
        tie-break (see :func:`app.learning.rules.ranked`).
    """
    cells: list = []
    taken = 0
    for score in sorted(by_score, reverse=top):
        if taken >= k:
            break
        size = sum(n for _, n, _ in by_score[score])
        if taken + size <= k:
            cells.extend(by_score[score])
            taken += size
            continue
        return cells, (score, k - taken)
    return cells, None


def tree_walks(db: Session, class_id: int | None = None) -> dict[str, dict[str, int]]:
    """Finished walks: tree id → result id → how many (one query).

    ``class_id``: only the walks of that class's learners.
    """
    rows = db.execute(
        select(WALK.c.tree_id, WALK.c.result_id, func.count())
        .where(in_class(WALK.c.learner_id, class_id))
        .group_by(WALK.c.tree_id, WALK.c.result_id)
    )
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for tree_id, result_id, count in rows:
        out[tree_id][result_id] = count
    return dict(out)
