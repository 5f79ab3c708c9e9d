"""The ``curso`` command run in a subprocess, as an instructor runs it."""

from __future__ import annotations

import os
import subprocess
import sys

from app.platform.settings import PROJECT_ROOT


def curso(settings, *args: str) -> subprocess.CompletedProcess:
    """Run the `curso` command against the test database."""
    env = {
        **os.environ,
        "CURSO_DATABASE_URL": settings.database_url,
        "CURSO_SECRET_KEY": settings.secret_key,
    }
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


CURSO = [sys.executable, "-m", "app.cli"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CURSO, *args], capture_output=True, text=True, timeout=60, cwd=PROJECT_ROOT
    )


def cli_runner():
    """``curso`` in this process (Typer's CliRunner): ``curso("arvore", "--json").stdout``."""
    from typer.testing import CliRunner

    from app.cli.main import cli

    runner = CliRunner()
    return lambda *args, **kwargs: runner.invoke(cli, [str(a) for a in args], **kwargs)
