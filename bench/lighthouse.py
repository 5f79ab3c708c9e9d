"""`make lighthouse` (also run by `make bench`): Lighthouse 12 on the "kernels" lesson.

The lesson is served by a real uvicorn on a throw-away SQLite database.

Targets (issue 18): accessibility 100, SEO 100, mobile Total Blocking Time ≤ 50 ms and
mobile Largest Contentful Paint ≤ 1.2 s. Each figure is the median of ``LIGHTHOUSE_RUNS``
runs (3 by default): on 2 shared cores one run moves by about ±10 ms of TBT
(/work/shared/TOOLCHAIN.md). Lighthouse 12 is installed with npm into a scratch folder
(``LIGHTHOUSE_DIR``, default ``~/.cache/curso-lighthouse``) when it is missing, and runs
with Debian's Chromium (``CHROME_PATH``, default /usr/bin/chromium). Prints a table and
writes bench/results/lighthouse.json.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from app.platform.migrate import upgrade
from bench.run import LESSON, RESULTS, ROOT, App

RUNS = int(os.environ.get("LIGHTHOUSE_RUNS", "3"))
FOLDER = Path(os.environ.get("LIGHTHOUSE_DIR", Path.home() / ".cache" / "curso-lighthouse"))
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")


@dataclass
class Figure:
    """One Lighthouse figure: its median, every run's value, the target and whether it is met."""

    name: str
    median: float
    runs: list[float]
    unit: str
    target: str
    met: bool


def lighthouse_bin() -> Path:
    """The ``lighthouse`` executable; ``npm install lighthouse@12`` into :data:`FOLDER` if missing.

    Raises:
        RuntimeError: npm is not installed, or the install failed.
    """
    binary = FOLDER / "node_modules" / ".bin" / "lighthouse"
    if binary.exists():
        return binary
    if not shutil.which("npm"):
        raise RuntimeError(
            "npm não encontrado: instale o Node.js (apt-get install npm) "
            "para medir com o Lighthouse."
        )
    FOLDER.mkdir(parents=True, exist_ok=True)
    print(f"Instalando o Lighthouse 12 em {FOLDER} (npm)...", flush=True)
    subprocess.run(
        [
            "npm",
            "install",
            "--silent",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(FOLDER),
            "lighthouse@12",
        ],
        check=True,
    )
    if not binary.exists():
        raise RuntimeError(f"npm não instalou {binary}")
    return binary


def run_once(binary: Path, url: str, desktop: bool = False) -> dict:
    """One Lighthouse run on ``url`` (a phone unless ``desktop``); the JSON report as a dict.

    A failed run is tried again, up to three times; Lighthouse's stderr is printed on each
    failure.

    Raises:
        subprocess.CalledProcessError: Lighthouse failed three times.
    """
    command = [
        str(binary),
        url,
        "--chrome-flags=--headless=new --no-sandbox",
        "--output=json",
        "--quiet",
        "--only-categories=accessibility,seo,performance,best-practices",
    ]
    if desktop:
        command.append("--preset=desktop")
    # Right after an install Lighthouse has failed twice in a row with NO_NAVSTART (no
    # navigation in Chromium's trace) and then worked: three tries, a pause between them.
    tries = 3
    for attempt in range(1, tries + 1):
        out = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=180,
            env={**os.environ, "CHROME_PATH": CHROME},
        )
        if out.returncode == 0:
            return json.loads(out.stdout)
        print(
            f"Lighthouse falhou (código {out.returncode}, tentativa {attempt} de {tries}):\n"
            + out.stderr[-4000:],
            file=sys.stderr,
            flush=True,
        )
        time.sleep(5)
    raise subprocess.CalledProcessError(out.returncode, command, out.stdout, out.stderr)


def figures(reports: list[dict]) -> list[Figure]:
    """Medians of the mobile reports' scores and timings, with the issue's targets."""

    def score(category: str) -> list[float]:
        return [round(r["categories"][category]["score"] * 100) for r in reports]

    def audit(name: str) -> list[float]:
        return [round(r["audits"][name]["numericValue"]) for r in reports]

    accessibility, seo = score("accessibility"), score("seo")
    tbt, lcp, fcp = (
        audit("total-blocking-time"),
        audit("largest-contentful-paint"),
        audit("first-contentful-paint"),
    )
    return [
        Figure(
            "Acessibilidade",
            statistics.median(accessibility),
            accessibility,
            "",
            "= 100",
            statistics.median(accessibility) == 100,
        ),
        Figure("SEO", statistics.median(seo), seo, "", "= 100", statistics.median(seo) == 100),
        Figure(
            "Total Blocking Time (celular)",
            statistics.median(tbt),
            tbt,
            "ms",
            "≤ 50 ms",
            statistics.median(tbt) <= 50,
        ),
        Figure(
            "Largest Contentful Paint (celular)",
            statistics.median(lcp),
            lcp,
            "ms",
            "≤ 1200 ms",
            statistics.median(lcp) <= 1200,
        ),
        Figure(
            "First Contentful Paint (celular)",
            statistics.median(fcp),
            fcp,
            "ms",
            "(informativo)",
            True,
        ),
    ]


def table(rows: list[Figure]) -> str:
    """The figures as a plain-text table, one line each, with 'sim'/'NÃO' for the target."""
    lines = [
        f"Lighthouse 12 em {LESSON} (mediana de {RUNS} execuções)",
        f"{'Medida':<38}{'Mediana':>10}  {'Execuções':<22}{'Alvo':<14}Atingido",
    ]
    for f in rows:
        runs = ", ".join(f"{v:g}" for v in f.runs)
        lines.append(
            f"{f.name:<38}{f.median:>8g}{f.unit:>2}  {runs:<22}{f.target:<14}"
            + ("sim" if f.met else "NÃO")
        )
    return "\n".join(lines)


def main() -> int:
    """Serve the course with uvicorn, run Lighthouse ``RUNS`` times on the lesson, print and save.

    Returns:
        0, also when a target is missed (the table says so, like bench.run's).
    """
    binary = lighthouse_bin()
    load_before = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="curso-lighthouse-"))
    try:
        upgrade(f"sqlite:///{work / 'curso.db'}")
        app = App(work, ROOT / "lessons", workers=1)
        try:
            url = app.base + LESSON
            run_once(
                binary, url
            )  # warm-up: templates, caches, Chromium's disk cache of the profile
            reports = []
            for n in range(RUNS):
                print(f"Lighthouse, execução {n + 1} de {RUNS}...", flush=True)
                reports.append(run_once(binary, url))
        finally:
            app.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = figures(reports)
    load = os.getloadavg()[0]  # other work on the machine inflates every main-thread task
    print(table(rows))
    print(
        f"Carga da máquina (média de 1 min): {load_before:.1f} no começo, {load:.1f} no fim, "
        f"em {os.cpu_count()} núcleos"
    )
    missed = [f.name for f in rows if not f.met]
    print(
        "Todas as metas atingidas."
        if not missed
        else "Metas NÃO atingidas: " + "; ".join(missed) + "."
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "lighthouse.json").write_text(
        json.dumps(
            {
                "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "url": LESSON,
                "runs": RUNS,
                "load_average": load,
                "load_average_at_start": load_before,
                "figures": [asdict(f) for f in rows],
            },
            ensure_ascii=False,
            indent=2,
        ),
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
