"""One app per backend and test process, shared by the tests whose ``client`` is the default app,
with its database and everything it keeps in memory reset between tests.

Building an app, loading its course and rendering its first pages cost more than most tests
that use it. tests/conftest.py marks a test ``shared_app`` when its ``client``, ``settings``
and ``database_url`` are conftest's own, it is not in ``REAL_PASSWORD_COST`` and it is not
marked ``own_app``; such a test gets a new ``TestClient`` (no cookies, the default headers)
of the shared app, the shared app's ``settings`` and its ``database_url``.

Isolation, between two tests of one shared app:

- the database is emptied as a fresh migrated one (:func:`tests.support.app.empty_sqlite`,
  :meth:`tests.support.app.PostgresDatabases.empty`): every table, the sessions', the sign-in
  counters' and the dashboard's cached figures included, after the answer writer has
  committed what it was given;
- every piece of ``app.state`` is either in :data:`KEPT` (made from the code, the lessons and
  the settings alone, the same for any database) or in :data:`RESET` (emptied in place, as the
  front door holds some of them); a piece in neither stops the run at the app's first build;
- a test that changed the app instead of its data (a setting, a piece of ``app.state``
  replaced, a dependency override, a route, a middleware, the database's schema) leaves it:
  the next test gets a new app.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from app.main import create_app
from app.platform.settings import Settings
from tests.support.answers import writer_settled
from tests.support.app import PostgresDatabases, empty_sqlite, make_settings

# What the app builds from the code, the lessons and the settings: the same whatever is stored.
KEPT = {
    "settings": "checked unchanged after each test",
    "engine": "a pool of connections; what they read is the database's",
    "loop_engine": "the same",
    "assets": "the static files",
    "urls": "the route table",
    "templates": "compiled templates; the tree widgets they keep are keyed by tree and walk",
    "live_course": "the repository's lessons, which no test writes",
    "search": "built from the course",
    "passwords": "a hasher",
    "sign_in_limiter": "its counters are in the database (settings.rate_limit_storage)",
    "lti_sender": "a thread that sends what the database says is due",
    "retention": "stopped when the app is built: a shared app never sweeps, as a test's never did",
    "secret": "from the settings",
    "known_devices": "a signer of the secret",
    "pseudonym_salt": "the secret",
}


def _empty_pages(pages: Any) -> None:
    with pages.lock:
        pages.pages.clear()
        pages.course = None


def _empty_states(states: Any) -> None:
    with states._lock:
        states._kept.clear()
        states.rows_read = 0


def _empty_sessions(sessions: Any) -> None:
    with sessions._cache_lock:
        sessions._cache.clear()


def _drain(writer: Any) -> None:
    writer_settled(writer)
    writer.batches = 0


# What the app keeps of what is stored or was asked, and how it is emptied.
RESET: dict[str, Callable[[Any], None]] = {
    "visitor_pages": _empty_pages,
    "learner_pages": _empty_pages,
    "learner_states": _empty_states,
    "sessions": _empty_sessions,
    "answer_writer": _drain,
    "lms_origins": lambda origins: origins.refresh(),  # after the database is emptied
}


@dataclass
class SharedApp:
    """An app, its settings, and what it looked like when built (to tell it was changed)."""

    app: FastAPI
    settings: Settings
    state: dict[str, Any] = field(default_factory=dict)
    settings_dump: dict[str, Any] = field(default_factory=dict)
    routes: int = 0
    middleware: int = 0

    @classmethod
    def build(cls, settings: Settings) -> SharedApp:
        app = create_app(settings)
        state = dict(vars(app.state)["_state"])
        unknown = set(state) - set(KEPT) - set(RESET)
        assert not unknown, (
            f"app.state.{', app.state.'.join(sorted(unknown))}: say in tests/support/shared_app.py "
            "whether it is kept between tests (KEPT) or how it is emptied (RESET)"
        )
        app.state.retention.stop()
        return cls(
            app,
            settings,
            state,
            settings.model_dump(),
            len(app.router.routes),
            len(app.user_middleware),
        )

    def changed(self) -> str:
        """What a test changed of the app itself (not of its data), or ``""``."""
        state = vars(self.app.state)["_state"]
        names = state.keys() | self.state.keys()
        replaced = sorted(name for name in names if state.get(name) is not self.state.get(name))
        if replaced:
            return f"app.state.{replaced[0]}"
        if self.settings.model_dump() != self.settings_dump:
            return "settings"
        if self.app.dependency_overrides:
            return "dependency_overrides"
        if (len(self.app.router.routes), len(self.app.user_middleware)) != (
            self.routes,
            self.middleware,
        ):
            return "routes or middleware"
        return ""

    def reset(self, empty_database: Callable[[str], bool]) -> bool:
        """Empty its database and caches; ``False`` when the database's schema was changed."""
        state = vars(self.app.state)["_state"]
        RESET["answer_writer"](state["answer_writer"])
        if not empty_database(self.settings.database_url):
            return False
        for name, empty in RESET.items():
            if name != "answer_writer":
                empty(state[name])
        return True

    def close(self) -> None:
        state = vars(self.app.state)["_state"]
        for engine in (state["engine"], state["loop_engine"], state["answer_writer"].engine):
            engine.dispose()


class SharedApps:
    """The shared app of each backend, built on first use and again after a test changed it.

    Args:
        folder: makes a new folder for an app's SQLite file and ``var``.
        postgres: the process's pool of PostgreSQL databases (``None`` without PostgreSQL).
    """

    def __init__(
        self, folder: Callable[[str], Path], postgres: PostgresDatabases | None = None
    ) -> None:
        self._folder = folder
        self._postgres = postgres
        self._apps: dict[str, SharedApp] = {}

    @contextmanager
    def for_one_test(self, backend: str) -> Iterator[SharedApp]:
        """The backend's shared app, reset (or left for a new one) when the test ends."""
        shared = self._apps.get(backend) or self._build(backend)
        self._apps[backend] = shared
        try:
            yield shared
        finally:
            if shared.changed() or not shared.reset(self._empty_database):
                self._drop(backend)

    def _build(self, backend: str) -> SharedApp:
        url = self._postgres.take() if backend != "sqlite" and self._postgres else None
        return SharedApp.build(make_settings(self._folder(f"app-{backend}"), database_url=url))

    def _empty_database(self, url: str) -> bool:
        if url.startswith("sqlite"):
            return empty_sqlite(url)
        assert self._postgres is not None
        return self._postgres.empty(url)

    def _drop(self, backend: str) -> None:
        shared = self._apps.pop(backend)
        shared.close()
        if self._postgres and backend != "sqlite":
            self._postgres.give_back(shared.settings.database_url)

    def close(self) -> None:
        for backend in list(self._apps):
            self._drop(backend)
