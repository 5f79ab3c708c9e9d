"""``curso check``, ``curso nova`` and ``curso instrutor``: commands for course authors."""

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
from app.settings import PROJECT_ROOT, load_settings

instrutor = typer.Typer(help="Dá ou tira o papel de instrutor de uma conta.", no_args_is_help=True)


class OutputFormat(StrEnum):
    """How ``curso check`` prints its findings."""

    TEXT = "text"
    JSON = "json"


def check(
    pasta: Annotated[
        Path | None,
        typer.Argument(help="Pasta das lições ou um arquivo (padrão: CURSO_LESSONS_DIR)."),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Trata avisos como erros.")] = False,
    formato: Annotated[
        OutputFormat,
        typer.Option(
            "--format", help="text: arquivo:linha:coluna: nível: mensagem; json: os mesmos dados."
        ),
    ] = OutputFormat.TEXT,
) -> None:
    """Valida as lições (ou uma): imprime `arquivo:linha:coluna: nível: mensagem` por problema.

    Sai com código 1 quando há erros (com `--strict`, também quando há avisos).
    """
    target = pasta or load_settings().lessons_dir
    # A single file is checked within its folder, so links and scenarios can reach other lessons.
    course = load_course(target.parent if target.is_file() else target, PROJECT_ROOT / "static")
    problems = [p for p in course.problems if not target.is_file() or p.file == target]
    if strict:
        problems = [replace(p, level="error") for p in problems]
    errors = sum(p.is_error for p in problems)
    lessons = 1 if target.is_file() else len(course.lessons)
    if formato is OutputFormat.JSON:
        report = {
            "lessons": lessons,
            "errors": errors,
            "warnings": len(problems) - errors,
            "problems": [p.as_dict() for p in problems],
        }
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        _print_text(problems, errors, lessons)
    if errors:
        raise typer.Exit(code=1)


def _print_text(problems: list[ContentError], errors: int, lessons: int) -> None:
    for problem in problems:
        typer.echo(str(problem))
    if problems:
        typer.echo(f"{errors} erro(s) e {len(problems) - errors} aviso(s) encontrado(s).", err=True)
    else:
        typer.echo(f"{lessons} lição(ões) válida(s), nenhum problema.")


def nova(
    titulo: Annotated[str, typer.Argument(help="O título da lição, entre aspas.")],
    pasta: Annotated[
        Path | None, typer.Option("--pasta", help="Pasta das lições (padrão: CURSO_LESSONS_DIR).")
    ] = None,
) -> None:
    """Cria uma lição nova a partir de um modelo válido, com slug único e a próxima ordem."""
    folder = pasta or load_settings().lessons_dir
    if not folder.is_dir():
        typer.echo(f"A pasta de lições {folder} não existe.", err=True)
        raise typer.Exit(code=2)
    try:
        path = new_lesson(folder, titulo, load_course(folder))
    except TitleError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(code=2) from None
    slug = path.stem.split("-", 1)[1]
    typer.echo(
        f"Lição criada: {path} (endereço /licoes/{slug}). Edite o arquivo e rode `curso check`."
    )


def _set_role(usuario: str, value: bool) -> None:
    from sqlalchemy.exc import SQLAlchemyError
    from sqlmodel import Session

    from app.db import make_engine
    from app.instructors import AccountNotFound, set_instructor

    engine = make_engine(load_settings().resolved_database_url())
    try:
        with Session(engine) as db:
            account, changed = set_instructor(db, usuario, value)
    except AccountNotFound:
        typer.echo(
            f"Não existe conta com o usuário `{usuario}`. "
            "A pessoa precisa criar a conta em /conta antes.",
            err=True,
        )
        raise typer.Exit(code=1) from None
    except SQLAlchemyError as exc:
        typer.echo(
            f"Não consegui ler o banco ({exc.__class__.__name__}); rode `curso migrate` antes.",
            err=True,
        )
        raise typer.Exit(code=1) from None
    finally:
        engine.dispose()
    name = account.username
    if value:
        typer.echo(f"`{name}` agora é instrutor." if changed else f"`{name}` já era instrutor.")
    else:
        typer.echo(
            f"`{name}` não é mais instrutor." if changed else f"`{name}` já não era instrutor."
        )


@instrutor.command("adicionar")
def adicionar(
    usuario: Annotated[str, typer.Argument(help="Nome de usuário de uma conta existente.")],
) -> None:
    """Dá o papel de instrutor a uma conta que já existe."""
    _set_role(usuario, True)


@instrutor.command("remover")
def remover(usuario: Annotated[str, typer.Argument(help="Nome de usuário da conta.")]) -> None:
    """Tira o papel de instrutor de uma conta."""
    _set_role(usuario, False)
