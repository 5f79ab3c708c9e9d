"""Database engine and sessions.

SQLite gets WAL, foreign keys, a busy timeout and ``synchronous=NORMAL`` on every
connection; other databases are used as configured.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, and_, event, tuple_
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, create_engine

SQLITE_BUSY_TIMEOUT_MS = 15000
IMMEDIATE = "curso_sqlite_immediate"
IMMEDIATE_RETRIES = 5  # tries of BEGIN IMMEDIATE that SQLite refused without waiting
# A connection whose reads are each one statement, its own snapshot: no BEGIN on SQLite (one
# round trip and one GIL hand-off less per read on the event loop).
ONE_STATEMENT = "curso_one_statement"
SQLITE_ARGS = {"check_same_thread": False}
THREADS = 40  # AnyIO's default threadpool size, where FastAPI runs sync routes


def make_engine(url: str, **options) -> Engine:
    """Create the SQLAlchemy engine for ``url``.

    Args:
        url: a SQLAlchemy URL, e.g. ``sqlite:///var/curso.db``.
        options: more ``create_engine`` arguments, e.g. ``pool_size``.

    Returns:
        An engine. For SQLite, each new connection runs the pragmas below.
    """
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, **options)
    # SQLite connections are cheap; one per threadpool thread means a request never waits
    # for the pool while another holds a connection.
    pool = {"pool_size": THREADS, "max_overflow": 0, **options}
    return _sqlite_events(create_engine(url, connect_args=SQLITE_ARGS, **pool))


def make_migration_engine(url: str) -> Engine:
    """Create the engine Alembic migrates through: SQLite with foreign keys *off*.

    Alembic's batch mode rebuilds a SQLite table (create, copy, ``DROP TABLE``, rename).
    With ``PRAGMA foreign_keys=ON`` the ``DROP TABLE`` of a parent runs an implicit
    ``DELETE`` that cascades into every child table, so rebuilding ``learner`` would empty
    ``attempt``. SQLite's documented procedure for schema changes ("Making Other Kinds Of
    Table Schema Changes", sqlite.org/lang_altertable.html) turns foreign keys off for the
    change and runs ``PRAGMA foreign_key_check`` before committing: see
    :func:`check_foreign_keys`. The pragma is set when the connection opens because it is a
    no-op inside a transaction.

    Returns:
        A single-connection engine (other databases: as :func:`make_engine`).
    """
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args=SQLITE_ARGS, pool_size=1, max_overflow=0)
    event.listen(engine, "connect", _sqlite_migration_pragmas)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


class ForeignKeyViolation(RuntimeError):
    """A migration left rows whose foreign key points at nothing; the change is rolled back."""


def check_foreign_keys(connection: Connection) -> None:
    """Run ``PRAGMA foreign_key_check`` on a SQLite connection (elsewhere do nothing).

    Args:
        connection: the open connection, inside the migration's transaction.

    Raises:
        ForeignKeyViolation: one or more rows break a foreign key; the message names the
            table, the rowid and the parent table of the first ten.
    """
    if connection.dialect.name != "sqlite":
        return
    rows = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if rows:
        shown = "; ".join(f"{row[0]} rowid {row[1]} -> {row[2]}" for row in rows[:10])
        raise ForeignKeyViolation(f"{len(rows)} foreign key violation(s): {shown}")


def make_writer_engine(url: str) -> Engine:
    """Create the engine of a process's one writer thread (:mod:`app.learning.writer`): a
    single connection of its own, so requests holding the app's pool never make it wait."""
    return make_loop_engine(url)


def make_loop_engine(url: str) -> Engine:
    """Create an engine with a single connection, for short reads made on the event loop.

    The event loop runs one thing at a time and these reads hold the connection without
    ever awaiting, so one connection is enough and taking it never waits (a wait there would
    stall every request of the worker). Use it only in code that does not ``await`` while
    the connection is open.

    Args:
        url: the same SQLAlchemy URL as :func:`make_engine`.

    Returns:
        An engine whose pool holds one connection (SQLite pragmas as in :func:`make_engine`).
    """
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, pool_size=1, max_overflow=0, pool_timeout=5)
    return _sqlite_events(
        create_engine(url, connect_args=SQLITE_ARGS, pool_size=1, max_overflow=0, pool_timeout=5)
    )


def _sqlite_events(engine: Engine) -> Engine:
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_begin(connection) -> None:
    # SQLAlchemy's recipe for SQLite: the driver's own BEGIN is off (see _sqlite_pragmas), so
    # a transaction that will write can start IMMEDIATE and take the write lock up front. A
    # deferred one that reads first and then writes fails at once with "database is locked"
    # when another worker wrote in between; an immediate one waits its turn (busy_timeout).
    options = connection.get_execution_options()
    if options.get(ONE_STATEMENT, False):
        return
    immediate = options.get(IMMEDIATE, False)
    if not immediate:
        connection.exec_driver_sql("BEGIN")
        return
    # SQLite does not always call the busy handler: in WAL mode a BEGIN IMMEDIATE can get
    # SQLITE_BUSY at once while another connection resets the WAL or runs a checkpoint (seen
    # once in ~3,000 answers of the load test). Nothing was written yet, so trying again is safe.
    for attempt in range(IMMEDIATE_RETRIES):
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
            return
        except OperationalError as exc:
            if "locked" not in str(exc) or attempt == IMMEDIATE_RETRIES - 1:
                raise
            time.sleep(0.02 * (attempt + 1))


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


