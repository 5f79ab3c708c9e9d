"""Identity lives in the server-side session; the CSRF cookie proves intent and nothing else.

Issue 22, item 1: a visitor's learner id was ``HMAC(secret, csrftoken cookie)``, and that cookie
is printed in every page and never rotated. A client holding only the cookie's value became the
learner (and their account): it could answer into it, export it and erase it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
from fastapi.testclient import TestClient

from app.learning.usecases import birth_key
from app.platform.migrate import downgrade, upgrade
from app.platform.settings import Settings
from tests.support.accounts import post_form, sign_in, sign_up
from tests.support.app import db_rows, query
from tests.support.html import HX, csrf_from, soup, text
from tests.support.learning import KERNELS, answer, answer_form, key_of, version_of

QUESTION = next(iter(KERNELS.questions.values()))
URL = f"/licoes/kernels/perguntas/{QUESTION.id}"
SESSION = "curso_sessao"
VISIT = "curso_visita"


def stranger(client: TestClient, token: str) -> TestClient:
    """A client that holds nothing but a copy of someone's CSRF cookie value."""
    return TestClient(client.app, cookies={"csrftoken": token})


def as_stranger(client: TestClient, token: str, url: str, **fields) -> httpx.Response:
    """The reproducer of the issue: the token as cookie, header and form field."""
    return stranger(client, token).post(
        url,
        data={"csrftoken": token, **fields},
        headers={"x-csrftoken": token},
        follow_redirects=False,
    )


def learners(settings) -> int:
    return db_rows(settings, "SELECT count(*) FROM learner")[0][0]


def test_a_copied_csrf_cookie_opens_no_account_even_after_sign_out(client, settings):
    page = client.get("/licoes/kernels").text
    token = csrf_from(page)  # what anyone at this computer can read in the page source
    assert answer(client, "kernels", QUESTION.id, sorted(QUESTION.answer)).status_code == 200
    assert sign_up(client, "vitima").status_code == 303
    assert client.post("/conta/sair", data={"csrftoken": csrf_from(client.get("/conta").text)})

    exported = stranger(client, token).get("/meus-dados/exportar")
    assert exported.status_code == 200
    assert "vitima" not in exported.text and exported.json()["attempts"] == []
    erased = as_stranger(client, token, "/meus-dados/apagar", confirmo="sim")
    assert erased.status_code == 303  # the stranger erased only the learner it just became
    answered = as_stranger(
        client,
        token,
        URL,
        chave=key_of(page, QUESTION.id),
        versao=version_of(page, QUESTION.id),
        opcao="a",
    )
    assert answered.status_code in (200, 303)

    victim = TestClient(client.app)
    assert sign_in(victim, "vitima").status_code == 303, "a conta continua lá"
    mine = victim.get("/meus-dados/exportar").json()
    assert mine["account"]["username"] == "vitima"
    assert [(a["question_id"], a["chosen"]) for a in mine["attempts"]] == [
        (QUESTION.id, ",".join(sorted(QUESTION.answer)))
    ], "nada do estranho entrou na conta"


def test_a_token_copied_before_the_learner_arrived_gives_a_learner_of_its_own(client, settings):
    token = csrf_from(client.get("/licoes/kernels").text)
    assert answer(client, "kernels", QUESTION.id, sorted(QUESTION.answer)).status_code == 200
    other = stranger(client, token)
    page = other.get("/licoes/kernels").text
    response = other.post(
        URL,
        data=answer_form(page, QUESTION.id, token=token, opcao="a"),
        headers=HX,
    )
    assert response.status_code == 200
    assert learners(settings) == 2
    assert client.cookies[SESSION] != other.cookies[SESSION]
    owners = db_rows(settings, "SELECT DISTINCT learner_id FROM attempt")
    assert len(owners) == 2, "cada resposta ficou com quem a deu"


def test_the_session_cookie_is_httponly_and_never_printed_in_a_page(client):
    assert answer(client, "kernels", QUESTION.id, ["a"]).status_code == 200
    sid = client.cookies[SESSION]
    cookies = [
        c
        for c in answer(client, "kernels", QUESTION.id, ["b"]).headers.get_list("set-cookie")
        + client.post("/conta/sair", data={"csrftoken": csrf_from(client.get("/conta").text)})
        .history[0]
        .headers.get_list("set-cookie")
        if c.startswith(SESSION)
    ]
    assert cookies and all("httponly" in c.lower() for c in cookies)
    again = TestClient(client.app)
    assert answer(again, "kernels", QUESTION.id, ["a"]).status_code == 200
    sid = again.cookies[SESSION]
    for path in ("/", "/licoes/kernels", "/progresso", "/meus-dados", "/conta", "/revisar"):
        assert sid not in again.get(path).text, path


