"""Every route × {anonymous, learner A, learner B, instructor} gets the expected status."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.support.accounts import INSTRUCTOR_CSVS, INSTRUCTOR_TABS, instructor, sign_up
from tests.support.html import csrf_from
from tests.support.learning import KERNELS, answer

OPEN = [
    "/",
    "/licoes/kernels",
    "/licoes/kernels?arvore=guia-osman&c=apple",
    "/arvores",
    "/arvores/guia-osman",
    "/arvores/comparar?hardware=apple",
    "/arvores/guia-osman/widget?c=hopper",
    "/busca?q=kernel",
    "/glossario",
    "/progresso",
    "/conta",
    "/meus-dados",
    "/meus-dados/exportar",
    "/api/arvores",
    "/api/arvores/guia-fase17",
    "/api/progresso",
    "/api/openapi.json",
    "/healthz",
    "/lti/jwks.json",
]
INSTRUCTOR_ONLY = [
    *INSTRUCTOR_TABS,
    *INSTRUCTOR_CSVS,
    "/instrutor/exportar/questoes.gift",
    "/instrutor/exportar/questoes.xml",
    "/instrutor/licoes/kernels/editar",
    "/instrutor/licoes/kernels/historico",
    "/instrutor/licoes/nova",
    "/instrutor/turmas",
    "/instrutor/imagens",
]
# Site admins only (issue 34): a site instructor who is not one gets 403 too.
ADMIN_ONLY = ["/instrutor/lti"]
# The editor's writes; the instructor's own are tested on a copy of the lessons (test_editor.py).
INSTRUCTOR_POSTS = [
    "/instrutor/licoes/kernels/editar",
    "/instrutor/licoes/kernels/previa",
    "/instrutor/licoes/kernels/rascunho/descartar",
    "/instrutor/licoes/kernels/historico/1/restaurar",
    "/instrutor/licoes/nova",
    "/instrutor/turmas",
    "/instrutor/turmas/1/codigo",
    "/instrutor/turmas/1/prazos",
    "/instrutor/turmas/1/equipe",
    "/instrutor/turmas/1/apagar",
    "/instrutor/imagens",
    "/instrutor/turmas/1/fuso",
    "/instrutor/turmas/1/equipe/remover",
    "/instrutor/lti",
    "/instrutor/lti/1/confirmar",
]
EXPECTED = {"anônimo": 303, "aluno A": 403, "aluno B": 403, "instrutor": 200}
EXPECTED_ADMIN_ONLY = {"anônimo": 303, "aluno A": 403, "aluno B": 403, "instrutor": 403}


@pytest.fixture
def people(settings):
    app = create_app(settings)
    anonymous = TestClient(app, follow_redirects=False)
    learner_a = TestClient(app, follow_redirects=False)
    answer(learner_a, "kernels", next(iter(KERNELS.questions)), ["b"])
    sign_up(learner_a, "ana")
    learner_b = TestClient(app, follow_redirects=False)
    sign_up(learner_b, "bia")
    teacher = instructor(TestClient(app, follow_redirects=False), settings, "prof")
    return {"anônimo": anonymous, "aluno A": learner_a, "aluno B": learner_b, "instrutor": teacher}


def test_the_authorization_matrix(people):
    seen = {}
    for who, client in people.items():
        for url in OPEN:
            seen[(who, url)] = client.get(url).status_code
        for url in INSTRUCTOR_ONLY + ADMIN_ONLY:
            seen[(who, url)] = client.get(url).status_code
    expected = {(who, url): 200 for who in people for url in OPEN}
    expected |= {(who, url): EXPECTED[who] for who in people for url in INSTRUCTOR_ONLY}
    expected |= {(who, url): EXPECTED_ADMIN_ONLY[who] for who in people for url in ADMIN_ONLY}
    assert seen == expected
    assert people["anônimo"].get("/instrutor").headers["location"].startswith("/conta?proximo=")


def test_only_instructors_may_post_to_the_editor(people):
    form = {"texto": "---\n", "versao": "0" * 64, "titulo": "Nova"}
    seen = {}
    for who in ("anônimo", "aluno A", "aluno B"):
        client = people[who]
        token = csrf_from(client.get("/conta").text)
        for url in INSTRUCTOR_POSTS:
            seen[(who, url)] = client.post(url, data={"csrftoken": token, **form}).status_code
        # The image upload, as the page's own multipart form sends it.
        png = b"\x89PNG\r\n\x1a\n" + bytes(64)
        files = {"imagem": ("a.png", png, "image/png")}
        seen[(who, "upload")] = client.post(
            "/instrutor/imagens", data={"csrftoken": token}, files=files
        ).status_code
    expected = {
        (who, url): EXPECTED[who]
        for who in ("anônimo", "aluno A", "aluno B")
        for url in [*INSTRUCTOR_POSTS, "upload"]
    }
    assert seen == expected


def test_classes_are_seen_by_their_instructors_and_joined_only_with_an_account(people, settings):
    from tests.support.accounts import instructor as make_instructor

    teacher = people["instrutor"]
    token = csrf_from(teacher.get("/conta").text)
    created = teacher.post("/instrutor/turmas", data={"csrftoken": token, "nome": "T"})
    class_url = created.headers["location"]
    code = teacher.get(class_url).text.split("/turmas/entrar/")[1].split("<")[0]
    other = make_instructor(TestClient(teacher.app, follow_redirects=False), settings, "outro")
    seen = {
        who: client.get(class_url).status_code
        for who, client in {**people, "outro instrutor": other}.items()
    }
    assert seen == {
        "anônimo": 303,
        "aluno A": 403,
        "aluno B": 403,
        "instrutor": 200,
        "outro instrutor": 404,
    }
    joined = {
        who: client.get(f"/turmas/entrar/{code}").status_code for who, client in people.items()
    }
    assert joined == {"anônimo": 303, "aluno A": 200, "aluno B": 200, "instrutor": 200}
    assert people["aluno A"].get("/turmas/entrar/codigo-errado").status_code == 404
    anonymous = people["anônimo"]
    token = csrf_from(anonymous.get("/conta").text)
    assert anonymous.post(f"/turmas/entrar/{code}", data={"csrftoken": token}).status_code == 303


def test_learners_see_only_their_own_data(people):
    a = people["aluno A"].get("/meus-dados/exportar").json()
    b = people["aluno B"].get("/meus-dados/exportar").json()
    assert len(a["attempts"]) == 1 and b["attempts"] == []
    assert people["aluno B"].get("/api/progresso").json()["lessons"][0]["attempts"] == 0


def test_a_post_without_any_cookie_is_refused(people):
    fresh = TestClient(people["anônimo"].app)
    response = fresh.post(
        f"/licoes/kernels/perguntas/{next(iter(KERNELS.questions))}", data={"opcao": "b"}
    )
    assert response.status_code == 403


def test_the_lti_routes_answer_everyone_alike_without_a_launch(people):
    """The LMS's endpoints refuse a request that is not LTI, whoever sends it; the deep-linking
    picker needs the session of an LMS instructor's deep-linking launch (a site instructor
    without one gets 403 like everyone)."""
    seen = {}
    for who, client in people.items():
        token = csrf_from(client.get("/conta").text)
        seen[(who, "login")] = client.get("/lti/login").status_code
        seen[(who, "launch")] = client.post("/lti/launch", data={"state": "x"}).status_code
        seen[(who, "picker")] = client.get("/lti/conteudo").status_code
        picked = client.post("/lti/conteudo", data={"csrftoken": token, "licao": "kernels"})
        seen[(who, "pick")] = picked.status_code
        seen[(who, "link page")] = client.get("/lti/vincular").status_code
        linked = client.post("/lti/vincular", data={"csrftoken": token, "usuario": "ana"})
        seen[(who, "link")] = linked.status_code
    expected = {}
    for who in people:
        expected |= {(who, "login"): 400, (who, "launch"): 400}
        expected |= {(who, "link page"): 403, (who, "link"): 403}
        expected |= {(who, "picker"): 403, (who, "pick"): 403}
    assert seen == expected
