"""Mastery per learner × concept, kept as answers are written (``app/learning/mastery.py``)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from app.platform.models.base import table


class KeptMastery(SQLModel, table=True):
    """One learner's mastery of one concept, kept as answers are written.

    See ``app/learning/mastery.py`` for the rule and how the rows are kept.

    Attributes:
        concept: the glossary term's slug.
        recent: the last :data:`~app.learning.mastery.LAST_N` answers counted, newest first,
            one line each: time (UTC, ``YYYY-MM-DD HH:MM:SS.ffffff``), attempt id and its
            credit (``1`` right, ``0`` wrong, ``0.5`` right after a hint:
            :func:`app.learning.rules.answer_credit`), separated by tabs.
        mastery: 0 to 1, by the rule, over ``recent``.
        answers: how many lines ``recent`` holds.
    """

    __tablename__ = "kept_mastery"

    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    concept: str = Field(primary_key=True, max_length=100)
    recent: str = Field(sa_type=sa.Text)
    mastery: float
    answers: int


class MasteryTally(SQLModel, table=True):
    """One concept's mastery summed over learners, kept with :class:`KeptMastery`.

    Attributes:
        learners: learners with a ``kept_mastery`` row for the concept.
        answers: the sum of their ``answers``.
        units: the sum of their mastery in millionths of millionths (each learner's
            ``round(mastery × 10¹²)``; whole numbers, so adding and taking away never drifts).
    """

    __tablename__ = "mastery_tally"

    concept: str = Field(primary_key=True, max_length=100)
    learners: int
    answers: int
    units: int = Field(sa_type=sa.BigInteger)


class MasteryTag(SQLModel, table=True):
    """A concept tag of a current question, as :class:`KeptMastery` counts it.

    When the course's tags differ, the kept mastery is computed again from ``attempt``.
    """

    __tablename__ = "mastery_tag"

    lesson_slug: str = Field(primary_key=True, max_length=100)
    question_id: str = Field(primary_key=True, max_length=100)
    concept: str = Field(primary_key=True, max_length=100)


# The Core tables, for SQLAlchemy Core statements (inserts, upserts, joins).
KEPT_MASTERY = table(KeptMastery)
MASTERY_TALLY = table(MasteryTally)
MASTERY_TAG = table(MasteryTag)
