"""Shared fixtures: a migrated temporary SQLite file per test, apps, a live uvicorn, Chromium.

A test whose ``client`` is the default app shares one app per backend and process, reset
between tests (``shared_app``, tests/support/shared_app.py); a test marked ``own_app``, or
whose module gives ``settings``, ``database_url`` or ``client`` of its own, gets a new app.

Markers are set here, from where a test lives and what it uses (``make test-fast`` skips them):
``browser`` (Chromium), ``load`` (tests/load), ``postgres`` (the PostgreSQL half of a test run
on both databases) and ``slow`` (tests/support/markers.py).
Helpers shared by test modules live in tests/support.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.dependencies import models as fastapi_dependency_models
from fastapi.testclient import TestClient
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from app.main import create_app
from app.platform import auth
from app.platform.settings import Settings
from app.web import templating
from tests.support.app import (
    ARTIFACTS,
    BACKENDS,
    POSTGRES_URL,
    REPO_LESSONS,
    PostgresDatabases,
    SharedCodeTemplates,
    create_postgres_database,
    drop_postgres_database,
    make_settings,
)
from tests.support.markers import BROWSER_FIXTURES, READ_ONLY, SLOW
from tests.support.server import CHROMIUM_ARGS, LiveServer
from tests.support.shared_app import SharedApp, SharedApps
from tests.support.visitor import ReadOnlyClient

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
        names = {path.as_posix(), f"{path.as_posix()}::{item.originalname}"}
        if names & SLOW:
            item.add_marker(pytest.mark.slow)
        if names & READ_ONLY:
            item.add_marker(pytest.mark.read_only)
        if _takes_the_default_app(item) and not names & REAL_PASSWORD_COST:
            item.add_marker(pytest.mark.shared_app)


def _takes_the_default_app(item: pytest.Item) -> bool:
    """Its ``client`` is this file's, on this file's ``settings`` and ``database_url``, and it
    is not marked ``own_app``."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None or "client" not in info.names_closure or item.get_closest_marker("own_app"):
        return False
    ours = {"client": client, "settings": settings, "database_url": database_url}
    return all(
        fixture.func is ours[name]._get_wrapped_function()
        for name in ours
        for fixture in info.name2fixturedefs.get(name, ())[-1:]
    )


def pytest_configure(config: pytest.Config) -> None:
    # A test process builds hundreds of apps, each a web of reference cycles (routes, course,
    # templates) freed only by a full collection, which walks every live object. With Python's
    # default thresholds (700, 10, 10) a test-fast worker spent 16 of its 107 s in full
    # collections; collecting the youngest objects every 20,000 allocations instead of 700
    # makes those 20 times rarer (1.2 s), and young collections stay cheap.
    gc.set_threshold(20_000, 10, 10)
    config.addinivalue_line(
        "markers", "read_only: its client refuses to write (tests/support/markers.py)"
    )
    config.addinivalue_line(
        "markers", "shared_app: its client, settings and database are the shared app's (set here)"
    )
    config.addinivalue_line(
        "markers",
        "own_app: its client is a new app, for a test that changes what an app is built from",
    )


