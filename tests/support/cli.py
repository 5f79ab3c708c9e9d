"""The ``curso`` command, in this process or as a real one."""

from __future__ import annotations

import subprocess
import sys

from app.platform.settings import PROJECT_ROOT


def curso(settings, *args: str) -> subprocess.CompletedProcess:
    """Run ``curso ARGS`` against the test database in this process (Typer's CliRunner).

    It answers as a subprocess would (``returncode``, ``stdout``, ``stderr``) without the
    seconds a new interpreter costs; :func:`run` runs the command as a real process.
    """
    env = {"CURSO_DATABASE_URL": settings.database_url, "CURSO_SECRET_KEY": settings.secret_key}
    result = cli_runner()(*args, env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(
        ["curso", *args], result.exit_code, result.stdout, result.stderr
    )


CURSO = [sys.executable, "-m", "app.cli"]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``curso ARGS`` as a real process (``env``: its whole environment), within 60 s."""
    return subprocess.run(
        [*CURSO, *args], capture_output=True, text=True, timeout=60, cwd=PROJECT_ROOT, env=env
    )


def cli_runner():
    """``curso`` in this process (Typer's CliRunner): ``curso("arvore", "--json").stdout``."""
    from typer.testing import CliRunner

    from app.cli.main import cli

    runner = CliRunner()
    return lambda *args, **kwargs: runner.invoke(cli, [str(a) for a in args], **kwargs)
