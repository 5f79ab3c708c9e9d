"""The course as an LTI 1.3 tool, end to end against a real platform (lti1p3platform 0.1.8)
served by uvicorn on 127.0.0.1, the course on another uvicorn: registration by the command,
launches, roles, the class per LMS course, grades in the platform's gradebook, deep linking,
replays, key rotation and a platform that goes away and comes back."""

from __future__ import annotations

import re
import time

import httpx
import pytest

from tests.support.accounts import PASSWORD, sign_up
from tests.support.app import (
    BACKENDS,
    create_postgres_database,
    db_rows,
    drop_postgres_database,
)
from tests.support.cli import curso
from tests.support.html import csrf_from, soup, text
from tests.support.learning import COURSE, KERNELS, right_form, wrong_form
from tests.support.lti_platform import (
    CLIENT_ID,
    DEPLOYMENT_ID,
    PlatformServer,
    course_and_lms,
    launch,
    launch_form,
    post_launch_form,
)
from tests.support.server import LiveServer

QUESTIONS = list(KERNELS.questions.values())
HX = {"HX-Request": "true"}


@pytest.fixture(scope="module", params=BACKENDS)
def lms(request, tmp_path_factory):
    """The course and the platform, on SQLite or PostgreSQL."""
    database_url = create_postgres_database() if request.param == "postgresql" else ""
    try:
        with course_and_lms(tmp_path_factory.mktemp("lti"), database_url) as pair:
            yield pair
    finally:
        if database_url:
            drop_postgres_database(database_url)


def answer(client: httpx.Client, tool: LiveServer, question, form) -> httpx.Response:
    page = client.get(tool.url + "/licoes/kernels", params={"refazer": question.id}).text
    node = soup(page).select_one(f"#pergunta-{question.id}")
    fields = form if isinstance(form, dict) else {"opcao": form}
    data = {
        "csrftoken": csrf_from(page),
        "chave": node.select_one('input[name="chave"]')["value"],
        "versao": node.select_one('input[name="versao"]')["value"],
        **fields,
    }
    url = f"{tool.url}/licoes/kernels/perguntas/{question.id}"
    return client.post(url, data=data, headers=HX)


def scores_of(platform: PlatformServer, user: str, count: int) -> list[dict]:
    """The user's scores in the platform's gradebook, once ``count`` of them have arrived."""
    deadline = time.monotonic() + 30
    while True:
        found = [s for s in platform.gradebook()["scores"] if s["userId"] == user]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_a_learner_launch_signs_in_and_the_grades_reach_the_gradebook(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        opened = launch(browser, platform, user="ana-1", papel="aluno", licao="kernels")
        assert opened.status_code == 303
        assert opened.headers["location"] == "/licoes/kernels"
        page = browser.get(tool.url + "/conta")
        assert re.search(r"lti-[0-9a-f]{16}", text(soup(page.text).select_one("main")))
        assert answer(browser, tool, QUESTIONS[0], right_form(QUESTIONS[0])).status_code == 200
        assert answer(browser, tool, QUESTIONS[1], wrong_form(QUESTIONS[1])).status_code == 200
    scores = scores_of(platform, "ana-1", 2)
    assert len(scores) == 2
    first, last = scores
    assert (first["scoreGiven"], first["scoreMaximum"]) == (1, len(QUESTIONS))
    assert (last["scoreGiven"], last["scoreMaximum"]) == (1, len(QUESTIONS))
    assert last["activityProgress"] == "InProgress"
    assert last["gradingProgress"] == "FullyGraded"
    terms = [COURSE.glossary.get(slug) for q in QUESTIONS[1:] for slug in q.concepts]
    review = list(dict.fromkeys(term.term for term in terms if term))[:5]
    assert review
    assert last["comment"] == f"Acertou 1 de {len(QUESTIONS)}. Revise: {', '.join(review)}."
    item = next(i for i in platform.gradebook()["lineitems"] if i["resourceId"] == "kernels")
    assert item["scoreMaximum"] == len(QUESTIONS)
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
    sent = db_rows(tool.settings, "SELECT status, tries FROM lti_score ORDER BY id")
    assert sent[-2:] == [("sent", 1), ("sent", 1)]
    with httpx.Client() as teacher:
        launch(teacher, platform, user="prof-101", papel="professor")
        class_id = db_rows(tool.settings, "SELECT class_id FROM lti_context")[0][0]
        board = teacher.get(tool.url + "/instrutor", params={"turma": class_id})
        row = soup(board.text).select_one("#ava table.passback tbody tr")
        cells = [text(cell) for cell in row.select("th, td")]
        assert cells == ["Sistemas de IA (Moodle)", "2", "0", "0", ""]


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
        assert browser.get(tool.url + "/instrutor/lti").status_code == 200
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
        dashboard = soup(teacher.get(tool.url + "/instrutor").text)
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
    assert item["lineItem"]["scoreMaximum"] == len(QUESTIONS)


def test_a_learner_cannot_open_the_deep_linking_picker(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        assert launch(browser, platform, user="ana-dl", dl="1").status_code == 403


def test_a_replayed_launch_is_refused_even_from_a_new_client(lms):
    tool, platform = lms
    with httpx.Client() as browser:
        start = browser.get(
            platform.url + "/launch",
            params={"user": "eva-3", "licao": "kernels"},
            follow_redirects=True,
        )
        assert post_launch_form(browser, start.text).status_code == 303
        again = post_launch_form(browser, start.text)
    assert again.status_code == 403
    assert "Esta entrada já foi usada" in again.text
    with httpx.Client() as thief:
        stolen = post_launch_form(thief, start.text)
        assert stolen.status_code == 403
        assert "Esta entrada já foi usada" in stolen.text
        assert "lti-" not in thief.get(tool.url + "/conta").text


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
                if rows and rows[0][0] == "failed":
                    break
                time.sleep(0.2)
            assert rows[0][0] == "failed" and rows[0][1]
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
        start = framed.get(
            platform.url + "/launch",
            params={"user": "gil-6", "licao": "kernels"},
            follow_redirects=True,
        )
    with httpx.Client() as no_cookies:  # the state cookie set at the login did not come back
        refused = post_launch_form(no_cookies, start.text)
        assert refused.status_code == 403
        link = soup(refused.text).select_one("main a[target=_blank]")
        assert text(link) == "Abrir em nova aba"
        assert link["href"].startswith("/lti/login?") and "lti1p3_new_window=1" in link["href"]
        again = no_cookies.get(tool.url + link["href"], follow_redirects=True)
        opened = post_launch_form(no_cookies, again.text)
        assert opened.status_code == 303 and opened.headers["location"] == "/licoes/kernels"


def test_a_launch_that_cannot_carry_its_cookie_says_why_instead_of_looping(lms):
    tool, platform = lms
    cross_site = {"Sec-Fetch-Site": "cross-site"}
    with httpx.Client() as framed:
        start = framed.get(
            platform.url + "/launch",
            params={"user": "gil-7", "licao": "kernels"},
            follow_redirects=True,
        )
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
        start = framed.get(
            platform.url + "/launch",
            params={"user": "gil-8", "licao": "kernels"},
            follow_redirects=True,
        )
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
        assert linked.status_code == 303 and linked.headers["location"] == "/licoes/kernels"
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
