"""Accounts, merging, sign-in limits, "Meus dados" and authorization, over HTTP."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

import httpx
import pytest
from fastapi.testclient import TestClient

from app.learning.progress import lesson_shape_total
from app.main import create_app
from app.platform.auth import FAILS_PER_IP, SignInLimiter
from tests.support.accounts import PASSWORD, new_browser, post_form, sign_in, sign_up
from tests.support.app import REPO_LESSONS, db_rows
from tests.support.html import csrf_from, soup, text
from tests.support.learning import KERNELS, answer, card, key_of, wrong_option
from tests.support.server import LiveServer

Q1, Q2, Q3 = list(KERNELS.questions.values())[:3]


def session_id(client: TestClient) -> str:
    return client.cookies.get("curso_sessao")


def test_sign_up_keeps_the_anonymous_progress_and_rotates_the_session(client, settings):
    answer(client, "kernels", Q1.id, ["b"])
    before = session_id(client)
    response = sign_up(client, "  Ana ")
    assert (response.status_code, response.headers["location"]) == (303, "/progresso")
    assert session_id(client) not in (None, before)
    assert card(client, "kernels")["right"] == f"1 de {lesson_shape_total(KERNELS)}"
    assert text(soup(client.get("/")).select_one(".nav-account")) == "Conta: ana"
    stale = TestClient(client.app, cookies={"curso_sessao": before})
    assert text(soup(stale.get("/")).select_one(".nav-account")) == "Entrar"
    assert card(stale, "kernels")["attempts"] == "0", "o id de sessão antigo não vale mais"
    ((username, password_hash),) = db_rows(settings, "SELECT username, password_hash FROM account")
    assert (
        username == "ana"
        and password_hash.startswith("$argon2id$")
        and PASSWORD not in password_hash
    )


# A page's status messages, but the offline box's live region (always there, empty online).
CONFIRMATION = "main [role=status]:not([data-offline-status])"


def test_a_new_account_is_confirmed_once_on_the_progress_page(client):
    """Found by a new learner: creating an account said nothing but the header's "Conta: ana"."""
    sign_up(client, "Ana")
    page = soup(client.get("/progresso"))
    assert text(page.select_one(CONFIRMATION)) == (
        "Conta criada: você entrou como ana. O seu progresso fica guardado nela, e você pode "
        "entrar nela de qualquer navegador."
    )
    assert soup(client.get("/progresso")).select(CONFIRMATION) == [], "só uma vez"
    # Signing up on the way to a page (a class link) leaves that page to say what comes next,
    # and no confirmation waits for a later visit.
    other = new_browser(client)
    response = post_form(
        other,
        "/conta/criar",
        usuario="bia",
        senha=PASSWORD,
        confirmacao=PASSWORD,
        proximo="/licoes/kernels",
    )
    assert response.headers["location"] == "/licoes/kernels"
    assert soup(other.get("/progresso")).select(CONFIRMATION) == []
    assert soup(other.get("/")).select(CONFIRMATION) == []


def test_sign_in_from_a_second_browser_shows_the_same_progress(client):
    answer(client, "kernels", Q1.id, ["b"])
    sign_up(client)
    other = new_browser(client)
    assert card(other, "kernels")["attempts"] == "0"
    response = sign_in(other, "ANA")
    assert response.status_code == 303
    assert card(other, "kernels") == card(client, "kernels")
    assert client.get("/api/progresso").json() == other.get("/api/progresso").json()


