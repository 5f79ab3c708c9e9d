"""``curso exportar``: the course's question bank in a format other tools import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.content.course import load_course
from app.content.gift import gift_export
from app.content.lessons import Lesson
from app.content.moodle_xml import moodle_xml_export
from app.i18n import gettext
from app.platform.settings import load_settings

exportar = typer.Typer(
    help=gettext("Exports the question bank for other systems (Moodle)."), no_args_is_help=True
)
Slugs = Annotated[
    list[str] | None, typer.Argument(help=gettext("Slugs of the lessons (default: all)."))
]
Output = Annotated[
    Path | None,
    typer.Option("--saida", "-o", help=gettext("A file to write (default: the screen).")),
]


def _chosen(slugs: list[str] | None) -> list[Lesson]:
    """The lessons named (every lesson when none is); exit 1 with a message on an unknown
    slug."""
    course = load_course(load_settings().lessons_dir)
    by_slug = {lesson.slug: lesson for lesson in course.lessons}
    unknown = [slug for slug in slugs or () if slug not in by_slug]
    if unknown:
        message = gettext("No lesson has the slug %(slugs)s. Lessons: %(known)s")
        typer.echo(message % {"slugs": ", ".join(unknown), "known": ", ".join(by_slug)}, err=True)
        raise typer.Exit(1)
    return [by_slug[slug] for slug in slugs] if slugs else list(course.lessons)


def _write(document: str, count: int, skipped: list[str], saida: Path | None) -> None:
    """Each question left out on the standard error, then the file to ``saida`` (its folder
    made when missing) or the standard output."""
    for message in skipped:
        typer.echo(message, err=True)
    if saida is None:
        typer.echo(document, nl=False)
        return
    saida.parent.mkdir(parents=True, exist_ok=True)
    saida.write_text(document, encoding="utf-8")
    typer.echo(
        gettext("%(count)s questions written to %(path)s.") % {"count": count, "path": saida}
    )


@exportar.command(
    help=gettext(
        "Writes the question bank in Moodle's GIFT format (one category per lesson), "
        "every lesson or the ones named."
    )
)
def gift(licoes: Slugs = None, saida: Output = None) -> None:
    """Write the question bank as GIFT to ``--saida`` or the standard output."""
    export = gift_export(_chosen(licoes))
    _write(export.document(), len(export.questions), export.skipped, saida)


@exportar.command(
    "moodle-xml",
    help=gettext(
        "Writes the question bank in Moodle XML (one category per lesson), every lesson or "
        "the ones named: multiple-answer and ordering questions all-or-nothing, as in the "
        "course."
    ),
)
def moodle_xml(licoes: Slugs = None, saida: Output = None) -> None:
    """Write the question bank as Moodle XML to ``--saida`` or the standard output."""
    export = moodle_xml_export(_chosen(licoes))
    _write(export.document(), export.count, export.skipped, saida)
