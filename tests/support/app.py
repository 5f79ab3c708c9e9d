"""Settings and databases for tests: the repository's lessons, a migrated SQLite file or PostgreSQL
database per test, and SQL straight against it."""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import sqlite3
import tempfile
from contextlib import closing
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


def create_postgres_database(template: str = "template1") -> str:
    """Create a database on the test PostgreSQL server (a copy of ``template``); return its URL."""
    import psycopg

    name = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(POSTGRES_URL.replace("+psycopg", ""), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"


def drop_postgres_database(url: str) -> None:
    """Drop a database made by :func:`create_postgres_database`, closing its connections."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(POSTGRES_URL.replace("+psycopg", ""), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class PostgresDatabases:
    """Migrated PostgreSQL databases handed to one test at a time, emptied and reused.

    Creating a database and running every migration on it took 0.5 to 1.5 s per test; a
    database given back is emptied instead (``DELETE``, its sequences set back; a few ms)
    and given the rows the migrations wrote (0014 tags the questions of the repository's
    lessons), which leaves it as a fresh migrated one. One whose schema a test changed (a
    downgrade, a table of its own) is dropped, and a new one is copied from a template
    migrated once per process. One pool per test process (xdist worker): databases are
    never shared between processes.
    """

    def __init__(self) -> None:
        self._template = ""
        self._tables: frozenset[str] = frozenset()
        self._head = ""
        self._rows: dict[str, tuple[list[str], list[tuple]]] = {}
        self._sequences: dict[str, int | None] = {}
        self._free: list[str] = []
        self._all: list[str] = []

    def take(self) -> str:
        """The URL of an empty migrated database, for this test alone."""
        if self._free:
            return self._free.pop()
        if not self._template:
            self._template = create_postgres_database()
            upgrade(self._template)
            self._tables, self._head = _schema(self._template)
            self._rows = _migrated_rows(self._template, self._tables - {"alembic_version"})
            self._sequences = _sequences(self._template)
            _close_connections(self._template)
            self._all.append(self._template)
        url = create_postgres_database(template=self._template.rsplit("/", 1)[1])
        self._all.append(url)
        return url

    def give_back(self, url: str) -> None:
        """Empty the database for the next test, or drop it if its schema changed."""
        _close_connections(url)
        if not self.empty(url):
            self._all.remove(url)
            drop_postgres_database(url)
            return
        self._free.append(url)

    def empty(self, url: str) -> bool:
        """Leave a database of the pool as a fresh migrated one, or return ``False`` (and leave
        it as it is) when its schema is not the migrations' any more.

        Its open connections stay (a shared app's): a row one of them holds locked fails
        the reset after 10 s rather than waiting for ever.
        """
        if _schema(url) != (self._tables, self._head):
            return False
        import psycopg

        with psycopg.connect(url.replace("+psycopg", "")) as connection:
            connection.execute("SET lock_timeout = '10s'")
            # DELETE, not TRUNCATE: on tables of a few rows it is several times faster (TRUNCATE
            # makes new files for every table and index). Without the foreign-key triggers
            # (replica role) the order of the tables does not matter.
            connection.execute("SET session_replication_role = replica")
            for name in sorted(self._tables - {"alembic_version"}):
                connection.execute(f'DELETE FROM "{name}"')
            for sequence, last in self._sequences.items():
                connection.execute(
                    "SELECT setval(%s, %s, %s)", (sequence, last or 1, last is not None)
                )
            for table, (columns, rows) in self._rows.items():
                names = ", ".join(f'"{column}"' for column in columns)
                marks = ", ".join(["%s"] * len(columns))
                with connection.cursor() as cursor:
                    cursor.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', rows)
        return True

    def close(self) -> None:
        """Drop every database of the pool."""
        for url in self._all:
            drop_postgres_database(url)
        self._all.clear()
        self._free.clear()


def _schema(url: str) -> tuple[frozenset[str], str]:
    """The tables of the public schema and the Alembic revision of a database."""
    import psycopg

    with psycopg.connect(url.replace("+psycopg", "")) as connection:
        tables = frozenset(
            row[0]
            for row in connection.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            )
        )
        head = ""
        if "alembic_version" in tables:
            row = connection.execute("SELECT string_agg(version_num, ',') FROM alembic_version")
            head = row.fetchone()[0] or ""
    return tables, head


def _migrated_rows(url: str, tables: frozenset[str]) -> dict[str, tuple[list[str], list[tuple]]]:
    """The rows the migrations wrote, by table: its column names and rows."""
    import psycopg

    found = {}
    with psycopg.connect(url.replace("+psycopg", "")) as connection:
        for table in sorted(tables):
            cursor = connection.execute(f'SELECT * FROM "{table}"')
            rows = cursor.fetchall()
            if rows:
                found[table] = ([column.name for column in cursor.description], rows)
    return found


def _sequences(url: str) -> dict[str, int | None]:
    """Each sequence of the public schema and its last value (``None`` when never used)."""
    import psycopg

    with psycopg.connect(url.replace("+psycopg", "")) as connection:
        rows = connection.execute(
            "SELECT quote_ident(sequencename), last_value FROM pg_sequences"
            " WHERE schemaname = 'public'"
        )
        return dict(rows.fetchall())


def _close_connections(url: str) -> None:
    """End the connections a test left open on a database (an engine it did not dispose)."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(POSTGRES_URL.replace("+psycopg", ""), autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            (name,),
        )


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


@cache
def _migrated_sqlite_contents() -> tuple[frozenset[str], dict[str, tuple[str, list[tuple]]]]:
    """The schema (every ``CREATE`` and the Alembic revision) of :func:`migrated_sqlite`, and
    the rows its migrations wrote by table: an ``INSERT`` and its rows."""
    with closing(sqlite3.connect(migrated_sqlite())) as connection:
        rows = {}
        for table in _sqlite_tables(connection):
            cursor = connection.execute(f'SELECT * FROM "{table}" ORDER BY rowid')
            found = cursor.fetchall()
            if found and table != "alembic_version":
                marks = ", ".join(["?"] * len(cursor.description))
                rows[table] = (f'INSERT INTO "{table}" VALUES ({marks})', found)
        return _sqlite_schema(connection), rows


def _sqlite_tables(connection: sqlite3.Connection) -> list[str]:
    return [
        name
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]


def _sqlite_schema(connection: sqlite3.Connection) -> frozenset[str]:
    schema = {sql for (sql,) in connection.execute("SELECT sql FROM sqlite_schema") if sql}
    if "alembic_version" in _sqlite_tables(connection):
        heads = connection.execute("SELECT version_num FROM alembic_version")
        schema |= {head for (head,) in heads}
    return frozenset(schema)


def empty_sqlite(url: str) -> bool:
    """Leave a SQLite database as a copy of :func:`migrated_sqlite` (every table emptied, the
    migrations' rows written again), in one write transaction beside the connections open on
    it; or return ``False`` (and leave it as it is) when its schema is not the migrations'."""
    schema, rows = _migrated_sqlite_contents()
    with closing(sqlite3.connect(url.removeprefix("sqlite:///"), timeout=10)) as connection:
        if _sqlite_schema(connection) != schema:
            return False
        connection.execute("BEGIN IMMEDIATE")
        for table in _sqlite_tables(connection):
            if table != "alembic_version":
                connection.execute(f'DELETE FROM "{table}"')
        for insert, values in rows.values():
            connection.executemany(insert, values)
        connection.commit()
    return True


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


def table_names(settings: Settings) -> set[str]:
    """The tables of the test database (Alembic's own included)."""
    from sqlalchemy import inspect

    from app.platform.db import make_engine

    engine = make_engine(settings.database_url)
    try:
        return set(inspect(engine).get_table_names())
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
