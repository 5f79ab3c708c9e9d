"""``curso arvore``: walk a decision tree in the terminal, with the same walk as the web.

Every text it prints comes from the pt-BR gettext catalog (:mod:`app.i18n`); the trees'
own words (titles, questions, options) come from the lessons.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from app.content.course import Course, load_course
from app.content.markdown import plain_text
from app.content.walk import walk_path
from app.i18n import gettext
from app.platform.settings import load_settings

ARVORE_HELP = gettext(
    "Walks a decision tree in the terminal, with numbered options and the why at the end."
)


def ask_number(prompt: str, count: int) -> int:
    """Ask for a number from 1 to ``count`` until one is given; end of input exits (code 1)."""
    while True:
        try:
            raw = input(gettext("%(prompt)s [1-%(count)s]: ") % {"prompt": prompt, "count": count})
        except EOFError:
            typer.echo("\n" + gettext("Input ended before the end of the tree."), err=True)
            raise typer.Exit(1) from None
        typed = raw.strip()
        # ASCII digits only: str.isdigit() also takes "²" and "①", which int() refuses.
        if typed.isascii() and typed.isdigit() and len(typed) <= 4 and 1 <= int(typed) <= count:
            return int(typed)
        typer.echo(gettext("Type a number from 1 to %(count)s.") % {"count": count})


def _available(course: Course) -> str:
    return gettext("Available: %(trees)s") % {"trees": ", ".join(course.trees)}


def pick_tree(course: Course, tree_id: str | None):
    """Return the tree named ``tree_id``, or ask which one when it is ``None``."""
    trees = list(course.trees.values())
    if not trees:
        typer.echo(gettext("No decision tree in the lessons."), err=True)
        raise typer.Exit(1)
    if tree_id:
        if tree_id not in course.trees:
            missing = gettext("Tree `%(id)s` not found.") % {"id": tree_id}
            typer.echo(f"{missing} {_available(course)}", err=True)
            raise typer.Exit(2)
        return course.trees[tree_id]
    for number, tree in enumerate(trees, start=1):
        typer.echo(f"  {number}. {tree.title} ({tree.id})")
    choice = ask_number(gettext("Which tree"), len(trees))
    return trees[choice - 1]


def arvore(
    tree_id: Annotated[
        str | None, typer.Argument(help=gettext("The tree's id (e.g. guia-osman)."))
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help=gettext("Prints the whole tree as JSON."))
    ] = False,
) -> None:
    """Walk a decision tree in the terminal, with numbered options and the why at the end."""
    from app.content.tree_json import tree_public

    course = load_course(load_settings().lessons_dir)
    if as_json and not tree_id:
        typer.echo(gettext("Give the id of the tree.") + " " + _available(course), err=True)
        raise typer.Exit(2)
    tree = pick_tree(course, tree_id)
    if as_json:
        public = tree_public(tree, course.tree_lessons[tree.id])
        typer.echo(json.dumps(public.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    source = gettext("Source: %(source)s") % {"source": tree.source}
    typer.echo(f"\n{tree.title}\n{source}\n")
    values: list[str] = []
    walk = walk_path(tree, values)
    while walk.current is not None:
        question = walk.current
        typer.echo(f"{tree.facet_label(question.facet)}: {plain_text(question.text_html)}")
        for number, option in enumerate(question.options, start=1):
            typer.echo(f"  {number}. {option.label}")
        choice = ask_number(gettext("Your choice"), len(question.options))
        values.append(question.options[choice - 1].value)
        walk = walk_path(tree, values)
        typer.echo("")
    result = walk.result
    assert result is not None, "a walk with no question left is at a result"
    path = " → ".join(step.option.label for step in walk.steps)
    typer.echo(gettext("Path: %(path)s") % {"path": path})
    if result.also:
        engines = gettext("%(main)s (also: %(also)s)") % {
            "main": result.main,
            "also": ", ".join(result.also),
        }
    else:
        engines = result.main
    shown = gettext("Result: %(engines)s — %(verdict)s")
    typer.echo(shown % {"engines": engines, "verdict": result.verdict.label})
    typer.echo(gettext("Why: %(why)s") % {"why": plain_text(result.why_html)})
    if result.note:
        typer.echo(gettext("Another view: %(note)s") % {"note": plain_text(result.note_html)})
