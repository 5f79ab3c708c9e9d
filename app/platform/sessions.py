"""Server-side sessions: a random id in the cookie, the data in the ``websession`` table.

Every worker sees the same sessions, signing out really ends a session, and deleting a learner
ends all of theirs. The front door (:mod:`app.web.front_door`) loads a request's session through
:class:`SessionStore` and saves it with the response; the routes read and change it as the
plain dict ``request.session``.

Each process keeps the sessions it has seen in an LRU cache, and checks every request's entry
against the database with one primary-key read of ``expires_at``: every write sets a new expiry,
so the expiry is the row's version. A session another worker changed is read again; one it
ended (sign-out, sign-up, erasure) is gone for this worker too, on the very next request.
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeGuard

from cachetools import LRUCache
from sqlalchemy import Engine, delete, insert, update
from sqlmodel import Session, col
from starlette.requests import HTTPConnection

from app.platform.db import make_loop_engine
from app.platform.models import WebSession, utcnow
from app.platform.models.base import table

# The session cookie's name: the front door sets it and reads it.
SESSION_COOKIE = "curso_sessao"
# A random value a browser gets with its first page of answer forms (HttpOnly, never in a page):
# the proof a double submit of a visitor's first answer shares, and a stranger holding only
# the page's form key does not (app.learning.usecases.AnswerPlace.visit).
VISIT_COOKIE = "curso_visita"
LEARNER_KEY = "learner"
ACCOUNT_KEY = "account"
LMS_NAME_KEY = "lms_name"  # the name an LMS launch gave, shown instead of the username
LTI_USER_KEY = "lti_user"  # [platform id, sub] of the person an LTI launch signed in
PLACE_KEY = "place"  # the reading place of a learner who has no row yet
# Keys whose change alone is not worth a write on every request: the place a row-less reader
# posts as they scroll is stored with the next write, or once SOFT_WRITE_EVERY has passed.
SOFT_KEYS = frozenset({PLACE_KEY})
SOFT_WRITE_EVERY = timedelta(minutes=10)
SESSION_MAX_AGE_S = 365 * 24 * 3600
SESSION_LIFETIME = timedelta(seconds=SESSION_MAX_AGE_S)
# A rolling session's expiry (and its cookie) is renewed at most once a day, not on every request.
EXPIRY_SLACK = timedelta(days=1)
# Sessions each process keeps parsed; past it the least recently used are read again.
CACHED_SESSIONS = 20_000
SESSION_ID_LENGTH = 32  # secrets.token_hex(16)
_HEX = frozenset("0123456789abcdef")
_WEBSESSION = table(WebSession)
# The data written: an old session's starsessions metadata is dropped when read.
_METADATA = "__metadata__"


def new_session_id() -> str:
    """A fresh random session id (``secrets``): 32 hex digits."""
    return secrets.token_hex(SESSION_ID_LENGTH // 2)


def is_session_id(value: str | None) -> TypeGuard[str]:
    """True for a value shaped like :func:`new_session_id`'s; anything else is never looked up."""
    return value is not None and len(value) == SESSION_ID_LENGTH and _HEX.issuperset(value)


@dataclass(frozen=True)
class Stored:
    """A session as its row holds it: the parsed data (never handed out: each request parses
    its own copy from ``text``), the JSON and the expiry, which is also the row's version."""

    data: dict[str, Any]
    text: str
    expires_at: datetime

    def fresh(self) -> dict[str, Any]:
        """A request's own copy of the data, free to change."""
        return _parse(self.text)


@dataclass
class RequestSession:
    """What the front door knows of one request's session, beside ``scope["session"]``.

    ``stored`` is the row the request read (``None``: a visitor, or an id nobody stores);
    ``id`` the id the response's cookie carries, ``None`` until one is needed;
    ``rotated`` is set by :func:`rotate_session_id`.
    """

    store: SessionStore
    id: str | None = None
    stored: Stored | None = None
    rotated: bool = False


