"""Where a scenario's CPU time goes: py-spy samples of the app's workers, grouped by layer.

``make bench`` runs this for every scenario that misses its target, so the table is
followed by the profile that explains it (the issue asks for one per missed target).
"""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

# First match from the innermost frame outwards names the layer a sample belongs to.
LAYERS = (
    ("Jinja2 (renderizar o HTML)", ("jinja2/", "markupsafe/", ".html:")),
    ("banco (SQLAlchemy, sqlite3, psycopg)", ("sqlalchemy/", "sqlmodel/", "sqlite3/", "psycopg")),
    ("sessão (app/platform/sessions.py)", ("app/platform/sessions.py",)),
    ("porta da frente (guarda, CSRF)", ("app/web/front_door.py", "app/web/security.py")),
    ("gzip", ("gzip.py", "zlib")),
    ("logs JSON", ("logging/", "app/platform/logs.py")),
    ("formulário (python-multipart)", ("multipart/",)),
    ("validação (pydantic)", ("pydantic",)),
    ("importar módulos", ("<frozen importlib._bootstrap",)),
    ("Markdown (markdown-it)", ("markdown_it/", "mdit_py_plugins/")),
    ("YAML (PyYAML)", ("yaml/",)),
    ("Pygments (realce de código)", ("pygments/",)),
    ("código do curso (app/)", ("(app/",)),
    ("FastAPI/Starlette (rotas, middlewares, threadpool)", ("fastapi/", "starlette/", "anyio/")),
    ("HTTP (uvicorn, httptools, asyncio)", ("uvicorn/", "httptools", "asyncio/", "uvloop")),
)
IDLE = (
    "Condition.wait",
    "EpollSelector.select",
    "select (selectors",
    "Queue.get",
    "_worker (concurrent",
)


def _spy() -> str | None:
    beside = Path(sys.executable).with_name("py-spy")  # the venv's, when not on PATH
    return str(beside) if beside.exists() else shutil.which("py-spy")


def available() -> bool:
    """True when py-spy is installed."""
    return _spy() is not None


def record(pid: int, seconds: int, load: Callable[[], object]) -> dict[str, float] | None:
    """Sample ``pid`` and its worker processes while ``load()`` runs.

    Args:
        pid: the uvicorn master; its workers are sampled with it (``--subprocesses``).
        seconds: how long to sample (``load`` should last at least as long).
        load: starts the load and returns when it is done.

    Returns:
        The share of busy samples in each layer of :data:`LAYERS` (0–1, largest first), or
        ``None`` when py-spy could not attach (no ptrace permission, for example).
    """
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "perfil.txt"
        spy = subprocess.Popen(
            [
                _spy() or "py-spy",
                "record",
                "--pid",
                str(pid),
                "--subprocesses",
                "--duration",
                str(seconds),
                "--rate",
                "250",
                "--format",
                "raw",
                "--output",
                str(out),
                "--nonblocking",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        load()
        spy.wait(timeout=seconds + 60)
        if not out.exists():
            return None
        return layers(out.read_text(encoding="utf-8", errors="replace"))


def command(argv: list[str], env: dict | None = None) -> dict[str, float] | None:
    """Run ``argv`` (a Python command) under py-spy and group its samples into layers.

    Returns:
        Shares by layer as in :func:`record`, or ``None`` when py-spy could not run it.
    """
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "perfil.txt"
        subprocess.run(
            [
                _spy() or "py-spy",
                "record",
                "--rate",
                "250",
                "--format",
                "raw",
                "--output",
                str(out),
                "--",
                *argv,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            timeout=300,
            check=False,
        )
        if not out.exists():
            return None
        return layers(out.read_text(encoding="utf-8", errors="replace"))


def layers(raw: str) -> dict[str, float]:
    """Group py-spy's raw stacks (``frame;frame;... count`` lines) into :data:`LAYERS`."""
    counts: collections.Counter[str] = collections.Counter()
    for line in raw.splitlines():
        stack, _, number = line.rpartition(" ")
        if not stack or not number.isdigit():
            continue
        frames = stack.split(";")
        if any(frames[-1].startswith(idle) for idle in IDLE):
            continue
        counts[_layer(frames)] += int(number)
    total = sum(counts.values()) or 1
    return {name: count / total for name, count in counts.most_common()}


def _layer(frames: list[str]) -> str:
    for frame in reversed(frames):
        for name, needles in LAYERS:
            if any(needle in frame for needle in needles):
                return name
    return "outros (Python, bibliotecas)"


def summary(shares: dict[str, float], top: int = 6) -> str:
    """``"Jinja2 41% · banco 22% · ..."``: the largest layers of a profile."""
    return " · ".join(f"{name} {share:.0%}" for name, share in list(shares.items())[:top])
