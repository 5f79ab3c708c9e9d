"""``curso arvore``: walk a decision tree in the terminal, with the same walk as the web."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Annotated

import typer

from app.content.course import Course, load_course
from app.content.walk import walk_path
from app.settings import load_settings


def ask_number(prompt: str, count: int) -> int:
    """Ask for a number from 1 to ``count`` until one is given; end of input exits (code 1)."""
    while True:
        try:
            raw = input(f"{prompt} [1-{count}]: ")
        except EOFError:
            typer.echo("\nEntrada encerrada antes do fim da árvore.", err=True)
            raise typer.Exit(1) from None
        if raw.strip().isdigit() and 1 <= int(raw) <= count:
            return int(raw)
        typer.echo(f"Digite um número de 1 a {count}.")


def pick_tree(course: Course, tree_id: str | None):
    """Return the tree named ``tree_id``, or ask which one when it is ``None``."""
    trees = list(course.trees.values())
    if not trees:
        typer.echo("Nenhuma árvore de decisão nas lições.", err=True)
        raise typer.Exit(1)
    if tree_id:
        if tree_id not in course.trees:
            typer.echo(f"Árvore `{tree_id}` não encontrada. Disponíveis: {', '.join(course.trees)}", err=True)
            raise typer.Exit(2)
        return course.trees[tree_id]
    for number, tree in enumerate(trees, start=1):
        typer.echo(f"  {number}. {tree.title} ({tree.id})")
    choice = ask_number("Qual árvore", len(trees))
    return trees[choice - 1]


def arvore(
    tree_id: Annotated[str | None, typer.Argument(help="Id da árvore (ex.: guia-osman).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Imprime a árvore inteira em JSON.")] = False,
) -> None:
    """Percorre uma árvore de decisão no terminal, com opções numeradas e o porquê no fim."""
    from app.web.api import tree_public

    course = load_course(load_settings().lessons_dir)
    if as_json and not tree_id:
        typer.echo(f"Informe o id da árvore. Disponíveis: {', '.join(course.trees)}", err=True)
        raise typer.Exit(2)
    tree = pick_tree(course, tree_id)
    if as_json:
        public = tree_public(tree, course.tree_lessons[tree.id])
        typer.echo(json.dumps(public.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    typer.echo(f"\n{tree.title}\nFonte: {tree.source}\n")
    values: list[str] = []
    walk = walk_path(tree, values)
    while walk.current is not None:
        question = walk.current
        typer.echo(f"{tree.facet_label(question.facet)}: {plain(question.text_html)}")
        for number, option in enumerate(question.options, start=1):
            typer.echo(f"  {number}. {option.label}")
        choice = ask_number("Sua escolha", len(question.options))
        values.append(question.options[choice - 1].value)
        walk = walk_path(tree, values)
        typer.echo("")
    result = walk.result
    typer.echo("Caminho: " + " → ".join(step.option.label for step in walk.steps))
    also = f" (também: {', '.join(result.also)})" if result.also else ""
    typer.echo(f"Resultado: {result.main}{also} — {result.verdict.label}")
    typer.echo(f"Por quê: {plain(result.why_html)}")
    if result.note:
        typer.echo(f"Outra visão: {plain(result.note_html)}")


def plain(html: str) -> str:
    """Rendered Markdown as terminal text: tags dropped, entities decoded, lines joined."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