def test_sign_in_merges_keeping_every_attempt_and_the_earlier_first_try(client, settings):
    sign_up(client)
    answer(client, "kernels", Q1.id, ["b"])  # account: right first
    answer(client, "kernels", Q3.id, [wrong_option(Q3)])  # account: wrong first, later
    phone = new_browser(client)
    answer(
        phone, "kernels", Q1.id, [wrong_option(Q1)]
    )  # anonymous: wrong, later than the account's
    answer(phone, "kernels", Q2.id, sorted(Q2.answer))
    answer(phone, "kernels", Q3.id, sorted(Q3.answer))
    # The phone answered Q3 before the account did.
    db_rows(
        settings,
        "UPDATE attempt SET created_at = '2020-01-01' WHERE question_id = ? AND correct = true",
        Q3.id,
    )
    ((anonymous,),) = db_rows(settings, "SELECT learner_id FROM attempt WHERE question_id=?", Q2.id)
    insert_walk(settings, anonymous)
    assert sign_in(phone).status_code == 303
    assert [w["tree_id"] for w in client.get("/api/progresso").json()["walks"]] == ["arvore"]
    assert db_rows(settings, "SELECT COUNT(*) FROM attempt") == [(5,)]
    assert db_rows(settings, "SELECT id FROM learner WHERE id = ?", anonymous) == []
    total = lesson_shape_total(KERNELS)
    assert card(phone, "kernels") == {
        "status": "Em andamento",
        "right": f"3 de {total}",
        "first": f"3 de {total}",
        "attempts": "5",
    }
    lesson = soup(phone.get("/licoes/kernels"))
    assert (
        text(lesson.select_one(f"#pergunta-{Q1.id} .history"))
        == "Primeira tentativa: certa · 2 tentativas"
    )
    assert text(lesson.select_one(f"#pergunta-{Q1.id} .verdict")) == "✗ Resposta incorreta", (
        "estado atual: a última"
    )


def test_sign_out_ends_the_session(client):
    sign_up(client)
    answer(client, "kernels", Q1.id, ["b"])
    old = session_id(client)
    response = post_form(client, "/conta/sair")
    assert (response.status_code, response.headers["location"]) == (303, "/")
    assert text(soup(client.get("/")).select_one(".nav-account")) == "Entrar"
    assert card(client, "kernels")["attempts"] == "0"
    replay = TestClient(client.app, cookies={"curso_sessao": old})
    assert text(soup(replay.get("/")).select_one(".nav-account")) == "Entrar"


@pytest.mark.parametrize(
    ("username", "password", "confirmation", "status", "message"),
    [
        (
            "a",
            PASSWORD,
            PASSWORD,
            422,
            "O nome de usuário deve ter de 3 a 30 caracteres: letras sem acento, "
            "números, ponto, hífen ou sublinhado, começando por letra ou número.",
        ),
        ("joão", PASSWORD, PASSWORD, 422, None),
        (
            " LTI-ana ",  # the names of the accounts made for LMS people (never linkable)
            PASSWORD,
            PASSWORD,
            422,
            "Nomes de usuário que começam com lti- ficam reservados para quem vem de um AVA.",
        ),
        ("bia", "curta", "curta", 422, "A senha precisa de pelo menos 8 caracteres."),
        ("bia", PASSWORD, "outra senha", 422, "A confirmação não é igual à senha."),
        (
            "ana",
            PASSWORD,
            PASSWORD,
            409,
            "Esse nome de usuário já existe. Escolha outro, ou entre com ele se for seu.",
        ),
    ],
)
def test_bad_sign_ups_get_4xx_in_portuguese(
    client, settings, username, password, confirmation, status, message
):
    sign_up(new_browser(client), "ana")
    response = sign_up(client, username, password, confirmation)
    assert response.status_code == status
    error = text(soup(response).select_one(".account-form .form-error"))
    assert error == message if message else error.startswith("O nome de usuário")
    assert db_rows(settings, "SELECT username FROM account") == [("ana",)]
    # Issue 38: the error took no focus. The field to fix has it, described by the error.
    (focused,) = soup(response).select("[autofocus]")
    fix = {"A confirmação": "criar-confirmacao", "A senha": "criar-senha"}
    wanted = next((fld for start, fld in fix.items() if error.startswith(start)), "criar-usuario")
    assert (focused["id"], focused["aria-invalid"]) == (wanted, "true"), error
    assert "erro-criar" in focused["aria-describedby"].split()


def test_signed_in_learners_cannot_sign_up_or_in_again(client):
    sign_up(client)
    again = sign_up(client, "outra")
    assert again.status_code == 409
    assert "Você já está numa conta." in text(soup(again).select_one(".form-error"))
    assert sign_in(client).status_code == 409


