"""Server-side sessions: the websession table behind each process's cache
(app/platform/sessions.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from app.main import SESSION_MAX_AGE_S
from tests.support.app import db_rows
from tests.support.html import csrf_from, soup


def begin(client: TestClient) -> None:
    """Start a session the way a reader does: reading creates none, the first POST does
    (here the place ``app.js`` sends as the reader scrolls)."""
    token = csrf_from(client.get("/licoes/kernels").text)
    assert "curso_sessao" not in client.cookies
    saved = client.post("/progresso/lugar", data={"csrftoken": token, "licao": "kernels"})
    assert saved.status_code == 204


def session_rows(settings) -> list[tuple]:
    return db_rows(settings, "SELECT id, data, learner_id, expires_at FROM websession ORDER BY id")


def test_a_session_is_stored_once_and_not_rewritten_while_unchanged(client, settings):
    begin(client)
    ((sid, data, learner, stored_expires),) = session_rows(settings)
    expires = stored_expires
    assert sid == client.cookies.get("curso_sessao")
    assert learner and learner in data
    expires = expires if isinstance(expires, datetime) else datetime.fromisoformat(expires)
    left = expires.replace(tzinfo=UTC) - datetime.now(UTC)
    assert timedelta(seconds=SESSION_MAX_AGE_S - 60) < left <= timedelta(seconds=SESSION_MAX_AGE_S)
    client.get("/progresso")
    client.get("/licoes/kernels")
    assert session_rows(settings)[0][1:] == (data, learner, stored_expires), (
        "last_access sozinho não regrava"
    )
    client.get("/licoes/alem-do-ollama")
    assert session_rows(settings)[0][1:] == (data, learner, stored_expires), (
        "o lugar sozinho não regrava a sessão a cada pedido"
    )
    resume = soup(client.get("/progresso")).select_one(".resume-link")
    assert resume["href"].startswith("/licoes/alem-do-ollama"), "o processo lembra o lugar"
    ten_minutes_ago = expires - timedelta(minutes=11)
    db_rows(settings, f"UPDATE websession SET expires_at = '{ten_minutes_ago.isoformat(sep=' ')}'")
    client.get("/licoes/escolha-self-hosted")
    ((_, moved, _, _),) = session_rows(settings)
    assert '"place":["escolha-self-hosted",null]' in moved, (
        "passados 10 minutos, o lugar de um aluno sem linha é guardado na sessão"
    )


def test_an_expired_session_starts_over_and_is_dropped(client, settings):
    begin(client)
    old = client.cookies.get("curso_sessao")
    db_rows(settings, "UPDATE websession SET expires_at = '2000-01-01 00:00:00'")
    returning = TestClient(
        client.app, cookies={"curso_sessao": old, "csrftoken": client.cookies["csrftoken"]}
    )
    page = returning.post(
        "/progresso/lugar", data={"csrftoken": client.cookies["csrftoken"], "licao": "kernels"}
    )
    new_cookie = next(
        c for c in page.headers.get_list("set-cookie") if c.startswith("curso_sessao=")
    )
    assert old not in new_cookie
    assert [row[0] for row in session_rows(settings)] != [old]
    assert old not in [row[0] for row in session_rows(settings)], "a sessão vencida foi apagada"


def test_a_rolling_session_is_stored_again_once_its_expiry_is_a_day_behind(client, settings):
    begin(client)
    ((sid, _, learner, _),) = session_rows(settings)
    behind = (datetime.now(UTC) + timedelta(seconds=SESSION_MAX_AGE_S) - timedelta(days=2)).replace(
        tzinfo=None
    )
    db_rows(settings, f"UPDATE websession SET expires_at = '{behind.isoformat(sep=' ')}'")
    client.get("/licoes/kernels")
    ((same_sid, _, same_learner, renewed),) = session_rows(settings)
    renewed = renewed if isinstance(renewed, datetime) else datetime.fromisoformat(renewed)
    assert (same_sid, same_learner) == (sid, learner)
    left = renewed.replace(tzinfo=UTC) - datetime.now(UTC)
    assert left > timedelta(seconds=SESSION_MAX_AGE_S - 60), "a validade andou de novo"