def test_sign_up_sign_in_and_sign_out_each_rotate_the_session(client):
    assert answer(client, "kernels", QUESTION.id, ["a"]).status_code == 200
    anonymous = client.cookies[SESSION]
    assert sign_up(client, "rotacao").status_code == 303
    signed_up = client.cookies[SESSION]
    assert signed_up != anonymous
    assert client.post(
        "/conta/sair", data={"csrftoken": csrf_from(client.get("/conta").text)}
    ).status_code in (200, 303)
    assert SESSION not in client.cookies
    assert sign_in(client, "rotacao").status_code == 303
    signed_in = client.cookies[SESSION]
    assert signed_in not in (anonymous, signed_up)

    for old in (anonymous, signed_up):  # replaying an ended session's cookie opens nothing
        replay = TestClient(client.app, cookies={SESSION: old})
        assert "Conta: rotacao" not in replay.get("/conta").text
        assert replay.get("/meus-dados/exportar").json()["attempts"] == []
    current = TestClient(client.app, cookies={SESSION: signed_in})
    assert current.get("/meus-dados/exportar").json()["account"]["username"] == "rotacao"


def test_every_page_view_gets_form_keys_of_its_own(client):
    first, second = (TestClient(client.app).get("/licoes/kernels").text for _ in range(2))
    keys = [key_of(page, QUESTION.id) for page in (first, second)]
    assert keys[0] != keys[1], "a página do cache não repete a chave de outra visita"
    forms = soup(first).select('input[name="chave"]')
    assert len({node["value"] for node in forms}) == len(forms) > 1, "uma chave por formulário"


def same_browser(client: TestClient) -> TestClient:
    """Another connection of the browser of ``client``: its cookies as they are now (a request
    sent before the response of the one before it set anything new)."""
    return TestClient(client.app, cookies=dict(client.cookies))


def double_submit(
    client: TestClient, page: str, token: str, times: int = 2
) -> list[httpx.Response]:
    """The same first answer sent ``times`` at once by a browser that has no session yet."""
    data = answer_form(page, QUESTION.id, token=token, opcao=sorted(QUESTION.answer)[0])
    browsers = [same_browser(client) for _ in range(times)]
    with ThreadPoolExecutor(max_workers=times) as pool:
        return list(pool.map(lambda b: b.post(URL, data=data, headers=HX), browsers))


def test_a_double_submitted_first_answer_makes_one_learner(client, settings):
    page = client.get("/licoes/kernels").text
    responses = double_submit(client, page, csrf_from(page))
    assert [r.status_code for r in responses] == [200, 200]
    assert learners(settings) == 1
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(1,)]
    sessions = {r.cookies[SESSION] for r in responses}
    owners = query(settings, "SELECT DISTINCT learner_id FROM websession")
    assert len(sessions) == 2 and len(owners) == 1, "duas sessões, o mesmo aluno"
    verdicts = [text(soup(r).select_one(".verdict")) for r in responses]
    assert verdicts == ["✓ Resposta correta"] * 2


def first_form(client: TestClient) -> dict[str, str]:
    """The answer form of the first question as a visitor's page prints it (option "a")."""
    page = client.get("/licoes/kernels").text
    return answer_form(page, QUESTION.id, opcao="a")


def test_a_first_form_sent_again_after_its_window_or_sign_up_joins_nobody(client, settings):
    data = first_form(client)
    token, visit = data["csrftoken"], client.cookies[VISIT]
    assert client.post(URL, data=data, headers=HX).status_code == 200
    assert sign_up(client, "primeira").status_code == 303
    late = TestClient(client.app, cookies={"csrftoken": token, VISIT: visit}).post(
        URL, data=data, headers=HX
    )
    assert late.status_code == 200
    assert learners(settings) == 2, "a conta não é alcançada pela chave do formulário"

    other = TestClient(client.app)
    data = first_form(other)
    again = same_browser(other)
    assert other.post(URL, data=data, headers=HX).status_code == 200
    db_rows(
        settings,
        "UPDATE learner SET created_at = '2000-01-01 00:00:00' WHERE birth_key = ?",
        birth_key(data["chave"], other.cookies[VISIT]),
    )
    assert again.post(URL, data=data, headers=HX).status_code == 200
    assert learners(settings) == 4, "passada a janela, a mesma chave faz outro aluno"


def test_signing_out_ends_the_window_of_the_first_form(client, settings):
    data = first_form(client)
    before = same_browser(client)
    assert client.post(URL, data=data, headers=HX).status_code == 200
    assert post_form(client, "/conta/sair").status_code == 303
    after = before.post(URL, data=data, headers=HX)
    assert after.status_code == 200
    assert learners(settings) == 2


def exported(browser: TestClient) -> dict:
    response = browser.get("/meus-dados/exportar")
    assert response.status_code == 200
    return response.json()