def test_account_forms_read_fields_as_sent_up_to_300_characters(client, settings):
    """The sign-up and sign-in forms: a field past 300 characters is the generic 422 page
    (no attempt counted, nothing stored); up to 300 it reaches the rules; an absent field
    reads as empty; a repeated one as its last value."""
    for url in ("/conta/criar", "/conta/entrar"):
        for field in ("usuario", "senha", "confirmacao", "proximo"):
            sent = {"usuario": "bia", "senha": PASSWORD, "confirmacao": PASSWORD, field: "a" * 301}
            refused = post_form(client, url, **sent)
            if url == "/conta/entrar" and field == "confirmacao":  # not a sign-in field
                assert refused.status_code == 401, field
                continue
            assert refused.status_code == 422, (url, field)
            assert text(soup(refused).h1) == "Dados inválidos"
            assert "O formulário enviado está incompleto ou malformado" in refused.text
    at_limit = sign_up(client, "a" * 300)
    assert at_limit.status_code == 422
    assert text(soup(at_limit).select_one(".account-form .form-error")).startswith(
        "O nome de usuário deve ter de 3 a 30 caracteres"
    )
    unconfirmed = post_form(client, "/conta/criar", usuario="bia", senha=PASSWORD)
    assert unconfirmed.status_code == 422
    assert text(soup(unconfirmed).select_one(".account-form .form-error")) == (
        "A confirmação não é igual à senha."
    )
    assert db_rows(settings, "SELECT username FROM account") == []
    token = csrf_from(client.get("/conta").text)
    twice = [("csrftoken", token), ("usuario", "outro"), ("usuario", "bia")]
    twice += [("senha", PASSWORD), ("confirmacao", PASSWORD)]
    created = client.post(
        "/conta/criar",
        content=urlencode(twice),
        headers={"content-type": "application/x-www-form-urlencoded"},
        follow_redirects=False,
    )
    assert created.status_code == 303
    assert db_rows(settings, "SELECT username FROM account") == [("bia",)]


def test_a_refused_sign_up_still_leads_back_to_the_class_link(client, settings):
    """A learner sent from a class link who mistypes at sign-up gets the form again still
    carrying ``proximo``: the next try lands on the class link, as a sign-in's would."""
    link = "/turmas/entrar/abc"
    refused = post_form(
        client, "/conta/criar", usuario="bia", senha="curta", confirmacao="curta", proximo=link
    )
    assert refused.status_code == 422
    kept = soup(refused).select_one('form[action="/conta/criar"] input[name="proximo"]')
    assert kept is not None and kept["value"] == link
    again = post_form(
        client, "/conta/criar", usuario="bia", senha=PASSWORD, confirmacao=PASSWORD, proximo=link
    )
    assert (again.status_code, again.headers["location"]) == (303, link)


def test_failed_sign_ins_are_limited_per_username_and_per_ip(client):
    sign_up(new_browser(client), "ana")
    for _ in range(5):
        failed = sign_in(client, "ana", "senha errada")
        assert failed.status_code == 401
        assert text(soup(failed).select_one(".form-error")) == "Usuário ou senha incorretos."
    blocked = sign_in(client, "ana", PASSWORD)
    assert blocked.status_code == 429, "nem a senha certa passa durante o bloqueio"
    assert text(soup(blocked).select_one(".form-error")) == (
        "Muitas tentativas de entrar sem sucesso. Por segurança, espere 15 minutos e tente de novo."
    )
    assert 800 < int(blocked.headers["retry-after"]) <= 900
    assert text(soup(client.get("/")).select_one(".nav-account")) == "Entrar"
    assert sign_in(new_browser(client), "bia", "senha errada").status_code == 401, (
        "outro usuário segue livre"
    )


def test_failed_sign_ins_are_limited_per_ip_across_usernames(client):
    assert FAILS_PER_IP == "20 per 15 minutes"
    client.app.state.sign_in_limiter = SignInLimiter(
        "database", per_ip="3 per 15 minutes", engine=client.app.state.engine
    )
    for n in range(3):
        assert sign_in(client, f"pessoa{n}", "senha errada").status_code == 401
    blocked = sign_in(client, "pessoa-nova", "senha errada")
    assert blocked.status_code == 429
    assert text(soup(blocked).select_one(".form-error")).startswith(
        "Muitas tentativas de entrar sem sucesso."
    )


def test_the_limit_is_shared_by_every_worker(settings):
    """Two app instances on one database stand for two uvicorn workers."""
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        sign_up(new_browser(first), "ana")
        for n in range(5):
            worker = first if n % 2 else second
            assert sign_in(worker, "ana", "senha errada").status_code == 401
        assert sign_in(first, "ana", PASSWORD).status_code == 429
        assert sign_in(second, "ana", PASSWORD).status_code == 429
    assert db_rows(settings, "SELECT count FROM rate_limit WHERE key LIKE '%user:ana%'") == [(5,)]


