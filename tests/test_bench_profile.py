"""The benchmark's profile summary: py-spy stacks grouped into the layers the README names."""

from __future__ import annotations

from bench.profile import layers, summary

RAW = "\n".join(
    [
        "<module> (uvicorn/__main__.py:4);run_asgi (uvicorn/protocols/http/httptools_impl.py:422);"
        "render (app/web/templating.py:99);Template.render (jinja2/environment.py:1293);root "
        "(lesson.html:15) 6",
        "<module> (uvicorn/__main__.py:4);lesson_page (app/web/lessons.py:58);"
        "Connection.execute (sqlalchemy/engine/base.py:1494) 3",
        "<module> (uvicorn/__main__.py:4);lesson_page (app/web/lessons.py:58);json_thing "
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
