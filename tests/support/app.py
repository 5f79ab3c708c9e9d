"""Settings and databases for tests: the repository's lessons, a migrated SQLite file or PostgreSQL
database per test, and SQL straight against it."""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from fastapi.templating import Jinja2Templates

from app.platform.migrate import upgrade
from app.platform.settings import PROJECT_ROOT, Settings

REPO_LESSONS = PROJECT_ROOT / "lessons"


ARTIFACTS = PROJECT_ROOT / "test-artifacts"


TEST_SECRET = "chave-de-teste-" + "x" * 40


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


def make_settings(
    tmp: Path,
    lessons_dir: Path = REPO_LESSONS,
    database_url: str | None = None,
    shared_cache: bool = True,
) -> Settings:
    """Settings for a migrated database (a SQLite file under ``tmp`` by default).

    With ``shared_cache``, ``var/cache`` is a link to one folder for the whole run, so a
    lesson rendered by one test is read, not rendered again, by the next (about 0.2 s per
    app). Entries are keyed by the file's bytes and the rendering code, and written
    atomically, so tests with other lessons, or run in parallel, never see each other's.
    Tests of the cache itself pass ``shared_cache=False``.
    """
    if shared_cache:
        (tmp / "var").mkdir(parents=True, exist_ok=True)
        link = tmp / "var" / "cache"
        if not link.exists():
            link.symlink_to(shared_cache_folder(), target_is_directory=True)
    settings = Settings(
        database_url=database_url or f"sqlite:///{tmp / 'curso.db'}",
        lessons_dir=lessons_dir,
        var_dir=tmp / "var",
        secret_key=TEST_SECRET,
        reload_interval=0,
    )
    migrate(settings.database_url)
    return settings


def migrate(database_url: str) -> None:
    """Bring a database to the latest migration.

    A SQLite file that does not exist yet becomes a copy of one migrated once per test run
    (0.4 s of Alembic saved per test, the same schema and rows); others are upgraded.
    """
    path = database_url.removeprefix("sqlite:///")
    if path == database_url or Path(path).exists():
        upgrade(database_url)
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(migrated_sqlite(), path)


@cache
def shared_cache_folder() -> Path:
    """The disk cache every test app shares (see :func:`make_settings`), removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix="curso-cache-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


@cache
def migrated_sqlite() -> Path:
    """A SQLite file at the latest migration, removed when the test run ends."""
    folder = Path(tempfile.mkdtemp(prefix="curso-migrado-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    database = folder / "curso.db"
    upgrade(f"sqlite:///{database}")
    assert not database.with_name("curso.db-wal").exists(), "a conexão da migração ficou aberta"
    return database


class SharedTemplateCode(jinja2.BytecodeCache):
    """Compiled templates kept in memory for every app of this test process.

    Each ``create_app`` builds a new Jinja environment, and compiling the ~20 templates a test
    renders cost more than half of a test app's CPU. Jinja keys an entry by the template's
    name and file and checks the checksum of its source, so an edited template is compiled
    again; every test app's environment is made by ``make_templates``, the same way.
    """

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


SHARED_TEMPLATE_CODE = SharedTemplateCode()


class SharedCodeTemplates(Jinja2Templates):
    """``Jinja2Templates`` whose environment reads and stores :data:`SHARED_TEMPLATE_CODE`;
    tests/conftest.py puts it in place of the app's for the whole run."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.env.bytecode_cache = SHARED_TEMPLATE_CODE


def db_rows(settings: Settings, sql: str, *args) -> list[tuple]:
    """Run one SQL statement (``?`` placeholders) on the test database and return its rows."""
    parts = sql.split("?")
    named = "".join(part + (f":p{i}" if i < len(parts) - 1 else "") for i, part in enumerate(parts))
    return query(settings, named, **{f"p{i}": arg for i, arg in enumerate(args)})


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


def database_dump(settings: Settings) -> dict[str, list[str]]:
    """Every row of every table (Alembic's own included), each as the text of its columns.

    For asserting that nothing stored anywhere still holds a value (an erased username).
    """
    from sqlalchemy import MetaData

    from app.platform.db import make_engine

    engine = make_engine(settings.database_url)
    try:
        metadata = MetaData()
        metadata.reflect(engine)
        with engine.connect() as connection:
            return {
                name: [
                    " | ".join(str(value) for value in row)
                    for row in connection.execute(table.select())
                ]
                for name, table in metadata.tables.items()
            }
    finally:
        engine.dispose()