def test_a_wrong_password_and_an_unknown_user_read_the_same(client):
    sign_up(new_browser(client), "ana")
    wrong = sign_in(client, "ana", "senha errada")
    unknown = sign_in(client, "ninguem", PASSWORD)
    assert wrong.status_code == unknown.status_code == 401
    assert text(soup(wrong).select_one(".form-error")) == text(
        soup(unknown).select_one(".form-error")
    )
    # Issue 38: the cursor goes back to the password, the error read with it.
    (focused,) = soup(wrong).select("[autofocus]")
    assert (focused["id"], focused["aria-describedby"]) == ("entrar-senha", "erro-entrar")


def insert_walk(settings, learner_id: str) -> None:
    db_rows(
        settings,
        "INSERT INTO walk (learner_id, tree_id, path, result_id, created_at)"
        " VALUES (?, 'arvore', 'a,b', 'fim', '2026-01-02 03:04:05')",
        learner_id,
    )


def test_export_has_everything_stored_about_me(client, settings):
    answer(client, "kernels", Q1.id, ["b"])
    sign_up(client)
    ((learner,),) = db_rows(settings, "SELECT id FROM learner")
    insert_walk(settings, learner)
    response = client.get("/meus-dados/exportar")
    assert response.headers["content-disposition"] == 'attachment; filename="meus-dados-curso.json"'
    data = json.loads(response.text)
    assert data["learner"]["id"] == learner
    assert data["account"]["username"] == "ana"
    assert "argon2id" not in response.text, "o hash da senha não sai no arquivo"
    assert [(a["question_id"], a["chosen"], a["correct"]) for a in data["attempts"]] == [
        (Q1.id, "b", True)
    ]
    assert data["attempts"][0]["question_hash"] == Q1.content_hash
    assert data["walks"] == [
        {
            "tree_id": "arvore",
            "path": ["a", "b"],
            "result_id": "fim",
            "created_at": "2026-01-02T03:04:05Z",
        }
    ]
    assert len(data["sessions"]) == 1
    page = soup(client.get("/meus-dados"))
    assert text(page.select_one(".stored-account")) == "ana"
    assert text(page.select_one(".stored-attempts")) == "1"
    assert text(page.select_one(".stored-walks")) == "1"
    stopped = page.select_one(".stored-place a")
    assert (text(stopped), stopped["href"]) == (KERNELS.meta.title_text, "/licoes/kernels"), (
        "the lesson's title, not its slug"
    )


def test_delete_needs_a_confirmation_then_removes_everything_and_ends_every_session(
    client, settings
):
    answer(client, "kernels", Q1.id, ["b"])
    sign_up(client)
    laptop = new_browser(client)
    sign_in(laptop)
    bystander = new_browser(client)
    answer(bystander, "kernels", Q2.id, ["c"])
    learner = db_rows(settings, "SELECT learner_id FROM account")[0][0]
    insert_walk(settings, learner)

    refused = post_form(client, "/meus-dados/apagar")
    assert refused.status_code == 422
    assert text(soup(refused).select_one(".form-error")) == (
        "Para apagar, marque a caixa confirmando que entende que isto não pode ser desfeito."
    )
    assert db_rows(settings, "SELECT COUNT(*) FROM attempt WHERE learner_id = ?", learner) == [(1,)]

    done = post_form(client, "/meus-dados/apagar", confirmo="sim")
    assert (done.status_code, done.headers["location"]) == (303, "/meus-dados?apagado=1")
    for table in ("attempt", "walk", "account", "websession"):
        assert db_rows(settings, f"SELECT COUNT(*) FROM {table} WHERE learner_id = ?", learner) == [
            (0,)
        ], table
    assert db_rows(settings, "SELECT COUNT(*) FROM learner WHERE id = ?", learner) == [(0,)]
    page = soup(client.get("/meus-dados?apagado=1"))
    assert text(page.select_one(".notice")).startswith("Pronto: apagamos tudo")
    assert text(page.select_one(".stored-attempts")) == "0"
    assert text(soup(laptop.get("/")).select_one(".nav-account")) == "Entrar", (
        "a outra sessão também acabou"
    )
    assert sign_in(laptop).status_code == 401, "a conta não existe mais"
    assert card(bystander, "kernels")["attempts"] == "1", "os dados de outro aluno ficam"


