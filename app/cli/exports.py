"""``curso exportar``: the course's question bank in a format other tools import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.content.course import load_course
from app.content.gift import gift_export
from app.i18n import gettext
from app.platform.settings import load_settings

exportar = typer.Typer(
    help=gettext("Exports the question bank for other systems (Moodle)."), no_args_is_help=True
)


@exportar.command(
    help=gettext(
        "Writes the question bank in Moodle's GIFT format (one category per lesson), "
        "every lesson or the ones named."
    )
)
def gift(
    licoes: Annotated[
        list[str] | None, typer.Argument(help=gettext("Slugs of the lessons (default: all)."))
    ] = None,
    saida: Annotated[
        Path | None,
        typer.Option("--saida", "-o", help=gettext("A file to write (default: the screen).")),
    ] = None,
) -> None:
    """Write the question bank as GIFT to ``--saida`` or the standard output."""
    course = load_course(load_settings().lessons_dir)
    by_slug = {lesson.slug: lesson for lesson in course.lessons}
    unknown = [slug for slug in licoes or () if slug not in by_slug]
    if unknown:
        message = gettext("No lesson has the slug %(slugs)s. Lessons: %(known)s")
        typer.echo(message % {"slugs": ", ".join(unknown), "known": ", ".join(by_slug)}, err=True)
        raise typer.Exit(1)
    chosen = [by_slug[slug] for slug in licoes] if licoes else list(course.lessons)
    export = gift_export(chosen)
    for message in export.skipped:
        typer.echo(message, err=True)
    if saida is None:
        typer.echo(export.document(), nl=False)
        return
    saida.parent.mkdir(parents=True, exist_ok=True)
    saida.write_text(export.document(), encoding="utf-8")
    count = len(export.questions)
    typer.echo(
        gettext("%(count)s questions written to %(path)s.") % {"count": count, "path": saida}
    )
