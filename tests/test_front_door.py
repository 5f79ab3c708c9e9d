"""The front door (app/web/front_door.py): the session cookie and row only when they change,
two processes sharing sessions through the database, one log line per request."""

from __future__ import annotations

import copy
import http.cookiejar

import httpx
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.support.accounts import post_form, sign_in, sign_up
from tests.support.app import (
    BACKENDS,
    REPO_LESSONS,
    create_postgres_database,
    db_rows,
    drop_postgres_database,
)
from tests.support.html import HX, csrf_from, soup, text
from tests.support.learning import KERNELS, answer
from tests.support.server import servers_on_one_database

QUESTIONS = list(KERNELS.questions.values())


def session_cookies(response) -> list[str]:
    return [c for c in response.headers.get_list("set-cookie") if c.startswith("curso_sessao=")]


def session_rows(settings) -> list[tuple]:
    return db_rows(settings, "SELECT id, data, learner_id, expires_at FROM websession ORDER BY id")


def place(client: TestClient, lesson: str):
    token = client.cookies.get("csrftoken") or csrf_from(client.get("/conta").text)
    return client.post("/progresso/lugar", data={"csrftoken": token, "licao": lesson})


def test_a_learner_whose_session_did_not_change_gets_no_cookie_and_no_write(client, settings):
    first = answer(client, "kernels", QUESTIONS[0].id, sorted(QUESTIONS[0].answer))
    assert first.status_code == 200 and len(session_cookies(first)) == 1, "a sessão nasce"
    born = session_rows(settings)
    responses = [
        client.get("/licoes/kernels"),
        client.get("/progresso"),
        client.get("/api/progresso"),
        answer(client, "kernels", QUESTIONS[1].id, ["b"]),
        answer(client, "kernels", QUESTIONS[2].id, sorted(QUESTIONS[2].answer)),
        place(client, "kernels"),
    ]
    for response in responses:
        assert response.status_code in (200, 204), response.request.url
        assert session_cookies(response) == [], response.request.url
    assert session_rows(settings) == born, "nenhum pedido regravou a sessão"


def test_a_reader_without_a_learner_row_moves_place_without_writing_the_session(client, settings):
    assert place(client, "kernels").status_code == 204
    ((sid, data, learner, expires),) = session_rows(settings)
    assert learner and '"place":["kernels",null]' in data.replace(" ", "")
    for lesson in ("escolha-self-hosted", "alem-do-ollama", "kernels", "alem-do-ollama"):
        moved = place(client, lesson)
        assert moved.status_code == 204 and session_cookies(moved) == []
    assert session_rows(settings) == [(sid, data, learner, expires)]
    resume = soup(client.get("/progresso")).select_one(".resume-link")
    assert resume["href"] == "/licoes/alem-do-ollama", "este processo lembra o último lugar"


def test_signing_out_in_one_process_ends_the_session_in_the_other(settings):
    """Two apps on one database are two workers: each keeps its own cache of sessions."""
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        assert sign_up(one, "ana").status_code == 303
        two.cookies.update(one.cookies)
        assert text(soup(two.get("/conta")).select_one(".nav-account")) == "Conta: ana"
        answer(two, "kernels", QUESTIONS[0].id, sorted(QUESTIONS[0].answer))  # cached in two
        old = two.cookies["curso_sessao"]
        assert post_form(one, "/conta/sair").status_code == 303
        assert text(soup(two.get("/conta")).select_one(".nav-account")) == "Entrar"
        written = place(two, "kernels")  # the old cookie, a POST: a new visitor, not Ana
        assert written.status_code == 204
        assert old not in [row[0] for row in session_rows(settings)], "a sessão não volta"
        assert two.cookies["curso_sessao"] != old
        # Signing in again in one: two reads the new session the moment it sees its cookie.
        assert sign_in(one, "ana").status_code == 303
        two.cookies.update(one.cookies)
        assert text(soup(two.get("/conta")).select_one(".nav-account")) == "Conta: ana"


