"""The ``curso`` command line (Typer)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli_tree import arvore
from app.content.course import load_course
from app.settings import Settings

cli = typer.Typer(help="Ferramentas do curso de engines de inferência.", no_args_is_help=True)
cli.command()(arvore)


@cli.command()
def migrate() -> None:
    """Aplica as migrações do banco até a versão mais recente."""
    from app.migrate import upgrade

    settings = Settings()
    upgrade(settings.resolved_database_url())
    typer.echo("Banco de dados atualizado.")


@cli.command()
def revisao(mensagem: str) -> None:
    """Gera uma migração comparando os modelos com o banco (para desenvolvedores)."""
    from app.migrate import new_revision

    new_revision(Settings().resolved_database_url(), mensagem)


@cli.command()
def check(
    pasta: Annotated[Path | None, typer.Argument(help="Pasta das lições (padrão: CURSO_LESSONS_DIR).")] = None,
) -> None:
    """Valida todas as lições e imprime `arquivo:linha: mensagem` para cada problema."""
    folder = pasta or Settings().lessons_dir
    course = load_course(folder)
    for error in course.errors:
        typer.echo(str(error), err=False)
    if course.errors:
        typer.echo(f"{len(course.errors)} problema(s) encontrado(s).", err=True)
        raise typer.Exit(code=1)
    typer.echo(f"{len(course.lessons)} lição(ões) válida(s), nenhum problema.")


@cli.command()
def serve(
    host: Annotated[str, typer.Option(envvar="HOST")] = "127.0.0.1",
    port: Annotated[int, typer.Option(envvar="PORT")] = 8000,
) -> None:
    """Serve o curso com uvicorn (rode `curso migrate` antes)."""
    import uvicorn

    uvicorn.run("app.main:create_app", factory=True, host=host, port=port)


def main() -> None:
    """Entry point of the ``curso`` console script."""
    cli()


if __name__ == "__main__":
    main()