class SessionStore:
    """The ``websession`` table behind a per-process cache.

    Reads (:meth:`load`) run on the event loop through one connection of the store's own,
    with fixed statement text and no ORM: a primary-key read never waits for a lock (SQLite
    readers in WAL mode, PostgreSQL's MVCC). Writes (:meth:`save_now`, :meth:`remove_now`)
    are synchronous, for the threadpool: on SQLite they take the write lock.

    Args:
        engine: the app's engine, for writes.
        url: the database URL, for the read connection.
    """

    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        self._read_engine = make_loop_engine(url)
        self._raw: Any = None
        self._lock = threading.Lock()  # one event loop per app, but tests run several
        # Read on the event loop, written by the threadpool's saves: every use holds its lock.
        self._cache: LRUCache[str, Stored] = LRUCache(CACHED_SESSIONS)
        self._cache_lock = threading.Lock()
        mark = "?" if self._read_engine.dialect.paramstyle == "qmark" else "%s"
        self._version_sql = f"SELECT expires_at FROM websession WHERE id = {mark}"
        self._row_sql = f"SELECT data, expires_at FROM websession WHERE id = {mark}"

    def load(self, session_id: str) -> Stored | None:
        """The live session stored under ``session_id``, or ``None`` (unknown, ended or
        expired). One primary-key read of the expiry when this process has the session cached
        and nobody changed it; a second read of the data otherwise.

        Raises:
            the driver's error when the database cannot be reached twice in a row.
        """
        row = self._fetch(self._version_sql, session_id)
        if row is None:
            self._forget(session_id)
            return None
        expires_at = _as_utc(row[0])
        if expires_at <= utcnow():
            return None
        with self._cache_lock:
            cached = self._cache.get(session_id)
        if cached is not None and cached.expires_at == expires_at:
            return cached
        row = self._fetch(self._row_sql, session_id)
        if row is None:
            return None
        stored = Stored(_parse(row[0]), row[0], _as_utc(row[1]))
        self._keep(session_id, stored)
        return stored

    def _keep(self, session_id: str, stored: Stored) -> None:
        with self._cache_lock:
            self._cache[session_id] = stored

    def _forget(self, session_id: str) -> None:
        with self._cache_lock:
            self._cache.pop(session_id, None)

    def _fetch(self, sql: str, session_id: str) -> tuple | None:
        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._raw is None:
                        self._raw = self._connect()
                    cursor = self._raw.cursor()
                    try:
                        cursor.execute(sql, (session_id,))
                        rows = cursor.fetchall()
                    finally:
                        cursor.close()
                    return tuple(rows[0]) if rows else None
                except self._read_engine.dialect.loaded_dbapi.Error:
                    self._drop_connection()
                    if attempt == 2:
                        raise
        return None  # pragma: no cover (the loop returns or raises)

    def _connect(self) -> Any:
        """A connection kept for the process (out of any pool), reading in autocommit mode."""
        raw = self._read_engine.raw_connection()
        if self._read_engine.dialect.name != "sqlite":
            raw.rollback()
            driver: Any = raw.driver_connection
            driver.autocommit = True
        return raw

    def _drop_connection(self) -> None:
        if self._raw is not None:
            try:
                self._raw.invalidate()
            finally:
                self._raw = None

    def save_now(
        self, session_id: str, data: dict[str, Any], existed: bool, after: datetime | None
    ) -> datetime | None:
        """Store ``data`` under ``session_id`` with a new expiry, in one write transaction.

        Args:
            existed: the request read this session; if its row is gone now it was ended
                meanwhile (sign-out, sign-up, erasure elsewhere) and is not stored again.
            after: the expiry the request read; the new one is later, so it is a new version.

        Returns:
            The new expiry, or ``None`` when the session had ended.
        """
        expires_at = utcnow() + SESSION_LIFETIME
        if after is not None and expires_at <= after:
            expires_at = after + timedelta(microseconds=1)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        learner_id = data.get(LEARNER_KEY)
        values = {
            "data": text,
            "expires_at": expires_at,
            "learner_id": learner_id if isinstance(learner_id, str) else None,
        }
        with self.engine.begin() as connection:
            if existed:
                done = connection.execute(
                    update(_WEBSESSION).where(_WEBSESSION.c.id == session_id).values(**values)
                )
                if done.rowcount == 0:
                    self._forget(session_id)
                    return None
            else:
                connection.execute(delete(_WEBSESSION).where(_WEBSESSION.c.expires_at <= utcnow()))
                connection.execute(insert(_WEBSESSION).values(id=session_id, **values))
        self._keep(session_id, Stored(json.loads(text), text, expires_at))
        return expires_at

    def keep_unwritten(self, session_id: str, stored: Stored, data: dict[str, Any]) -> None:
        """Keep ``data`` for this process's next requests without writing it (a change of
        :data:`SOFT_KEYS` alone); the row, its version and the other workers keep ``stored``'s."""
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        self._keep(session_id, Stored(json.loads(text), text, stored.expires_at))

    def remove_now(self, session_id: str) -> None:
        """End the session ``session_id`` (its cookie opens nothing, in every process)."""
        self._forget(session_id)
        with Session(self.engine) as db:
            db.exec(delete(WebSession).where(col(WebSession.id) == session_id))
            db.commit()


