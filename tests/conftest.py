"""Shared fixtures: a migrated temporary SQLite file per test, apps, a live uvicorn, Chromium.

Markers are set here, from where a test lives and what it uses (``make test-fast`` skips them):
``browser`` (Chromium), ``load`` (tests/load), ``postgres`` (the PostgreSQL half of a test run
on both databases) and ``slow`` (tests/support/markers.py).
Helpers shared by test modules live in tests/support.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.platform.settings import Settings
from tests.support.app import (
    ARTIFACTS,
    BACKENDS,
    REPO_LESSONS,
    create_postgres_database,
    drop_postgres_database,
    make_settings,
)
from tests.support.markers import BROWSER_FIXTURES, SLOW
from tests.support.server import CHROMIUM_ARGS, LiveServer

TESTS = Path(__file__).parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--screenshots",
        action="store_true",
        help="save a screenshot of every page type of the axe sweep to test-artifacts/",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test browser, load, postgres or slow from where it lives and what it uses."""
    for item in items:
        path = item.path.relative_to(TESTS) if item.path.is_relative_to(TESTS) else item.path
        fixtures = set(getattr(item, "fixturenames", ()))
        if path.name.endswith("_browser.py") or BROWSER_FIXTURES & fixtures:
            item.add_marker(pytest.mark.browser)
        if path.parts[0] == "load":
            item.add_marker(pytest.mark.load)
        callspec = getattr(item, "callspec", None)
        if callspec and "postgresql" in callspec.params.values():
            item.add_marker(pytest.mark.postgres)
        if {path.as_posix(), f"{path.as_posix()}::{item.originalname}"} & SLOW:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(params=BACKENDS)
def database_url(request, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file, or (when CI starts one) a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'curso.db'}"
        return
    url = create_postgres_database()
    yield url
    drop_postgres_database(url)


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return make_settings(tmp_path, database_url=database_url)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def live_server(tmp_path_factory) -> Iterator[LiveServer]:
    """One uvicorn for every browser test (each test uses its own browser context)."""
    server = LiveServer(tmp_path_factory.mktemp("live"), REPO_LESSONS)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Drive Debian's Chromium; Playwright's own browser download is not available here."""
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": CHROMIUM_ARGS,
        "headless": True,
    }


@pytest.fixture
def new_page(browser):
    """Open pages in fresh Chromium contexts (pt-BR), all closed after the test.

    ``new_page(width=1280, height=900, javascript=True, **context_options)`` returns a page.
    """
    contexts = []

    def make(width: int = 1280, height: int = 900, javascript: bool = True, **options):
        context = browser.new_context(
            viewport={"width": width, "height": height},
            locale="pt-BR",
            java_script_enabled=javascript,
            **options,
        )
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Folder for screenshots (ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
