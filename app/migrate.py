"""Alembic, driven from Python: the ``curso migrate`` command and the tests use this."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.settings import PROJECT_ROOT

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
