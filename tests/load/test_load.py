"""Load, crash and concurrency: every acknowledged answer is stored, on SQLite and PostgreSQL.

All traffic goes to a server this test starts on 127.0.0.1; every loop is bounded in time.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path

import httpx
import pytest

from app.content.course import load_course
from tests.load.simulate import TOKEN_RE, LoadReport, run_load
from tests.support.app import (
    ARTIFACTS,
    BACKENDS,
    REPO_LESSONS,
    create_postgres_database,
    db_rows,
    drop_postgres_database,
)
from tests.support.learning import COURSE
from tests.support.server import LiveServer

LEARNERS = 200
SECONDS = 15  # both workers keep writing at once the whole time; make test runs it per database


@pytest.fixture(params=BACKENDS)
def server(request, tmp_path) -> LiveServer:
    url = create_postgres_database() if request.param == "postgresql" else ""
    live = LiveServer(tmp_path, REPO_LESSONS, database_url=url, workers=2)
    live.start()
    yield live
    live.stop()
    if url:
        drop_postgres_database(url)


def stored_keys(server: LiveServer) -> set[str]:
    return {key for (key,) in db_rows(server.settings, "SELECT idempotency_key FROM attempt")}


def save_report(name: str, report: dict) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"{name}.json").write_text(json.dumps(report, indent=2), encoding="utf-8")


def test_200_learners_for_15_seconds_lose_nothing(server: LiveServer):
    report = asyncio.run(run_load(server.url, COURSE, LEARNERS, SECONDS))
    backend = "postgresql" if server.database_url else "sqlite"
    summary = {
        "backend": backend,
        "learners": LEARNERS,
        "seconds": SECONDS,
        "workers": 2,
        **report.summary(),
    }
    save_report(f"carga-{backend}", summary)
    assert report.acknowledged > 0
    assert {s for s in report.statuses if s >= 500 or s == 0} == set(), report.statuses
    stored = stored_keys(server)
    assert len(stored) == report.acknowledged, "cada resposta confirmada está no banco, uma vez só"
    assert set(report.acknowledged_keys) == stored
    assert "database is locked" not in server.log_path.read_text()


def test_kill_9_in_the_middle_keeps_every_acknowledged_answer(server: LiveServer):
    async def load_then_crash():
        stop = asyncio.Event()
        report = LoadReport()
        task = asyncio.create_task(run_load(server.url, COURSE, 50, 30, stop, report))
        # Crash in the middle of answering: once answers are being acknowledged (bounded wait;
        # on a busy machine the 50 first page loads alone can take seconds), then 2 s more.
        deadline = time.monotonic() + 20
        while report.acknowledged == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await asyncio.sleep(2)
        server.kill()
        stop.set()
        return await task

    report = asyncio.run(load_then_crash())
    assert report.acknowledged > 0
    server.start()  # a restart on the same database
    stored = stored_keys(server)
    assert set(report.acknowledged_keys) <= stored, "uma resposta confirmada sumiu no crash"
    if not server.database_url:
        with sqlite3.connect(server.database) as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert httpx.get(server.url + "/healthz").status_code == 200


def _session(server: LiveServer) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=server.url, timeout=30)
    page = client.get("/licoes/kernels")
    return client, TOKEN_RE.search(page.text).group(1)


def test_the_same_answer_sent_20_times_at_once_is_stored_once(server: LiveServer):
    client, token = _session(server)
    question = next(iter(COURSE.get("kernels").questions.values()))
    cookies = dict(client.cookies)

    async def send_all():
        async with httpx.AsyncClient(base_url=server.url, cookies=cookies, timeout=30) as burst:
            data = {
                "opcao": "b",
                "chave": "mesma-chave-de-teste-123",
                "versao": question.content_hash,
            }
            headers = {"HX-Request": "true", "x-csrftoken": token}
            url = f"/licoes/kernels/perguntas/{question.id}"
            return await asyncio.gather(
                *(burst.post(url, data=data, headers=headers) for _ in range(20))
            )

    responses = asyncio.run(send_all())
    assert [r.status_code for r in responses] == [200] * 20
    assert db_rows(server.settings, "SELECT count(*) FROM attempt") == [(1,)]


def twenty_lessons(folder: Path) -> Path:
    folder.mkdir()
    for n in range(1, 21):
        (folder / f"{n:02d}.md").write_text(
            f"---\ntitle: Lição {n}\nslug: licao-{n}\norder: {n}\nsummary: Curta.\nminutes: 1\n"
            "objectives:\n  - Responder.\n---\n\n## Parte\n\nTexto.\n\n"
            "```quiz\n- id: q\n  kind: single\n"
            f"  prompt: Sim?\n  options:\n    - {{id: a, text: Sim, explanation: Certo.}}\n"
            f"    - {{id: b, text: Não, explanation: Errado.}}\n  answer: [a]\n```\n",
            encoding="utf-8",
        )
    return folder


def test_20_lessons_completed_in_parallel_by_one_learner_all_count(tmp_path, database_url):
    server = LiveServer(
        tmp_path, twenty_lessons(tmp_path / "lessons"), database_url=database_url, workers=2
    )
    server.start()
    try:
        client, token = _session_at(server, "/licoes/licao-1")
        cookies = dict(client.cookies)
        versions = {
            q.id: q.content_hash
            for q in load_course(server.lessons_dir).get("licao-1").questions.values()
        }

        async def finish_all():
            async with httpx.AsyncClient(base_url=server.url, cookies=cookies, timeout=30) as burst:
                headers = {"HX-Request": "true", "x-csrftoken": token}
                return await asyncio.gather(
                    *(
                        burst.post(
                            f"/licoes/licao-{n}/perguntas/q",
                            data={
                                "opcao": "a",
                                "chave": f"chave-licao-{n:02d}-xyz",
                                "versao": versions["q"],
                            },
                            headers=headers,
                        )
                        for n in range(1, 21)
                    )
                )

        responses = asyncio.run(finish_all())
        assert [r.status_code for r in responses] == [200] * 20
        # Every answer went to the session's learner (identity lives only in the session).
        progress = client.get("/api/progresso").json()
        assert [lesson["status"] for lesson in progress["lessons"]] == ["concluída"] * 20
    finally:
        server.stop()


def _session_at(server: LiveServer, path: str) -> tuple[httpx.Client, str]:
    """A reader at ``path`` with a session: the place ``app.js`` posts when a lesson opens."""
    client = httpx.Client(base_url=server.url, timeout=30)
    token = TOKEN_RE.search(client.get(path).text).group(1)
    slug = path.rsplit("/", 1)[1]
    placed = client.post("/progresso/lugar", data={"licao": slug}, headers={"x-csrftoken": token})
    assert placed.status_code == 204 and "curso_sessao" in client.cookies
    return client, token
