"""Accounts over HTTP (a ``TestClient`` or an ``httpx.Client`` on a live server): sign up,
sign in, a second browser, an instructor."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.support.cli import curso
from tests.support.html import csrf_from

# The instructor area's pages, one per tab, and a lesson's.
INSTRUCTOR_TABS = [
    "/instrutor",
    "/instrutor/funil",
    "/instrutor/perguntas",
    "/instrutor/dominio",
    "/instrutor/arvores",
    "/instrutor/arquivos",
    "/instrutor/licoes/kernels",
]
# The instructor's CSV exports.
INSTRUCTOR_CSVS = ["/instrutor/exportar/tentativas.csv", "/instrutor/exportar/progresso.csv"]


def instructor(
    client: TestClient, settings, username: str = "prof", admin: bool = False
) -> TestClient:
    """Sign ``client`` up as ``username`` and grant the role with the real command (``admin``:
    ``--admin``, who also registers the LMSs)."""
    assert sign_up(client, username).status_code == 303
    done = curso(settings, "instrutor", "adicionar", username, *(["--admin"] if admin else []))
    assert done.returncode == 0, done.stderr
    return client


PASSWORD = "senha-boa-123"


def post_form(client: TestClient, url: str, **fields):
    token = csrf_from(client.get("/conta").text)
    return client.post(url, data={"csrftoken": token, **fields}, follow_redirects=False)


def sign_up(
    client: TestClient,
    username: str = "ana",
    password: str = PASSWORD,
    confirmation: str | None = None,
):
    return post_form(
        client,
        "/conta/criar",
        usuario=username,
        senha=password,
        confirmacao=password if confirmation is None else confirmation,
    )


def sign_in(client: TestClient, username: str = "ana", password: str = PASSWORD):
    return post_form(client, "/conta/entrar", usuario=username, senha=password)


def new_browser(client: TestClient) -> TestClient:
    return TestClient(client.app)
