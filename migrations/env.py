"""Alembic environment: the URL comes from the config (set by app.migrate) or the settings."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import app.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from app.db import make_engine
from app.settings import Settings

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
    engine = make_engine(_url())
    with engine.connect() as connection:
        _configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
