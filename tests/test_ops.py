"""Operations: /healthz, JSON request logs, `curso backup` and restore."""

from __future__ import annotations

import json
import os
import sqlite3
import threading

import httpx
from fastapi.testclient import TestClient

from app.main import create_app
from app.platform.migrate import downgrade
from tests.support.app import REPO_LESSONS, make_settings
from tests.support.cli import run
from tests.support.html import csrf_from
from tests.support.learning import KERNELS
from tests.support.server import LiveServer


def test_healthz_ok_and_503(settings, tmp_path):
    with TestClient(create_app(settings)) as client:
        response = client.get("/healthz")
        assert response.status_code == 200
        assert response.json() == {
            "database": "ok",
            "migrations": "ok",
            "lessons": {"loaded": 3, "errors": 0},
            "web_editor": "ligado",
            "status": "ok",
        }
    downgrade(settings.database_url, "base")
    with TestClient(create_app(settings)) as client:
        response = client.get("/healthz")
        assert response.status_code == 503
        assert response.json()["migrations"].startswith("pendentes")
    (tmp_path / "vazia").mkdir()
    (tmp_path / "outra").mkdir()
    with TestClient(create_app(make_settings(tmp_path / "outra", tmp_path / "vazia"))) as client:
        assert client.get("/healthz").json()["lessons"] == {"loaded": 0, "errors": 0}
        assert client.get("/healthz").status_code == 503


def test_request_logs_are_json_with_hashed_learner_and_no_answers(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("logs"), REPO_LESSONS)
    server.start()
    try:
        with httpx.Client(base_url=server.url) as client:
            page = client.get("/licoes/kernels", headers={"X-Request-ID": "pedido-123"})
            assert page.headers["x-request-id"] == "pedido-123"
            question = next(iter(KERNELS.questions))
            client.post(
                f"/licoes/kernels/perguntas/{question}",
                data={"csrftoken": csrf_from(page.text), "opcao": "b"},
            )
            learner = client.cookies.get("curso_sessao")
    finally:
        server.stop()
    lines = [
        json.loads(line)
        for line in server.log_path.read_text().splitlines()
        if line.startswith("{")
    ]
    requests = [entry for entry in lines if entry.get("event") == "request"]
    assert {
        "ts",
        "level",
        "request_id",
        "method",
        "path",
        "status",
        "duration_ms",
        "learner",
    } <= set(requests[0])
    first = next(e for e in requests if e["request_id"] == "pedido-123")
    assert first["path"] == "/licoes/kernels" and first["status"] == 200
    assert first["learner"] is None, "quem só lê não é aluno ainda"
    post = next(e for e in requests if e["method"] == "POST")
    assert post["learner"] and len(post["learner"]) == 16, "a primeira resposta faz o aluno"
    text = server.log_path.read_text()
    assert "opcao" not in text and learner not in text


def test_backup_of_a_live_database_and_restore(tmp_path):
    settings = make_settings(tmp_path)
    path = settings.database_url.removeprefix("sqlite:///")
    stop = threading.Event()

    def writer():
        db = sqlite3.connect(path, timeout=10)
        db.execute(
            "INSERT INTO learner (id, created_at) VALUES ('a' || hex(randomblob(15)), "
            "CURRENT_TIMESTAMP)"
        )
        db.commit()
        learner = db.execute("SELECT id FROM learner").fetchone()[0]
        while not stop.is_set():
            db.execute(
                "INSERT INTO attempt (learner_id, lesson_slug, question_id, chosen, correct, "
                "created_at) "
                "VALUES (?, 'kernels', 'troca-de-engine', 'b', 1, CURRENT_TIMESTAMP)",
                (learner,),
            )
            db.commit()
        db.close()

    thread = threading.Thread(target=writer)
    thread.start()
    env = {
        **os.environ,
        "CURSO_DATABASE_URL": settings.database_url,
        "CURSO_VAR_DIR": str(tmp_path / "var"),
    }
    try:
        result = run("backup", str(tmp_path / "copia.db"), env=env)
    finally:
        stop.set()
        thread.join()
    assert result.returncode == 0, result.stderr
    assert "íntegro" in result.stdout
    copy = sqlite3.connect(tmp_path / "copia.db")
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    copied = copy.execute("SELECT count(*) FROM attempt").fetchone()[0]
    assert copied > 0
    copy.close()
    again = run("backup", str(tmp_path / "copia.db"), env=env)
    assert again.returncode == 1 and "já existe" in again.stderr

    # Restore, as the README says: stop the server, put the copy in place of the database file.
    restored = tmp_path / "restaurado"
    restored.mkdir()
    (tmp_path / "copia.db").replace(restored / "curso.db")
    settings_restored = make_settings(restored)
    with TestClient(create_app(settings_restored)) as client:
        assert client.get("/healthz").status_code == 200
    db = sqlite3.connect(restored / "curso.db")
    assert db.execute("SELECT count(*) FROM attempt").fetchone()[0] == copied
