"""Roles that come from an LMS stay in their LMS course (issue 34, item 2), against the real
test platform (lti1p3platform on uvicorn) and the course on another uvicorn.

An LMS Instructor launch makes the person an instructor of that course's class: its
dashboard, its exports, its due dates. Nothing site-wide: no lesson editor, no preview with
keys, no platform registration, no other class. A platform takes part in launches and in the
CSP only once a site admin has confirmed it.
"""

from __future__ import annotations

import httpx

from tests.support.accounts import sign_up
from tests.support.app import db_rows
from tests.support.cli import curso
from tests.support.html import csrf_from, soup, text
from tests.support.learning import KERNELS, right_form
from tests.support.lti_platform import launch, lms_fixture

QUESTION = next(iter(KERNELS.questions.values()))
SITE_ONLY = "Esta página é para os instrutores do próprio curso"
ADMINS_ONLY = "Só um administrador do curso registra e confirma AVAs."


lms = lms_fixture("lti-roles")


def class_of(tool, context: str) -> int:
    return db_rows(tool.settings, "SELECT class_id FROM lti_context WHERE context_id = ?", context)[
        0
    ][0]


def answer_right(client: httpx.Client, tool) -> None:
    page = client.get(tool.url + "/licoes/kernels", params={"refazer": QUESTION.id}).text
    node = soup(page).select_one(f"#pergunta-{QUESTION.id}")
    data = {
        "csrftoken": csrf_from(page),
        "chave": node.select_one('input[name="chave"]')["value"],
        "versao": node.select_one('input[name="versao"]')["value"],
        **(form if isinstance(form := right_form(QUESTION), dict) else {"opcao": form}),
    }
    sent = client.post(f"{tool.url}/licoes/kernels/perguntas/{QUESTION.id}", data=data)
    assert sent.status_code == 303


def csv_rows(response: httpx.Response) -> int:
    assert response.status_code == 200, response.text[:300]
    return len(response.text.strip().splitlines()) - 1


