"""Alembic, driven from Python: the ``curso migrate`` command and the tests use this."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from app.platform.settings import PROJECT_ROOT

MIGRATIONS_DIR = PROJECT_ROOT / "migrations"


def alembic_config(database_url: str) -> Config:
    """Return an Alembic config for ``database_url`` using the ``migrations/`` scripts."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Apply migrations up to ``revision`` (default: the latest)."""
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str) -> None:
    """Revert migrations down to ``revision`` (``base`` empties the database)."""
    command.downgrade(alembic_config(database_url), revision)


def new_revision(database_url: str, message: str) -> None:
    """Autogenerate a migration comparing the models with the database at ``database_url``."""
    command.revision(alembic_config(database_url), message=message, autogenerate=True)


def pending_revisions(database_url: str) -> list[str]:
    """Return the revisions ``upgrade`` would apply to ``database_url``, oldest first.

    Returns:
        Revision ids; empty when the database is at head.
    """
    from alembic.runtime.migration import MigrationContext

    from app.platform.db import make_migration_engine

    script = ScriptDirectory.from_config(alembic_config(database_url))
    engine = make_migration_engine(database_url)
    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_heads()
    engine.dispose()
    pending = [
        revision.revision
        for revision in script.iterate_revisions("heads", current or "base")
        if revision.revision not in current
    ]
    return list(reversed(pending))


def backup_before_upgrade(database_url: str, backups_dir: Path) -> Path | None:
    """Copy a SQLite database that holds data before migrations change its schema.

    Uses the same online backup as ``curso backup`` (:func:`app.platform.backup.backup_sqlite`).
    Nothing is copied for other databases, for a database that does not exist yet, or when
    no migration is pending.

    Args:
        backups_dir: folder for the copy (created if missing).

    Returns:
        The path of the copy, or ``None`` when no copy was needed.

    Raises:
        app.platform.backup.BackupError: the copy could not be made (the migration must not run).
    """
    from app.platform.backup import backup_sqlite, sqlite_path

    if not database_url.startswith("sqlite"):
        return None
    source = sqlite_path(database_url)
    if not source.exists() or source.stat().st_size == 0:
        return None
    pending = pending_revisions(database_url)
    if not pending:
        return None
    backups_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    target = backups_dir / f"{source.stem}-{stamp}-antes-de-{pending[-1][:12]}{source.suffix}"
    backup_sqlite(database_url, target)
    return target
