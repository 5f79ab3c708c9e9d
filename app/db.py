"""Database engine and sessions.

SQLite gets WAL, foreign keys, a busy timeout and ``synchronous=NORMAL`` on every
connection; other databases are used as configured.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import Engine, event
from sqlmodel import Session, create_engine

SQLITE_BUSY_TIMEOUT_MS = 15000
IMMEDIATE = "curso_sqlite_immediate"


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
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_begin(connection) -> None:
    # SQLAlchemy's recipe for SQLite: the driver's own BEGIN is off (see _sqlite_pragmas), so
    # a transaction that will write can start IMMEDIATE and take the write lock up front. A
    # deferred one that reads first and then writes fails at once with "database is locked"
    # when another worker wrote in between; an immediate one waits its turn (busy_timeout).
    immediate = connection.get_execution_options().get(IMMEDIATE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def begin_write(session: Session) -> None:
    """Start ``session``'s transaction as a write transaction (SQLite: ``BEGIN IMMEDIATE``).

    Call it before the first statement of a unit of work that will write; elsewhere it does nothing.
    """
    if session.get_bind().dialect.name != "sqlite":
        return
    if session.in_transaction():
        if session.new or session.dirty or session.deleted:
            return  # already writing: the flush took the lock
        session.commit()  # end the read-only transaction; nothing is pending
    session.connection(execution_options={IMMEDIATE: True})


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (_sqlite_begin)
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