def test_a_stranger_with_the_form_key_joins_nobody(client, settings):
    """Issue 34, finding 1: a second client sending the victim's form key (``chave``) within
    30 s became the victim's learner, and after the victim signed up it still exported the
    account, answered into it and erased it. The key alone no longer joins: the join needs
    the visit cookie of the browser that showed the form (HttpOnly, never in the page)."""
    data = first_form(client)  # the victim's page view, and the key anyone who saw it knows
    assert client.post(URL, data=data, headers=HX).status_code == 200
    stranger = TestClient(client.app)
    own = first_form(stranger)  # a page of their own: a valid CSRF pair and a visit cookie
    sent = {**data, "csrftoken": own["csrftoken"]}
    assert stranger.post(URL, data=sent, headers=HX).status_code == 200
    assert learners(settings) == 2, "a chave da vítima não leva ao aluno dela"
    owners = db_rows(settings, "SELECT DISTINCT learner_id FROM websession")
    assert len(owners) == 2

    assert sign_up(client, "vitima").status_code == 303
    assert "vitima" not in stranger.get("/meus-dados/exportar").text
    assert post_form(stranger, "/meus-dados/apagar", confirmo="sim").status_code == 303
    victim = TestClient(client.app)
    assert sign_in(victim, "vitima").status_code == 303, "a conta da vítima continua lá"
    assert [a["chosen"] for a in exported(victim)["attempts"]] == ["a"]


def test_signing_up_ends_every_other_session_of_the_learner(client, settings):
    """Issue 34, finding 1 (shared computer): whoever used this browser before made two sessions
    of one learner with a double submit of their own form, and kept the second. The next
    person to sign up here signed up into that learner, and the kept session opened the
    account. Signing up now ends every other session of the learner."""
    page = client.get("/licoes/kernels").text
    first, kept = double_submit(client, page, csrf_from(page))
    assert learners(settings) == 1, "o clique duplo faz um aluno só, com duas sessões"
    browser = same_browser(client)  # the shared computer: it keeps the first session
    browser.cookies.set(SESSION, first.cookies[SESSION])
    attacker = same_browser(client)
    attacker.cookies.set(SESSION, kept.cookies[SESSION])
    assert exported(attacker)["attempts"], "antes: a segunda sessão vê o aluno"

    assert sign_up(browser, "proxima").status_code == 303
    after = exported(attacker)
    assert after["account"] is None and after["attempts"] == []
    assert "proxima" not in attacker.get("/meus-dados/exportar").text
    answered = attacker.post(URL, data={**first_form(attacker), "opcao": "b"}, headers=HX)
    assert answered.status_code == 200
    assert post_form(attacker, "/meus-dados/apagar", confirmo="sim").status_code == 303
    again = TestClient(client.app)
    assert sign_in(again, "proxima").status_code == 303, "a conta não foi apagada"
    mine = exported(again)
    assert mine["account"]["username"] == "proxima"
    assert [a["chosen"] for a in mine["attempts"]] == [",".join(sorted(QUESTION.answer))]
    stored = {row[0] for row in db_rows(settings, "SELECT id FROM websession")}
    assert kept.cookies[SESSION] not in stored and len(stored) == 2, "as duas da conta, só"


def test_signing_in_ends_the_other_sessions_of_the_learner_it_merges(client, settings):
    """The same, signing in: the anonymous learner merged into the account is ended with every
    session of it; the account's own session on another device stays."""
    laptop = TestClient(client.app)
    assert sign_up(laptop, "ana").status_code == 303
    page = client.get("/licoes/kernels").text
    first, kept = double_submit(client, page, csrf_from(page))
    browser, attacker = same_browser(client), same_browser(client)
    browser.cookies.set(SESSION, first.cookies[SESSION])
    attacker.cookies.set(SESSION, kept.cookies[SESSION])
    assert sign_in(browser, "ana").status_code == 303
    assert exported(attacker)["account"] is None and exported(attacker)["attempts"] == []
    assert exported(laptop)["account"]["username"] == "ana", "o outro aparelho continua"
    assert len(exported(browser)["attempts"]) == 1


def test_the_visit_cookie_is_httponly_and_never_in_the_page(client):
    response = client.get("/licoes/kernels")
    visit = client.cookies[VISIT]
    assert len(visit) >= 16 and visit not in response.text
    header = next(h for h in response.headers.get_list("set-cookie") if h.startswith(VISIT))
    assert "httponly" in header.lower() and "samesite=lax" in header.lower()
    again = client.get("/licoes/kernels")
    assert VISIT not in again.headers.get("set-cookie", ""), "dada uma vez por navegador"


def test_the_migration_re_keys_no_learner(database_url):
    upgrade(database_url)
    downgrade(database_url, "0009")
    settings = Settings(database_url=database_url, secret_key="x" * 40)
    learner = "a" + "0" * 31
    query(settings, f"INSERT INTO learner (id, created_at) VALUES ('{learner}', CURRENT_TIMESTAMP)")
    query(
        settings,
        "INSERT INTO account (username, password_hash, learner_id, created_at) "
        f"VALUES ('antiga', 'h', '{learner}', CURRENT_TIMESTAMP)",
    )
    upgrade(database_url)
    assert query(settings, "SELECT id, birth_key FROM learner") == [(learner, None)]
    assert query(settings, "SELECT username, learner_id FROM account") == [("antiga", learner)]
