"""Only Alembic makes tables, and the migrated schema matches the models."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlmodel import SQLModel

import app.platform.models  # noqa: F401
from app.platform.db import make_engine
from app.platform.migrate import downgrade, upgrade
from tests.support.app import make_settings, table_names


def test_migrated_schema_matches_models(settings):
    engine = make_engine(settings.database_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, SQLModel.metadata) == []
    engine.dispose()


def test_downgrade_to_base_and_back(settings):
    downgrade(settings.database_url, "base")
    assert table_names(settings) == {"alembic_version"}
    upgrade(settings.database_url)
    assert {"learner", "attempt", "walk"} <= table_names(settings)


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
    assert "lesson_revision" not in table_names(settings)
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
    assert "lesson_rename" not in table_names(settings)
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


def test_the_score_queue_migration_keeps_the_newest_score_per_column_and_learner(settings):
    from app.lti.launch import score_target
    from tests.support.app import query

    downgrade(settings.database_url, "0014")
    query(
        settings,
        "INSERT INTO lti_platform (id, issuer, client_id, auth_url, token_url, jwks_url,"
        " created_at) VALUES (1, 'https://lms', 'c', 'https://lms/a', 'https://lms/t',"
        " 'https://lms/j', CURRENT_TIMESTAMP)",
    )
    query(settings, "INSERT INTO learner (id, created_at) VALUES ('l1', CURRENT_TIMESTAMP)")
    rows = [  # (user, line item, score, created_at, status): two columns of u1, one of u2
        ("u1", "https://lms/items/1", 1, "2026-12-01 10:00:00", "sent"),
        ("u1", "https://lms/items/1", 3, "2026-12-01 12:00:00", "failed"),
        ("u1", "https://lms/items/1", 2, "2026-12-01 11:00:00", "sending"),
        ("u1", "https://lms/items/2", 5, "2026-12-01 09:00:00", "sent"),
        ("u2", "https://lms/items/1", 4, "2026-12-01 08:00:00", "pending"),
    ]
    for user, item, given, created, status in rows:
        query(
            settings,
            "INSERT INTO lti_score (platform_id, learner_id, user_sub, lineitem_url,"
            " lineitems_url, resource_link_id, lesson_slug, lesson_title, score_given,"
            " score_maximum, comment, activity_progress, grading_progress, created_at, status,"
            " tries, next_try_at, last_error) VALUES (1, 'l1', :user, :item, '', '', 'kernels',"
            " '', :given, 5, '', 'InProgress', 'FullyGraded', :created, :status, 0, :created,"
            " '')",
            user=user,
            item=item,
            given=given,
            created=created,
            status=status,
        )
    upgrade(settings.database_url)
    kept = query(
        settings,
        "SELECT user_sub, lineitem_url, score_given, status, target, answered_at = created_at"
        " FROM lti_score ORDER BY user_sub, lineitem_url",
    )
    assert [row[:4] for row in kept] == [
        ("u1", "https://lms/items/1", 3.0, "pending"),  # the newest; 'failed' was retried
        ("u1", "https://lms/items/2", 5.0, "sent"),
        ("u2", "https://lms/items/1", 4.0, "pending"),
    ]
    assert [row[4] for row in kept] == [score_target(1, row[1], "", "", "kernels") for row in kept]
    assert all(row[5] for row in kept)
    query(settings, "UPDATE lti_score SET status = 'superseded' WHERE user_sub = 'u2'")
    downgrade(settings.database_url, "0014")
    assert query(settings, "SELECT status FROM lti_score WHERE user_sub = 'u2'") == [("sent",)]
    upgrade(settings.database_url)
