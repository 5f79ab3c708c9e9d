"""The ``curso`` command line (Typer)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli_tree import arvore
from app.content.course import load_course
from app.settings import load_settings

cli = typer.Typer(help="Ferramentas do curso de engines de inferência.", no_args_is_help=True)
cli.command()(arvore)


@cli.command()
def migrate() -> None:
    """Aplica as migrações do banco até a versão mais recente."""
    from app.migrate import upgrade

    settings = load_settings()
    upgrade(settings.resolved_database_url())
    typer.echo("Banco de dados atualizado.")


@cli.command()
def revisao(mensagem: str) -> None:
    """Gera uma migração comparando os modelos com o banco (para desenvolvedores)."""
    from app.migrate import new_revision

    new_revision(load_settings().resolved_database_url(), mensagem)


@cli.command()
def check(
    pasta: Annotated[Path | None, typer.Argument(help="Pasta das lições ou um arquivo (padrão: CURSO_LESSONS_DIR).")] = None,
) -> None:
    """Valida as lições (ou uma) e imprime `arquivo:linha: mensagem` para cada problema."""
    target = pasta or load_settings().lessons_dir
    # A single file is checked within its folder, so scenarios can reach trees in other lessons.
    course = load_course(target.parent if target.is_file() else target)
    errors = [e for e in course.errors if not target.is_file() or e.file == target]
    for error in errors:
        typer.echo(str(error))
    if errors:
        typer.echo(f"{len(errors)} problema(s) encontrado(s).", err=True)
        raise typer.Exit(code=1)
    checked = 1 if target.is_file() else len(course.lessons)
    typer.echo(f"{checked} lição(ões) válida(s), nenhum problema.")


@cli.command()
def backup(destino: Annotated[Path, typer.Argument(help="Arquivo novo para a cópia.")]) -> None:
    """Faz uma cópia consistente do banco SQLite em uso (API de backup on-line do SQLite)."""
    from app.backup import BackupError, backup_sqlite

    try:
        size = backup_sqlite(load_settings().resolved_database_url(), destino)
    except BackupError as exc:
        typer.echo(f"Backup não feito: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"Backup salvo em {destino} ({size} bytes), íntegro.")


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
