"""SQLModel tables. Only Alembic creates them (see ``migrations/``)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Field, Index, SQLModel


def utcnow() -> datetime:
    """Return the current time in UTC, timezone-aware."""
    return datetime.now(UTC)


class Learner(SQLModel, table=True):
    """A person taking the course; anonymous until they sign up.

    Attributes:
        id: random hex id (32 characters), also held in the signed session cookie.
        created_at: first visit that stored anything, UTC.
    """

    id: str = Field(primary_key=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)


class AttemptBase(SQLModel):
    """Fields shared by stored and public attempts.

    Attributes:
        lesson_slug: the lesson's ``slug``.
        question_id: the question's ``id`` inside that lesson.
        chosen: chosen option ids, sorted, comma-separated (ids never hold commas).
        correct: the grade given when the answer was submitted.
        created_at: submission time, UTC.
    """

    lesson_slug: str = Field(max_length=100)
    question_id: str = Field(max_length=100)
    chosen: str = Field(max_length=1000)
    correct: bool
    created_at: datetime = Field(default_factory=utcnow)


class Attempt(AttemptBase, table=True):
    """One submitted answer to one quiz question by one learner."""

    __table_args__ = (Index("ix_attempt_learner_lesson", "learner_id", "lesson_slug"),)

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32)

    def chosen_ids(self) -> frozenset[str]:
        """Return the chosen option ids as a set."""
        return frozenset(filter(None, self.chosen.split(",")))


class Walk(SQLModel, table=True):
    """A decision-tree walk a learner finished (reached a result).

    Attributes:
        learner_id: the learner.
        tree_id: the tree's id.
        path: the chosen option values, joined by ``,``.
        result_id: the result reached.
        created_at: when the result was reached, UTC.
    """

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32, index=True)
    tree_id: str = Field(max_length=100)
    path: str = Field(max_length=1000)
    result_id: str = Field(max_length=100)
    created_at: datetime = Field(default_factory=utcnow)