def _sqlite_pragmas(dbapi_connection, _record, foreign_keys: bool = True) -> None:
    dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (_sqlite_begin)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    # NORMAL is durable in WAL mode across application crashes.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _sqlite_migration_pragmas(dbapi_connection, record) -> None:
    _sqlite_pragmas(dbapi_connection, record, foreign_keys=False)


def tuple_in(
    columns: Sequence[ColumnElement[Any]], rows: Sequence[Sequence[Any]]
) -> ColumnElement[bool]:
    """``(a, b, ...) IN (rows)`` that an index on ``a`` serves on SQLite too.

    SQLite scans the whole table for a row-value ``IN`` of several rows; adding ``a IN (...)``
    for the rows' first values lets it search the index on ``a`` (PostgreSQL plans both alike).
    """
    return and_(columns[0].in_(sorted({row[0] for row in rows})), tuple_(*columns).in_(list(rows)))


class Plain:
    """A statement's fixed text, run by the database driver itself (SQLAlchemy's
    ``exec_driver_sql``: nothing compiled per call; a list of rows goes to the cursor's
    ``executemany``), on the caller's connection and in its transaction.

    The text is written with ``?`` placeholders (SQLite's); PostgreSQL's driver gets them as
    ``%s``. Values go to the driver as they are: give times through :func:`driver_time`.

    Args:
        sqlite_text: the statement for SQLite.
        postgresql_text: the statement for PostgreSQL, when it differs beyond placeholders.
    """

    def __init__(self, sqlite_text: str, postgresql_text: str | None = None) -> None:
        self.sqlite = " ".join(sqlite_text.split())
        self.postgresql = " ".join((postgresql_text or sqlite_text).split()).replace("?", "%s")

    def text(self, connection: Connection) -> str:
        """The text for ``connection``'s database."""
        return self.postgresql if connection.dialect.name == "postgresql" else self.sqlite

    def run(self, connection: Connection, rows: Sequence[Sequence[Any]]) -> None:
        """Run the statement once per row of parameters (one ``executemany``); none: nothing."""
        if rows:
            connection.exec_driver_sql(self.text(connection), list(rows))

    def rows(self, connection: Connection, params: Sequence[Any]) -> list[Any]:
        """Run the statement once with ``params``; the rows it returns."""
        return list(connection.exec_driver_sql(self.text(connection), tuple(params)))


# SQLAlchemy's storage format of a SQLite DATETIME (what every other write of the app stores).
_SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"


def driver_time(connection: Connection, value: datetime | None) -> object:
    """``value`` as the driver of ``connection`` takes it for a ``DateTime`` column: on SQLite
    the text SQLAlchemy would store (its fields as given, no zone), on PostgreSQL as is."""
    if value is None or connection.dialect.name == "postgresql":
        return value
    return value.strftime(_SQLITE_TIME)


def stored_time(value: datetime | str) -> datetime:
    """A ``DateTime`` column as the driver read it (SQLite: text), as an aware UTC time."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class Upsert:
    """``INSERT ... ON CONFLICT (keys) DO UPDATE`` as one fixed text for both databases, run by
    the driver (:class:`Plain`): one ``executemany`` for all the rows.

    Args:
        table: the table's name.
        keys: the conflict target's columns.
        values: the columns set on a conflict; with ``add`` increased by the new values
            (counters), otherwise replaced.
    """

    def __init__(self, table: str, keys: Sequence[str], values: Sequence[str], add: bool) -> None:
        self.columns = (*keys, *values)
        change = (
            f"{v} = {table}.{v} + excluded.{v}" if add else f"{v} = excluded.{v}" for v in values
        )
        self.plain = Plain(
            f"INSERT INTO {table} ({', '.join(self.columns)}) "
            f"VALUES ({', '.join('?' for _ in self.columns)}) "
            f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {', '.join(change)}"
        )

    def run(self, connection: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Upsert ``rows`` (each with every key and value column; times as Python datetimes)."""
        self.plain.run(
            connection,
            [
                tuple(
                    driver_time(connection, v) if isinstance(v, datetime) else v
                    for v in (row[c] for c in self.columns)
                )
                for row in rows
            ],
        )


def driver_list(connection: Connection, values: Sequence[Any]) -> object:
    """A list as one parameter of a :class:`Plain` statement: a JSON array for SQLite (read with
    ``json_each(?)``), a list for PostgreSQL's driver (an array: ``= ANY(?)``, ``unnest(?)``)."""
    if connection.dialect.name == "postgresql":
        return list(values)
    return json.dumps(list(values))
