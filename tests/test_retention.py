"""Anonymous learners nobody can reach are erased after ``CURSO_ANONYMOUS_RETENTION_DAYS``
(issue 34, item 9), on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from datetime import timedelta

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.learning.retention import RetentionSweeper, erase_unreachable
from app.main import create_app
from app.platform.db import make_engine
from app.platform.models import utcnow
from tests.support.accounts import sign_up
from tests.support.app import database_dump, db_rows
from tests.support.cli import curso
from tests.support.learning import KERNELS, answer, right_form

Q1 = next(iter(KERNELS.questions.values()))


def learner_of(client: TestClient, settings) -> str:
    session = client.cookies["curso_sessao"]
    ((learner,),) = db_rows(settings, "SELECT learner_id FROM websession WHERE id = ?", session)
    return learner


def idle_for(settings, learner: str, days: int, session_alive: bool) -> None:
    """Move the learner's activity ``days`` back; end their sessions unless ``session_alive``."""
    then = utcnow() - timedelta(days=days)
    db_rows(
        settings,
        "UPDATE learner SET created_at = ?, place_at = ? WHERE id = ?",
        then,
        then,
        learner,
    )
    db_rows(settings, "UPDATE attempt SET created_at = ? WHERE learner_id = ?", then, learner)
    if not session_alive:
        db_rows(
            settings, "UPDATE websession SET expires_at = ? WHERE learner_id = ?", then, learner
        )


def holds(dump: dict[str, list[str]], needle: str) -> list[str]:
    return sorted(table for table, rows in dump.items() if any(needle in row for row in rows))


def test_unreachable_anonymous_learners_are_erased_and_no_one_else(settings):
    app = create_app(settings)
    learners = {}
    for name in ("alive", "orphan", "recent", "account"):
        client = TestClient(app)
        assert answer(client, "kernels", Q1.id, right_form(Q1)).status_code == 200
        if name == "account":
            assert sign_up(client, "com-conta").status_code == 303
        learners[name] = learner_of(client, settings)
    idle_for(settings, learners["alive"], 200, session_alive=True)
    idle_for(settings, learners["orphan"], 31, session_alive=False)
    idle_for(settings, learners["recent"], 10, session_alive=False)
    idle_for(settings, learners["account"], 400, session_alive=False)
    tally = "SELECT learners FROM question_tally WHERE question_id = ?"
    assert db_rows(settings, tally, Q1.id) == [(4,)]

    done = curso(settings, "apagar-anonimos")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Alunos anônimos apagados: 1."

    dump = database_dump(settings)
    assert holds(dump, learners["orphan"]) == [], "nada do aluno que ninguém alcança fica"
    for kept in ("alive", "recent", "account"):
        assert "attempt" in holds(dump, learners[kept]), kept
    assert db_rows(settings, tally, Q1.id) == [(3,)], "os totais dos outros ficam"
    assert curso(settings, "apagar-anonimos").stdout.strip() == "Alunos anônimos apagados: 0."


def test_the_app_sweeps_on_its_own(settings):
    with TestClient(create_app(settings)) as client:
        assert answer(client, "kernels", Q1.id, right_form(Q1)).status_code == 200
        orphan = learner_of(client, settings)
        assert client.app.state.retention._thread.is_alive(), "started with the app"
    idle_for(settings, orphan, 31, session_alive=False)
    engine = make_engine(settings.database_url)
    sweeper = RetentionSweeper(engine, days=30, first_after_s=0)
    sweeper.start()
    try:
        deadline = time.monotonic() + 30
        while db_rows(settings, "SELECT count(*) FROM learner") != [(0,)]:
            assert time.monotonic() < deadline, "the sweep never ran"
            time.sleep(0.05)
        with Session(engine) as db:
            assert erase_unreachable(db, 30) == 0
    finally:
        sweeper.stop()
        engine.dispose()
