"""Every number a form or an address carries (class ids, revision ids, ``?turma=``,
``?publicada=``) is read as ASCII digits of bounded length: anything else is a 4xx with a message
in Portuguese, never a 500 (``str.isdigit()`` takes "²" and "①", which ``int()`` refuses, and a
20-digit id overflows the database's integer)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.support.accounts import instructor, post_form
from tests.support.html import soup, text

BAD = ["²", "①", "٣", "9" * 20, "9" * 5000]
BAD_IDS = ["superscript", "circled", "arabic-indic", "20-digits", "5000-digits"]
DASHBOARD_TABS = ["/instrutor", "/instrutor/funil", "/instrutor/perguntas", "/instrutor/arquivos"]
EXPORTS = ["/instrutor/exportar/tentativas.csv", "/instrutor/exportar/progresso.csv"]
GETS = [
    *(path + "?turma={n}" for path in DASHBOARD_TABS + EXPORTS),
    "/instrutor/turmas/{n}",
    "/instrutor/licoes/kernels/editar?publicada={n}",
]
POSTS = [
    "/instrutor/turmas/{n}/codigo",
    "/instrutor/turmas/{n}/apagar",
    "/instrutor/turmas/{n}/prazos",
    "/instrutor/turmas/{n}/equipe",
    "/instrutor/turmas/{n}/equipe/remover",
    "/instrutor/turmas/{n}/fuso",
    "/turmas/{n}/sair",
    "/instrutor/licoes/kernels/historico/{n}/restaurar",
]
INVALID = "O formulário enviado está incompleto ou malformado. Recarregue a página e tente de novo."
NO_CLASS = "Não há turma com esse endereço, ou ela não é sua."


@pytest.fixture
def teacher(settings):
    client = TestClient(create_app(settings), follow_redirects=False)
    return instructor(client, settings)


@pytest.mark.parametrize("route", GETS + POSTS)
def test_a_number_that_is_not_ascii_digits_is_a_4xx_in_portuguese(teacher, route):
    for value, name in zip(BAD, BAD_IDS, strict=True):
        url = route.format(n=value)
        response = teacher.get(url) if route in GETS else post_form(teacher, url, versao="0" * 64)
        assert response.status_code == 422, (name, response.text[:300])
        page = soup(response)
        assert text(page.select_one("h1")) == "Dados inválidos", name
        message = NO_CLASS if "?turma=" in route else INVALID  # the tabs' and exports' filter
        assert text(page.select_one(".error-page p")) == message, name


@pytest.mark.parametrize("path", DASHBOARD_TABS + EXPORTS)
def test_an_empty_class_filter_still_means_every_learner(teacher, path):
    """The tabs and the exports read ``?turma=`` the same way (the dashboard's filter form
    sends it empty for every learner)."""
    assert teacher.get(f"{path}?turma=").status_code == 200
    assert teacher.get(path).status_code == 200
    missing = teacher.get(f"{path}?turma=7")
    assert missing.status_code == 404
    assert text(soup(missing).select_one(".error-page p")) == NO_CLASS