def test_no_route_reads_or_changes_another_learners_data(client, settings):
    answer(client, "kernels", Q1.id, ["b"])
    sign_up(client, "vitima")
    victim = db_rows(settings, "SELECT learner_id FROM account")[0][0]
    victim_session = session_id(client)
    insert_walk(settings, victim)
    before = client.get("/api/progresso").json()

    attacker = new_browser(client)
    # Ids in the query, in forms or as the cookie itself are never taken as "who I am".
    assert attacker.get(f"/api/progresso?learner_id={victim}").json()["lessons"][0]["attempts"] == 0
    assert attacker.get(f"/meus-dados/exportar?learner={victim}").json()["attempts"] == []
    forged = TestClient(client.app, cookies={"curso_sessao": victim})
    assert forged.get("/api/progresso").json()["walks"] == []
    answer(attacker, "kernels", Q2.id, ["c"])
    token = csrf_from(attacker.get("/meus-dados").text)
    attacker.post(
        "/meus-dados/apagar", data={"csrftoken": token, "confirmo": "sim", "learner": victim}
    )
    attacker.post(
        "/progresso/lugar",
        data={"csrftoken": token, "licao": "kernels", "secao": "", "learner": victim},
    )
    assert sign_in(new_browser(client), "vitima", "chute").status_code == 401
    # A victim's session id without the cookie jar's CSRF cookie cannot post.
    stolen = TestClient(client.app, cookies={"curso_sessao": victim_session})
    assert stolen.post("/meus-dados/apagar", data={"confirmo": "sim"}).status_code == 403
    assert client.get("/api/progresso").json() == before
    assert db_rows(settings, "SELECT COUNT(*) FROM attempt WHERE learner_id = ?", victim) == [(1,)]
    assert db_rows(settings, "SELECT COUNT(*) FROM walk WHERE learner_id = ?", victim) == [(1,)]


def test_the_csrf_token_of_the_open_page_survives_the_session_rotation_at_sign_in(client, settings):
    sign_up(new_browser(client), "ana")
    page = client.get("/licoes/kernels").text
    token, key = csrf_from(page), key_of(page, Q1.id)
    before = session_id(client)
    assert sign_in(client).status_code == 303
    assert session_id(client) != before, "entrar troca o id da sessão"
    response = client.post(
        f"/licoes/kernels/perguntas/{Q1.id}",
        data={"csrftoken": token, "opcao": "b", "chave": key, "versao": Q1.content_hash},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200, "a primeira resposta depois de entrar não leva 403"
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(1,)]


def test_the_limit_holds_across_two_real_uvicorn_workers(tmp_path, database_url):
    """``uvicorn --workers 2``: failed sign-ins over fresh connections, served by both workers
    (each log line names its worker's pid), still stop at the configured count."""
    server = LiveServer(tmp_path, REPO_LESSONS, database_url=database_url, workers=2)
    server.start()
    try:
        deadline = time.monotonic() + 30
        while server.log_path.read_text().count("Application startup complete.") < 2:
            assert time.monotonic() < deadline, "o segundo worker não subiu"
            time.sleep(0.1)
        with httpx.Client(base_url=server.url) as owner:
            token = csrf_from(owner.get("/conta").text)
            data = {"csrftoken": token, "usuario": "ana", "senha": PASSWORD}
            data["confirmacao"] = PASSWORD
            created = owner.post("/conta/criar", data=data)
            assert created.status_code == 303
        attempts = 16
        start = threading.Barrier(attempts)

        def guess(number: int) -> int:
            with httpx.Client(base_url=server.url) as browser:  # a fresh connection each
                token = csrf_from(browser.get("/conta").text)
                start.wait()
                data = {"csrftoken": token, "usuario": "ana", "senha": f"chute {number}"}
                return browser.post("/conta/entrar", data=data).status_code

        with ThreadPoolExecutor(attempts) as pool:
            statuses = Counter(pool.map(guess, range(attempts)))
        assert statuses == {401: 5, 429: attempts - 5}
    finally:
        server.stop()
    log = server.log_path.read_text().splitlines()
    lines = [json.loads(line) for line in log if line.startswith("{")]
    workers = {line["pid"] for line in lines if line.get("path") == "/conta/entrar"}
    assert len(workers) == 2, "os dois workers atenderam tentativas"
