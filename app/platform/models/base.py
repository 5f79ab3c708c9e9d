"""What every model module shares: the clock default and the Core table of a model."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Table
from sqlmodel import SQLModel


def utcnow() -> datetime:
    """Return the current time in UTC, timezone-aware."""
    return datetime.now(UTC)


def table(model: type[SQLModel]) -> Table:
    """The Core table SQLModel made for ``model`` (its ``__table__``, which SQLModel's types
    do not declare); each is taken once, next to its model, as a module constant."""
    return SQLModel.metadata.tables[str(model.__tablename__)]