@pytest.fixture(scope="session", autouse=True)
def shared_template_code() -> Iterator[None]:
    """Every app of this test process compiles each template once (see SharedTemplateCode)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(templating, "Jinja2Templates", SharedCodeTemplates)
        yield


# FastAPI keeps what it learnt of each endpoint in three LRU caches of 4,096 entries
# (fastapi/dependencies/models.py), keyed by the endpoint: a test process that builds hundreds
# of apps kept the last few dozen alive, with their courses, and the garbage collector spent
# 15 of a test-fast worker's 107 s walking 2.3 million live objects. Production builds one app.
FASTAPI_ENDPOINT_CACHES = [
    cached
    for name, cached in vars(fastapi_dependency_models).items()
    if name.startswith("_is_") and name.endswith("_cached") and hasattr(cached, "cache_clear")
]


@pytest.fixture(autouse=True)
def forget_finished_apps() -> Iterator[None]:
    """Let the apps a test built be freed when it ends (see FASTAPI_ENDPOINT_CACHES)."""
    yield
    for cached in FASTAPI_ENDPOINT_CACHES:
        cached.cache_clear()


# Argon2 at the app's cost (OWASP's 19 MiB, 2 iterations) takes ~25 ms of CPU per hash or check
# here, and a hundred tests sign up or in. Apps hash with the same algorithm at the lowest cost
# (what is stored and checked is the same), but for the tests of when a stored hash is
# replaced: pwdlib replaces a hash made with other parameters than its own, so there the cost
# must be the real one.
REAL_PASSWORD_COST = {
    "test_passwords.py::test_a_hash_from_before_normalisation_still_signs_in_and_is_rehashed",
    "test_passwords.py::test_a_current_hash_is_not_rewritten_at_sign_in",
    "test_passwords.py::test_a_hash_with_the_old_argon2_cost_is_rewritten_with_owasps",
}


@pytest.fixture(autouse=True)
def cheap_password_hashing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make :class:`app.platform.auth.Passwords` hash with argon2 at its lowest cost."""
    if f"{request.path.name}::{request.node.originalname}" in REAL_PASSWORD_COST:
        return
    cheap = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
    monkeypatch.setattr(auth, "argon2_hasher", lambda: cheap)


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """``sqlite``, and ``postgresql`` when CI starts one: each test with a database runs on both."""
    return request.param


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[PostgresDatabases]:
    """This process's pool of migrated PostgreSQL databases (see PostgresDatabases)."""
    databases = PostgresDatabases()
    yield databases
    databases.close()


@pytest.fixture
def database_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """The test's own database: a SQLite file not made yet (``make_settings`` and ``upgrade``
    make it), or an empty migrated PostgreSQL database (when CI starts one), emptied after.
    A ``shared_app`` test's is the shared app's, as fresh (see tests/support/shared_app.py)."""
    if request.node.get_closest_marker("shared_app"):
        yield request.getfixturevalue("shared_app").settings.database_url
        return
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'curso.db'}"
        return
    databases = request.getfixturevalue("postgres_databases")
    url = databases.take()
    yield url
    databases.give_back(url)


@pytest.fixture
def empty_database_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database with no table at all, for tests that migrate it step by step themselves."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'curso.db'}"
        return
    url = create_postgres_database()
    yield url
    drop_postgres_database(url)


@pytest.fixture
def settings(tmp_path: Path, database_url: str, request: pytest.FixtureRequest) -> Settings:
    if request.node.get_closest_marker("shared_app"):
        return request.getfixturevalue("shared_app").settings
    return make_settings(tmp_path, database_url=database_url)


@pytest.fixture
def client(request: pytest.FixtureRequest, settings: Settings) -> Iterator[TestClient]:
    """A client of a new app on the test's own database: a new ``TestClient`` of the shared
    app for a ``shared_app`` test (see tests/support/shared_app.py), one that refuses to write
    for a test in ``READ_ONLY`` (tests/support/markers.py)."""
    marked = request.node.get_closest_marker
    app = request.getfixturevalue("shared_app").app if marked("shared_app") else None
    kind = ReadOnlyClient if marked("read_only") else TestClient
    with kind(app or create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def shared_apps(tmp_path_factory, request: pytest.FixtureRequest) -> Iterator[SharedApps]:
    """This process's shared app of each backend (see tests/support/shared_app.py)."""
    postgres = request.getfixturevalue("postgres_databases") if POSTGRES_URL else None
    apps = SharedApps(tmp_path_factory.mktemp, postgres)
    yield apps
    apps.close()


@pytest.fixture
def shared_app(shared_apps: SharedApps, backend: str) -> Iterator[SharedApp]:
    """The shared app of the test's backend, reset when the test ends."""
    with shared_apps.for_one_test(backend) as shared:
        yield shared


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
