"""`make bench`: the app against nginx serving the same lesson page, same client, same run.

Everything runs on 127.0.0.1 and is bounded in time. Prints a table and writes
bench/results/latest.json. Ratios are req/s of a scenario over req/s of nginx
measured right before it (the two alternate), so machine noise cancels out.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.content.course import load_course  # noqa: E402
from app.migrate import upgrade  # noqa: E402
from bench.seed import generated_lessons, seed  # noqa: E402

DURATION = int(os.environ.get("BENCH_SECONDS", "6"))
CONNECTIONS = 50
RESULTS = ROOT / "bench" / "results"
TOKEN_RE = re.compile(r'"x-csrftoken": "([^"]+)"')
KEY_RE = re.compile(r'name="chave" value="([^"]+)"')


@dataclass
class Row:
    """One measured scenario."""

    scenario: str
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int
    nginx_rps: float = 0.0
    target: str = ""

    @property
    def ratio(self) -> float:
        return self.rps / self.nginx_rps if self.nginx_rps else 0.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wrk(url: str, script: str | None = None, env: dict | None = None, seconds: int = DURATION) -> Row:
    """Run wrk -t2 -c50 against ``url`` and parse req/s, p50, p99 and errors."""
    cmd = ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds}s", "--latency", "--timeout", "5s"]
    if script:
        cmd += ["-s", str(ROOT / "bench" / script)]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=seconds + 30).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = _latency(out, "50%")
    p99 = _latency(out, "99%")
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = (int(non2xx.group(1)) if non2xx else 0) + (sum(map(int, socket_errors.groups())) if socket_errors else 0)
    return Row("", rps, p50, p99, errors)


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
            f"worker_processes 2; daemon off; pid {folder}/nginx.pid; error_log {folder}/error.log;\n"
            "events { worker_connections 1024; }\n"
            "http { access_log off; default_type text/html;\n"
            f"  server {{ listen 127.0.0.1:{self.port}; root {folder};\n"
            "    location / { try_files /licao.html =404; } } }\n",
            encoding="utf-8",
        )
        self.process = subprocess.Popen(
            ["nginx", "-c", str(conf), "-p", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_http(f"http://127.0.0.1:{self.port}/")

    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


class App:
    """The app under uvicorn with N workers on a given database and lessons folder."""

    def __init__(self, folder: Path, lessons: Path, workers: int = 2):
        self.port = free_port()
        self.env = {
            **os.environ, "CURSO_DATABASE_URL": f"sqlite:///{folder / 'curso.db'}",
            "CURSO_LESSONS_DIR": str(lessons), "CURSO_VAR_DIR": str(folder / "var"),
            "CURSO_SECRET_KEY": "chave-do-benchmark-" + "x" * 40,
        }
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory", "app.main:create_app", "--host", "127.0.0.1",
             "--port", str(self.port), "--workers", str(workers), "--no-access-log", "--log-level", "warning"],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=open(folder / "app.log", "w"),  # noqa: SIM115
            start_new_session=True,
        )
        wait_http(self.base + "/")
        self.cold_start_s = time.perf_counter() - started

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def worker_rss_mb(self) -> list[float]:
        """Resident memory of each worker process (MB)."""
        children = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout.split()
        pids = [p for p in children if "resource_tracker" not in Path(f"/proc/{p}/cmdline").read_text()] or children
        sizes = []
        for pid in pids:
            status = Path(f"/proc/{pid}/status").read_text()
            sizes.append(int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024)
        return sizes

    def stop(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=20)


def wait_http(url: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{url} não respondeu")


def learner_session(base: str) -> dict:
    """A learner with progress on lesson 1: the cookie, CSRF token and a question to answer."""
    client = httpx.Client(base_url=base, timeout=30)
    page = client.get("/licoes/kernels").text
    token = TOKEN_RE.search(page).group(1)
    course = load_course(ROOT / "lessons")
    questions = list(course.get("kernels").questions.values())
    for question in questions[:3]:
        page = client.get("/licoes/kernels").text
        key = re.search(rf'id="pergunta-{question.id}".*?name="chave" value="([^"]+)"', page, re.S).group(1)
        client.post(f"/licoes/kernels/perguntas/{question.id}", data={"opcao": next(iter(question.answer)), "chave": key},
                    headers={"HX-Request": "true", "x-csrftoken": token})
    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    return {"cookie": cookie, "token": token, "question": questions[3].id, "client": client}


def measure(name: str, nginx: Nginx, url: str, target: str, script: str | None = None, env: dict | None = None) -> Row:
    """nginx first, then the scenario, with the same client settings."""
    reference = wrk(nginx.url())
    row = wrk(url, script, env)
    row.scenario, row.nginx_rps, row.target = name, reference.rps, target
    return row


def available(base: str, path: str, cookie: str) -> bool:
    try:
        return httpx.get(base + path, headers={"Cookie": cookie}, timeout=30).status_code == 200
    except httpx.HTTPError:
        return False


def scenarios(app: App, nginx: Nginx, learner: dict) -> list[Row]:
    """Every scenario of the issue that the app serves, each against nginx."""
    base, cookie = app.base, learner["cookie"]
    with_cookie = {"BENCH_COOKIE": cookie}
    rows = [
        measure("Lição, anônimo (sem cookie)", nginx, base + "/licoes/kernels", "≥ 0,25× nginx"),
        measure("Lição, aluno com progresso", nginx, base + "/licoes/kernels", "≥ 0,15× nginx", "wrk_get.lua", with_cookie),
    ]
    post_env = {"BENCH_PATH": f"/licoes/kernels/perguntas/{learner['question']}", "BENCH_COOKIE": cookie,
                "BENCH_TOKEN": learner["token"], "BENCH_BODY": "opcao=b"}
    before = _attempts(app, learner)
    rows.append(measure("Resposta do quiz (POST htmx)", nginx, base + post_env["BENCH_PATH"], "≥ 2.000/s, p99 ≤ 50 ms", "wrk_post.lua", post_env))
    rows[-1].stored = _attempts(app, learner) - before  # type: ignore[attr-defined]
    rows.append(measure("Passo da árvore (fragmento htmx)", nginx,
                        base + "/arvores/guia-fase17/widget?c=hopper&licao=escolha-self-hosted", "≥ 0,15× nginx",
                        "wrk_get.lua", {**with_cookie, "BENCH_HX": "1"}))
    optional = [("Busca", "/busca?q=kernel"), ("/api/progresso", "/api/progresso"), ("Painel do instrutor (1k/100k)", "/instrutor")]
    for name, path in optional:
        if available(base, path, cookie):
            target = "p50 ≤ 300 ms (10k/1M)" if "Painel" in name else "≥ 0,15× nginx"
            rows.append(measure(name, nginx, base + path, target, "wrk_get.lua", with_cookie))
        else:
            rows.append(Row(name, 0, 0, 0, 0, target="indisponível nesta versão"))
    return rows


def _attempts(app: App, learner: dict) -> int:
    progress = learner["client"].get(app.base + "/api/progresso").json()
    return sum(lesson["attempts"] for lesson in progress["lessons"])


def table(rows: list[Row], scale: dict) -> str:
    lines = ["| cenário | req/s | p50 (ms) | p99 (ms) | ÷ nginx | erros | meta |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r.rps:
            lines.append(f"| {r.scenario} | — | — | — | — | — | {r.target} |")
            continue
        lines.append(f"| {r.scenario} | {r.rps:,.0f} | {r.p50_ms:.1f} | {r.p99_ms:.1f} | {r.ratio:.3f} | {r.errors} | {r.target} |")
    lines += ["", "| escala | valor | meta |", "|---|---|---|"]
    lines += [f"| {k} | {v['valor']} | {v['meta']} |" for k, v in scale.items()]
    return "\n".join(lines)


def main() -> int:
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool):
            print(f"{tool} não encontrado: rode `make bench`, que o instala.", file=sys.stderr)
            return 2
    rng = random.Random(2026)
    work = Path(tempfile.mkdtemp(prefix="curso-bench-"))
    work.chmod(0o755)  # nginx's workers run as nobody and must read the saved page
    lessons = ROOT / "lessons"
    course = load_course(lessons)
    upgrade(f"sqlite:///{work / 'curso.db'}")
    seed(work / "curso.db", course, 1_000, 100_000, rng)

    single = App(work, lessons, workers=1)
    cold_start = single.cold_start_s
    single.stop()

    app = App(work, lessons, workers=2)
    nginx = None
    try:
        learner = learner_session(app.base)
        page = httpx.get(app.base + "/licoes/kernels").text
        nginx = Nginx(work, page)
        rows = scenarios(app, nginx, learner)
        print(table(rows, {}), flush=True)
        rss_course = app.worker_rss_mb()
        seed(work / "curso.db", course, 9_000, 900_000, rng)
        big = measure("Lição, aluno com progresso (1M tentativas)", nginx, app.base + "/licoes/kernels", "p50 não cresce",
                      "wrk_get.lua", {"BENCH_COOKIE": learner["cookie"]})
        rows.append(big)
        if available(app.base, "/instrutor", learner["cookie"]):
            rows.append(measure("Painel do instrutor (10k/1M)", nginx, app.base + "/instrutor", "p50 ≤ 300 ms",
                                "wrk_get.lua", {"BENCH_COOKIE": learner["cookie"]}))
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
    print(f"300 lições carregadas em {load_300:.2f} s", flush=True)
    app300 = App(work, generated, workers=2)
    httpx.get(app300.base + "/licoes/gerada-1")
    rss_300 = app300.worker_rss_mb()
    app300.stop()

    lesson_rows = [r for r in rows if r.scenario.startswith("Lição, aluno com progresso")]
    scale = {
        "partida a frio até o primeiro 200": {"valor": f"{cold_start:.2f} s", "meta": "≤ 1,5 s"},
        "memória por worker (3 lições)": {"valor": ", ".join(f"{m:.0f} MB" for m in rss_course), "meta": "—"},
        "memória por worker (300 lições)": {"valor": ", ".join(f"{m:.0f} MB" for m in rss_300), "meta": "≤ 150 MB"},
        "carregar e renderizar 300 lições": {"valor": f"{load_300:.2f} s", "meta": "≤ 3 s"},
        "p50 da lição: 100k → 1M tentativas": {
            "valor": f"{lesson_rows[0].p50_ms:.1f} ms → {lesson_rows[1].p50_ms:.1f} ms", "meta": "não cresce"},
    }
    print(table(rows, scale))
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds_per_run": DURATION,
        "connections": CONNECTIONS, "scenarios": [{**asdict(r), "ratio": round(r.ratio, 4)} for r in rows],
        "scale": scale,
    }
    (RESULTS / "latest.json").write_text(json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
