"""Visitors' lesson pages come from the cache: revalidation, themes, edits, sign-out (issue 13)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from app.platform.settings import Settings
from app.web.deps import get_course
from tests.support.app import db_rows, make_settings
from tests.support.html import HX, csrf_from, soup
from tests.support.lessons import GOOD


def test_a_revalidation_with_the_same_cookie_gets_304_and_another_cookie_a_new_page(client):
    first = client.get("/licoes/kernels")
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "private, no-cache"
    assert "Cookie" in first.headers["Vary"]
    again = client.get("/licoes/kernels", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    other = TestClient(client.app)
    response = other.get("/licoes/kernels", headers={"If-None-Match": etag})
    assert response.status_code == 200, "outro navegador, outro token: a página vem inteira"
    assert csrf_from(response.text) == other.cookies["csrftoken"] != client.cookies["csrftoken"]


def test_a_revalidation_with_the_etag_written_strong_still_gets_304(client):
    """``If-None-Match`` compares weakly (RFC 9110 §13.1.2), on a cached lesson page as on
    every other page: ``"x"`` matches ``W/"x"``."""
    etag = client.get("/licoes/kernels").headers["ETag"]
    assert etag.startswith('W/"')
    again = client.get("/licoes/kernels", headers={"If-None-Match": etag.removeprefix("W/")})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == etag


def _unroutable():
    raise AssertionError("o pedido chegou à rota da lição")


def _same_page(html: str, token: str) -> str:
    return re.sub(r'name="chave" value="[^"]*"', "", html.replace(token, "TOKEN"))


def test_once_the_route_kept_a_page_the_middleware_answers_the_next_visit_in_each_theme(client):
    """The middleware and the lesson route name a page with the same key: a theme's second
    visit never reaches the route, and gets the page the route rendered."""
    for chosen in ("escuro", "claro", ""):
        client.cookies.set("tema", chosen)
        first = client.get("/licoes/kernels")
        client.app.dependency_overrides[get_course] = _unroutable
        try:
            again = client.get("/licoes/kernels")
        finally:
            client.app.dependency_overrides.clear()
        assert again.status_code == 200
        token = client.cookies["csrftoken"]
        assert _same_page(again.text, token) == _same_page(first.text, token)


def test_each_browser_finds_its_own_token_in_the_tree_widget_of_a_cached_page(client):
    """The page and the tree widget inside it share one token hole: neither cache keeps a
    reader's token."""
    for browser in (client, TestClient(client.app), TestClient(client.app)):
        page = soup(browser.get("/licoes/kernels").text)
        tree_tokens = [node["value"] for node in page.select(".tree-widget input[name=csrftoken]")]
        assert tree_tokens, "a lição kernels tem uma árvore com formulário"
        all_tokens = {node["value"] for node in page.select("input[name=csrftoken]")}
        assert all_tokens == {browser.cookies["csrftoken"]}


def test_the_chosen_theme_is_a_page_of_its_own(client):
    client.cookies.set("tema", "escuro")
    dark = soup(client.get("/licoes/kernels").text)
    client.cookies.set("tema", "claro")
    light = soup(client.get("/licoes/kernels").text)
    assert dark.select_one("link[href*='dark']")["media"] == "all"
    assert light.select_one("link[href*='dark']")["media"] == "not all"


def test_an_edited_lesson_reaches_visitors_at_once(tmp_path: Path):
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "01-boa.md").write_text(GOOD, encoding="utf-8")
    settings = make_settings(tmp_path, folder)
    settings = Settings(**{**settings.__dict__, "reload_interval": 0})
    with TestClient(create_app(settings)) as client:
        before = client.get("/licoes/decode-prefill").text
        assert "Texto novo do instrutor" not in before
        time.sleep(0.01)
        (folder / "01-boa.md").write_text(
            GOOD.replace("\n## ", "\nTexto novo do instrutor.\n\n## ", 1), encoding="utf-8"
        )
        after = client.get("/licoes/decode-prefill").text
    assert "Texto novo do instrutor" in after


def test_signing_out_drops_the_csrf_cookie_so_the_next_person_is_a_new_learner(client, settings):
    page = client.get("/licoes/kernels").text
    token = csrf_from(page)
    question_id = soup(page).select_one("form[hx-post*='/perguntas/']")["hx-post"].rsplit("/", 1)[1]
    form = soup(page).select_one(f"#pergunta-{question_id} form")
    data = {node["name"]: node.get("value", "") for node in form.select("input[type=hidden]")}
    first_option = form.select_one('input[name="opcao"]')["value"]
    response = client.post(
        f"/licoes/kernels/perguntas/{question_id}",
        data={**data, "opcao": first_option, "csrftoken": token},
        headers=HX,
    )
    assert response.status_code == 200
    out = client.post("/conta/sair", data={"csrftoken": token}, follow_redirects=False)
    assert out.status_code == 303
    assert "csrftoken" not in client.cookies
    progress = client.get("/api/progresso").json()
    assert progress["percent"] == 0 and all(row["attempts"] == 0 for row in progress["lessons"])
    # The next person at this browser answers: they are a learner of their own.
    page = client.get("/licoes/kernels").text
    response = client.post(
        f"/licoes/kernels/perguntas/{question_id}",
        data={**data, "opcao": first_option, "csrftoken": csrf_from(page)},
        headers=HX,
    )
    assert response.status_code == 200
    assert db_rows(settings, "SELECT count(*) FROM learner") == [(2,)]
