"""Classes (turmas): their instructors, members and due dates."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from app.i18n import DEFAULT_TIMEZONE
from app.platform.models.base import table, utcnow


class Classroom(SQLModel, table=True):
    """A class (turma): learners who join by a link, its instructors and its due dates.

    Attributes:
        name / description: as the instructor wrote them.
        join_code: the unguessable code of the join link (``secrets.token_urlsafe``);
            rotating it makes the old link stop working.
        time_zone: IANA zone in which due dates are entered and shown.
        created_at: UTC.
    """

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=120)
    description: str = Field(default="", max_length=1000)
    join_code: str = Field(max_length=64, unique=True)
    time_zone: str = Field(default=DEFAULT_TIMEZONE, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class ClassStaff(SQLModel, table=True):
    """An instructor of a class."""

    __tablename__ = "class_staff"

    class_id: int = Field(foreign_key="classroom.id", ondelete="CASCADE", primary_key=True)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE", primary_key=True)


class ClassMember(SQLModel, table=True):
    """A learner in a class (joined by the link, with an account).

    Attributes:
        joined_at: UTC.
    """

    __tablename__ = "class_member"

    class_id: int = Field(foreign_key="classroom.id", ondelete="CASCADE", primary_key=True)
    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    joined_at: datetime = Field(default_factory=utcnow)


class ClassDue(SQLModel, table=True):
    """A lesson's due date in a class, stored in UTC.

    Answers after it are accepted and counted as late.
    """

    __tablename__ = "class_due"

    class_id: int = Field(foreign_key="classroom.id", ondelete="CASCADE", primary_key=True)
    lesson_slug: str = Field(max_length=100, primary_key=True)
    due_at: datetime


# The Core tables, for SQLAlchemy Core statements (inserts, upserts, joins).
CLASS_DUE = table(ClassDue)
