"""Server-side sessions: starsessions with a store in our database.

The cookie holds only a random session id (starsessions makes it with ``secrets``);
the data lives in the ``websession`` table, so every worker sees the same sessions,
signing out really ends a session, and deleting a learner ends all of theirs.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from datetime import datetime, timedelta

from sqlalchemy import Engine, bindparam, delete, select
from sqlmodel import Session, col
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send
from starsessions import (
    SessionStore,
    get_session_handler,
    is_loaded,
    load_session,
    regenerate_session_id,
)

from app.platform.db import begin_write
from app.platform.models import WebSession, utcnow

# The session cookie's name: the session middleware sets it, the visitor-page cache looks
# for it.
SESSION_COOKIE = "curso_sessao"
# A random value a browser gets with its first page of answer forms (HttpOnly, never in a page):
# the proof a double submit of a visitor's first answer shares, and a stranger holding only
# the page's form key does not (app.learning.usecases.AnswerPlace.visit).
VISIT_COOKIE = "curso_visita"
LEARNER_KEY = "learner"
ACCOUNT_KEY = "account"
LMS_NAME_KEY = "lms_name"  # the name an LMS launch gave, shown instead of the username
LTI_USER_KEY = "lti_user"  # [platform id, sub] of the person an LTI launch signed in
# A rolling session's expiry is stored again at most once a day, not on every request.
EXPIRY_SLACK = timedelta(days=1)
DEFAULT_TTL_S = 24 * 3600
# What the current request read from the store: (session id, content, expiry), or None.
_LOADED: ContextVar[tuple[str, dict, datetime] | None] = ContextVar(
    "curso_loaded_session", default=None
)


# Built once: building the statement cost more than running it.
_READ = select(col(WebSession.data), col(WebSession.expires_at)).where(
    col(WebSession.id) == bindparam("session_id")
)


class DatabaseStore(SessionStore):
    """A starsessions store backed by the ``websession`` table.

    Unchanged sessions are not written again (only ``last_access`` moves on every
    request), so reading pages costs one primary-key read and no write. Expired rows are
    dropped whenever a new session is stored.

    Args:
        loop_engine: the engine for reads on the event loop
            (:func:`app.platform.db.make_loop_engine`).
    """

    def __init__(self, engine: Engine, loop_engine: Engine | None = None) -> None:
        self.engine = engine
        self.loop_engine = loop_engine or engine

    async def read(self, session_id: str, lifetime: int) -> bytes:
        """Return the session's JSON, or ``b""`` when it is unknown or expired.

        It runs on the event loop, not the threadpool: a primary-key read never waits for a
        lock (SQLite readers in WAL mode, PostgreSQL's MVCC). What it read is remembered for
        this request only, so :meth:`write` can tell an unchanged session without reading again.
        """
        with self.loop_engine.connect() as connection:
            row = connection.execute(_READ, {"session_id": session_id}).first()
        if row is None or row.expires_at <= utcnow():
            _LOADED.set(None)
            return b""
        _LOADED.set((session_id, _content(row.data), row.expires_at))
        return row.data.encode("utf-8")

    async def write(self, session_id: str, data: bytes, lifetime: int, ttl: int) -> str:
        """Store the session for ``ttl`` seconds and return its id.

        A session this request read and did not change is not written again, unless its stored
        expiry is more than :data:`EXPIRY_SLACK` behind; so reading pages writes nothing. A
        session this request read that was ended meanwhile (a sign-up or an erasure ended every
        session of its learner) stays ended.
        """
        text = data.decode("utf-8")
        expires_at = utcnow() + timedelta(seconds=ttl or lifetime or DEFAULT_TTL_S)
        loaded = _LOADED.get()
        read_here = loaded is not None and loaded[0] == session_id
        if read_here and loaded and _unchanged(loaded[1:], text, expires_at):
            return session_id
        await run_in_threadpool(self.write_now, session_id, text, expires_at, read_here)
        return session_id

    async def remove(self, session_id: str) -> None:
        await run_in_threadpool(self.remove_now, session_id)

    def write_now(
        self, session_id: str, text: str, expires_at: datetime, existed: bool = False
    ) -> None:
        """Store ``text`` (the session's JSON) until ``expires_at``, in one write transaction.

        ``existed``: the session was read from the store by this request; if its row is gone
        now, it was ended meanwhile, and is not stored again.
        """
        learner_id = json.loads(text).get(LEARNER_KEY)
        with Session(self.engine) as db:
            begin_write(db)
            row = db.get(WebSession, session_id)
            if row is None and existed:
                return
            if row is None:
                db.exec(delete(WebSession).where(col(WebSession.expires_at) <= utcnow()))
                row = WebSession(id=session_id, data=text, expires_at=expires_at)
            elif _unchanged((_content(row.data), row.expires_at), text, expires_at):
                return  # another request of this session stored the same thing meanwhile
            row.data, row.expires_at = text, expires_at
            row.learner_id = learner_id if isinstance(learner_id, str) else None
            db.add(row)
            db.commit()

    def remove_now(self, session_id: str) -> None:
        """Synchronous :meth:`remove`."""
        with Session(self.engine) as db:
            db.exec(delete(WebSession).where(col(WebSession.id) == session_id))
            db.commit()


class SessionLoader:
    """Load the session before the app runs (every path but ``/static/``).

    starsessions would keep a cookie's id even when no session is stored under it; here
    such an id is replaced by a fresh one, so nobody can choose another person's session id.

    Args:
        app: the ASGI app inside (it must run inside starsessions' ``SessionMiddleware``).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Load the session, renew an unknown id, then call the app."""
        if scope["type"] == "http" and not scope["path"].startswith("/static/"):
            connection = HTTPConnection(scope)
            await load_session(connection)
            handler = get_session_handler(connection)
            if handler.initially_empty and handler.session_id:
                handler.regenerate_id()
        await self.app(scope, receive, send)


def _unchanged(stored: tuple[dict, datetime], text: str, expires_at: datetime) -> bool:
    """True when ``text`` holds what is stored and the stored expiry is recent enough."""
    content, stored_expiry = stored
    return content == _content(text) and expires_at - stored_expiry < EXPIRY_SLACK


def _content(text: str) -> dict:
    data = json.loads(text)
    data.get("__metadata__", {}).pop("last_access", None)
    return data


def end_sessions_of(db: Session, learner_id: str) -> None:
    """Delete every session of ``learner_id`` (every device); the caller commits."""
    db.exec(delete(WebSession).where(col(WebSession.learner_id) == learner_id))


def rotate_session_id(connection: HTTPConnection) -> None:
    """Give the current session a new id and drop the old one from the store.

    Called on sign-in and sign-up, so a session id known before signing in is worthless after.
    """
    handler = get_session_handler(connection)
    if handler.session_id:
        store = handler.store
        if isinstance(store, DatabaseStore):
            store.remove_now(handler.session_id)
    regenerate_session_id(connection)


def session_account(connection: HTTPConnection | None) -> str | None:
    """Return the signed-in username, or ``None`` (anonymous, no request, or session not loaded)."""
    if connection is None or "session_handler" not in connection.scope or not is_loaded(connection):
        return None
    name = connection.session.get(ACCOUNT_KEY)
    return name if isinstance(name, str) else None
