"""Shared fixtures: a migrated temporary SQLite file per test, apps, a live uvicorn, Chromium.

Markers are set here, from where a test lives and what it uses (``make test-fast`` skips them):
``browser`` (Chromium), ``load`` (tests/load), ``postgres`` (the PostgreSQL half of a test run
on both databases) and ``slow`` (the ones in :data:`SLOW`).
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
from tests.support.server import CHROMIUM_ARGS, LiveServer

TESTS = Path(__file__).parent
# Fixtures of pytest-playwright and ours that start Chromium.
BROWSER_FIXTURES = {"browser", "browser_context_args", "context", "page", "new_page"}
# Tests that take seconds each on two cores (``--durations``): a module, or a module and a
# test name without its parameters. ``make test`` runs them; ``make test-fast`` leaves them out.
SLOW = {
    "test_accounts.py::test_the_limit_holds_across_two_real_uvicorn_workers",
    "test_accounts.py::test_the_limit_is_shared_by_every_worker",
    "test_api_fuzz.py",  # schemathesis over every API operation
    "test_check.py::test_crlf_and_bom_files_check_exactly_like_lf",
    "test_check.py::test_nova_creates_a_lesson_that_passes_the_check_with_a_unique_slug",
    "test_cli.py::test_arvore_walks_as_a_real_process",
    "test_dashboard.py::test_ten_thousand_learners_are_counted_by_the_database_not_in_python",
    "test_fuzz.py",  # hypothesis, 200 to 300 lessons a test
    "test_history_restore.py::test_every_pushed_or_replaced_url_restores_as_a_full_page",
    "test_i18n.py::test_every_problem_curso_check_reports_is_a_catalog_text",
    "test_lazy_imports.py",  # cold starts of new interpreters
    "test_live.py::test_hot_reload_on_a_live_server_good_broken_good",
    "test_migration_data.py::test_curso_migrate_makes_no_copy_of_a_new_or_current_database",
    "test_ops.py::test_backup_of_a_live_database_and_restore",
    "test_passwords.py::test_any_text_hashed_in_one_form_verifies_in_another",
    "test_passwords.py::test_every_unicode_form_of_the_password_signs_in",
    "test_progress.py::test_a_lesson_is_done_when_every_question_was_right_at_least_once",
    "test_search.py::test_search_works_under_the_c_locale",
    "test_security_review.py::test_concurrent_failed_sign_ins_check_no_more_passwords_than_the_limit",
    "test_security_review.py::test_concurrent_instructor_requests_do_not_exhaust_the_pool",
    "test_xss.py::test_csp_forbids_inline_scripts",
}


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
