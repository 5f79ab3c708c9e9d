"""Migrations keep answers: every revision walks down and up on a seeded database.

Issue 12, item 1: Alembic's SQLite batch mode rebuilds a table (create, copy, DROP, rename);
with foreign keys on, dropping ``learner`` cascaded into ``attempt`` and emptied it.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sqlite3
import subprocess
import sys

import pytest
import sqlalchemy as sa
from alembic.migration import MigrationContext
from alembic.operations import Operations
from alembic.script import ScriptDirectory
from sqlmodel import SQLModel

import app.platform.models  # noqa: F401  (registers the tables)
from app.content.course import load_course
from app.learning.mastery import concept_tags
from app.platform.db import (
    ForeignKeyViolation,
    check_foreign_keys,
    make_engine,
    make_migration_engine,
)
from app.platform.migrate import alembic_config, downgrade, upgrade
from app.platform.settings import PROJECT_ROOT, Settings

FIRST_REVISION = "a9155d2f459b"
ROWS = {"learner": 43, "attempt": 233}  # the reproducer
DEFAULT_ROWS = 17


def _value(column: sa.Column, index: int):
    """A value for ``column`` in row ``index``: unique per row, within the column's length."""
    kind = column.type
    while isinstance(kind, sa.TypeDecorator):  # SQLModel's AutoString, UTCDateTime
        kind = kind.impl_instance
    if isinstance(kind, sa.Boolean):
        return index % 2 == 0
    if isinstance(kind, sa.Integer):
        return index + 1
    if isinstance(kind, sa.Float | sa.Numeric):
        return 1_000_000.0 + index
    if isinstance(kind, sa.DateTime):
        return dt.datetime(2026, 11, 1, tzinfo=dt.UTC) + dt.timedelta(minutes=index)
    if isinstance(kind, sa.String):
        text = f"{column.name[:8]}-{index}"
        length = kind.length or getattr(column.type, "length", None)
        return text[:length] if length else text
    raise AssertionError(f"the seeder does not know the type of {column.table.name}.{column.name}")


def seed_every_table(url: str) -> dict[str, int]:
    """Fill every table of the models (parents first) and return the row count of each (with
    the rows a migration put there already, such as migration 0014's concept tags).

    Built from ``SQLModel.metadata``, so a table added later is seeded without editing this.
    """
    engine = make_engine(url)
    counts: dict[str, int] = {}
    keys: dict[str, list] = {}
    with engine.begin() as connection:
        for table in SQLModel.metadata.sorted_tables:
            count = ROWS.get(table.name, DEFAULT_ROWS)
            rows = []
            for index in range(count):
                row = {}
                for column in table.columns:
                    # An integer primary key is the database's to number, unless it is also
                    # a foreign key (a link table's composite key, such as class_member).
                    if not column.foreign_keys and (
                        column.primary_key
                        and column.autoincrement is True
                        or (column.primary_key and isinstance(column.type, sa.Integer))
                    ):
                        continue
                    foreign = next(iter(column.foreign_keys), None)
                    if foreign is not None:
                        parents = keys[foreign.column.table.name]
                        row[column.name] = parents[index % len(parents)]
                    else:
                        row[column.name] = _value(column, index)
                rows.append(row)
            connection.execute(table.insert(), rows)
            primary = list(table.primary_key.columns)[0]
            keys[table.name] = list(connection.execute(sa.select(primary)).scalars())
            counts[table.name] = connection.execute(
                sa.select(sa.func.count()).select_from(table)
            ).scalar_one()
    engine.dispose()
    return counts


def table_counts(url: str) -> dict[str, int]:
    """Row count of every table in the database, ``alembic_version`` left out."""
    engine = make_engine(url)
    with engine.connect() as connection:
        names = [n for n in sa.inspect(connection).get_table_names() if n != "alembic_version"]
        counts = {
            name: connection.execute(sa.text(f'SELECT count(*) FROM "{name}"')).scalar_one()
            for name in names
        }
    engine.dispose()
    return counts