def test_an_lms_instructor_teaches_their_course_s_class_and_nothing_site_wide(lms):
    tool, platform = lms
    # Two LMS courses, each with a learner who answered once.
    for user, context in (("ana-a", "curso-a"), ("bia-b", "curso-b")):
        with httpx.Client(timeout=30) as learner:
            launch(learner, platform, user=user, licao="kernels", contexto=context, titulo=context)
            answer_right(learner, tool)
    with httpx.Client(timeout=30) as other_teacher:
        launch(other_teacher, platform, user="prof-b", papel="professor", contexto="curso-b")
    own, other = class_of(tool, "curso-a"), class_of(tool, "curso-b")
    with httpx.Client(base_url=tool.url, timeout=30) as teacher:
        opened = launch(teacher, platform, user="prof-a", papel="professor", contexto="curso-a")
        assert opened.status_code == 303
        own_pages = [
            f"/instrutor?turma={own}",
            f"/instrutor/funil?turma={own}",
            f"/instrutor/perguntas?turma={own}",
            f"/instrutor/dominio?turma={own}",
            f"/instrutor/arvores?turma={own}",
            "/instrutor/turmas",
            f"/instrutor/turmas/{own}",
        ]
        for path in own_pages:
            assert teacher.get(path).status_code == 200, path
        # Only their own class's learners, in the exports.
        assert csv_rows(teacher.get(f"/instrutor/exportar/tentativas.csv?turma={own}")) == 1
        assert csv_rows(teacher.get(f"/instrutor/exportar/progresso.csv?turma={own}")) >= 1
        # "Every learner" is for site instructors: they are sent to their class.
        for path in ("/instrutor", "/instrutor/funil", "/instrutor/exportar/tentativas.csv"):
            sent = teacher.get(path)
            assert sent.status_code == 303, path
            assert sent.headers["location"] == f"{path}?turma={own}"
        # Another class is not theirs.
        for path in (
            f"/instrutor?turma={other}",
            f"/instrutor/turmas/{other}",
            f"/instrutor/exportar/tentativas.csv?turma={other}",
            f"/instrutor/exportar/progresso.csv?turma={other}",
        ):
            assert teacher.get(path).status_code == 404, path
        # Every link on their pages opens (none leads to a site page; "/instrutor" leads to
        # their class's dashboard).
        for path in (f"/instrutor?turma={own}", f"/instrutor/turmas/{own}", "/instrutor/turmas"):
            page = soup(teacher.get(path).text)
            for link in page.select("main a[href^='/instrutor']"):
                opened = teacher.get(link["href"], follow_redirects=True)
                assert opened.status_code == 200, (path, link["href"])
        listed = [
            text(a) for a in soup(teacher.get("/instrutor/turmas").text).select(".class-list a")
        ]
        assert listed == ["curso-a (Moodle)"]
        assert soup(teacher.get("/instrutor/turmas").text).select_one("#turma-nome") is None
        # Site pages: 403 with the message, also with a valid CSRF token on the POSTs.
        for path in (
            f"/instrutor/arquivos?turma={own}",
            "/instrutor/licoes/kernels",
            "/instrutor/licoes/kernels/editar",
            "/instrutor/licoes/kernels/historico",
            "/instrutor/licoes/nova",
            "/instrutor/imagens",
            "/instrutor/exportar/questoes.gift",
            "/instrutor/exportar/questoes.xml",
        ):
            refused = teacher.get(path)
            assert refused.status_code == 403, path
            assert SITE_ONLY in refused.text, path
        token = csrf_from(teacher.get(f"/instrutor/turmas/{own}").text)
        for path, fields in (
            ("/instrutor/licoes/kernels/publicar", {}),
            ("/instrutor/licoes/nova", {"titulo": "Lição do invasor"}),
            ("/instrutor/recalcular", {}),
            ("/instrutor/turmas", {"nome": "Outra turma"}),
            ("/instrutor/licoes/kernels/editar", {"texto": "---\n", "versao": "0" * 64}),
            ("/instrutor/licoes/kernels/previa", {"texto": "---\n"}),
            ("/instrutor/licoes/kernels/rascunho/descartar", {}),
            ("/instrutor/licoes/kernels/historico/1/restaurar", {}),
            ("/instrutor/imagens", {}),
        ):
            refused = teacher.post(path, data={"csrftoken": token, **fields})
            assert refused.status_code == 403, path
            assert SITE_ONLY in refused.text, path
        # Another class's actions are not theirs either.
        for action, fields in (
            ("codigo", {}),
            ("apagar", {}),
            ("fuso", {"fuso": "America/Manaus"}),
            ("equipe", {"usuario": "prof-a"}),
            ("equipe/remover", {"usuario": "prof-a"}),
        ):
            path = f"/instrutor/turmas/{other}/{action}"
            assert teacher.post(path, data={"csrftoken": token, **fields}).status_code == 404, path
        zone = {"csrftoken": token, "fuso": "America/Manaus"}
        assert teacher.post(f"/instrutor/turmas/{own}/fuso", data=zone).status_code == 303
        confirm = teacher.post("/instrutor/lti/1/confirmar", data={"csrftoken": token})
        assert confirm.status_code == 403 and ADMINS_ONLY in confirm.text
        assert teacher.get("/instrutor/lti").status_code == 403
        registered = teacher.post(
            "/instrutor/lti",
            data={
                "csrftoken": token,
                "issuer": "https://evil.example",
                "client_id": "x",
                "deployment_id": "1",
                "auth_url": "https://evil.example/auth",
                "token_url": "https://evil.example/token",
                "jwks_url": "https://evil.example/jwks",
            },
        )
        assert registered.status_code == 403 and ADMINS_ONLY in registered.text
        # Their class's due dates are theirs to set.
        due = teacher.post(
            f"/instrutor/turmas/{own}/prazos",
            data={"csrftoken": token, "licao": "kernels", "prazo": "2027-03-01T23:59"},
        )
        assert due.status_code == 303
        refused = teacher.post(
            f"/instrutor/turmas/{other}/prazos",
            data={"csrftoken": token, "licao": "kernels", "prazo": "2027-03-01T23:59"},
        )
        assert refused.status_code == 404
        assert "evil.example" not in teacher.get("/").headers["content-security-policy"]
    assert db_rows(tool.settings, "SELECT class_id FROM class_due") == [(own,)]
    zones = "SELECT id, time_zone FROM classroom WHERE id IN (?, ?) ORDER BY id"
    assert db_rows(tool.settings, zones, own, other) == sorted(
        [(own, "America/Manaus"), (other, "America/Sao_Paulo")]
    )
    assert db_rows(tool.settings, "SELECT count(*) FROM lti_platform") == [(1,)]
    assert db_rows(tool.settings, "SELECT count(*) FROM classroom WHERE name = 'Outra turma'") == [
        (0,)
    ]
    roles = db_rows(
        tool.settings,
        "SELECT a.is_instructor, a.is_admin FROM account a JOIN lti_user u ON u.account_id = a.id"
        " WHERE u.sub = ?",
        "prof-a",
    )
    assert roles == [(False, False)]


def test_an_unconfirmed_platform_launches_nothing_until_an_admin_confirms_it(lms):
    tool, platform = lms
    db_rows(tool.settings, "UPDATE lti_platform SET confirmed_at = NULL")
    try:
        with httpx.Client(timeout=30) as browser:
            login = browser.get(
                platform.url + "/launch", params={"user": "ana-u"}, follow_redirects=True
            )
        assert login.status_code == 400
        assert "Este pedido de login LTI não é válido" in login.text
        with httpx.Client(base_url=tool.url, timeout=30) as admin:
            assert sign_up(admin, "dona").status_code == 303
            done = curso(tool.settings, "instrutor", "adicionar", "dona", "--admin")
            assert done.returncode == 0, done.stderr
            page = admin.get("/instrutor/lti")
            assert page.status_code == 200
            item = soup(page.text).select_one(".platforms li")
            assert f"Confirmar deixa {platform.url} mostrar" in text(item)
            confirmed = admin.post(
                item.select_one("form")["action"], data={"csrftoken": csrf_from(page.text)}
            )
            assert confirmed.status_code == 303
            csp = admin.get("/").headers["content-security-policy"]
            assert f"frame-ancestors 'self' {platform.url}" in csp
            assert text(soup(admin.get("/instrutor/lti").text).select_one(".platform-state")) == (
                "Confirmada."
            )
        with httpx.Client(timeout=30) as browser:
            assert launch(browser, platform, user="ana-u", licao="kernels").status_code == 303
    finally:
        db_rows(tool.settings, "UPDATE lti_platform SET confirmed_at = created_at")
