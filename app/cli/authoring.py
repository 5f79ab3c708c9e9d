"""``curso check``, ``curso nova`` and ``curso instrutor``: commands for course authors.

Every text they print comes from the pt-BR gettext catalog (:mod:`app.i18n`); the
``file:line:col: level: message`` lines and the JSON keys stay the same in any language.
"""

from __future__ import annotations

import json
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from app.content.course import load_course
from app.content.errors import ContentError
from app.content.scaffold import TitleError, new_lesson
from app.i18n import gettext, ngettext
from app.platform.settings import PROJECT_ROOT, load_settings

instrutor = typer.Typer(
    help=gettext("Gives or takes the instructor role of an account."), no_args_is_help=True
)
CHECK_HELP = gettext(
    "Checks the lessons (or one): prints `file:line:column: level: message` per problem.\n\n"
    "Exits with code 1 when there are errors (with `--strict`, also when there are warnings)."
)
NOVA_HELP = gettext(
    "Creates a new lesson from a valid template, with a unique slug and the next order."
)


class OutputFormat(StrEnum):
    """How ``curso check`` prints its findings."""

    TEXT = "text"
    JSON = "json"


def check(
    pasta: Annotated[
        Path | None,
        typer.Argument(
            help=gettext("The lessons folder, or one file (default: CURSO_LESSONS_DIR).")
        ),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help=gettext("Treats warnings as errors."))
    ] = False,
    formato: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            help=gettext("text: file:line:column: level: message; json: the same data."),
        ),
    ] = OutputFormat.TEXT,
) -> None:
    """Check the lessons (or one file): one ``file:line:col: level: message`` line per problem.

    Exits with code 1 when there are errors (with ``--strict``, also on warnings).
    """
    target = pasta or load_settings().lessons_dir
    # A single file is checked within its folder, so links and scenarios can reach other lessons.
    course = load_course(target.parent if target.is_file() else target, PROJECT_ROOT / "static")
    problems = [p for p in course.problems if not target.is_file() or p.file == target]
    if strict:
        problems = [replace(p, level="error") if p.level == "warning" else p for p in problems]
    errors = sum(p.is_error for p in problems)
    notes = sum(p.level == "note" for p in problems)
    lessons = 1 if target.is_file() else len(course.with_drafts.lessons)  # drafts are lessons too
    if formato is OutputFormat.JSON:
        report = {
            "lessons": lessons,
            "errors": errors,
            "warnings": len(problems) - errors - notes,
            "notes": notes,
            "problems": [p.as_dict() for p in problems],
        }
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        _print_text(problems, errors, notes, lessons)
    if errors:
        raise typer.Exit(code=1)


def summary(errors: int, warnings: int) -> str:
    """The last line of ``curso check`` when it found problems: "1 erro e 2 avisos encontrados."."""
    if not warnings:
        return ngettext("%(num)s error found.", "%(num)s errors found.", errors) % {"num": errors}
    if not errors:
        found = ngettext("%(num)s warning found.", "%(num)s warnings found.", warnings)
        return found % {"num": warnings}
    return gettext("%(errors)s and %(warnings)s found.") % {
        "errors": ngettext("%(num)s error", "%(num)s errors", errors) % {"num": errors},
        "warnings": ngettext("%(num)s warning", "%(num)s warnings", warnings) % {"num": warnings},
    }


def _print_text(problems: list[ContentError], errors: int, notes: int, lessons: int) -> None:
    for problem in problems:
        typer.echo(str(problem))
    if len(problems) > notes:
        typer.echo(summary(errors, len(problems) - errors - notes), err=True)
    else:
        valid = ngettext(
            "%(num)s valid lesson, no problems.", "%(num)s valid lessons, no problems.", lessons
        )
        typer.echo(valid % {"num": lessons})


def nova(
    titulo: Annotated[str, typer.Argument(help=gettext("The lesson's title, between quotes."))],
    pasta: Annotated[
        Path | None,
        typer.Option("--pasta", help=gettext("The lessons folder (default: CURSO_LESSONS_DIR).")),
    ] = None,
) -> None:
    """Create a new lesson from a valid template, with a unique slug and the next order."""
    folder = pasta or load_settings().lessons_dir
    if not folder.is_dir():
        message = gettext("The lessons folder %(folder)s does not exist.") % {"folder": folder}
        typer.echo(message, err=True)
        raise typer.Exit(code=2)
    try:
        path = new_lesson(folder, titulo, load_course(folder))
    except TitleError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(code=2) from None
    slug = path.stem.split("-", 1)[1]
    created = gettext(
        "Lesson created as a draft: %(path)s (address /licoes/%(slug)s; only instructors see it "
        "until it is published). Edit the file, run `curso check`, and delete the line "
        "`draft: true` to publish it."
    )
    typer.echo(created % {"path": path, "slug": slug})


def _set_role(usuario: str, value: bool, admin: bool = False) -> None:
    from sqlalchemy.exc import SQLAlchemyError
    from sqlmodel import Session

    from app.learning.instructors import AccountNotFound, set_instructor
    from app.platform.db import make_engine

    engine = make_engine(load_settings().resolved_database_url())
    try:
        with Session(engine) as db:
            account, changed = set_instructor(db, usuario, value, admin)
    except AccountNotFound:
        message = gettext(
            "There is no account with the username `%(name)s`. "
            "The person needs to create the account at /conta first."
        )
        typer.echo(message % {"name": usuario}, err=True)
        raise typer.Exit(code=1) from None
    except SQLAlchemyError as exc:
        message = gettext("I could not read the database (%(error)s); run `curso migrate` first.")
        typer.echo(message % {"error": exc.__class__.__name__}, err=True)
        raise typer.Exit(code=1) from None
    finally:
        engine.dispose()
    if value and admin:
        said = gettext(
            "`%(name)s` is now an instructor and an admin, who sees every class and registers "
            "the LMSs."
        )
    elif value:
        said = (
            gettext("`%(name)s` is now an instructor.")
            if changed
            else gettext("`%(name)s` was already an instructor.")
        )
    else:
        said = (
            gettext("`%(name)s` is no longer an instructor.")
            if changed
            else gettext("`%(name)s` already was not an instructor.")
        )
    typer.echo(said % {"name": account.username})


@instrutor.command(
    "adicionar", help=gettext("Gives the instructor role to an account that already exists.")
)
def adicionar(
    usuario: Annotated[str, typer.Argument(help=gettext("The username of an existing account."))],
    admin: Annotated[
        bool,
        typer.Option(
            "--admin",
            help=gettext("Also lets the instructor see every class and register the LMSs."),
        ),
    ] = False,
) -> None:
    """Give the instructor role to an existing account (``--admin``: who sees every class and
    registers the LMSs)."""
    _set_role(usuario, True, admin)


@instrutor.command("remover", help=gettext("Takes the instructor role from an account."))
def remover(
    usuario: Annotated[str, typer.Argument(help=gettext("The account's username."))],
) -> None:
    """Take the instructor role from an account."""
    _set_role(usuario, False)