def assert_sqlite_intact(url: str) -> None:
    """``integrity_check`` says ok and ``foreign_key_check`` finds nothing (SQLite only)."""
    if not url.startswith("sqlite"):
        return
    with sqlite3.connect(url.removeprefix("sqlite:///")) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []


def revisions_newest_first(url: str) -> list[str]:
    """Every revision id from head down to the first."""
    script = ScriptDirectory.from_config(alembic_config(url))
    return [revision.revision for revision in script.walk_revisions()]


def test_downgrade_to_the_first_revision_keeps_every_answer(database_url):
    upgrade(database_url)
    seed_every_table(database_url)
    downgrade(database_url, FIRST_REVISION)
    assert table_counts(database_url) == {"learner": 43, "attempt": 233}
    assert_sqlite_intact(database_url)
    upgrade(database_url)
    counts = table_counts(database_url)
    assert (counts["learner"], counts["attempt"]) == (43, 233)
    assert_sqlite_intact(database_url)


def test_every_revision_walks_down_and_up_keeping_rows(database_url):
    upgrade(database_url)
    seeded = seed_every_table(database_url)
    assert table_counts(database_url) == seeded
    revisions = revisions_newest_first(database_url)
    before = table_counts(database_url)
    for target in revisions[1:]:
        downgrade(database_url, target)
        after = table_counts(database_url)
        # A step down drops the tables its revision made; every other table keeps its rows.
        assert after == {name: before[name] for name in after}, f"down to {target}"
        assert_sqlite_intact(database_url)
        before = after
    for target in reversed(revisions[:-1]):
        upgrade(database_url, target)
        after = table_counts(database_url)
        remade = {name: count(database_url) for name, count in REMADE.get(target, {}).items()}
        before |= {name: remade[name] for name in remade if name in before}
        assert {name: after[name] for name in before} == before, f"up to {target}"
        assert_sqlite_intact(database_url)
        before = after
    # Back at head, the tables that lived through the walk hold every row they were seeded with.
    final = table_counts(database_url)
    assert final["learner"] == 43 and final["attempt"] == 233


def replayed_cards(url: str) -> int:
    """How many review cards migration 0011 makes: one per learner × question answered."""
    engine = make_engine(url)
    with engine.connect() as connection:
        keys = sa.text(
            "SELECT count(*) FROM (SELECT DISTINCT a.learner_id, a.lesson_slug, a.question_id "
            "FROM attempt a JOIN learner l ON l.id = a.learner_id) AS k"
        )
        count = connection.execute(keys).scalar_one()
    engine.dispose()
    return count


def _count(url: str, query: str) -> int:
    engine = make_engine(url)
    with engine.connect() as connection:
        count = connection.execute(sa.text(query)).scalar_one()
    engine.dispose()
    return count


TAGGED = (
    "FROM attempt a JOIN learner l ON l.id = a.learner_id JOIN mastery_tag t "
    "ON t.lesson_slug = a.lesson_slug AND t.question_id = a.question_id"
)


def mastery_tags(url: str) -> int:
    """How many concept tags migration 0014 keeps: the lessons folder's."""
    return sum(len(found) for found in concept_tags(load_course(Settings().lessons_dir)).values())


def mastery_pairs(url: str) -> int:
    """How many ``kept_mastery`` rows migration 0014 makes: learner × concept answered."""
    return _count(url, f"SELECT count(*) FROM (SELECT DISTINCT a.learner_id, t.concept {TAGGED}) k")


def mastery_concepts(url: str) -> int:
    """How many ``mastery_tally`` rows migration 0014 makes: concepts answered."""
    return _count(url, f"SELECT count(DISTINCT t.concept) {TAGGED}")


# Data migrations that make a table again from the others: revision -> table -> its row count.
REMADE = {
    "0011": {"review_card": replayed_cards},
    "0014": {
        "mastery_tag": mastery_tags,
        "kept_mastery": mastery_pairs,
        "mastery_tally": mastery_concepts,
    },
}


