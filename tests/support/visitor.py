"""A client that only reads pages, for the tests in ``READ_ONLY`` (tests/support/markers.py) and
for a module's own app shared by its reading tests (tests/test_lesson_text.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from fastapi.testclient import TestClient

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
