"""Only Alembic makes tables, and the migrated schema matches the models."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

import app.platform.models  # noqa: F401
from app.platform.db import make_engine
from app.platform.migrate import downgrade, upgrade
from tests.support.app import make_settings


def test_migrated_schema_matches_models(settings):
    engine = make_engine(settings.database_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, SQLModel.metadata) == []
    engine.dispose()


def test_downgrade_to_base_and_back(settings):
    downgrade(settings.database_url, "base")
    engine = make_engine(settings.database_url)
    assert set(inspect(engine).get_table_names()) == {"alembic_version"}
    engine.dispose()
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    assert {"learner", "attempt", "walk"} <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_sqlite_runs_in_wal_with_foreign_keys_and_busy_timeout(tmp_path):
    settings = make_settings(tmp_path)
    engine = make_engine(settings.database_url)
    with engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert connection.execute(text("PRAGMA busy_timeout")).scalar() == 15000
        assert connection.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL


def test_downgrading_the_editor_and_classes_and_upgrading_again_keeps_the_learners_data(settings):
    from tests.support.app import query

    query(
        settings,
        "INSERT INTO learner (id, created_at) VALUES (:id, CURRENT_TIMESTAMP)",
        id="a" * 32,
    )
    query(
        settings,
        "INSERT INTO account (learner_id, username, password_hash, created_at, is_instructor, "
        "is_admin)"
        " VALUES (:id, 'prof', 'x', CURRENT_TIMESTAMP, true, true)",
        id="a" * 32,
    )
    query(
        settings,
        "INSERT INTO attempt (learner_id, lesson_slug, question_id, question_hash, chosen, correct,"
        " created_at) VALUES (:id, 'kernels', 'q', '', 'b', true, CURRENT_TIMESTAMP)",
        id="a" * 32,
    )
    query(
        settings,
        "INSERT INTO lesson_revision (file_name, lesson_slug, text, content_hash, origin, "
        "account_id,"
        " created_at) VALUES ('01.md', 'kernels', 'texto', 'h', 'editor', 1, CURRENT_TIMESTAMP)",
    )
    downgrade(settings.database_url, "491a9dde4b96")
    engine = make_engine(settings.database_url)
    assert "lesson_revision" not in inspect(engine).get_table_names()
    engine.dispose()
    upgrade(settings.database_url)
    assert query(settings, "SELECT username, is_instructor, is_admin FROM account") == [
        ("prof", True, False)
    ]
    assert query(settings, "SELECT count(*) FROM attempt") == [(1,)]
    assert query(settings, "SELECT count(*) FROM lesson_revision") == [(0,)]


def test_the_lesson_renames_migration_walks_down_and_up_keeping_the_editors_data(settings):
    from tests.support.app import query

    query(
        settings,
        "INSERT INTO lesson_revision (file_name, lesson_slug, text, content_hash, origin,"
        " created_at) VALUES ('09.md', 'nova', 'texto', 'h', 'editor', CURRENT_TIMESTAMP)",
    )
    query(
        settings,
        "INSERT INTO lesson_rename (old_slug, new_slug, file_name, revision_id, learners,"
        " created_at) VALUES ('velha', 'nova', '09.md', 1, 3, CURRENT_TIMESTAMP)",
    )
    downgrade(settings.database_url, "0009")
    engine = make_engine(settings.database_url)
    assert "lesson_rename" not in inspect(engine).get_table_names()
    engine.dispose()
    assert query(settings, "SELECT lesson_slug FROM lesson_revision") == [("nova",)]
    upgrade(settings.database_url)
    assert query(settings, "SELECT count(*) FROM lesson_rename") == [(0,)]
    query(
        settings,
        "INSERT INTO lesson_rename (old_slug, new_slug, file_name, revision_id, learners,"
        " created_at) VALUES ('velha', 'nova', '09.md', 1, 3, CURRENT_TIMESTAMP)",
    )
    query(settings, "DELETE FROM lesson_revision")  # the rename outlives its revision
    assert query(settings, "SELECT old_slug, new_slug, revision_id FROM lesson_rename") == [
        ("velha", "nova", None)
    ]
