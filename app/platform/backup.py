"""Consistent copies of a live SQLite database through SQLite's online backup API."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url

from app.i18n import gettext


class BackupError(Exception):
    """The backup cannot be made; ``str(exc)`` says why, in Portuguese (from the catalog)."""


def sqlite_path(database_url: str) -> Path:
    """Return the file behind a ``sqlite:///`` URL.

    Raises:
        BackupError: the URL is not a SQLite file.
    """
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        raise BackupError(
            gettext("`curso backup` copies SQLite databases; for PostgreSQL use `pg_dump`.")
        )
    return Path(url.database)


def backup_sqlite(database_url: str, target: Path) -> int:
    """Copy the live database to ``target`` page by page, without stopping writers.

    Args:
        database_url: the ``sqlite:///`` URL of the live database.
        target: the new file (must not exist).

    Returns:
        The size of the copy in bytes.

    Raises:
        BackupError: not SQLite, the source is missing, the target exists, or the copy fails
            its integrity check.
    """
    source_path = sqlite_path(database_url)
    if not source_path.exists():
        raise BackupError(gettext("the database %(path)s does not exist") % {"path": source_path})
    if target.exists():
        message = gettext(
            "%(path)s already exists; choose another name so as not to overwrite a backup"
        )
        raise BackupError(message % {"path": target})
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True, timeout=30)
    copy = sqlite3.connect(target)
    try:
        source.backup(copy, pages=256)
        if copy.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise BackupError(gettext("the copy failed PRAGMA integrity_check"))
    finally:
        copy.close()
        source.close()
    return target.stat().st_size
