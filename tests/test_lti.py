"""The course as an LTI 1.3 tool, end to end against a real platform (lti1p3platform 0.1.8)
served by uvicorn on 127.0.0.1, the course on another uvicorn: registration by the command,
launches, roles, the class per LMS course, grades in the platform's gradebook, deep linking,
replays, key rotation and a platform that goes away and comes back."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time

import httpx
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from app.learning.progress import lesson_shape_total
from app.platform.auth import ARGON2_MEMORY_KIB, ARGON2_PARALLELISM, ARGON2_TIME_COST
from app.platform.settings import PROJECT_ROOT
from tests.support.accounts import PASSWORD, sign_in, sign_up
from tests.support.app import db_rows
from tests.support.cli import CURSO, curso
from tests.support.html import csrf_from, soup, text
from tests.support.learning import KERNELS, right_form, wrong_form
from tests.support.lti_platform import (
    CLIENT_ID,
    DEPLOYMENT_ID,
    PlatformServer,
    launch,
    launch_form,
    launch_page,
    lms_fixture,
    post_launch_form,
    scores_of,
)
from tests.support.server import LiveServer

QUESTIONS = list(KERNELS.questions.values())
TOTAL = lesson_shape_total(KERNELS)  # what the lesson counts: a pool, its draw
HX = {"HX-Request": "true"}


lms = lms_fixture("lti")


def answer(
    client: httpx.Client, tool: LiveServer, question, form, page_url: str = "/licoes/kernels"
) -> httpx.Response:
    """Answer ``question`` as its form on ``page_url`` (a launch's ``Location``) posts it."""
    url = httpx.URL(tool.url + page_url).copy_merge_params({"refazer": question.id})
    page = client.get(url).text
    node = soup(page).select_one(f"#pergunta-{question.id}")
    fields = form if isinstance(form, dict) else {"opcao": form}
    hidden = {i["name"]: i["value"] for i in node.select("form input[type=hidden]")}
    data = {**hidden, "csrftoken": csrf_from(page), **fields}
    url = tool.url + node.select_one("form")["action"]
    return client.post(url, data=data, headers=HX)


def test_a_learner_launch_signs_in_and_the_grades_reach_the_gradebook(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        opened = launch(browser, platform, user="ana-1", papel="aluno", licao="kernels")
        assert opened.status_code == 303
        assert opened.headers["location"].startswith("/licoes/kernels?lancamento=")
        page = browser.get(tool.url + "/conta")
        assert re.search(r"lti-[0-9a-f]{16}", text(soup(page.text).select_one("main")))
        assert answer(browser, tool, QUESTIONS[0], right_form(QUESTIONS[0])).status_code == 200
        assert answer(browser, tool, QUESTIONS[1], wrong_form(QUESTIONS[1])).status_code == 200
    # The second answer's score, whether the first one's went out before it or not.
    last = last_score(platform, "ana-1", lambda s: "Errou" in s["comment"])
    assert (last["scoreGiven"], last["scoreMaximum"]) == (1, TOTAL)
    assert last["activityProgress"] == "InProgress"
    assert last["gradingProgress"] == "FullyGraded"
    # QUESTIONS[1] (mac-e-ollama) has no concepts: the comment names it by its sentence.
    assert not QUESTIONS[1].concepts
    assert last["comment"] == (
        f"Acertou 1 de {TOTAL}. Errou: “Você roda num Mac com Apple Silicon e quer o"
        f" caminho…”. {TOTAL - 2} sem resposta."
    )
    item = next(i for i in platform.gradebook()["lineitems"] if i["resourceId"] == "kernels")
    assert item["scoreMaximum"] == TOTAL
    assert item["label"] == KERNELS.meta.title
    assert item["resourceLinkId"] == "link-1"
    assert last["lineitem"] == item["id"].rsplit("/", 1)[1]
    rows = db_rows(
        tool.settings,
        "SELECT c.name FROM classroom c JOIN class_member m ON m.class_id = c.id "
        "JOIN lti_user u ON u.learner_id = m.learner_id WHERE u.sub = ?",
        "ana-1",
    )
    assert rows == [("Sistemas de IA (Moodle)",)]
    # The gradebook holds the score before the sender hears the platform's answer and marks it.
    deadline = time.monotonic() + 30
    while True:
        sent = db_rows(
            tool.settings, "SELECT status, score_given FROM lti_score WHERE user_sub = ?", "ana-1"
        )
        if sent != [("pending", 1.0)] or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert sent == [("sent", 1.0)]  # one row per learner and column: the newest score
    with httpx.Client() as teacher:
        launch(teacher, platform, user="prof-101", papel="professor")
        class_id = db_rows(tool.settings, "SELECT class_id FROM lti_context")[0][0]
        board = teacher.get(tool.url + "/instrutor", params={"turma": class_id})
        row = soup(board.text).select_one("#ava table.passback tbody tr")
        cells = [text(cell) for cell in row.select("th, td")]
        assert cells == ["Sistemas de IA (Moodle)", "1", "0", "0", "0", ""]


def last_score(platform: PlatformServer, user: str, ready) -> dict:
    """The user's last score in the platform's gradebook, once one makes ``ready`` true."""
    deadline = time.monotonic() + 30
    while True:
        found = [s for s in platform.gradebook()["scores"] if s["userId"] == user]
        if found and ready(found[-1]) or time.monotonic() > deadline:
            assert found, f"no score of {user}"
            return found[-1]
        time.sleep(0.2)


def test_the_same_person_comes_back_as_the_same_learner(lms):
    tool, platform = lms
    for _ in range(2):
        with httpx.Client() as browser:
            assert launch(browser, platform, user="bia-2", licao="kernels").status_code == 303
    rows = db_rows(tool.settings, "SELECT count(*) FROM lti_user WHERE sub = ?", "bia-2")
    assert rows == [(1,)]


def test_an_lms_instructor_teaches_the_class_of_that_course(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        opened = launch(
            browser, platform, user="prof-1", papel="professor", contexto="c-77", titulo="Redes"
        )
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        classes = browser.get(tool.url + "/instrutor/turmas")
        assert classes.status_code == 200
        assert "Redes (Moodle)" in classes.text
        assert browser.get(tool.url + "/instrutor/lti").status_code == 403
    with httpx.Client() as learner:
        launch(learner, platform, user="ana-77", contexto="c-77", titulo="Redes")
        assert learner.get(tool.url + "/instrutor").status_code == 403


def test_the_lms_name_is_shown_in_the_header_the_dashboard_and_the_class(lms):
    tool, platform = lms
    with httpx.Client() as learner:
        launch(learner, platform, user="ana-78", nome="Ana Souza", contexto="c-78", titulo="IA")
        lesson = learner.get(tool.url + "/licoes/kernels")
        assert text(soup(lesson.text).select_one(".nav-account")) == "Conta: Ana Souza"
    with httpx.Client() as teacher:
        launch(
            teacher,
            platform,
            user="prof-78",
            nome="Clara Lima",
            papel="professor",
            contexto="c-78",
            titulo="IA",
        )
        dashboard = soup(teacher.get(tool.url + "/instrutor", follow_redirects=True).text)
        assert text(dashboard.select_one(".nav-account")) == "Conta: Clara Lima"
        assert text(dashboard.select_one("p.lead strong")) == "Clara Lima"
        (class_id,) = db_rows(
            tool.settings, "SELECT class_id FROM lti_context WHERE context_id = ?", "c-78"
        )[0]
        members = soup(teacher.get(f"{tool.url}/instrutor/turmas/{class_id}").text)
        names = [text(node) for node in members.select(".member-name")]
        assert len(names) == 1 and names[0].startswith("Ana Souza (lti-"), names


def test_a_new_tab_asked_for_inside_the_frame_keeps_the_learner_once(lms):
    tool, platform = lms
    with httpx.Client() as framed:
        launch(framed, platform, user="eva-9", nome="Eva Reis", licao="kernels")
        assert answer(framed, tool, QUESTIONS[0], right_form(QUESTIONS[0])).status_code == 200
        lesson = soup(framed.get(tool.url + "/licoes/kernels").text)
        offered = lesson.select_one("a[data-new-tab]")
        assert text(offered) == "Abrir em nova aba" and offered["href"] == "/lti/nova-aba"
        asked = framed.get(tool.url + offered["href"], params={"voltar": "/licoes/kernels"})
        assert asked.headers["cache-control"] == "no-store"
        url = asked.json()["url"]
    with httpx.Client(base_url=tool.url) as new_tab:  # none of the iframe's cookies
        opened = new_tab.get(url)
        assert opened.status_code == 303 and opened.headers["location"] == "/licoes/kernels"
        page = soup(new_tab.get("/licoes/kernels").text)
        assert text(page.select_one(".nav-account")) == "Conta: Eva Reis"
        lessons = new_tab.get("/api/progresso").json()["lessons"]
        assert [(x["slug"], x["right"]) for x in lessons if x["right"]] == [("kernels", 1)]
    with httpx.Client(base_url=tool.url) as again:
        used = again.get(url)
        assert used.status_code == 403
        assert text(soup(used.text).select_one("main p")) == (
            "Este link para abrir o curso numa nova aba expirou ou já foi usado. Volte à "
            "atividade no AVA e clique de novo em “Abrir em nova aba”."
        )
        assert again.get("/lti/nova-aba").status_code == 403  # not from an LMS launch
        assert again.get(url[:-3] + "abc").status_code == 403  # altered


# pwdlib's default argon2 cost, what hashes were made with before issue 38: the course replaces
# such a hash with one at OWASP's cost at the next right password.
OLD_HASHER = PasswordHash((Argon2Hasher(time_cost=3, memory_cost=65536, parallelism=4),))
OWASP_COST = f"m={ARGON2_MEMORY_KIB},t={ARGON2_TIME_COST},p={ARGON2_PARALLELISM}"


def password_hash_of(tool: LiveServer, username: str) -> str:
    rows = db_rows(tool.settings, "SELECT password_hash FROM account WHERE username = ?", username)
    return rows[0][0]


def link(browser: httpx.Client, tool: LiveServer, username: str, password: str) -> httpx.Response:
    """Post the link form of the LMS person signed in on ``browser``."""
    token = csrf_from(browser.get(tool.url + "/lti/vincular").text)
    form = {"csrftoken": token, "usuario": username, "senha": password}
    return browser.post(tool.url + "/lti/vincular", data=form)


def test_linking_an_account_with_an_old_hash_replaces_the_hash(lms):
    """The link checks the password as the sign-in does: an account that only ever signs in
    through it still gets its old hash replaced, the same password signing in after."""
    tool, platform = lms
    with httpx.Client(base_url=tool.url) as own:
        assert sign_up(own, "edu").status_code == 303
    old = OLD_HASHER.hash(PASSWORD)
    db_rows(tool.settings, "UPDATE account SET password_hash = ? WHERE username = 'edu'", old)
    with httpx.Client() as browser:
        launch(browser, platform, user="edu-lms", licao="kernels", contexto="c-edu")
        assert link(browser, tool, " EDU ", PASSWORD).status_code == 303
    stored = password_hash_of(tool, "edu")
    assert stored != old
    assert stored.split("$")[3] == OWASP_COST
    assert OLD_HASHER.verify(PASSWORD, stored)  # the same password, at the new cost
    with httpx.Client(base_url=tool.url) as elsewhere:
        assert sign_in(elsewhere, "edu").status_code == 303


def test_an_account_made_for_an_lms_person_is_never_linked_with_a_password(lms):
    """Even with its password right, an ``lti-`` account is a wrong sign-in at the link (401,
    the same message), and its hash stays as it was."""
    tool, platform = lms
    with httpx.Client() as first:
        launch(first, platform, user="ivo-lms", licao="kernels", contexto="c-ivo")
    query = (
        "SELECT a.username FROM lti_user u JOIN account a ON a.id = u.account_id WHERE u.sub = ?"
    )
    [(made,)] = db_rows(tool.settings, query, "ivo-lms")
    assert made.startswith("lti-")
    old = OLD_HASHER.hash(PASSWORD)
    db_rows(tool.settings, "UPDATE account SET password_hash = ? WHERE username = ?", old, made)
    with httpx.Client() as other:
        launch(other, platform, user="lia-lms", licao="kernels", contexto="c-ivo")
        refused = link(other, tool, made, PASSWORD)
    assert refused.status_code == 401
    assert text(soup(refused.text).select_one("#vincular-erro")) == "Usuário ou senha incorretos."
    assert password_hash_of(tool, made) == old


def test_the_same_learner_outside_and_inside_the_lms_gets_each_its_header(lms):
    """A lesson page is kept per learner: what the header says of the session is in its key."""
    tool, platform = lms
    with httpx.Client(base_url=tool.url) as own, httpx.Client() as framed:
        assert sign_up(own, "rui").status_code == 303
        launch(framed, platform, user="rui-lms", licao="kernels")
        token = csrf_from(framed.get(tool.url + "/lti/vincular").text)
        form = {"csrftoken": token, "usuario": "rui", "senha": PASSWORD}
        assert framed.post(tool.url + "/lti/vincular", data=form).status_code == 303
        pages = []
        for _ in range(2):  # the second time, the learner's state (and place) is the same
            pages.append(soup(own.get("/licoes/kernels").text))
            pages.append(soup(framed.get(tool.url + "/licoes/kernels").text))
        outside, inside = pages[-2:]
    assert outside.select_one("a[data-new-tab]") is None
    assert text(inside.select_one("a[data-new-tab]")) == "Abrir em nova aba"


def test_deep_linking_answers_with_the_lesson_and_its_line_item(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        opened = launch(browser, platform, user="prof-2", papel="professor", dl="1")
        assert opened.status_code == 303
        picker = browser.get(tool.url + opened.headers["location"])
        assert picker.status_code == 200
        labels = [text(node) for node in soup(picker.text).select("label strong")]
        assert labels[0] == KERNELS.meta.title and labels[-1] == "Revisão espaçada"
        # The count the LMS instructor reads is the grade's maximum (a pool counts its draw).
        first = text(soup(picker.text).select_one("label[for=licao-kernels]"))
        assert first == f"{KERNELS.meta.title} ({TOTAL} perguntas)"
        chosen = browser.post(
            tool.url + "/lti/conteudo",
            data={"csrftoken": csrf_from(picker.text), "licao": "kernels"},
        )
        assert chosen.status_code == 200
        action, fields = launch_form(chosen.text)
        assert action == platform.url + "/deep-link-return"
        assert browser.post(action, data=fields).status_code == 200
    item = platform.gradebook()["content_items"][-1]
    assert item["type"] == "ltiResourceLink"
    assert item["url"] == tool.url + "/lti/launch"
    assert item["custom"] == {"licao": "kernels"}
    assert item["lineItem"]["scoreMaximum"] == TOTAL


def test_a_learner_cannot_open_the_deep_linking_picker(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        assert launch(browser, platform, user="ana-dl", dl="1").status_code == 403


def test_a_replayed_launch_is_refused_even_from_a_new_client(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        start = launch_page(browser, platform, user="eva-3", licao="kernels")
        assert post_launch_form(browser, start.text).status_code == 303
        again = post_launch_form(browser, start.text)
    assert again.status_code == 403
    assert "Esta entrada já foi usada" in again.text
    with httpx.Client() as thief:
        stolen = post_launch_form(thief, start.text)
        assert stolen.status_code == 403
        assert "Esta entrada já foi usada" in stolen.text
        account = soup(thief.get(tool.url + "/conta").text).select_one(".nav-account")
        assert text(account) == "Entrar"  # nobody signed in


def test_only_registered_issuers_and_deployments_are_accepted(lms):
    tool, _platform = lms
    login = httpx.get(
        tool.url + "/lti/login",
        params={"iss": "https://outro.example.org", "login_hint": "x", "client_id": CLIENT_ID},
    )
    assert login.status_code == 400
    assert "Este pedido de login LTI não é válido" in login.text
    rows = db_rows(tool.settings, "SELECT deployment_id FROM lti_deployment")
    assert rows == [(DEPLOYMENT_ID,)]


def test_the_tool_key_rotates_and_the_next_grade_still_arrives(lms):
    tool, platform = lms
    before = httpx.get(tool.url + "/lti/jwks.json").json()["keys"]
    done = curso(tool.settings, "lti", "chaves")
    assert done.returncode == 0, done.stderr
    after = httpx.get(tool.url + "/lti/jwks.json").json()["keys"]
    assert len(after) == len(before) + 1
    assert after[0]["kid"] not in {k["kid"] for k in before}
    with httpx.Client() as browser:
        launch(browser, platform, user="rui-4", licao="kernels")
        assert answer(browser, tool, QUESTIONS[0], right_form(QUESTIONS[0])).status_code == 200
    assert [s["scoreGiven"] for s in scores_of(platform, "rui-4", 1)] == [1]


def test_a_score_waits_while_the_platform_is_down_and_arrives_after(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        launch(browser, platform, user="lia-5", licao="kernels")
        platform.stop()
        try:
            assert answer(browser, tool, QUESTIONS[2], right_form(QUESTIONS[2])).status_code == 200
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                rows = db_rows(
                    tool.settings,
                    "SELECT status, last_error FROM lti_score WHERE user_sub = ?",
                    "lia-5",
                )
                if rows and rows[0][1]:
                    break
                time.sleep(0.2)
            assert rows[0][0] == "pending" and rows[0][1]  # retried until the platform is back
        finally:
            platform.start()
    done = curso(tool.settings, "lti", "enviar", "--todos")
    assert done.returncode == 0, done.stdout
    # At least once: a try cut off after the LMS stored the score is sent again, with the same
    # timestamp, which an AGS platform takes as the same score.
    arrived = scores_of(platform, "lia-5", 1)
    assert {(s["scoreGiven"], s["timestamp"]) for s in arrived} == {(1, arrived[0]["timestamp"])}
    rows = db_rows(tool.settings, "SELECT status FROM lti_score WHERE user_sub = ?", "lia-5")
    assert rows == [("sent",)]


def test_a_browser_that_drops_the_cookie_in_the_iframe_gets_a_new_tab_link(lms):
    tool, platform = lms
    with httpx.Client() as framed:
        start = launch_page(framed, platform, user="gil-6", licao="kernels")
    with httpx.Client() as no_cookies:  # the state cookie set at the login did not come back
        refused = post_launch_form(no_cookies, start.text)
        assert refused.status_code == 403
        link = soup(refused.text).select_one("main a[target=_blank]")
        assert text(link) == "Abrir em nova aba"
        assert link["href"].startswith("/lti/login?") and "lti1p3_new_window=1" in link["href"]
        again = no_cookies.get(tool.url + link["href"], follow_redirects=True)
        opened = post_launch_form(no_cookies, again.text)
        assert opened.status_code == 303
        assert opened.headers["location"].startswith("/licoes/kernels?lancamento=")


def test_a_launch_that_cannot_carry_its_cookie_says_why_instead_of_looping(lms):
    tool, platform = lms
    cross_site = {"Sec-Fetch-Site": "cross-site"}
    with httpx.Client() as framed:
        start = launch_page(framed, platform, user="gil-7", licao="kernels")
    # Plain HTTP, posted from another site: a new tab would not carry the Lax cookie either.
    action, fields = launch_form(start.text)
    with httpx.Client() as no_cookies:
        refused = no_cookies.post(action, data=fields, headers=cross_site)
    page = soup(refused.text).select_one("main")
    assert refused.status_code == 403 and page.select_one("a[target=_blank]") is None
    assert text(page.select_one("#lti-sem-cookie")) == (
        "O curso está em HTTP simples, num site diferente do AVA, então o navegador não envia o "
        "cookie do curso junto com a entrada, nem numa aba nova. O professor precisa servir o "
        "curso por HTTPS, com CURSO_SECURE_COOKIES=true (veja “Moodle” no README)."
    )
    # A browser that blocks the cookie in the new tab too is not sent to a third tab.
    with httpx.Client() as framed:
        start = launch_page(framed, platform, user="gil-8", licao="kernels")
    with httpx.Client() as blocking:
        first = post_launch_form(blocking, start.text)
        link = soup(first.text).select_one("main a[target=_blank]")
        again = blocking.get(tool.url + link["href"], follow_redirects=True)
        blocking.cookies.clear()
        second = post_launch_form(blocking, again.text)
    page = soup(second.text).select_one("main")
    assert second.status_code == 403 and page.select_one("a[target=_blank]") is None
    assert text(page.select_one("#lti-sem-cookie")).startswith(
        "Seu navegador não enviou o cookie do curso nem numa aba nova"
    )


def test_an_lms_person_links_the_course_account_they_already_have(lms):
    tool, platform = lms
    with httpx.Client(base_url=tool.url) as own:
        assert sign_up(own, "dora").status_code == 303
        assert answer(own, tool, QUESTIONS[3], right_form(QUESTIONS[3])).status_code == 200
    with httpx.Client() as browser:
        launch(browser, platform, user="dora-lms", licao="kernels", contexto="c-dora")
        assert answer(browser, tool, QUESTIONS[4], right_form(QUESTIONS[4])).status_code == 200
        page = browser.get(tool.url + "/lti/vincular")
        token = csrf_from(page.text)
        wrong = browser.post(
            tool.url + "/lti/vincular",
            data={"csrftoken": token, "usuario": "dora", "senha": "errada-123"},
        )
        assert wrong.status_code == 401
        assert text(soup(wrong.text).select_one("#vincular-erro")) == "Usuário ou senha incorretos."
        linked = browser.post(
            tool.url + "/lti/vincular",
            data={"csrftoken": token, "usuario": "dora", "senha": PASSWORD},
        )
        assert linked.status_code == 303
        assert linked.headers["location"].startswith("/licoes/kernels?lancamento=")
        assert text(soup(browser.get(tool.url + "/conta").text).select_one(".account-name")) == (
            "dora"
        )
    rows = db_rows(
        tool.settings,
        "SELECT a.username FROM lti_user u JOIN account a ON a.id = u.account_id WHERE u.sub = ?",
        "dora-lms",
    )
    assert rows == [("dora",)]
    answered = db_rows(
        tool.settings,
        "SELECT t.question_id FROM attempt t JOIN account a ON a.learner_id = t.learner_id"
        " WHERE a.username = 'dora' ORDER BY t.question_id",
    )
    assert answered == sorted([(QUESTIONS[3].id,), (QUESTIONS[4].id,)])
    assert (
        db_rows(tool.settings, "SELECT count(*) FROM account WHERE username LIKE 'lti-%'")[0][0]
        == db_rows(
            tool.settings,
            "SELECT count(*) FROM lti_user u JOIN account a ON "
            "a.id = u.account_id WHERE a.username LIKE 'lti-%'",
        )[0][0]
    )
    with httpx.Client() as again:
        launch(again, platform, user="dora-lms", licao="kernels", contexto="c-dora")
        assert text(soup(again.get(tool.url + "/conta").text).select_one(".account-name")) == (
            "dora"
        )
    members = db_rows(
        tool.settings,
        "SELECT a.username FROM class_member m JOIN account a ON a.learner_id = m.learner_id"
        " JOIN lti_context c ON c.class_id = m.class_id WHERE c.context_id = 'c-dora'",
    )
    assert members == [("dora",)]


def test_a_launch_gives_the_browser_a_new_session_id(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        assert answer(browser, tool, QUESTIONS[0], right_form(QUESTIONS[0])).status_code == 200
        before = browser.cookies.get("curso_sessao")
        assert before and db_rows(tool.settings, "SELECT 1 FROM websession WHERE id = ?", before)
        assert launch(browser, platform, user="ivo-8", licao="kernels").status_code == 303
        after = browser.cookies.get("curso_sessao")
    assert after and after != before
    assert db_rows(tool.settings, "SELECT 1 FROM websession WHERE id = ?", before) == []


def _senders(tool: LiveServer, count: int) -> list[subprocess.Popen]:
    """``count`` real ``curso lti enviar --todos`` processes, started at once."""
    env = {
        **os.environ,
        "CURSO_DATABASE_URL": tool.settings.database_url,
        "CURSO_SECRET_KEY": tool.settings.secret_key,
    }
    return [
        subprocess.Popen(
            [*CURSO, "lti", "enviar", "--todos"],
            env=env,
            cwd=PROJECT_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]


def test_three_senders_at_once_post_each_learners_newest_score_once(lms):
    tool, platform = lms
    users = [f"par-{n}" for n in range(8)]
    browsers = [httpx.Client() for _ in users]
    refuse = platform.folder / "refuse-scores"
    try:
        for user, browser in zip(users, browsers, strict=True):
            assert launch(browser, platform, user=user, licao="kernels").status_code == 303
        refuse.touch()  # the LMS answers 503: the scores wait in the queue
        try:
            for browser in browsers:
                for question in QUESTIONS[:2]:
                    assert answer(browser, tool, question, right_form(question)).status_code == 200
            # The app's own sender may be posting an older score (refused: 503); let it finish
            # before the LMS takes scores again, or that post would land first, in order.
            claimed = "SELECT count(*) FROM lti_score WHERE user_sub LIKE 'par-%' AND claim <> ''"
            deadline = time.monotonic() + 30
            while db_rows(tool.settings, claimed) != [(0,)]:
                assert time.monotonic() < deadline, "a score stayed claimed"
                time.sleep(0.05)
        finally:
            refuse.unlink()
    finally:
        for browser in browsers:
            browser.close()
    senders = _senders(tool, 3)
    for sender in senders:
        _out, err = sender.communicate(timeout=120)
        assert sender.returncode == 0, err
    received = {user: [] for user in users}
    for score in platform.gradebook()["scores"]:
        if score["userId"] in received:
            received[score["userId"]].append(score["scoreGiven"])
    # One POST per learner, of the newest score (2 right): never the older one, never twice.
    assert received == {user: [2] for user in users}
    rows = db_rows(tool.settings, "SELECT status FROM lti_score WHERE user_sub LIKE 'par-%'")
    assert rows == [("sent",)] * len(users)


def test_a_score_older_than_the_gradebooks_is_superseded_and_not_retried(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        assert launch(browser, platform, user="leo-9", licao="kernels").status_code == 303
        assert answer(browser, tool, QUESTIONS[0], right_form(QUESTIONS[0])).status_code == 200
        first = last_score(platform, "leo-9", lambda s: True)
        # The gradebook gets a newer score from elsewhere (the teacher, another tool).
        book_file = platform.folder / "gradebook.json"
        book = json.loads(book_file.read_text())
        book["scores"].append({**first, "timestamp": "2099-01-01T00:00:00+00:00"})
        book_file.write_text(json.dumps(book))
        assert answer(browser, tool, QUESTIONS[2], right_form(QUESTIONS[2])).status_code == 200
    query = "SELECT status, tries, last_error FROM lti_score WHERE user_sub = ?"
    deadline = time.monotonic() + 30
    while (rows := db_rows(tool.settings, query, "leo-9"))[0][1] == 0:
        assert time.monotonic() < deadline, rows
        time.sleep(0.2)
    [(status, tries, error)] = rows
    assert (status, tries) == ("superseded", 1)
    assert error.startswith("409 ") and "Refusing score with an earlier timestamp" in error
    done = curso(tool.settings, "lti", "enviar", "--todos")
    assert (done.returncode, done.stdout) == (0, "Notas enviadas: 0; com falha: 0.\n")
    assert db_rows(tool.settings, query, "leo-9") == rows
    with httpx.Client() as teacher:
        launch(teacher, platform, user="prof-leo", papel="professor")
        ((class_id,),) = db_rows(
            tool.settings,
            "SELECT m.class_id FROM class_member m JOIN lti_user u ON u.learner_id = m.learner_id"
            " WHERE u.sub = ?",
            "leo-9",
        )
        board = teacher.get(tool.url + "/instrutor", params={"turma": class_id})
        cells = [
            [text(cell) for cell in row.select("th, td")]
            for row in soup(board.text).select("#ava table.passback tbody tr")
        ]
    assert [row[0] for row in cells if row[3] == "1"] == ["Sistemas de IA (Moodle)"]


ESCOLHA = "escolha-self-hosted"


def _scores(tool: LiveServer, user: str) -> list[tuple]:
    return db_rows(
        tool.settings,
        "SELECT s.lesson_slug, s.resource_link_id, c.context_id, s.score_given FROM lti_score s"
        " LEFT JOIN lti_context c ON c.class_id = s.class_id WHERE s.user_sub = ?"
        " ORDER BY s.lesson_slug, s.resource_link_id",
        user,
    )


def test_each_tab_grades_for_the_lesson_it_was_launched_with(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        kernels = launch(browser, platform, user="tab-1", licao="kernels", link="link-k")
        assert launch(
            browser, platform, user="tab-1", licao=ESCOLHA, link="link-e"
        ).status_code == (303)
        # Back in the first tab, whose page came from the kernels launch.
        done = answer(
            browser, tool, QUESTIONS[0], right_form(QUESTIONS[0]), kernels.headers["location"]
        )
        assert done.status_code == 200
    assert _scores(tool, "tab-1") == [("kernels", "link-k", "curso-101", 1.0)]
    sent = last_score(platform, "tab-1", lambda s: True)
    item = next(i for i in platform.gradebook()["lineitems"] if i["id"].endswith(sent["lineitem"]))
    assert (item["resourceId"], item["resourceLinkId"]) == ("kernels", "link-k")


def test_the_same_lesson_from_two_lms_courses_gets_a_grade_in_each_column(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        course_a = launch(browser, platform, user="duo-1", licao="kernels", link="a", contexto="A")
        course_b = launch(browser, platform, user="duo-1", licao="kernels", link="b", contexto="B")
        tab_a, tab_b = course_a.headers["location"], course_b.headers["location"]
        assert answer(browser, tool, QUESTIONS[0], right_form(QUESTIONS[0]), tab_a).status_code == (
            200
        )
        assert _scores(tool, "duo-1") == [("kernels", "a", "A", 1.0)]
        assert answer(browser, tool, QUESTIONS[2], right_form(QUESTIONS[2]), tab_b).status_code == (
            200
        )
        assert _scores(tool, "duo-1") == [("kernels", "a", "A", 1.0), ("kernels", "b", "B", 2.0)]
        # The signed launch is this learner's: another learner's form cannot carry it, and a
        # changed byte makes it nothing.
        token = tab_a.split("lancamento=", 1)[1]
    with httpx.Client() as other:
        assert launch(other, platform, user="duo-2", licao=ESCOLHA, link="x").status_code == 303
        page = other.get(tool.url + "/licoes/kernels", params={"lancamento": token}).text
        assert not soup(page).select('input[name="lancamento"]')
        stolen = {"lancamento": token}
        assert answer(other, tool, QUESTIONS[0], {**stolen, "opcao": sorted(QUESTIONS[0].answer)})
        forged = {"lancamento": token[:-2] + ("AA" if not token.endswith("AA") else "BB")}
        assert answer(other, tool, QUESTIONS[2], {**forged, "opcao": sorted(QUESTIONS[2].answer)})
    assert _scores(tool, "duo-2") == []
    assert _scores(tool, "duo-1") == [("kernels", "a", "A", 1.0), ("kernels", "b", "B", 2.0)]


def test_a_review_answer_in_a_launched_session_updates_the_lesson_grade(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        opened = launch(browser, platform, user="rev-1", licao="kernels", link="link-r")
        tab = opened.headers["location"]
        assert answer(browser, tool, QUESTIONS[0], wrong_form(QUESTIONS[0]), tab).status_code == 200
        assert last_score(platform, "rev-1", lambda s: True)["scoreGiven"] == 0
        learner = db_rows(tool.settings, "SELECT learner_id FROM lti_user WHERE sub = 'rev-1'")
        db_rows(
            tool.settings,
            "UPDATE review_card SET due = '2000-01-01 00:00:00' WHERE learner_id = ?",
            learner[0][0],
        )
        page = browser.get(tool.url + "/revisar").text
        form = soup(page).select_one(f"#pergunta-{QUESTIONS[0].id} form")
        data = {i["name"]: i["value"] for i in form.select("input[type=hidden]")}
        data["opcao"] = sorted(QUESTIONS[0].answer)
        assert browser.post(tool.url + form["action"], data=data, headers=HX).status_code == 200
    assert last_score(platform, "rev-1", lambda s: s["scoreGiven"] == 1)["scoreGiven"] == 1
    assert _scores(tool, "rev-1") == [("kernels", "link-r", "curso-101", 1.0)]


def test_each_launched_page_carries_its_own_launch_past_the_page_caches(lms):
    tool, platform = lms

    def launch_fields(client: httpx.Client, url: str) -> set[str]:
        page = soup(client.get(tool.url + url).text)
        return {node["value"] for node in page.select('form input[name="lancamento"]')}

    with httpx.Client() as ana, httpx.Client() as bia:
        tab_a = launch(ana, platform, user="cache-a", licao="kernels").headers["location"]
        tab_b = launch(bia, platform, user="cache-b", licao="kernels").headers["location"]
        token_a, token_b = (tab.split("lancamento=", 1)[1] for tab in (tab_a, tab_b))
        for _ in range(2):  # a second view too, where a cache would answer
            assert launch_fields(ana, tab_a) == {token_a}
            assert launch_fields(bia, tab_b) == {token_b}
        # The same lesson opened inside the course (cached per learner) carries no launch.
        assert launch_fields(ana, "/licoes/kernels") == set()
        assert launch_fields(ana, tab_a) == {token_a}
        # Another learner's launch in the address is not carried on.
        assert launch_fields(bia, tab_a) == set()
