"""The ``curso`` command line (Typer); every text it prints comes from the pt-BR catalog."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.authoring import CHECK_HELP, NOVA_HELP, check, instrutor, nova
from app.cli.exports import exportar
from app.cli.lti import lti_cli
from app.cli.tree import ARVORE_HELP, arvore
from app.i18n import gettext
from app.platform.settings import load_settings

cli = typer.Typer(help=gettext("Tools of the inference engines course."), no_args_is_help=True)
cli.command(help=ARVORE_HELP)(arvore)
cli.command(help=CHECK_HELP)(check)
cli.command(help=NOVA_HELP)(nova)
cli.add_typer(instrutor, name="instrutor")
cli.add_typer(exportar, name="exportar")
cli.add_typer(lti_cli, name="lti")


@cli.command(help=gettext("Applies the database migrations up to the latest version."))
def migrate() -> None:
    """Apply the database migrations up to the latest version."""
    from app.platform.backup import BackupError
    from app.platform.migrate import backup_before_upgrade, upgrade

    settings = load_settings()
    url = settings.resolved_database_url()
    try:
        copy = backup_before_upgrade(url, settings.var_dir / "backups")
    except BackupError as exc:
        failed = gettext("Migration not run: the backup failed: %(why)s")
        typer.echo(failed % {"why": exc}, err=True)
        raise typer.Exit(1) from None
    if copy is not None:
        typer.echo(gettext("Backup of the database before migrating: %(path)s") % {"path": copy})
    upgrade(url)
    typer.echo(gettext("Database up to date."))


@cli.command(
    "apagar-anonimos",
    help=gettext(
        "Erases now the anonymous learners nobody can reach any more (no account and no live "
        "session), idle for longer than CURSO_ANONYMOUS_RETENTION_DAYS; the course also does "
        "it once a day."
    ),
)
def apagar_anonimos() -> None:
    """Erase the unreachable anonymous learners now (:mod:`app.learning.retention`)."""
    from app.learning.retention import erase_unreachable
    from app.platform.db import make_engine

    settings = load_settings()
    engine = make_engine(settings.resolved_database_url())
    try:
        erased = erase_unreachable(engine, settings.anonymous_retention_days)
    finally:
        engine.dispose()
    typer.echo(gettext("Anonymous learners erased: %(count)d.") % {"count": erased})


@cli.command(
    help=gettext("Generates a migration comparing the models with the database (for developers).")
)
def revisao(mensagem: str) -> None:
    """Generate a migration comparing the models with the database (for developers)."""
    from app.platform.migrate import new_revision

    new_revision(load_settings().resolved_database_url(), mensagem)


@cli.command(
    help=gettext(
        "Makes a consistent copy of the SQLite database in use (SQLite's online backup API)."
    )
)
def backup(
    destino: Annotated[Path, typer.Argument(help=gettext("A new file for the copy."))],
) -> None:
    """Make a consistent copy of the SQLite database in use (SQLite's online backup API)."""
    from app.platform.backup import BackupError, backup_sqlite

    try:
        size = backup_sqlite(load_settings().resolved_database_url(), destino)
    except BackupError as exc:
        typer.echo(gettext("Backup not made: %(why)s") % {"why": exc}, err=True)
        raise typer.Exit(1) from None
    saved = gettext("Backup saved in %(path)s (%(size)s bytes), intact.")
    typer.echo(saved % {"path": destino, "size": size})


@cli.command(help=gettext("Serves the course with uvicorn (run `curso migrate` first)."))
def serve(
    host: Annotated[str, typer.Option(envvar="HOST")] = "127.0.0.1",
    port: Annotated[int, typer.Option(envvar="PORT")] = 8000,
) -> None:
    """Serve the course with uvicorn (run ``curso migrate`` first)."""
    import uvicorn

    uvicorn.run("app.main:create_app", factory=True, host=host, port=port)


def main() -> None:
    """Entry point of the ``curso`` console script."""
    cli()


if __name__ == "__main__":
    main()
