"""The anchors of issue 35's table: how little an ASGI server on this machine spends per request.

Each is an app factory for ``uvicorn --factory``, run by the bench (:class:`bench.run.App`) with
the same uvicorn as the course, on the same cores, in the same run:

- :func:`raw_page`: a bare ASGI callable answering every GET with one page compressed once
  (``BENCH_PAGE``, a file), the floor under the anonymous lesson;
- :func:`minimal_post`: a FastAPI app with one form POST that inserts one row in a SQLite file
  (``BENCH_DB``), the floor under the answer POST.
"""

from __future__ import annotations

import gzip
import os
import sqlite3
import threading
from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Form
from fastapi.responses import PlainTextResponse


def raw_page():
    """An ASGI app that answers every request with ``BENCH_PAGE`` gzipped (compressed once)."""
    body = gzip.compress(Path(os.environ["BENCH_PAGE"]).read_bytes(), compresslevel=9)
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"content-encoding", b"gzip"),
            (b"content-length", str(len(body)).encode()),
        ],
    }
    message = {"type": "http.response.body", "body": body}

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await send(start)
        await send(message)

    return app


def minimal_post():
    """A FastAPI app: ``GET /`` answers ``ok``; ``POST /`` takes a form field ``chave`` and
    inserts it in ``BENCH_DB`` (one SQLite INSERT and commit, on the threadpool)."""
    database = os.environ["BENCH_DB"]
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE IF NOT EXISTS row (id INTEGER PRIMARY KEY, chave TEXT)")
    local = threading.local()
    app = FastAPI()

    @app.get("/", response_class=PlainTextResponse)
    def alive() -> str:
        return "ok"

    @app.post("/", response_class=PlainTextResponse)
    def insert(chave: Annotated[str, Form()]) -> str:
        db = getattr(local, "db", None)
        if db is None:
            db = local.db = sqlite3.connect(database, timeout=10)
            db.execute("PRAGMA synchronous=NORMAL")
        with db:
            db.execute("INSERT INTO row (chave) VALUES (?)", (chave,))
        return "ok"

    return app
