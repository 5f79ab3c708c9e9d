"""The benchmark's profile summary: py-spy stacks grouped into the layers the README names."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from bench.cpu import CpuMeter
from bench.profile import layers, summary
from bench.run import Row, judge

RAW = "\n".join(
    [
        "<module> (uvicorn/__main__.py:4);run_asgi (uvicorn/protocols/http/httptools_impl.py:422);"
        "render (app/web/templating.py:99);Template.render (jinja2/environment.py:1293);root "
        "(lesson.html:15) 6",
        "<module> (uvicorn/__main__.py:4);lesson_page (app/web/routes/lessons.py:58);"
        "Connection.execute (sqlalchemy/engine/base.py:1494) 3",
        "<module> (uvicorn/__main__.py:4);lesson_page (app/web/routes/lessons.py:58);json_thing "
        "(json/encoder.py:1) 1",
        "Thread._bootstrap (threading.py:1002);WorkerThread.run (anyio/_backends/_asyncio.py:1113);"
        "Queue.get (queue.py:171);Condition.wait (threading.py:327) 50",
        "not a stack line",
    ]
)


def test_busy_samples_are_grouped_by_layer_and_idle_threads_are_left_out():
    shares = layers(RAW)
    assert shares == {
        "Jinja2 (renderizar o HTML)": 0.6,
        "banco (SQLAlchemy, sqlite3, psycopg)": 0.3,
        "código do curso (app/)": 0.1,
    }
    assert (
        summary(shares, top=2)
        == "Jinja2 (renderizar o HTML) 60% · banco (SQLAlchemy, sqlite3, psycopg) 30%"
    )


def test_a_run_that_completed_no_request_is_a_failure_never_met():
    """Issue 23: the 10k/1M dashboard row read "0 req/s, p50 0.0 ms … meta atingida"."""
    nothing = judge(Row("painel", 0.0, 0.0, 0.0, 0, 0), lambda r: r.p50_ms <= 300)
    assert (nothing.met, nothing.failed) == (False, "nenhum pedido completou")
    only_errors = judge(Row("painel", 1.0, 5.0, 9.0, 4, 4), lambda r: True)
    assert only_errors.met is False and only_errors.failed
    served = judge(Row("painel", 3.0, 250.0, 400.0, 0, 12), lambda r: r.p50_ms <= 300)
    assert (served.met, served.failed) == (True, "")


def test_cpu_seconds_grow_with_the_work_of_a_process_tree():
    child = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: pass"])
    try:
        meter = CpuMeter(child.pid)
        meter.start()
        deadline = time.monotonic() + 20  # a loaded machine gives the loop a small share
        while meter.stop() < 0.05 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert meter.spent >= 0.05, "um laço ocupado gasta CPU, e o medidor vê"
        assert meter.per_request_ms(10) == pytest.approx(100 * meter.spent)
    finally:
        child.kill()
        child.wait()
