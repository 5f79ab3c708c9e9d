"""`python -m bench.steps`: the slow steps of issue 38's walk, each timed on its own.

A learner signing in (``POST /conta/entrar`` with the right password) and an instructor
opening the dashboard's "Perguntas" tab (``GET /instrutor/perguntas``, its figures kept and
computed anew, and in Chromium: a click on the tab → its first heading painted). The app runs
under uvicorn (1 worker) on a seeded SQLite database (1,000 learners, 100,000 attempts); each
step is repeated and reported as medians: the wall time the client waited and the CPU time
the server's processes spent (read from ``/proc``, :mod:`bench.cpu`), which moves far less
than the wall time on a shared machine. The argon2 check alone, with the app's parameters, is
timed in this process beside them. Target: every step under 200 ms; the exit code is 1 when
one is not."""

from __future__ import annotations

import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

from app.content.course import load_course
from app.platform.auth import Passwords
from app.platform.migrate import upgrade
from bench.clients import INSTRUCTOR, PASSWORD, TOKEN_RE, instructor_cookie
from bench.cpu import CpuMeter
from bench.run import DASHBOARD_TAB as TAB
from bench.run import App, stop_everything
from bench.search_typing import CHROMIUM, FLAGS
from bench.seed import seed

ROOT = Path(__file__).resolve().parent.parent
REPEATS = int(os.environ.get("BENCH_STEPS_REPEATS", "15"))
TARGET_MS = 200.0
LEARNERS, ATTEMPTS = 1_000, 100_000
TOKEN_RE_FORM = re.compile(r'name="csrftoken" value="([^"]+)"')


def timed(
    app: App, prepare: Callable[[], Callable[[], None]], repeats: int = REPEATS
) -> tuple[float, float]:
    """Medians of the wall and server CPU milliseconds of ``prepare()()``, ``repeats`` times;
    what ``prepare`` does (open the form, drop the kept figures) is outside the clock."""
    walls, cpus = [], []
    for _ in range(repeats):
        step = prepare()
        meter = CpuMeter(app.process.pid)
        meter.start()
        started = time.perf_counter()
        step()
        walls.append((time.perf_counter() - started) * 1000)
        cpus.append(meter.stop() * 1000)
    return statistics.median(walls), statistics.median(cpus)


def expect(response: httpx.Response, status: int, what: str) -> None:
    """Stop the bench when a step answered something else than ``status``."""
    if response.status_code != status:
        raise RuntimeError(f"{what} respondeu {response.status_code}, não {status}")


def sign_in(base: str) -> Callable[[], None]:
    """A new browser that has the sign-in form open; the step signs in with the right password."""
    client = httpx.Client(base_url=base, timeout=30)
    token = TOKEN_RE.search(client.get("/conta").text).group(1)
    form = {"usuario": INSTRUCTOR, "senha": PASSWORD, "csrftoken": token}

    def step() -> None:
        try:
            expect(client.post("/conta/entrar", data=form), 303, "entrar")
        finally:
            client.close()

    return step


def questions_tab(base: str, cookie: str, recompute: bool) -> Callable[[], None]:
    """The instructor's "Perguntas" tab; with ``recompute``, its kept figures dropped first
    (what "Recalcular agora" does), so the step computes them."""
    client = httpx.Client(base_url=base, timeout=60, headers={"Cookie": cookie})
    if recompute:
        page = client.get(TAB).text
        token = TOKEN_RE_FORM.search(page).group(1)
        form = {"csrftoken": token, "aba": "perguntas"}
        expect(client.post("/instrutor/recalcular", data=form), 303, "recalcular")

    def step() -> None:
        try:
            expect(client.get(TAB), 200, "a aba Perguntas")
        finally:
            client.close()

    return step


