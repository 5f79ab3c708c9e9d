"""The ``curso`` command line (Typer); every text it prints comes from the pt-BR catalog."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from app.cli.authoring import CHECK_HELP, NOVA_HELP, check, instrutor, nova
from app.cli.exports import exportar
from app.cli.lti import lti_cli
from app.cli.tree import ARVORE_HELP, arvore
from app.i18n import N_, gettext
from app.platform.settings import load_settings

# Typer's functions that draw a help page or an error panel (typer.core calls them by name).
DRAWERS = ("rich_format_help", "rich_format_error", "rich_abort_error")


def _speak_portuguese() -> None:
    """Make Typer's own words in ``--help`` and usage errors ("Usage:", "Options",
    "Show this message and exit.") come from the pt-BR catalog.

    Typer writes them in three places that take no setting: the usage line of its
    vendored Click formatter, the help option it builds for every command, and the
    titles of its help panels (module constants read when a help page is drawn).
    """
    import typer.core
    import typer.rich_utils as panels
    from typer._click.core import Command, Context
    from typer._click.formatting import HelpFormatter

    write_usage = HelpFormatter.write_usage
    get_help_option = Command.get_help_option

    def usage_in_portuguese(
        self: HelpFormatter, prog: str, args: str = "", prefix: str | None = None
    ) -> None:
        write_usage(self, prog, args, gettext("Usage: ") if prefix is None else prefix)

    def help_option_in_portuguese(self: Command, ctx: Context) -> typer.core.TyperOption | None:
        option = get_help_option(self, ctx)
        if option is not None:
            option.help = gettext("Show this message and exit.")
        return option

    HelpFormatter.write_usage = usage_in_portuguese  # type: ignore[method-assign]
    Command.get_help_option = help_option_in_portuguese  # type: ignore[method-assign]
    # Typer's own gettext calls at run time; the messages it asks for this way:
    N_("Missing command."), N_("No such command {name!r}.")
    typer.core._ = gettext

    def titles() -> None:
        """Set the panels' words from the catalog as it is when a page is drawn, not when
        this module was imported."""
        panels.ARGUMENTS_PANEL_TITLE = gettext("Arguments")
        panels.OPTIONS_PANEL_TITLE = gettext("Options")
        panels.COMMANDS_PANEL_TITLE = gettext("Commands")
        panels.ERRORS_PANEL_TITLE = gettext("Error")
        panels.ABORTED_TEXT = gettext("Aborted.")
        panels.REQUIRED_LONG_STRING = gettext("[required]")
        panels.DEFAULT_STRING = gettext("[default: {}]")
        panels.ENVVAR_STRING = gettext("[env var: {}]")
        panels.RICH_HELP = gettext("Try [blue]'{command_path} {help_option}'[/] for help.")

    drawers = {name: getattr(panels, name) for name in DRAWERS}

    def drawn_in_portuguese(name: str) -> Callable[..., Any]:
        def draw(*args: Any, **kwargs: Any) -> Any:
            titles()
            return drawers[name](*args, **kwargs)

        return draw

    for name in DRAWERS:
        setattr(panels, name, drawn_in_portuguese(name))


_speak_portuguese()

# No shell completion: its options' help is fixed English text inside Typer.
cli = typer.Typer(
    help=gettext("Tools of the inference engines course."),
    no_args_is_help=True,
    add_completion=False,
)
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
    from sqlmodel import Session

    from app.learning.retention import erase_unreachable
    from app.platform.db import make_engine

    settings = load_settings()
    engine = make_engine(settings.resolved_database_url())
    try:
        with Session(engine) as db:
            erased = erase_unreachable(db, settings.anonymous_retention_days)
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