def _as_utc(value: Any) -> datetime:
    """A stored expiry as an aware UTC datetime (SQLite gives text without an offset)."""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.replace(tzinfo=utcnow().tzinfo) if moment.tzinfo is None else moment


def _parse(text: str) -> dict[str, Any]:
    data = json.loads(text)
    if not isinstance(data, dict):
        return {}
    data.pop(_METADATA, None)
    return data


def needs_write(session: RequestSession, data: dict[str, Any], now: datetime) -> bool:
    """True when the response must store ``data`` (the request's session as the route left
    it, not empty): it is new, rotated or changed, or its stored expiry is
    :data:`EXPIRY_SLACK` behind. A change of :data:`SOFT_KEYS` alone waits for
    :data:`SOFT_WRITE_EVERY` since the last write."""
    stored = session.stored
    if stored is None or session.rotated:
        return True
    behind = now + SESSION_LIFETIME - stored.expires_at
    if behind >= EXPIRY_SLACK:
        return True
    if data == stored.data:
        return False
    changed = {k for k in data.keys() | stored.data.keys() if data.get(k) != stored.data.get(k)}
    return not changed <= SOFT_KEYS or behind >= SOFT_WRITE_EVERY


def end_sessions_of(db: Session, learner_id: str) -> None:
    """Delete every session of ``learner_id`` (every device); the caller commits."""
    db.exec(delete(WebSession).where(col(WebSession.learner_id) == learner_id))


def request_session(connection: HTTPConnection) -> RequestSession | None:
    """The front door's record of this request's session (``None`` outside the front door)."""
    return connection.scope.get(REQUEST_SESSION)


REQUEST_SESSION = "curso.session"  # the scope key of the RequestSession


def rotate_session_id(connection: HTTPConnection) -> None:
    """End the current session's row now and give the session a new id with the response.

    Called on sign-in, sign-up and the LTI launch, so a session id known before is worthless
    after. Synchronous (a write): call it from the threadpool.
    """
    session = request_session(connection)
    if session is None:
        return
    if session.id is not None and session.stored is not None:
        session.store.remove_now(session.id)
    session.id, session.rotated = None, True


def session_account(connection: HTTPConnection | None) -> str | None:
    """Return the signed-in username, or ``None`` (anonymous, no request, or no session)."""
    if connection is None or "session" not in connection.scope:
        return None
    name = connection.session.get(ACCOUNT_KEY)
    return name if isinstance(name, str) else None