# Installed in every document: the click on a tab of the dashboard (its time kept in
# sessionStorage across the page load), then the first frame drawn once the questions tab's
# first heading is in the page (a requestAnimationFrame, then a task), as bench.lesson_navigation.
WATCH = """(() => {
  const store = window.sessionStorage;
  const now = () => performance.timeOrigin + performance.now();
  const look = () => {
    if (!document.getElementById("revisar-t") || store.getItem("seen") === location.href) return;
    store.setItem("seen", location.href);
    requestAnimationFrame(() => setTimeout(() => {
      const clicked = Number(store.getItem("clicked") || 0);
      const log = JSON.parse(store.getItem("painted") || "[]");
      if (clicked) log.push(now() - clicked);
      store.setItem("painted", JSON.stringify(log));
      store.removeItem("clicked");
    }, 0));
  };
  new MutationObserver(look).observe(document, {childList: true, subtree: true});
  addEventListener("click", (evt) => {
    if (!evt.target.closest || !evt.target.closest(".dashboard-tabs a")) return;
    store.setItem("clicked", String(performance.timeOrigin + evt.timeStamp));
    store.removeItem("seen");
  }, true);
})();"""


def tab_in_chromium(base: str, cookie: str, repeats: int = REPEATS) -> float:
    """Median milliseconds from a click on "Perguntas" in the dashboard's tabs (1280 px) to
    the first frame with the tab's first heading."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            pairs = (part.strip().split("=", 1) for part in cookie.split(";"))
            context.add_cookies([{"name": k, "value": v, "url": base} for k, v in pairs])
            page = context.new_page()
            page.add_init_script(WATCH)
            for count in range(1, repeats + 1):
                page.goto(base + "/instrutor")
                page.locator(".dashboard-tabs").get_by_role("link", name="Perguntas").click()
                page.wait_for_function(
                    "(n) => JSON.parse(sessionStorage.getItem('painted') || '[]').length >= n",
                    arg=count,
                    timeout=30_000,
                )
            log = page.evaluate("JSON.parse(sessionStorage.getItem('painted'))")
        finally:
            browser.close()
    return statistics.median(log)


def main() -> int:
    """Seed, start the app, time each step; prints a table. Exit code 1 when a step is over
    its target."""
    work = Path(tempfile.mkdtemp(prefix="curso-steps-"))
    try:
        course = load_course(ROOT / "lessons")
        database = work / "curso.db"
        upgrade(f"sqlite:///{database}")
        seed(database, course, LEARNERS, ATTEMPTS, random.Random(2026))
        app = App(work, ROOT / "lessons", workers=1)
        try:
            rows = measure(app)
        finally:
            app.stop()
    finally:
        stop_everything()
        shutil.rmtree(work, ignore_errors=True)
    print(table(rows))
    return 0 if all(wall <= TARGET_MS for _, wall, _ in rows if wall is not None) else 1


def measure(app: App) -> list[tuple[str, float | None, float | None]]:
    """(step, wall ms p50 or ``None`` for an in-process part, server CPU ms p50 or ``None``
    when not read) of every step."""
    cookie = instructor_cookie(app.base, app.env)
    rows: list[tuple[str, float | None, float | None]] = [
        ("entrar (senha certa)", *timed(app, lambda: sign_in(app.base))),
        (
            "aba Perguntas (números guardados)",
            *timed(app, lambda: questions_tab(app.base, cookie, False)),
        ),
        ("aba Perguntas (recalculada)", *timed(app, lambda: questions_tab(app.base, cookie, True))),
    ]
    painted = tab_in_chromium(app.base, cookie)
    rows.append(("aba Perguntas no Chromium: clique → título pintado", painted, None))
    passwords = Passwords()
    stored = passwords.hash(PASSWORD)
    checks = []
    for _ in range(REPEATS):
        started = time.process_time()
        passwords.check(PASSWORD, stored)
        checks.append((time.process_time() - started) * 1000)
    rows.append(
        ("argon2: conferir uma senha (só o hash, neste processo)", None, statistics.median(checks))
    )
    return rows


def table(rows: list[tuple[str, float | None, float | None]]) -> str:
    """The rows as a Markdown table, with the target and whether each step meets it."""
    lines = ["| passo | espera p50 (ms) | CPU do servidor p50 (ms) | meta | atingida |"]
    lines.append("|---|---|---|---|---|")
    for name, wall, cpu in rows:
        spent = "—" if cpu is None else f"{cpu:.0f}"
        if wall is None:
            lines.append(f"| {name} | — | {spent} | — | — |")
        else:
            met = "sim" if wall <= TARGET_MS else "não"
            lines.append(f"| {name} | {wall:.0f} | {spent} | < {TARGET_MS:.0f} ms | {met} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