def _parents() -> list[str]:
    return sorted(
        {fk.column.table.name for t in SQLModel.metadata.tables.values() for fk in t.foreign_keys}
    )


@pytest.mark.parametrize("parent", _parents())
def test_a_batch_rebuild_of_a_parent_table_keeps_its_children(tmp_path, parent):
    url = f"sqlite:///{tmp_path / 'curso.db'}"
    upgrade(url)
    seeded = seed_every_table(url)
    engine = make_migration_engine(url)  # the engine migrations/env.py migrates through
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"render_as_batch": True})
        with connection.begin():
            # The shape of a future migration: SQLite cannot drop a column in place.
            with Operations(context).batch_alter_table(parent, recreate="always") as batch:
                batch.add_column(sa.Column("tmp_col", sa.Integer(), nullable=True))
            with Operations(context).batch_alter_table(parent, recreate="always") as batch:
                batch.drop_column("tmp_col")
            check_foreign_keys(connection)
    engine.dispose()
    assert table_counts(url) == seeded
    assert_sqlite_intact(url)


def test_a_migration_run_that_finds_orphan_rows_rolls_back_whole(tmp_path):
    url = f"sqlite:///{tmp_path / 'curso.db'}"
    upgrade(url, FIRST_REVISION)
    with sqlite3.connect(tmp_path / "curso.db") as connection:  # foreign keys off by default
        connection.execute(
            "INSERT INTO attempt (learner_id, lesson_slug, question_id, chosen, correct, "
            "created_at) VALUES ('fantasma', 'l', 'q', 'a', 1, '2026-11-01 00:00:00')"
        )
    with pytest.raises(ForeignKeyViolation) as caught:
        upgrade(url)
    assert str(caught.value) == "1 foreign key violation(s): attempt rowid 1 -> learner"
    with sqlite3.connect(tmp_path / "curso.db") as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (FIRST_REVISION,)
        ]
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        assert "account" not in tables and "walk" not in tables  # 0002 rolled back whole


def test_the_app_engine_keeps_foreign_keys_on_and_migrations_turn_them_off(tmp_path):
    url = f"sqlite:///{tmp_path / 'curso.db'}"
    for make, expected in ((make_engine, 1), (make_migration_engine, 0)):
        engine = make(url)
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == expected
        engine.dispose()


def _curso_migrate(tmp_path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "CURSO_DATABASE_URL": f"sqlite:///{tmp_path / 'curso.db'}",
        "CURSO_VAR_DIR": str(tmp_path / "var"),
        "CURSO_SECRET_KEY": "k" * 48,
    }
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=PROJECT_ROOT,
    )


def test_curso_migrate_backs_up_a_database_with_data_before_changing_its_schema(tmp_path):
    url = f"sqlite:///{tmp_path / 'curso.db'}"
    upgrade(url)
    seed_every_table(url)
    downgrade(url, FIRST_REVISION)
    result = _curso_migrate(tmp_path)
    assert result.returncode == 0, result.stderr
    copies = list((tmp_path / "var" / "backups").iterdir())
    assert len(copies) == 1
    head = revisions_newest_first(url)[0]
    assert re.fullmatch(rf"curso-\d{{8}}-\d{{6}}-antes-de-{head[:12]}\.db", copies[0].name)
    assert result.stdout.splitlines() == [
        f"Cópia de segurança do banco antes de migrar: {copies[0]}",
        "Banco de dados atualizado.",
    ]
    with sqlite3.connect(copies[0]) as copy:  # the copy is the database as it was
        assert copy.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (FIRST_REVISION,)
        ]
        assert copy.execute("SELECT count(*) FROM attempt").fetchone() == (233,)
    assert table_counts(url)["attempt"] == 233


def test_curso_migrate_makes_no_copy_of_a_new_or_current_database(tmp_path):
    for _ in range(2):  # first run: no file yet; second run: nothing pending
        result = _curso_migrate(tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines() == ["Banco de dados atualizado."]
    assert not (tmp_path / "var" / "backups").exists()
