"""LGPD erasure (``POST /meus-dados/apagar``) over HTTP: after it, no table holds the
learner's username or id, on SQLite and PostgreSQL; expired sign-in counters are purged."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from app.main import create_app
from tests.support.accounts import instructor, new_browser, post_form, sign_in, sign_up
from tests.support.app import database_dump, db_rows
from tests.support.html import csrf_from, soup, text
from tests.support.learning import KERNELS, answer, right_form, wrong_form

USERNAME = "lgpd-zuleica"
TEACHER = "lgpd-prof"
Q1, Q2 = list(KERNELS.questions.values())[:2]


def holding(dump: dict[str, list[str]], needle: str) -> dict[str, list[str]]:
    """The rows of ``dump`` whose text holds ``needle``, by table."""
    found = {table: [row for row in rows if needle in row] for table, rows in dump.items()}
    return {table: rows for table, rows in found.items() if rows}


def walk_a_tree(client: TestClient) -> None:
    page = client.get("/arvores/guia-osman").text
    version = soup(page).select_one('form.tree-step input[name="versao"]')["value"]
    data = {"csrftoken": csrf_from(page), "c": "hopper", "escolha": "convenience"}
    response = client.post("/arvores/guia-osman/passo", data={**data, "versao": version})
    assert response.status_code == 303


def test_erasure_leaves_neither_the_username_nor_the_learner_id_in_any_table(settings):
    app = create_app(settings)
    teacher = instructor(TestClient(app, follow_redirects=False), settings, TEACHER)
    created = post_form(teacher, "/instrutor/turmas", nome="Turma LGPD")
    assert created.status_code == 303
    link = text(soup(teacher.get(created.headers["location"])).select_one(".join-link"))
    code = link.split("/turmas/entrar/")[1]
    bystander = TestClient(app, follow_redirects=False)
    answer(bystander, "kernels", Q1.id, wrong_form(Q1))

    phone = TestClient(app, follow_redirects=False)
    answer(phone, "kernels", Q1.id, wrong_form(Q1))  # a review card, first-try counters
    walk_a_tree(phone)
    assert post_form(phone, "/progresso/lugar", licao="kernels").status_code == 204
    assert sign_up(phone, USERNAME).status_code == 303
    assert post_form(phone, f"/turmas/entrar/{code}").status_code == 303
    laptop = new_browser(phone)
    answer(laptop, "kernels", Q2.id, right_form(Q2))  # an anonymous learner merged at sign-in
    assert sign_in(laptop, USERNAME, "senha-errada-1").status_code == 401
    assert sign_in(laptop, USERNAME).status_code == 303  # known device from now on
    assert sign_in(new_browser(phone), USERNAME, "senha-errada-2").status_code == 401
    ((mine,),) = db_rows(settings, "SELECT learner_id FROM account WHERE username = ?", USERNAME)
    others = {row[0] for row in db_rows(settings, "SELECT id FROM learner")} - {mine}
    before = database_dump(settings)
    assert {"rate_limit", "account", "class_member", "review_card"} <= set(
        holding(before, USERNAME) | holding(before, mine)
    ), "o cenário guarda o aluno em várias tabelas"

    assert post_form(phone, "/meus-dados/apagar", confirmo="sim").status_code == 303

    after = database_dump(settings)
    assert holding(after, USERNAME) == {}
    assert holding(after, mine) == {}
    assert len(others) == 2 and all(holding(after, other) for other in others), (
        "os dados da professora e do outro aluno ficam"
    )
    assert sign_in(laptop, USERNAME).status_code == 401


def test_an_instructors_erasure_leaves_the_classes_without_their_name(settings):
    app = create_app(settings)
    teacher = instructor(TestClient(app, follow_redirects=False), settings, TEACHER)
    assert post_form(teacher, "/instrutor/turmas", nome="Turma").status_code == 303
    assert teacher.get("/instrutor").status_code == 200  # the dashboard's figures are kept
    (account,) = db_rows(settings, "SELECT id, learner_id FROM account")

    assert post_form(teacher, "/meus-dados/apagar", confirmo="sim").status_code == 303

    after = database_dump(settings)
    assert holding(after, TEACHER) == {}
    assert holding(after, account[1]) == {}
    assert db_rows(settings, "SELECT count(*) FROM class_staff") == [(0,)]
    assert db_rows(settings, "SELECT name FROM classroom") == [("Turma",)]


def test_expired_sign_in_counters_are_purged_when_a_new_window_starts(client, settings):
    yesterday = time.time() - 24 * 3600
    db_rows(
        settings,
        "INSERT INTO rate_limit (key, count, expires_at) VALUES (?, 3, ?)",
        "LIMITER/entrar/user:antiga/50/15/minute",
        yesterday,
    )
    assert sign_in(client, "ninguem", "errada-123").status_code == 401
    keys = [key for (key,) in db_rows(settings, "SELECT key FROM rate_limit ORDER BY key")]
    assert keys == [
        "LIMITER/entrar/ip:testclient/20/15/minute",
        "LIMITER/entrar/user-ip:ninguem:testclient/5/15/minute",
        "LIMITER/entrar/user:ninguem/50/15/minute",
    ]
