"""`make bench`: the app against nginx serving the same lesson page, same client, same run.

Everything runs on 127.0.0.1 and is bounded in time. Prints a table and writes
bench/results/latest.json. Ratios are req/s of a scenario over req/s of nginx
measured right before it (the two alternate), so machine noise cancels out.
"""

from __future__ import annotations

import compileall
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from app.content.course import load_course
from app.content.lesson_cache import LessonCache
from app.platform.migrate import upgrade
from bench import profile
from bench.clients import answering_learners, instructor_cookie, reading_learner
from bench.seed import generated_lessons, seed

ROOT = Path(__file__).resolve().parent.parent

DURATION = int(os.environ.get("BENCH_SECONDS", "4"))
CONNECTIONS = 50
RESULTS = ROOT / "bench" / "results"
PROFILE_SECONDS = 2
LESSON = "/licoes/kernels"


@dataclass
class Row:
    """One measured scenario: wrk's figures, the nginx reference and whether the target is met."""

    scenario: str
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int
    requests: int = 0
    nginx_rps: float = 0.0
    target: str = ""
    met: bool | None = None
    stored: int | None = None
    profile: dict[str, float] | None = None

    @property
    def ratio(self) -> float:
        """req/s over nginx's req/s in the run just before (0 when there was none)."""
        return self.rps / self.nginx_rps if self.nginx_rps else 0.0


@dataclass
class Scenario:
    """A page or form to load, its wrk script and settings, and its target."""

    name: str
    path: str
    target: str
    met: Callable[[Row], bool]
    script: str | None = "wrk_get.lua"
    env: dict = field(default_factory=dict)
    connections: int = CONNECTIONS


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wrk(
    url: str,
    script: str | None = None,
    env: dict | None = None,
    seconds: int = DURATION,
    connections: int = CONNECTIONS,
) -> Row:
    """Run wrk (2 threads) against ``url`` and parse req/s, p50, p99, errors and requests."""
    threads = min(2, connections)
    cmd = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{seconds}s",
        "--latency",
        "--timeout",
        "5s",
    ]
    if script:
        cmd += ["-s", str(ROOT / "bench" / script)]
    out = subprocess.run(
        [*cmd, url],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=seconds + 30,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = _latency(out, "50%")
    p99 = _latency(out, "99%")
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out
    )
    errors = (int(non2xx.group(1)) if non2xx else 0) + (
        sum(map(int, socket_errors.groups())) if socket_errors else 0
    )
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    return Row("", rps, p50, p99, errors, requests)


def _latency(out: str, label: str) -> float:
    match = re.search(rf"\s{re.escape(label)}\s+([\d.]+)(us|ms|s)", out)
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


