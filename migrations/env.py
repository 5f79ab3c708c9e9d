"""Alembic environment: the URL comes from the config (set by app.platform.migrate) or the
settings."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import app.platform.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from app.platform.db import check_foreign_keys, make_migration_engine
from app.platform.settings import Settings

config = context.config
target_metadata = SQLModel.metadata


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or Settings().resolved_database_url()


def _configure(**kwargs) -> None:
    url = kwargs.pop("url", None) or _url()
    context.configure(
        target_metadata=target_metadata,
        compare_type=True,
        render_as_batch=url.startswith("sqlite"),
        **({"url": url} if "connection" not in kwargs else {}),
        **kwargs,
    )


def run_offline() -> None:
    _configure(url=_url(), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    # Foreign keys off while the schema changes (see make_migration_engine), one transaction
    # for the whole run (SQLite's DDL is transactional), and a foreign key check before the
    # commit: a run that would orphan rows rolls back and changes nothing.
    url = _url()
    engine = make_migration_engine(url)
    with engine.connect() as connection:
        _configure(connection=connection, transactional_ddl=True)
        with context.begin_transaction():
            context.run_migrations()
            check_foreign_keys(connection)
    engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
