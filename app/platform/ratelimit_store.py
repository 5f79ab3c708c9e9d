"""A ``limits`` storage kept in the app's own database, so every worker sees one count.

It implements the storage interface that ``limits``' fixed-window strategy uses
(``incr``, ``get``, ``get_expiry``, ``clear``, ``check``, ``reset``); each counter
is one row of the ``rate_limit`` table, updated with a single atomic upsert.

Rows of ended windows are deleted whenever a counter starts a new window (at most once per
counter and window, never on a request that signs in to nothing), and when an account is erased
(:meth:`DatabaseLimitStorage.clear_prefixes`).

The counters go through a small connection pool of their own: a request may hold one of
the app's pooled connections while it calls the limiter, and with one shared pool enough
such requests at once would each wait for a second connection that none will give back.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from limits.storage import Storage
from sqlalchemy import Connection, Engine, text

from app.platform.db import make_engine

DATABASE = "database"
POOL_SIZE = 2
POOL_OVERFLOW = 3


class DatabaseLimitStorage(Storage):
    """Fixed-window counters in the ``rate_limit`` table (SQLite or PostgreSQL).

    Args:
        engine: the app's SQLAlchemy engine; the counters use their own small pool to its database.
    """

    STORAGE_SCHEME = ["curso+database"]

    def __init__(self, engine: Engine):
        super().__init__(uri=None, wrap_exceptions=False)
        url = engine.url.render_as_string(hide_password=False)
        self.engine = make_engine(url, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        """Errors the strategy may wrap (any database error)."""
        return Exception

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        """Add ``amount`` to the counter of ``key`` (a new window when the old one ended).

        A negative ``amount`` takes hits back; a new window never starts below zero. When the
        counter starts a new window, every ended window is deleted in the same transaction.

        Returns:
            The counter after the increment.
        """
        now = time.time()
        expires = now + expiry
        with self.engine.begin() as connection:
            count, expires_at = connection.execute(
                text(
                    "INSERT INTO rate_limit (key, count, expires_at) "
                    "VALUES (:key, :fresh, :expires) "
                    "ON CONFLICT (key) DO UPDATE SET "
                    "count = CASE WHEN rate_limit.expires_at > :now "
                    "THEN rate_limit.count + :amount ELSE :fresh END, "
                    "expires_at = CASE WHEN rate_limit.expires_at > :now "
                    "THEN rate_limit.expires_at ELSE :expires END "
                    "RETURNING count, expires_at"
                ),
                {
                    "key": key,
                    "amount": amount,
                    "fresh": max(amount, 0),
                    "expires": expires,
                    "now": now,
                },
            ).one()
            if expires_at == expires:  # a new window: its row was inserted or restarted
                _purge_expired(connection, now)
            return count

    def get(self, key: str) -> int:
        """The counter of ``key`` in its current window (0 when none)."""
        with self.engine.connect() as connection:
            value = connection.execute(
                text("SELECT count FROM rate_limit WHERE key = :key AND expires_at > :now"),
                {"key": key, "now": time.time()},
            ).scalar()
        return int(value or 0)

    def get_expiry(self, key: str) -> float:
        """When the current window of ``key`` ends (epoch seconds; now when there is none)."""
        with self.engine.connect() as connection:
            value = connection.execute(
                text("SELECT expires_at FROM rate_limit WHERE key = :key"), {"key": key}
            ).scalar()
        return float(value) if value is not None and value > time.time() else time.time()

    def clear(self, key: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(text("DELETE FROM rate_limit WHERE key = :key"), {"key": key})

    def clear_prefixes(self, prefixes: Iterable[str]) -> int:
        """Forget every counter whose key starts with one of ``prefixes``, and every ended window.

        Returns:
            How many rows were deleted.
        """
        now = time.time()
        with self.engine.begin() as connection:
            deleted = _purge_expired(connection, now)
            for prefix in prefixes:
                deleted += connection.execute(
                    text("DELETE FROM rate_limit WHERE substr(key, 1, :length) = :prefix"),
                    {"length": len(prefix), "prefix": prefix},
                ).rowcount
        return deleted

    def check(self) -> bool:
        """True when the database answers."""
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        return True

    def reset(self) -> int | None:
        """Drop every counter; returns how many were dropped."""
        with self.engine.begin() as connection:
            return connection.execute(text("DELETE FROM rate_limit")).rowcount


def _purge_expired(connection: Connection, now: float) -> int:
    """Delete the counters whose window ended before ``now``; returns how many."""
    return connection.execute(
        text("DELETE FROM rate_limit WHERE expires_at <= :now"), {"now": now}
    ).rowcount
