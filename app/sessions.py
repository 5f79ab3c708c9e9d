"""Server-side sessions: starsessions with a store in our database.

The cookie holds only a random session id (starsessions makes it with ``secrets``);
the data lives in the ``websession`` table, so every worker sees the same sessions,
signing out really ends a session, and deleting a learner ends all of theirs.
"""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import Engine, delete
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

from app.db import begin_write
from app.models import WebSession, utcnow

LEARNER_KEY = "learner"
ACCOUNT_KEY = "account"
# A rolling session's expiry is stored again at most once a day, not on every request.
EXPIRY_SLACK = timedelta(days=1)
DEFAULT_TTL_S = 24 * 3600


class DatabaseStore(SessionStore):
    """A starsessions store backed by the ``websession`` table.

    Unchanged sessions are not written again (only ``last_access`` moves on every
    request), so reading pages costs one primary-key read. Expired rows are dropped
    whenever a new session is stored.

    Args:
        engine: the app's engine.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def read(self, session_id: str, lifetime: int) -> bytes:
        """Return the session's JSON, or ``b""`` when it is unknown or expired."""
        return await run_in_threadpool(self.read_now, session_id)

    async def write(self, session_id: str, data: bytes, lifetime: int, ttl: int) -> str:
        """Store the session for ``ttl`` seconds and return its id."""
        await run_in_threadpool(self.write_now, session_id, data, ttl or lifetime)
        return session_id

    async def remove(self, session_id: str) -> None:
        """Delete the session."""
        await run_in_threadpool(self.remove_now, session_id)

    def read_now(self, session_id: str) -> bytes:
        """Synchronous :meth:`read`."""
        with Session(self.engine) as db:
            row = db.get(WebSession, session_id)
            if row is None or row.expires_at <= utcnow():
                return b""
            return row.data.encode("utf-8")

    def write_now(self, session_id: str, data: bytes, ttl: int) -> None:
        """Synchronous :meth:`write`."""
        text = data.decode("utf-8")
        expires_at = utcnow() + timedelta(seconds=ttl or DEFAULT_TTL_S)
        learner_id = json.loads(text).get(LEARNER_KEY)
        with Session(self.engine) as db:  # most requests end here, without taking the write lock
            row = db.get(WebSession, session_id)
            if row is not None and (
                _content(row.data) == _content(text) and expires_at - row.expires_at < EXPIRY_SLACK
            ):
                return
        with Session(self.engine) as db:
            begin_write(db)
            row = db.get(WebSession, session_id)
            if row is None:
                db.exec(delete(WebSession).where(col(WebSession.expires_at) <= utcnow()))
                row = WebSession(id=session_id, data=text, expires_at=expires_at)
            elif (
                _content(row.data) == _content(text) and expires_at - row.expires_at < EXPIRY_SLACK
            ):
                return
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
