"""A plain form whose refusal is a page leaves its own address in the address bar; reloading
or opening that address (a GET) leads back to the page of the form, never to "Método não
permitido". (The account forms: tests/test_accounts.py.)"""

from __future__ import annotations

import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from tests.support.accounts import instructor, post_form, sign_up
from tests.support.app import REPO_LESSONS, db_rows, make_settings
from tests.support.html import csrf_from, soup, text
from tests.support.pools import course_folder, pool_lesson


def reload(client: TestClient, url: str) -> str:
    """Where a GET of ``url`` leads (a 303), after checking the page there opens."""
    moved = client.get(url, follow_redirects=False)
    assert moved.status_code == 303, (url, moved.status_code)
    assert client.get(moved.headers["location"]).status_code == 200
    return moved.headers["location"]


def test_reloading_my_data_delete_leads_to_my_data_and_deletes_nothing(client, settings):
    sign_up(client, "ana")
    refused = post_form(client, "/meus-dados/apagar")
    assert refused.status_code == 422
    assert reload(client, "/meus-dados/apagar") == "/meus-dados"
    page = soup(client.get("/meus-dados"))
    assert text(page.h1) == "Meus dados"
    assert text(page.select_one(".nav-account")) == "Conta: ana"
    assert db_rows(settings, "SELECT username FROM account") == [("ana",)]


def test_reloading_a_refused_notebook_answer_leads_to_the_notebook_at_the_question(client):
    page = client.get("/revisar/erradas").text
    fields = {"csrftoken": csrf_from(page), "chave": "curta", "versao": "x", "opcao": ["b"]}
    refused = client.post("/revisar/erradas/kernels/tp-2", data=fields)
    assert refused.status_code == 422
    assert reload(client, "/revisar/erradas/kernels/tp-2") == "/revisar/erradas#pergunta-tp-2"
    assert client.get("/revisar/erradas/kernels/nenhuma").status_code == 404


def test_reloading_a_refused_redraw_leads_to_the_pool_on_its_lesson(tmp_path: Path, database_url):
    folder = course_folder(tmp_path, pool_lesson())
    with TestClient(create_app(make_settings(tmp_path, folder, database_url))) as client:
        sign_up(client)
        url = "/licoes/decode-prefill/sorteios/decode-sorteio"
        token = csrf_from(client.get("/licoes/decode-prefill").text)
        early = client.post(url, data={"csrftoken": token})
        assert early.status_code == 409, "no draw answered yet"
        assert reload(client, url) == "/licoes/decode-prefill#sorteio-decode-sorteio"
        assert client.get("/licoes/decode-prefill/sorteios/nenhum").status_code == 404
        assert client.get("/licoes/nenhuma/sorteios/decode-sorteio").status_code == 404


def test_reloading_the_editors_form_addresses_leads_to_the_editor_or_history(tmp_path: Path):
    """A preview without JavaScript and a refused "Publicar" or "Restaurar" leave their
    address in the bar; reloading it opens the editor, or the history, and writes nothing."""
    folder = tmp_path / "lessons"
    shutil.copytree(REPO_LESSONS, folder)
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    settings = make_settings(tmp_path, folder)
    with TestClient(create_app(settings), follow_redirects=False) as teacher:
        instructor(teacher, settings, "prof")
        editor = "/instrutor/licoes/kernels/editar"
        form = soup(teacher.get(editor)).select_one("form textarea[name=texto]")
        page = teacher.get(editor).text
        fields = {"csrftoken": csrf_from(page), "texto": text(form)}
        previewed = teacher.post("/instrutor/licoes/kernels/previa", data=fields)
        assert previewed.status_code == 200, "the whole editor, at the preview's address"
        assert reload(teacher, "/instrutor/licoes/kernels/previa") == editor
        assert reload(teacher, "/instrutor/licoes/kernels/publicar") == editor
        restore = "/instrutor/licoes/kernels/historico/1/restaurar"
        assert reload(teacher, restore) == "/instrutor/licoes/kernels/historico"
        assert teacher.get("/instrutor/licoes/nenhuma/previa").status_code == 404
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before
    assert db_rows(settings, "SELECT COUNT(*) FROM lesson_revision WHERE origin != 'initial'") == [
        (0,)
    ]
