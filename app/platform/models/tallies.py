"""The dashboard's counters, kept as each answer is written (``app/learning/tallies/``),
and the dashboard's cache of figures computed from them."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, Index, SQLModel, UniqueConstraint

from app.platform.models.base import table


class FirstTry(SQLModel, table=True):
    """A learner's history on one question version: the first attempt and the counts since.

    One row per learner × lesson × question × version, kept as each answer is written
    (see ``app/learning/tallies/``). "First" follows
    :data:`app.learning.rules.FIRST_TRY_ORDER`.

    Attributes:
        attempt_id: the first attempt's id.
        created_at: the first attempt's time, UTC.
        chosen / correct: the first attempt's answer and grade.
        attempts: every attempt at this version.
        rights: attempts at this version that were right.
        last_at: the latest attempt's time, UTC.
    """

    __tablename__ = "first_try"

    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    lesson_slug: str = Field(primary_key=True, max_length=100)
    question_id: str = Field(primary_key=True, max_length=100)
    question_hash: str = Field(primary_key=True, max_length=64)
    attempt_id: int
    created_at: datetime
    chosen: str = Field(max_length=1000)
    correct: bool
    attempts: int
    rights: int
    last_at: datetime


class QuestionTally(SQLModel, table=True):
    """Counters of one question version over every learner.

    Attributes:
        attempts: every attempt (retries included).
        learners: learners who answered it (one first try each).
        first_right: first tries that were right.
    """

    __tablename__ = "question_tally"

    lesson_slug: str = Field(primary_key=True, max_length=100)
    question_id: str = Field(primary_key=True, max_length=100)
    question_hash: str = Field(primary_key=True, max_length=64)
    attempts: int
    learners: int
    first_right: int


class TallyBasis(SQLModel, table=True):
    """The question versions the score-dependent counters count as current (one per question).

    When the course's versions differ, those counters are recounted from ``first_try``.
    """

    __tablename__ = "tally_basis"

    lesson_slug: str = Field(primary_key=True, max_length=100)
    question_id: str = Field(primary_key=True, max_length=100)
    question_hash: str = Field(max_length=64)
    # a pool's question: the pool that draws it and how many it draws (else "" and 0)
    pool_id: str = Field(default="", max_length=100, sa_column_kwargs={"server_default": ""})
    draw: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class LearnerTally(SQLModel, table=True):
    """One learner's figures for the dashboard.

    Attributes:
        last_at: the learner's latest attempt, UTC.
        score: first tries right at the basis versions (the course score that ranks learners).
        answers: the first tries at the basis versions, one line each, ``slug``, ``question
            id``, ``chosen`` and ``1``/``0`` (right or not) separated by tabs, in no set
            order (:mod:`app.learning.tallies.codec`); read for the learners on the edge of
            a 27% group.
    """

    __tablename__ = "learner_tally"
    __table_args__ = (Index("ix_learner_tally_score", "score", "learner_id"),)

    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    last_at: datetime
    score: int
    answers: str = Field(default="", sa_type=sa.Text)


class LessonTally(SQLModel, table=True):
    """One lesson's completion counters over the basis versions.

    Attributes:
        started: learners who answered at least one of its questions.
        completed: learners who got every one of its questions right at least once.
    """

    __tablename__ = "lesson_tally"

    lesson_slug: str = Field(primary_key=True, max_length=100)
    started: int
    completed: int


class ScoreTally(SQLModel, table=True):
    """First tries at a basis version, counted by the learners' course score and answer.

    Attributes:
        score: the learners' course score.
        chosen: the first try's answer (option ids, comma-separated).
        learners: learners with that score whose first try was ``chosen``.
        rights: of them, first tries that were right.
    """

    __tablename__ = "score_tally"
    __table_args__ = (
        UniqueConstraint("lesson_slug", "question_id", "score", "chosen", name="uq_score_tally"),
    )

    id: int | None = Field(default=None, primary_key=True)
    lesson_slug: str = Field(max_length=100)
    question_id: str = Field(max_length=100)
    score: int
    chosen: str = Field(max_length=1000)
    learners: int
    rights: int


class ReportCache(SQLModel, table=True):
    """Figures computed from every attempt, kept for a while.

    See ``app/analytics/dashboard_cache.py``.

    Attributes:
        key: what was computed and for which version of the course's questions.
        computed_at: when, UTC.
        payload: the figures as JSON.
    """

    __tablename__ = "report_cache"

    key: str = Field(primary_key=True, max_length=80)
    computed_at: datetime
    payload: str


# The Core tables, for SQLAlchemy Core statements (inserts, upserts, joins).
FIRST_TRY = table(FirstTry)
QUESTION_TALLY = table(QuestionTally)
TALLY_BASIS = table(TallyBasis)
LEARNER_TALLY = table(LearnerTally)
LESSON_TALLY = table(LessonTally)
SCORE_TALLY = table(ScoreTally)
