"""Sign-in: accounts, server-side sessions and the sign-in rate limits."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from app.platform.models.base import table, utcnow


class Account(SQLModel, table=True):
    """An optional sign-in for a learner (username and argon2 password hash).

    Attributes:
        learner_id: the learner this account signs in as (one account per learner).
        username: lower-case, unique.
        password_hash: an argon2 hash (PHC string), never the password.
        created_at: sign-up time, UTC.
        is_instructor: may open the instructor pages (granted with ``curso instrutor``).
        is_admin: an instructor who sees every class, not only their own
            (``curso instrutor adicionar --admin``).
    """

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", max_length=32, unique=True
    )
    username: str = Field(max_length=30, unique=True)
    password_hash: str = Field(max_length=255)
    created_at: datetime = Field(default_factory=utcnow)
    is_instructor: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    is_admin: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})


class WebSession(SQLModel, table=True):
    """A server-side session (read and written by ``app/platform/sessions.py``).

    Attributes:
        id: the random session id held in the cookie.
        data: the session as JSON.
        learner_id: the learner in the session (no foreign key: anonymous learners have
            no row until their first answer); used to end every session of a deleted learner.
        expires_at: when the session may be dropped, UTC.
    """

    id: str = Field(primary_key=True, max_length=64)
    data: str
    learner_id: str | None = Field(default=None, max_length=32, index=True)
    expires_at: datetime = Field(index=True)


class RateLimit(SQLModel, table=True):
    """A fixed-window counter of the ``limits`` library (see ``app/platform/ratelimit_store.py``).

    Attributes:
        key: what is counted, e.g. failed sign-ins of one username.
        count: hits in the current window.
        expires_at: when the window ends, in epoch seconds.
    """

    __tablename__ = "rate_limit"

    key: str = Field(primary_key=True, max_length=255)
    count: int
    expires_at: float = Field(index=True)


# The Core tables, for SQLAlchemy Core statements (inserts, upserts, joins).
ACCOUNT = table(Account)