class Nginx:
    """nginx serving one saved page as a static file (the reference)."""

    def __init__(self, folder: Path, html: str):
        self.folder = folder
        (folder / "licao.html").write_text(html, encoding="utf-8")
        (folder / "licao.html").chmod(0o644)
        self.port = free_port()
        conf = folder / "nginx.conf"
        conf.write_text(
            f"worker_processes 2; daemon off; pid {folder}/nginx.pid; error_log "
            f"{folder}/error.log;\n"
            "events { worker_connections 1024; }\n"
            "http { access_log off; default_type text/html;\n"
            f"  server {{ listen 127.0.0.1:{self.port}; root {folder};\n"
            "    location / { try_files /licao.html =404; } } }\n",
            encoding="utf-8",
        )
        self.process = subprocess.Popen(
            ["nginx", "-c", str(conf), "-p", str(folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_http(f"http://127.0.0.1:{self.port}/")

    def url(self) -> str:
        """The saved page's URL."""
        return f"http://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        """Stop nginx."""
        self.process.terminate()
        self.process.wait(timeout=10)


class App:
    """The app under uvicorn with N workers on a given database and lessons folder."""

    def __init__(self, folder: Path, lessons: Path, workers: int = 2):
        self.port = free_port()
        self.env = {
            **os.environ,
            "CURSO_DATABASE_URL": f"sqlite:///{folder / 'curso.db'}",
            "CURSO_LESSONS_DIR": str(lessons),
            "CURSO_VAR_DIR": str(folder / "var"),
            "CURSO_SECRET_KEY": "chave-do-benchmark-" + "x" * 40,
        }
        self.log = (folder / "app.log").open("a", encoding="utf-8")  # closed by stop()
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "app.main:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                str(workers),
                "--no-access-log",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            start_new_session=True,
        )
        wait_http(self.base + "/")
        self.cold_start_s = time.perf_counter() - started

    @property
    def base(self) -> str:
        """The app's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def worker_rss_mb(self) -> list[float]:
        """Resident memory of each worker process (MB)."""
        children = subprocess.run(
            ["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True
        ).stdout.split()
        pids = [
            p for p in children if "resource_tracker" not in Path(f"/proc/{p}/cmdline").read_text()
        ] or children
        sizes = []
        for pid in pids:
            status = Path(f"/proc/{pid}/status").read_text()
            sizes.append(int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024)
        return sizes

    def stop(self) -> None:
        """Stop uvicorn and its workers."""
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=20)
        self.log.close()


def wait_http(url: str, seconds: float = 120) -> None:
    """Wait until ``url`` answers 200.

    Raises:
        RuntimeError: it did not within ``seconds``.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{url} não respondeu")


def settle(base: str, seconds: float = 20) -> None:
    """Wait until the app answers quickly again (requests wrk gave up on are still being served)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        with contextlib.suppress(httpx.HTTPError):
            httpx.get(base + "/healthz", timeout=5)
        if time.perf_counter() - started < 0.05:
            return
        time.sleep(0.2)


def measure(app: App, nginx: Nginx, scenario: Scenario) -> Row:
    """nginx first, then the scenario, with the same client settings; then the target check."""
    settle(app.base)
    reference = wrk(nginx.url(), connections=scenario.connections)
    row = wrk(
        app.base + scenario.path, scenario.script, scenario.env, connections=scenario.connections
    )
    row.scenario, row.nginx_rps, row.target = scenario.name, reference.rps, scenario.target
    row.met = scenario.met(row)
    return row


def ratio_at_least(minimum: float) -> Callable[[Row], bool]:
    """A target check: req/s at least ``minimum`` × nginx's, and no errors."""
    return lambda row: row.ratio >= minimum and row.errors == 0


def stored_answers(database: Path) -> int:
    """Answers the benchmark stored (their idempotency keys start with ``bench``)."""
    with sqlite3.connect(database) as db:
        return db.execute(
            "SELECT count(*) FROM attempt WHERE idempotency_key LIKE 'bench%'"
        ).fetchone()[0]


def scenarios(
    reader: dict, answers_file: Path, instructor: str, question: str, version: str
) -> list[Scenario]:
    """The scenarios of the issue, in order (the 10k/1M runs come later).

    ``question`` is the id of the kernels question the answer scenario posts to, ``version`` its
    ``content_hash`` (the form's ``versao``).
    """
    reading = {"BENCH_COOKIE": reader["cookie"]}
    return [
        Scenario(
            "Lição, anônimo (sem cookie)", LESSON, "≥ 0,25× nginx", ratio_at_least(0.25), None
        ),
        Scenario(
            "Lição, aluno com progresso", LESSON, "≥ 0,15× nginx", ratio_at_least(0.15), env=reading
        ),
        Scenario(
            "Resposta do quiz (POST htmx, 50 alunos)",
            f"{LESSON}/perguntas/{question}",
            "≥ 2.000/s, p99 ≤ 50 ms, nada perdido",
            lambda r: (
                r.rps >= 2000
                and r.p99_ms <= 50
                and r.errors == 0
                and (r.stored or 0) >= r.requests - r.errors
            ),
            "wrk_post.lua",
            {
                "BENCH_PATH": f"{LESSON}/perguntas/{question}",
                "BENCH_LEARNERS": str(answers_file),
                "BENCH_BODY": f"opcao=b&versao={version}",
            },
        ),
        Scenario(
            "Passo da árvore (fragmento htmx)",
            "/arvores/guia-fase17/widget?c=hopper&licao=escolha-self-hosted",
            "≥ 0,15× nginx",
            ratio_at_least(0.15),
            env={**reading, "BENCH_HX": "1"},
        ),
        Scenario("Busca", "/busca?q=kernel", "≥ 0,15× nginx", ratio_at_least(0.15), env=reading),
        Scenario(
            "/api/progresso", "/api/progresso", "≥ 0,15× nginx", ratio_at_least(0.15), env=reading
        ),
        Scenario(
            "Painel do instrutor (1k/100k, 1 conexão)",
            "/instrutor",
            "p50 ≤ 300 ms",
            lambda r: r.p50_ms <= 300 and r.errors == 0,
            env={"BENCH_COOKIE": instructor},
            connections=1,
        ),
    ]


def run_all(app: App, nginx: Nginx, todo: list[Scenario], database: Path) -> list[Row]:
    """Measure each scenario; count the stored answers around the POST one."""
    rows = []
    for scenario in todo:
        before = stored_answers(database)
        row = measure(app, nginx, scenario)
        if scenario.script == "wrk_post.lua":
            settle(app.base)
            row.stored = stored_answers(database) - before
            row.met = scenario.met(row)
        rows.append(row)
        # The whole line as it finishes: a run stopped later still reports it.
        stored = f", gravadas {row.stored:,}" if row.stored is not None else ""
        print(
            f"  {row.scenario}: {row.rps:,.0f} req/s, "
            f"p50 {row.p50_ms:.1f} ms, p99 {row.p99_ms:.1f} ms, "
            f"÷ nginx {row.ratio:.3f} (nginx {row.nginx_rps:,.0f} req/s), "
            f"erros {row.errors}{stored}, "
            f"meta {'atingida' if row.met else 'não atingida'}",
            flush=True,
        )
    return rows


def profile_missed(app: App, todo: list[Scenario], rows: list[Row]) -> None:
    """Sample the workers under each scenario that missed its target (py-spy), into
    ``row.profile``.
    """
    if not profile.available():
        print(
            "py-spy não encontrado: sem perfil (`make bench` o instala com as dependências de "
            "teste)."
        )
        return
    for scenario, row in zip(todo, rows, strict=True):
        if row.met:
            continue
        settle(app.base)
        row.profile = profile.record(
            app.process.pid,
            PROFILE_SECONDS,
            lambda s=scenario: wrk(
                app.base + s.path, s.script, s.env, PROFILE_SECONDS + 1, s.connections
            ),
        )


def uncached_dashboard(app: App, instructor: str, presses: int = 7) -> Row:
    """The dashboard when its stored figures are stale: "Recalcular agora" pressed ``presses``
    times (every figure computed again from the kept aggregates), the median timed (and
    profiled)."""
    timing: list[float] = []

    def press() -> None:
        recompute_dashboard(app.base, instructor)  # the first one may recount the basis
        timing.extend(recompute_dashboard(app.base, instructor) for _ in range(presses))

    shares = (
        profile.record(app.process.pid, PROFILE_SECONDS, press) if profile.available() else press()
    )
    seconds = statistics.median(timing)
    met = seconds <= 0.3
    return Row(
        "Painel do instrutor (10k/1M), números recalculados (sem cache)",
        1 / seconds,
        seconds * 1000,
        max(timing) * 1000,
        0,
        len(timing),
        target="p50 ≤ 300 ms",
        met=met,
        profile=None if met else shares,
    )


def scale_profiles_of(
    scale: dict, work: Path, generated: Path
) -> dict[str, dict[str, float] | None]:
    """A py-spy profile of each missed scale target it can re-run (start-up, 300 lessons)."""
    if not profile.available():
        return {}
    env = {
        **os.environ,
        "CURSO_DATABASE_URL": f"sqlite:///{work / 'curso.db'}",
        "CURSO_VAR_DIR": str(work / "var"),
        "CURSO_LESSONS_DIR": str(ROOT / "lessons"),
        "CURSO_SECRET_KEY": "chave-do-benchmark-" + "x" * 40,
    }
    commands = {
        "partida a frio até o primeiro 200 (1 worker)": [
            sys.executable,
            "-c",
            "import uvicorn; from app.main import create_app; create_app()",
        ],
        "carregar e renderizar 300 lições": [
            sys.executable,
            "-c",
            f"from pathlib import Path; from app.content.course import load_course; "
            f"load_course(Path({str(generated)!r}))",
        ],
    }
    return {
        name: profile.command(argv, env)
        for name, argv in commands.items()
        if scale[name]["atingida"] == "não"
    }


def table(rows: list[Row], scale: dict, scale_profiles: dict | None = None) -> str:
    """The results as Markdown tables (scenarios, then scale figures)."""
    lines = [
        "| cenário | req/s | p50 (ms) | p99 (ms) | ÷ nginx | erros | meta | atingida |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        stored = (
            f" (gravadas {r.stored:,} de {r.requests - r.errors:,} confirmadas)"
            if r.stored is not None
            else ""
        )
        lines.append(
            f"| {r.scenario}{stored} | {r.rps:,.0f} | {r.p50_ms:.1f} | {r.p99_ms:.1f} "
            f"| {r.ratio:.3f} "
            f"| {r.errors} | {r.target} | {'sim' if r.met else 'não'} |"
        )
    lines += ["", "| escala | valor | meta | atingida |", "|---|---|---|---|"]
    lines += [f"| {k} | {v['valor']} | {v['meta']} | {v['atingida']} |" for k, v in scale.items()]
    profiled = [r for r in rows if r.profile]
    measured = {name: shares for name, shares in (scale_profiles or {}).items() if shares}
    if profiled or measured:
        lines += ["", "Perfil (py-spy, amostras dos workers) de cada meta não atingida:", ""]
        lines += [f"- **{r.scenario}**: {profile.summary(r.profile)}" for r in profiled]
        lines += [f"- **{name}**: {profile.summary(shares)}" for name, shares in measured.items()]
    return "\n".join(lines)


def recompute_dashboard(base: str, cookie: str) -> float:
    """Press "Recalcular agora" once; the seconds it took (the figures over every attempt)."""
    with httpx.Client(base_url=base, timeout=300, headers={"Cookie": cookie}) as client:
        page = client.get("/instrutor").text
        token = re.search(r'name="csrftoken" value="([^"]+)"', page).group(1)
        started = time.perf_counter()
        response = client.post("/instrutor/recalcular", data={"csrftoken": token})
        if response.status_code != 303:
            raise RuntimeError(f"recalcular respondeu {response.status_code}")
        return time.perf_counter() - started


def scale_figures(
    cold_start: float,
    rss_course: list[float],
    rss_300: list[float],
    load_300: float,
    lesson_100k: Row,
    lesson_1m: Row,
    first_start: float | None = None,
    load_300_cached: float | None = None,
) -> dict:
    """The scale figures of the issue with their targets.

    Args:
        cold_start: seconds from launching uvicorn (1 worker) to its first 200, with the
            app's ``var/`` as a restart finds it (rendered lessons on disk).
        first_start: the same for the very first start, with an empty ``var/cache``.
        load_300: seconds to load and render 300 lessons, no disk cache.
        load_300_cached: seconds to load the same 300 lessons from a filled disk cache.
    """

    def figure(value: str, target: str, met: bool | None) -> dict:
        return {
            "valor": value,
            "meta": target,
            "atingida": "—" if met is None else "sim" if met else "não",
        }

    extra = {}
    if first_start is not None:
        extra["primeira partida, var/cache vazio (1 worker)"] = figure(
            f"{first_start:.2f} s", "—", None
        )
    if load_300_cached is not None:
        extra["carregar 300 lições do cache em disco"] = figure(
            f"{load_300_cached:.2f} s", "≤ 3 s", load_300_cached <= 3
        )
    return {
        "partida a frio até o primeiro 200 (1 worker)": figure(
            f"{cold_start:.2f} s", "≤ 1,5 s", cold_start <= 1.5
        ),
        **extra,
        "memória por worker (3 lições)": figure(
            ", ".join(f"{m:.0f} MB" for m in rss_course), "—", None
        ),
        "memória por worker (300 lições)": figure(
            ", ".join(f"{m:.0f} MB" for m in rss_300), "≤ 150 MB", max(rss_300) <= 150
        ),
        "carregar e renderizar 300 lições": figure(f"{load_300:.2f} s", "≤ 3 s", load_300 <= 3),
        "p50 da lição (aluno com progresso): 100k → 1M tentativas": figure(
            f"{lesson_100k.p50_ms:.1f} ms → {lesson_1m.p50_ms:.1f} ms",
            "não cresce",
            lesson_1m.p50_ms <= lesson_100k.p50_ms * 1.25,
        ),
    }


def main() -> int:
    """Run every scenario and scale figure, print the table, write ``latest.json``;
    the exit code.
    """
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool):
            print(f"{tool} não encontrado: rode `make bench`, que o instala.", file=sys.stderr)
            return 2
    work = Path(tempfile.mkdtemp(prefix="curso-bench-"))
    work.chmod(0o755)  # nginx's workers run as nobody and must read the saved page
    try:
        return run_in(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)  # a few hundred MB, even when a run fails


def compile_bytecode() -> None:
    """What ``make bytecode`` does: ``.pyc`` files for the app and site-packages.

    A deployed app starts from compiled modules; without them (uv installs without compiling,
    and ``PYTHONDONTWRITEBYTECODE=1`` keeps Python from saving them) each start measured here
    would compile about a thousand modules again. Files already up to date are skipped.
    """
    for folder in (ROOT / "app", Path(sysconfig.get_paths()["purelib"])):
        compileall.compile_dir(folder, quiet=2, workers=0)


def run_in(work: Path) -> int:
    """Everything :func:`main` does, inside the throw-away folder ``work``."""
    print("Compilando os .pyc (make bytecode)...", flush=True)
    compile_bytecode()
    rng = random.Random(2026)
    lessons = ROOT / "lessons"
    course = load_course(lessons)
    database = work / "curso.db"
    upgrade(f"sqlite:///{database}")
    seed(database, course, 1_000, 100_000, rng)

    first = App(work, lessons, workers=1)  # renders the lessons into var/cache
    first_start = first.cold_start_s
    first.stop()
    single = App(work, lessons, workers=1)  # a restart: a new process, var/ as it was left
    cold_start = single.cold_start_s
    single.stop()

    app = App(work, lessons, workers=2)
    nginx = None
    try:
        reader = reading_learner(app.base, course)
        answers_file = answering_learners(app.base, CONNECTIONS, work / "alunos.tsv")
        instructor = instructor_cookie(app.base, app.env)
        httpx.get(
            app.base + "/busca?q=kernel", timeout=60
        )  # the search index is built on first use
        nginx = Nginx(work, httpx.get(app.base + LESSON).text)
        question = list(course.get("kernels").questions.values())[3]
        todo = scenarios(reader, answers_file, instructor, question.id, question.content_hash)
        print("Medindo (cada cenário logo depois do nginx)...", flush=True)
        rows = run_all(app, nginx, todo, database)
        rss_course = app.worker_rss_mb()
        profile_missed(app, todo, rows)
        print("Semeando 10k alunos e 1M tentativas...", flush=True)
        seed(database, course, 9_000, 900_000, rng)
        uncached = uncached_dashboard(app, instructor)
        big = [
            Scenario(
                "Lição, aluno com progresso (1M tentativas)",
                LESSON,
                "p50 não cresce",
                lambda r: r.p50_ms <= rows[1].p50_ms * 1.25,
                env={"BENCH_COOKIE": reader["cookie"]},
            ),
            Scenario(
                "Painel do instrutor (10k/1M, 1 conexão)",
                "/instrutor",
                "p50 ≤ 300 ms",
                lambda r: r.p50_ms <= 300 and r.errors == 0,
                env={"BENCH_COOKIE": instructor},
                connections=1,
            ),
        ]
        big_rows = run_all(app, nginx, big, database)
        profile_missed(app, big, big_rows)
        rows += [*big_rows, uncached]
    finally:
        app.stop()
        if nginx:
            nginx.stop()

    generated = work / "geradas"
    generated_lessons(lessons / "03-alem-do-ollama.md", generated, 300)
    started = time.perf_counter()
    many = load_course(generated)
    load_300 = time.perf_counter() - started
    assert len(many.lessons) == 300, many.errors[:3]
    disk = LessonCache(work / "cache-300")
    load_course(generated, cache=disk)  # fills the cache
    started = time.perf_counter()
    cached = load_course(generated, cache=disk)
    load_300_cached = time.perf_counter() - started
    assert len(cached.lessons) == 300, cached.errors[:3]
    app300 = App(work, generated, workers=2)
    with httpx.Client(base_url=app300.base, timeout=60) as client:  # every page, and searches
        for n in range(1, 301):
            client.get(f"/licoes/gerada-{n}")
        for query in ("kernel", "decodificacao", "quantizacao", "vllm", "ollama", "lote") * 4:
            client.get("/busca", params={"q": query})
    rss_300 = app300.worker_rss_mb()
    app300.stop()

    scale = scale_figures(
        cold_start, rss_course, rss_300, load_300, rows[1], rows[-3], first_start, load_300_cached
    )
    scale_profiles = scale_profiles_of(scale, work, generated)
    print(table(rows, scale, scale_profiles))
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds_per_run": DURATION,
        "connections": CONNECTIONS,
        "scenarios": [{**asdict(r), "ratio": round(r.ratio, 4)} for r in rows],
        "scale": scale,
        "scale_profiles": scale_profiles,
    }
    (RESULTS / "latest.json").write_text(
        json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
