"""Database engine and sessions.

SQLite gets WAL, foreign keys, a busy timeout and ``synchronous=NORMAL`` on every
connection; other databases are used as configured.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import Engine, event
from sqlmodel import Session, create_engine

SQLITE_BUSY_TIMEOUT_MS = 5000


def make_engine(url: str) -> Engine:
    """Create the SQLAlchemy engine for ``url``.

    Args:
        url: a SQLAlchemy URL, e.g. ``sqlite:///var/curso.db``.

    Returns:
        An engine. For SQLite, each new connection runs the pragmas below.
    """
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    # NORMAL is durable in WAL mode across application crashes.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def session_scope(engine: Engine) -> Iterator[Session]:
    """Yield one session for a request and close it afterwards.

    Args:
        engine: the app's engine.

    Yields:
        A SQLModel session; the caller commits.
    """
    with Session(engine) as session:
        yield session
