"""Two instructors press "Publicar" at the same moment, on a real uvicorn with one and two
workers: one publishes, the other gets the 409 with the diff and keeps their text, never a 500.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from app.content.sourcefile import parse_source
from tests.support.accounts import sign_in
from tests.support.app import REPO_LESSONS
from tests.support.html import soup, text
from tests.support.lessons import GOOD
from tests.support.server import server_with_instructors

LESSON = GOOD.replace("order: 1", "order: 9")
EDITOR = "/instrutor/licoes/decode-prefill/editar"
DISCARD = "/instrutor/licoes/decode-prefill/rascunho/descartar"
ROUNDS = 6


def editor_form(client: httpx.Client) -> dict[str, str]:
    page = soup(client.get(EDITOR).text)
    return {
        "csrftoken": page.select_one('input[name="csrftoken"]')["value"],
        "versao": page.select_one('input[name="versao"]')["value"],
        "texto": page.select_one("#editor-texto").get_text(),
    }


@pytest.fixture(params=[1, 2], ids=["1-worker", "2-workers"])
def server(request, tmp_path: Path, database_url: str):
    lessons = tmp_path / "lessons"
    shutil.copytree(REPO_LESSONS, lessons)
    (lessons / "09-decode-prefill.md").write_text(LESSON, encoding="utf-8")
    options = {"database_url": database_url, "workers": request.param}
    with server_with_instructors(tmp_path, lessons, "ana", "bia", **options) as live:
        yield live


def test_two_simultaneous_publishes_give_one_303_and_one_409_every_time(server):
    path = server.lessons_dir / "09-decode-prefill.md"
    clients = [httpx.Client(base_url=server.url) for _ in range(2)]
    try:
        for client, name in zip(clients, ("ana", "bia"), strict=True):
            assert sign_in(client, name).status_code == 303
        for round_ in range(ROUNDS):
            forms = []
            for number, client in enumerate(clients):
                form = editor_form(client)
                if soup(client.get(EDITOR).text).select_one(f'form[action="{DISCARD}"]'):
                    # the loser of the last round drops its draft and starts from the file
                    assert client.post(DISCARD, data=form).status_code == 303
                    form = editor_form(client)
                heading = f"## Rodada {round_}, instrutor {number}"
                mine = re.sub(r"^## .*$", heading, form["texto"], count=1, flags=re.M)
                forms.append({**form, "texto": mine})
            assert forms[0]["versao"] == forms[1]["versao"]
            start = threading.Barrier(2)

            def publish(
                pair: tuple[httpx.Client, dict[str, str]], start: threading.Barrier = start
            ) -> httpx.Response:
                client, form = pair
                start.wait()
                return client.post(EDITOR, data=form)

            with ThreadPoolExecutor(2) as pool:
                responses = list(pool.map(publish, zip(clients, forms, strict=True)))
            statuses = sorted(response.status_code for response in responses)
            assert statuses == [303, 409], (round_, statuses)
            winner = next(i for i, r in enumerate(responses) if r.status_code == 303)
            loser = 1 - winner
            assert parse_source(path.read_bytes()).text == forms[winner]["texto"]
            page = soup(responses[loser].text)
            assert text(page.select_one("#editor-conflito-t")) == (
                "O arquivo mudou desde que você o abriu"
            )
            assert f"-## Rodada {round_}, instrutor {winner}" in [
                text(line) for line in page.select(".diff-del")
            ]
            assert f"+## Rodada {round_}, instrutor {loser}" in [
                text(line) for line in page.select(".diff-add")
            ]
            assert page.select_one("#editor-texto").get_text() == forms[loser]["texto"]
            kept = soup(clients[loser].get(EDITOR).text)
            assert kept.select_one("#editor-texto").get_text() == forms[loser]["texto"]
    finally:
        for client in clients:
            client.close()
        server.stop()
    log = server.log_path.read_text()
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert [line for line in lines if line.get("status", 200) >= 500] == []
    assert "Traceback" not in log and "database is locked" not in log