def test_every_request_writes_one_log_line(client, caplog):
    caplog.set_level("INFO", logger="curso.request")
    token = csrf_from(client.get("/licoes/kernels").text)
    form = {"csrftoken": token, "tema": "escuro"}
    cross_site = {"sec-fetch-site": "cross-site", **HX}
    requests = [
        ("GET", "/licoes/kernels", client.get("/licoes/kernels")),  # the cached visitor page
        ("GET", "/nao-existe", client.get("/nao-existe")),
        ("HEAD", "/", client.head("/")),
        ("POST", "/tema", client.post("/tema", data=form, headers=cross_site)),  # refused
        ("POST", "/progresso/lugar", place(client, "kernels")),
        ("GET", "/static/favicon.svg", client.get("/static/favicon.svg")),
    ]
    lines = [r.msg for r in caplog.records if isinstance(r.msg, dict)]
    lines = [line for line in lines if line.get("event") == "request"][1:]
    assert [(line["path"], line["status"]) for line in lines] == [
        (path, response.status_code) for _, path, response in requests
    ]
    assert [line["method"] for line in lines] == ["GET", "GET", "GET", "POST", "POST", "GET"]
    ids = [response.headers["x-request-id"] for _, _, response in requests]
    assert [line["request_id"] for line in lines] == ids
    assert lines[4]["learner"] and len(lines[4]["learner"]) == 16


def test_without_sec_fetch_site_a_post_from_another_origin_is_refused(client, settings):
    """Go 1.25's CrossOriginProtection: a browser that sends no ``Sec-Fetch-Site`` still sends
    ``Origin`` on a POST; another host there is another site, even with a valid token pair."""
    token = csrf_from(client.get("/licoes/kernels").text)
    form = {"csrftoken": token, "tema": "escuro"}
    for origin in ("https://evil.example", "http://testserver.evil.example", "null"):
        headers = {"origin": origin}
        refused = client.post("/tema", data=form, headers=headers, follow_redirects=False)
        assert refused.status_code == 403, origin
        assert "Sessão expirada, recarregue a página." in refused.text
        assert "tema=" not in refused.headers.get("set-cookie", "")
    for headers in ({"origin": "http://testserver"}, {}):
        ok = client.post("/tema", data=form, headers=headers, follow_redirects=False)
        assert ok.status_code == 303, headers
    placed = client.post(
        "/progresso/lugar",
        data={"csrftoken": token, "licao": "kernels"},
        headers={"origin": "https://evil.example"},
    )
    assert placed.status_code == 403 and session_rows(settings) == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_uvicorns_share_sessions_and_a_sign_out_ends_it_in_both(backend, tmp_path):
    """One browser (one cookie jar) talking to two real worker processes on one database."""
    url = create_postgres_database() if backend == "postgresql" else ""
    try:
        with servers_on_one_database(tmp_path, REPO_LESSONS, url) as (first, second):
            jar = http.cookiejar.CookieJar()
            a = httpx.Client(base_url=first.url, cookies=jar, timeout=30)
            b = httpx.Client(base_url=second.url, cookies=jar, timeout=30)
            with a, b:
                assert sign_up(a, "bia").status_code == 303
                for _ in range(2):  # the second read comes from b's cache, checked
                    assert text(soup(b.get("/conta").text).select_one(".nav-account")) == (
                        "Conta: bia"
                    )
                stolen = copy.copy(next(c for c in jar if c.name == "curso_sessao"))
                assert post_form(a, "/conta/sair").status_code == 303
                jar.set_cookie(stolen)  # a copy of the cookie kept from before the sign-out
                account = soup(b.get("/conta").text).select_one(".nav-account")
                assert text(account) == "Entrar", "o cookie antigo não abre nada no outro worker"
    finally:
        if url:
            drop_postgres_database(url)
