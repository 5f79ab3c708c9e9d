"""Mastery per concept: how well a learner answers the questions tagged with a glossary term.

The rule, in one place (:data:`LAST_N`, :data:`DECAY`, :func:`mastery_per_learner`): over
the learner's last ``LAST_N`` answers to the questions tagged with the concept (lesson and
review answers alike, any version of a current question), the share right, each answer
weighing ``DECAY`` times the one after it, so the latest counts most. A right answer counts
by :func:`app.learning.rules.answer_credit`: whole alone, partly after a hint, not at all
after the worked answer.

The figures are kept per learner × concept in ``kept_mastery`` as answers are written:
:func:`record_in_mastery` folds a batch of new attempts in, in the caller's transaction,
with a fixed number of statements whatever the batch's size, and adds the change to the
concept's sums over learners in ``mastery_tally``. ``/progresso`` reads one learner's rows,
the instructor dashboard the sums (a class: the mean of its learners' rows), without
ranking the attempt table. The tags the rows were counted with are kept in ``mastery_tag``;
when the course's tags differ (a question tagged, untagged, added or removed), the rows are
computed again from ``attempt`` by the rule in SQL (:func:`sync_mastery`, run by the
dashboard as :func:`app.learning.tallies.rebuild.sync_basis` is). Deleting or moving attempts
recounts their learners (:func:`recount_mastery`). The SQL of the rule
(:func:`reference_learner_mastery`, :func:`reference_course_mastery`) stays the reference the
tests compare the kept figures with.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    FromClause,
    String,
    Subquery,
    and_,
    case,
    delete,
    func,
    insert,
    literal,
    select,
    true,
    union_all,
)
from sqlmodel import Session

from app.content.course import Course
from app.content.glossary import Term
from app.content.lessons import Lesson
from app.content.quiz import Question
from app.learning.classes import in_class
from app.learning.rules import answer_credit, answer_credit_sql
from app.learning.tallies.fold import LearnerAnswer, utc
from app.platform.db import Plain, Upsert, begin_write, driver_list
from app.platform.models import ATTEMPT, KEPT_MASTERY, MASTERY_TAG, MASTERY_TALLY

LAST_N = 10
DECAY = 0.8
WEIGHTS = tuple(DECAY**i for i in range(LAST_N))  # newest answer first

UNITS = 10**12  # ``mastery_tally.units`` per whole mastery

# (lesson slug, question id) → the concepts it is tagged with (glossary terms only).
Tags = Mapping[tuple[str, str], tuple[str, ...]]
# one answer of ``kept_mastery.recent``: time, attempt id, credit (1 right, 0 wrong, between:
# right with a hint; see app.learning.rules.answer_credit)
Entry = tuple[str, int, float]
FIELD, LINE = "\t", "\n"


@dataclass(frozen=True)
class Concept:
    """A glossary term that some questions test.

    Attributes:
        term: the glossary term (its ``slug`` is the tag and the glossary anchor).
        questions: the lessons and questions tagged with it, in course order.
    """

    term: Term
    questions: tuple[tuple[Lesson, Question], ...]


@dataclass(frozen=True)
class ConceptMastery:
    """One concept's mastery.

    Attributes:
        mastery: 0 to 1 by :data:`the rule <app.learning.mastery>`, ``None`` with no answers yet.
        answers: answers counted (at most :data:`LAST_N`; on the dashboard, over learners).
        learners: learners with answers (the dashboard; 1 or 0 for one learner).
    """

    concept: Concept
    mastery: float | None
    answers: int
    learners: int = 0

    @property
    def percent(self) -> int | None:
        """Mastery as a whole percentage, or ``None``."""
        return None if self.mastery is None else round(self.mastery * 100)


def concepts(course: Course) -> list[Concept]:
    """The glossary terms that at least one question tests, in glossary order."""
    tagged: dict[str, list[tuple[Lesson, Question]]] = {}
    for lesson in course.lessons:
        for question in lesson.questions.values():
            for tag in dict.fromkeys(question.concepts):
                tagged.setdefault(tag, []).append((lesson, question))
    return [
        Concept(term, tuple(tagged[term.slug]))
        for term in course.glossary.terms
        if term.slug in tagged
    ]


_TAGS: dict[int, tuple[Course, dict[tuple[str, str], tuple[str, ...]]]] = {}


def concept_tags(course: Course) -> Tags:
    """Which concepts each current question counts for (computed once per course object)."""
    hit = _TAGS.get(id(course))
    if hit is not None and hit[0] is course:
        return hit[1]
    out: dict[tuple[str, str], tuple[str, ...]] = defaultdict(tuple)
    for concept in concepts(course):
        for lesson, question in concept.questions:
            out[(lesson.slug, question.id)] += (concept.term.slug,)
    tags = dict(out)
    if len(_TAGS) >= 8:  # courses replaced by a reload; keep the table small
        _TAGS.clear()
    _TAGS[id(course)] = (course, tags)
    return tags


def _tag_rows(tags: Tags) -> set[tuple[str, str, str]]:
    return {(slug, qid, concept) for (slug, qid), found in tags.items() for concept in found}


def _tags(found: list[Concept]) -> Subquery:
    """``(lesson_slug, question_id, concept)`` of every tag, as a subquery of literal rows."""
    rows = [
        select(
            literal(lesson.slug, String).label("lesson_slug"),
            literal(question.id, String).label("question_id"),
            literal(concept.term.slug, String).label("concept"),
        )
        for concept in found
        for lesson, question in concept.questions
    ]
    return union_all(*rows).subquery("tags")


def _ranked(tags: FromClause, where: ColumnElement[bool] | None, hints: bool = True) -> Subquery:
    """Every tagged attempt with its rank among the learner's answers on the concept
    (1 for the newest) and its credit (``hints``: see :func:`rebuild_mastery`)."""
    credit = (
        answer_credit_sql(ATTEMPT.c.correct, ATTEMPT.c.help)
        if hints
        else case((ATTEMPT.c.correct, 1.0), else_=0.0)
    )
    return (
        select(
            ATTEMPT.c.learner_id,
            tags.c.concept,
            ATTEMPT.c.id,
            ATTEMPT.c.created_at,
            ATTEMPT.c.correct,
            credit.label("credit"),
            func.row_number()
            .over(
                partition_by=(ATTEMPT.c.learner_id, tags.c.concept),
                order_by=(ATTEMPT.c.created_at.desc(), ATTEMPT.c.id.desc()),
            )
            .label("rank"),
        )
        .join(
            tags,
            and_(
                tags.c.lesson_slug == ATTEMPT.c.lesson_slug,
                tags.c.question_id == ATTEMPT.c.question_id,
            ),
        )
        .where(true() if where is None else where)
        .subquery("ranked")
    )


def mastery_per_learner(found: list[Concept], where: ColumnElement[bool] | None = None) -> Subquery:
    """The rule as SQL: one row per learner × concept with ``mastery`` and ``answers``.

    Args:
        found: the concepts (see :func:`concepts`); must not be empty.
        where: a filter on the ``attempt`` table (one learner, one class).
    """
    ranked = _ranked(_tags(found), where)
    weight = case(*[(ranked.c.rank == n, w) for n, w in enumerate(WEIGHTS, start=1)], else_=0.0)
    right = ranked.c.credit
    return (
        select(
            ranked.c.learner_id,
            ranked.c.concept,
            (func.sum(weight * right) / func.sum(weight)).label("mastery"),
            func.count().label("answers"),
        )
        .where(ranked.c.rank <= LAST_N)
        .group_by(ranked.c.learner_id, ranked.c.concept)
        .subquery("per_learner")
    )


def reference_learner_mastery(db: Session, course: Course, learner_id: str) -> list[ConceptMastery]:
    """:func:`learner_mastery` computed from ``attempt`` by the rule in SQL (the reference)."""
    found = concepts(course)
    if not found:
        return []
    per = mastery_per_learner(found, ATTEMPT.c.learner_id == learner_id)
    rows = {
        concept: (mastery, answers)
        for concept, mastery, answers in db.execute(
            select(per.c.concept, per.c.mastery, per.c.answers)
        )
    }
    return _one_learner(found, rows)


def reference_course_mastery(
    db: Session, course: Course, class_id: int | None = None
) -> list[ConceptMastery]:
    """:func:`course_mastery` computed from ``attempt`` by the rule in SQL (the reference)."""
    found = concepts(course)
    if not found:
        return []
    per = mastery_per_learner(found, in_class(ATTEMPT.c.learner_id, class_id))
    rows = db.execute(
        select(
            per.c.concept, func.avg(per.c.mastery), func.sum(per.c.answers), func.count()
        ).group_by(per.c.concept)
    )
    return _over_learners(found, rows)


def _one_learner(
    found: list[Concept], rows: Mapping[str, tuple[float, int]]
) -> list[ConceptMastery]:
    out = []
    for c in found:
        mastery, answers = rows.get(c.term.slug) or (None, 0)
        out.append(ConceptMastery(c, mastery, answers, learners=int(c.term.slug in rows)))
    return out


def _over_learners(found: list[Concept], rows: Iterable[Any]) -> list[ConceptMastery]:
    """Concepts in glossary order from ``(concept, mean, answers, learners)`` rows."""
    by_concept = {concept: (mean, answers, learners) for concept, mean, answers, learners in rows}
    out = []
    for c in found:
        mean, answers, learners = by_concept.get(c.term.slug) or (None, 0, 0)
        out.append(ConceptMastery(c, None if mean is None else float(mean), int(answers), learners))
    return out


def in_sync(db: Session | Connection, tags: Tags) -> bool:
    """Whether ``kept_mastery`` was counted with ``tags`` (one query)."""
    connection = db.connection() if isinstance(db, Session) else db
    stored = connection.execute(
        select(MASTERY_TAG.c.lesson_slug, MASTERY_TAG.c.question_id, MASTERY_TAG.c.concept)
    )
    return {tuple(row) for row in stored} == _tag_rows(tags)


def learner_mastery(db: Session, course: Course, learner_id: str) -> list[ConceptMastery]:
    """Every concept's mastery for one learner, in glossary order, read from ``kept_mastery``
    (two queries; computed by the reference SQL, without writing, while the kept rows wait
    for a recount after the course's tags changed)."""
    found = concepts(course)
    if not found:
        return []
    if not in_sync(db, concept_tags(course)):
        return reference_learner_mastery(db, course, learner_id)
    rows = {
        concept: (mastery, answers)
        for concept, mastery, answers in db.execute(
            select(KEPT_MASTERY.c.concept, KEPT_MASTERY.c.mastery, KEPT_MASTERY.c.answers).where(
                KEPT_MASTERY.c.learner_id == learner_id
            )
        )
    }
    return _one_learner(found, rows)


def no_mastery(course: Course) -> list[ConceptMastery]:
    """Every concept with no answer yet (a visitor's page; no query)."""
    return [ConceptMastery(c, None, 0, learners=0) for c in concepts(course)]


def course_mastery(
    db: Session, course: Course, class_id: int | None = None
) -> list[ConceptMastery]:
    """Every concept's mean mastery over the learners who answered its questions (one query
    after :func:`prepare_mastery`): every learner's from ``mastery_tally``, a row per concept;
    ``class_id``: only that class's learners, averaged over their ``kept_mastery`` rows.

    May commit ``db`` (when the tags changed).
    """
    found = concepts(course)
    if not found:
        return []
    prepare_mastery(db, course)
    if class_id is None:
        tallied = db.execute(
            select(
                MASTERY_TALLY.c.concept,
                MASTERY_TALLY.c.units,
                MASTERY_TALLY.c.answers,
                MASTERY_TALLY.c.learners,
            ).where(MASTERY_TALLY.c.learners > 0)
        )
        rows: Iterable[Any] = [
            (concept, units / UNITS / learners, answers, learners)
            for concept, units, answers, learners in tallied
        ]
    else:
        rows = db.execute(
            select(
                KEPT_MASTERY.c.concept,
                func.avg(KEPT_MASTERY.c.mastery),
                func.sum(KEPT_MASTERY.c.answers),
                func.count(),
            )
            .where(in_class(KEPT_MASTERY.c.learner_id, class_id))
            .group_by(KEPT_MASTERY.c.concept)
        )
    return _over_learners(found, rows)


def prepare_mastery(db: Session, course: Course) -> None:
    """Make the course's tags the kept mastery's (committed); cheap when nothing changed,
    else every row is computed again once (:func:`sync_mastery`)."""
    tags = concept_tags(course)
    if in_sync(db, tags):
        return
    begin_write(db)
    sync_mastery(db, tags)
    db.commit()


def sync_mastery(db: Session | Connection, tags: Tags) -> bool:
    """Recount ``kept_mastery`` from ``attempt`` with ``tags`` if they are not the ones it
    was counted with, in the caller's transaction (on SQLite, in a write transaction).

    Returns:
        True when the tags changed (and every row was computed again).
    """
    if in_sync(db, tags):
        return False
    rebuild_mastery(db, tags)
    return True


def rebuild_mastery(db: Session | Connection, tags: Tags, hints: bool = True) -> None:
    """Compute every ``kept_mastery`` row again from ``attempt`` with ``tags``, which become
    the kept tags (the caller commits). The last answers are ranked in SQL as the reference
    does; the rows are written by the same code as :func:`record_in_mastery`'s.

    Args:
        hints: False in migration 0014, whose ``attempt`` table has no ``help`` column yet
            (no answer had a hint then).
    """
    connection = db.connection() if isinstance(db, Session) else db
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(
            "LOCK TABLE mastery_tag, kept_mastery, mastery_tally IN EXCLUSIVE MODE"
        )
    connection.execute(delete(MASTERY_TAG))
    rows = sorted(_tag_rows(tags))
    if rows:
        connection.execute(
            insert(MASTERY_TAG),
            [{"lesson_slug": s, "question_id": q, "concept": c} for s, q, c in rows],
        )
    connection.execute(delete(KEPT_MASTERY))
    connection.execute(delete(MASTERY_TALLY))
    sums = _recount(connection, None, hints)
    if sums:
        connection.execute(
            insert(MASTERY_TALLY),
            [
                {"concept": c, "learners": n, "answers": a, "units": u}
                for c, (n, a, u) in sorted(sums.items())
            ],
        )


def recount_mastery(db: Session | Connection, learner_ids: Iterable[str]) -> None:
    """Compute the learners' ``kept_mastery`` rows again from their attempts as stored now,
    with the kept tags, inside the caller's transaction.

    Call it after deleting or moving attempts (a learner with none left has no row).
    """
    connection = db.connection() if isinstance(db, Session) else db
    ids = sorted(set(learner_ids))
    if not ids:
        return
    old = connection.execute(
        select(KEPT_MASTERY.c.concept, KEPT_MASTERY.c.mastery, KEPT_MASTERY.c.answers).where(
            KEPT_MASTERY.c.learner_id.in_(ids)
        )
    ).all()
    connection.execute(delete(KEPT_MASTERY).where(KEPT_MASTERY.c.learner_id.in_(ids)))
    sums = _recount(connection, ids)
    for concept, mastery, answers in old:
        _count_in(sums, concept, -1, -answers, -units_of(mastery))
    _add_to_tally(connection, sums)


Sums = dict[str, tuple[int, int, int]]  # concept → learners, answers, units


def units_of(mastery: float) -> int:
    """A learner's mastery as ``mastery_tally`` adds it up."""
    return round(mastery * UNITS)


def _count_in(sums: Sums, concept: str, learners: int, answers: int, units: int) -> None:
    n, a, u = sums.get(concept, (0, 0, 0))
    sums[concept] = (n + learners, a + answers, u + units)


_ADD = Upsert("mastery_tally", ("concept",), ("learners", "answers", "units"), add=True)


def _add_to_tally(connection: Connection, sums: Sums) -> None:
    """Add ``sums`` to ``mastery_tally`` (one upsert), then drop the concepts left with no
    learner (only when some went down), so that a rebuild finds the same rows."""
    rows = [
        {"concept": c, "learners": n, "answers": a, "units": u}
        for c, (n, a, u) in sorted(sums.items())
        if n or a or u
    ]
    if not rows:
        return
    _ADD.run(connection, rows)
    if any(learners < 0 for learners, _, _ in sums.values()):
        connection.execute(delete(MASTERY_TALLY).where(MASTERY_TALLY.c.learners <= 0))


def _recount(connection: Connection, learner_ids: Sequence[str] | None, hints: bool = True) -> Sums:
    """Insert the rows of ``learner_ids`` (every learner for ``None``) from their last
    answers, ranked in SQL with the kept tags; return what they add to each concept's sums
    (``hints``: see :func:`rebuild_mastery`)."""
    ranked = _ranked(
        MASTERY_TAG, None if learner_ids is None else ATTEMPT.c.learner_id.in_(learner_ids), hints
    )
    query = (
        select(
            ranked.c.learner_id,
            ranked.c.concept,
            ranked.c.created_at,
            ranked.c.id,
            ranked.c.credit,
        )
        .where(ranked.c.rank <= LAST_N)
        .order_by(ranked.c.learner_id, ranked.c.concept, ranked.c.rank)
    )
    batch: list[dict[str, Any]] = []
    sums: Sums = {}
    pair: tuple[str, str] | None = None
    entries: list[Entry] = []

    def done() -> None:
        if pair is not None:
            row = _row(pair, entries)
            batch.append(row)
            _count_in(sums, row["concept"], 1, row["answers"], units_of(row["mastery"]))

    for learner_id, concept, created_at, attempt_id, credit in connection.execute(query):
        if (learner_id, concept) != pair:
            done()
            pair, entries = (learner_id, concept), []
            if len(batch) >= 5000:
                connection.execute(insert(KEPT_MASTERY), batch)
                batch = []
        entries.append((_stamp(created_at), attempt_id, float(credit)))
    done()
    if batch:
        connection.execute(insert(KEPT_MASTERY), batch)
    return sums


def _stamp(moment: datetime) -> str:
    """A time as ``recent`` keeps it: UTC, microseconds, so that text order is time order."""
    return utc(moment).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


def _row(pair: tuple[str, str], entries: Sequence[Entry]) -> dict[str, Any]:
    """The ``kept_mastery`` row of a learner × concept from its last answers, newest first."""
    weights = WEIGHTS[: len(entries)]
    right = sum(w * credit for w, (_, _, credit) in zip(weights, entries, strict=True))
    return {
        "learner_id": pair[0],
        "concept": pair[1],
        "recent": LINE.join(f"{at}{FIELD}{aid}{FIELD}{_credit_text(c)}" for at, aid, c in entries),
        "mastery": right / sum(weights),
        "answers": len(entries),
    }


def _credit_text(credit: float) -> str:
    """``1`` and ``0`` as before hints existed; a partial credit as its decimal (``0.5``)."""
    return str(int(credit)) if credit in (0.0, 1.0) else repr(credit)


def _entries(recent: str) -> list[Entry]:
    out = []
    for line in filter(None, recent.split(LINE)):
        at, aid, credit = line.split(FIELD)
        out.append((at, int(aid), float(credit)))
    return out


# The kept rows of the batch's learner × concept pairs; on PostgreSQL it also locks the
# learners' rows, so two writers of one learner take turns.
_KEPT_OF = Plain(
    """SELECT learner.id, kept_mastery.concept, kept_mastery.recent, kept_mastery.mastery
    FROM learner LEFT OUTER JOIN kept_mastery ON kept_mastery.learner_id = learner.id
    AND kept_mastery.concept IN (SELECT value FROM json_each(?))
    WHERE learner.id IN (SELECT value FROM json_each(?)) ORDER BY learner.id""",
    """SELECT learner.id, kept_mastery.concept, kept_mastery.recent, kept_mastery.mastery
    FROM learner LEFT OUTER JOIN kept_mastery ON kept_mastery.learner_id = learner.id
    AND kept_mastery.concept = ANY(?)
    WHERE learner.id = ANY(?) ORDER BY learner.id FOR UPDATE OF learner""",
)
_KEPT = Upsert(
    "kept_mastery", ("learner_id", "concept"), ("recent", "mastery", "answers"), add=False
)


def record_in_mastery(
    db: Session | Connection, tags: Tags, attempts: Sequence[LearnerAnswer]
) -> None:
    """Fold newly stored attempts into ``kept_mastery``, inside the caller's transaction.

    Three statements whatever the batch's size (none when no attempt is tagged): one reads
    the rows of the batch's learner × concept pairs (on PostgreSQL it also locks the
    learners' rows, so two writers of one learner take turns), one upserts them, one adds
    the change to ``mastery_tally``. Attempts may come in
    any order, older than the kept ones included; each must be new (deleting or moving
    attempts is :func:`recount_mastery`'s).

    Args:
        db: the session (or connection) that inserted the attempts, in its write transaction.
        tags: the course's tags (:func:`concept_tags`); an attempt at a question not in it
            counts for nothing.
        attempts: the new attempts, with ``id`` set; their learners' rows exist.
    """
    new: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for a in attempts:
        found = tags.get((a.lesson_slug, a.question_id))
        if not found:
            continue
        assert a.id is not None  # a stored attempt
        entry = (_stamp(a.created_at), a.id, answer_credit(a.correct, getattr(a, "help", 0)))
        for concept in found:
            new[(a.learner_id, concept)].append(entry)
    if not new:
        return
    connection = db.connection() if isinstance(db, Session) else db
    learners = sorted({learner for learner, _ in new})
    concepts = sorted({concept for _, concept in new})
    kept = {
        (learner, concept): (recent, mastery)
        for learner, concept, recent, mastery in _KEPT_OF.rows(
            connection, [driver_list(connection, concepts), driver_list(connection, learners)]
        )
        if concept is not None
    }
    rows = []
    sums: Sums = {}
    for pair, entries in sorted(new.items()):
        before = kept.get(pair)
        merged = {e[:2]: e for e in _entries(before[0] if before else "")}
        merged.update({e[:2]: e for e in entries})  # an attempt folded twice counts once
        last = sorted(merged.values(), key=lambda e: (e[0], e[1]), reverse=True)[:LAST_N]
        row = _row(pair, last)
        rows.append(row)
        if before is None:
            _count_in(sums, pair[1], 1, row["answers"], units_of(row["mastery"]))
        else:
            old = len(_entries(before[0])), units_of(before[1])
            _count_in(sums, pair[1], 0, row["answers"] - old[0], units_of(row["mastery"]) - old[1])
    _KEPT.run(connection, rows)
    _add_to_tally(connection, sums)
