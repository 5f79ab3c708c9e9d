"""Mastery per concept: how well a learner answers the questions tagged with a glossary term.

The rule, in one place (:data:`LAST_N`, :data:`DECAY`, :func:`mastery_per_learner`): over
the learner's last ``LAST_N`` answers to the questions tagged with the concept (lesson and
review answers alike, any version of a current question), the share right, each answer
weighing ``DECAY`` times the one after it, so the latest counts most. The same SQL gives
one learner's figures (``/progresso``) and the course's (the instructor dashboard: the mean
over learners, computed by the database, bounded by the number of concepts).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import (
    ColumnElement,
    String,
    Subquery,
    and_,
    case,
    func,
    literal,
    select,
    true,
    union_all,
)
from sqlmodel import Session, SQLModel

from app.content.course import Course
from app.content.glossary import Term
from app.content.lessons import Lesson
from app.content.quiz import Question
from app.learning.classes import in_class
from app.platform.models import Attempt

LAST_N = 10
DECAY = 0.8
WEIGHTS = tuple(DECAY**i for i in range(LAST_N))  # newest answer first

ATTEMPT = SQLModel.metadata.tables[Attempt.__tablename__]


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
        concept: the concept.
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


def mastery_per_learner(found: list[Concept], where: ColumnElement[bool] | None = None) -> Subquery:
    """The rule as SQL: one row per learner × concept with ``mastery`` and ``answers``.

    Args:
        found: the concepts (see :func:`concepts`); must not be empty.
        where: a filter on the ``attempt`` table (one learner, one class).
    """
    tags = _tags(found)
    ranked = (
        select(
            ATTEMPT.c.learner_id,
            tags.c.concept,
            ATTEMPT.c.correct,
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
    weight = case(*[(ranked.c.rank == n, w) for n, w in enumerate(WEIGHTS, start=1)], else_=0.0)
    right = case((ranked.c.correct, 1.0), else_=0.0)
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


def learner_mastery(db: Session, course: Course, learner_id: str) -> list[ConceptMastery]:
    """Every concept's mastery for one learner (one query), in glossary order."""
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
    out = []
    for c in found:
        mastery, answers = rows.get(c.term.slug) or (None, 0)
        out.append(ConceptMastery(c, mastery, answers, learners=int(c.term.slug in rows)))
    return out


def no_mastery(course: Course) -> list[ConceptMastery]:
    """Every concept with no answer yet (a visitor's page; no query)."""
    return [ConceptMastery(c, None, 0, learners=0) for c in concepts(course)]


def course_mastery(
    db: Session, course: Course, class_id: int | None = None
) -> list[ConceptMastery]:
    """Every concept's mean mastery over the learners who answered its questions (one query).

    ``class_id``: only that class's learners.
    """
    found = concepts(course)
    if not found:
        return []
    per = mastery_per_learner(found, in_class(ATTEMPT.c.learner_id, class_id))
    rows = {
        concept: (mean, answers, learners)
        for concept, mean, answers, learners in db.execute(
            select(
                per.c.concept, func.avg(per.c.mastery), func.sum(per.c.answers), func.count()
            ).group_by(per.c.concept)
        )
    }
    out = []
    for c in found:
        mean, answers, learners = rows.get(c.term.slug) or (None, 0, 0)
        out.append(ConceptMastery(c, None if mean is None else float(mean), int(answers), learners))
    return out
