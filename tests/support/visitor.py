"""One visitor app per backend and test process, shared by the tests that only read pages
(``READ_ONLY`` in tests/support/markers.py), as datasette's session-scoped ``ds_client``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
from fastapi.testclient import TestClient

from app.main import create_app
from tests.support.app import create_postgres_database, drop_postgres_database, make_settings

READ_METHODS = {"GET", "HEAD", "OPTIONS"}


class ReadOnlyClient(TestClient):
    """A ``TestClient`` that refuses to write: a test that posts needs an app of its own."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.event_hooks["request"].append(_refuse_writes)  # httpx runs it before each send

    @contextmanager
    def for_one_test(self) -> Iterator[None]:
        """Start and leave each test as a new visitor: no cookies, the default headers."""
        headers = self.headers.copy()
        self.cookies.clear()
        try:
            yield
        finally:
            self.cookies.clear()
            self.headers = headers


def _refuse_writes(request: httpx.Request) -> None:
    assert request.method in READ_METHODS, (
        f"{request.method} {request.url.path}: este teste escreve, então não pode usar o app "
        "compartilhado (tire-o de READ_ONLY em tests/support/markers.py)"
    )


class SharedVisitors(dict[str, ReadOnlyClient]):
    """The visitor client of each backend, its migrated database and app made on first use."""

    def __init__(self, tmp_path_factory: Any) -> None:
        super().__init__()
        self._tmp = tmp_path_factory
        self._stack = ExitStack()

    def __missing__(self, backend: str) -> ReadOnlyClient:
        database_url = None
        if backend != "sqlite":
            database_url = create_postgres_database()
            self._stack.callback(drop_postgres_database, database_url)
        folder = self._tmp.mktemp(f"visitante-{backend}")
        settings = make_settings(folder, database_url=database_url)
        client = self._stack.enter_context(ReadOnlyClient(create_app(settings)))
        self[backend] = client
        return client

    def close(self) -> None:
        self._stack.close()
