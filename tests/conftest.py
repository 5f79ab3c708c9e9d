"""Shared fixtures: a migrated temporary SQLite file per test, apps, a live uvicorn, Chromium."""

from __future__ import annotations

import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.platform.migrate import upgrade
from app.platform.settings import PROJECT_ROOT, Settings

REPO_LESSONS = PROJECT_ROOT / "lessons"
ARTIFACTS = PROJECT_ROOT / "test-artifacts"
TEST_SECRET = "chave-de-teste-" + "x" * 40
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


POSTGRES_URL = os.environ.get("CURSO_TEST_POSTGRES_URL", "")
BACKENDS = ["sqlite", *(["postgresql"] if POSTGRES_URL else [])]


def create_postgres_database() -> str:
    """Create an empty database on the test PostgreSQL server and return its URL."""
    import psycopg

    name = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(POSTGRES_URL.replace("+psycopg", ""), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"


def drop_postgres_database(url: str) -> None:
    """Drop a database made by :func:`create_postgres_database`, closing its connections."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(POSTGRES_URL.replace("+psycopg", ""), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=BACKENDS)
def database_url(request, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file, or (when CI starts one) a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'curso.db'}"
        return
    url = create_postgres_database()
    yield url
    drop_postgres_database(url)


def make_settings(
    tmp: Path, lessons_dir: Path = REPO_LESSONS, database_url: str | None = None
) -> Settings:
    """Settings for a migrated database (a SQLite file under ``tmp`` by default)."""
    settings = Settings(
        database_url=database_url or f"sqlite:///{tmp / 'curso.db'}",
        lessons_dir=lessons_dir,
        var_dir=tmp / "var",
        secret_key=TEST_SECRET,
        reload_interval=0,
    )
    upgrade(settings.database_url)
    return settings


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return make_settings(tmp_path, database_url=database_url)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def csrf_from(html: str) -> str:
    """The CSRF token a page hands to its forms."""
    match = re.search(r'name="csrftoken" value="([^"]+)"', html) or re.search(
        r'"x-csrftoken": "([^"]+)"', html
    )
    assert match, "a página não trouxe o token CSRF"
    return match.group(1)


def db_rows(settings: Settings, sql: str, *args) -> list[tuple]:
    """Run one SQL statement (``?`` placeholders) on the test database and return its rows."""
    parts = sql.split("?")
    named = "".join(part + (f":p{i}" if i < len(parts) - 1 else "") for i, part in enumerate(parts))
    return query(settings, named, **{f"p{i}": arg for i, arg in enumerate(args)})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LiveServer:
    """A real uvicorn process serving a temporary database and lessons folder."""

    tmp: Path
    lessons_dir: Path
    port: int = 0
    process: subprocess.Popen | None = None
    database_url: str = ""
    workers: int = 1

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def database(self) -> Path:
        return self.tmp / "curso.db"

    @property
    def log_path(self) -> Path:
        return self.tmp / f"uvicorn-{self.port}.log"

    @property
    def settings(self) -> Settings:
        return Settings(
            database_url=self.database_url or f"sqlite:///{self.database}",
            lessons_dir=self.lessons_dir,
            var_dir=self.tmp / "var",
            secret_key=TEST_SECRET,
        )

    def start(self) -> None:
        make_settings(self.tmp, self.lessons_dir, database_url=self.database_url or None)
        self.port = free_port()
        env = {
            **os.environ,
            "CURSO_DATABASE_URL": self.settings.database_url,
            "CURSO_LESSONS_DIR": str(self.lessons_dir),
            "CURSO_VAR_DIR": str(self.tmp / "var"),
            "CURSO_SECRET_KEY": TEST_SECRET,
        }
        log = open(self.log_path, "w")  # noqa: SIM115 (kept open for the process)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "app.main:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                str(self.workers),
                "--no-access-log",
            ],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a test can kill -9 it whole
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("uvicorn não respondeu em 60 s")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self) -> None:
        """``kill -9`` the server and its workers at once, as a crash would."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


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


def query(settings: Settings, sql: str, **params) -> list[tuple]:
    """Rows of ``sql`` run against the test database, whatever its backend."""
    from sqlalchemy import text

    from app.platform.db import make_engine

    engine = make_engine(settings.database_url)
    try:
        with engine.begin() as connection:
            result = connection.execute(text(sql), params)
            return [tuple(row) for row in result] if result.returns_rows else []
    finally:
        engine.dispose()
