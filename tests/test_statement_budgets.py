"""SQL statements per request (issue 13): counts, not timings. They fail the day an N+1 comes in.

Every statement a request sends to the database is counted (SQLAlchemy's
``before_cursor_execute``, on every engine), except transaction control (``BEGIN``,
``COMMIT``, ``ROLLBACK``, savepoints): SQLite's driver sends those as statements and
PostgreSQL's does not, and they are not where N+1 queries hide.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.analytics.dashboard import sync_tally_basis
from tests.support.accounts import instructor, new_browser
from tests.support.app import db_rows
from tests.support.html import HX, csrf_from, soup
from tests.support.learning import KERNELS, answer, answer_form, right_form
from tests.support.statements import counting

# The session comes from the front door's per-process cache (app/web/front_door.py); a
# learner's page reads the state once: the learner row's counts and the rows newer than those
# the process keeps (app/learning/store.py, LearnerStates).
BUDGETS = {
    "visitor lesson page": 0,
    "learner lesson page": 1,
    # The request's own statement: the state read. Its writes go to the process's writer
    # (app/learning/writer.py), counted per batch in tests/test_writer.py.
    "answer POST": 1,
    # The walk stored at the result: the learner row (if missing) and the walk.
    "tree step": 2,
    "/api/progresso": 1,
    "visitor my-data page": 0,
    # The state read: the notebook is built from the state (issue 39).
    "notebook of mistakes": 1,
}
# The dashboard's tabs (issue 27), each with an instructor's session and account, the class
# filter's classes, and its own figures: computed and stored on a first visit, read kept on
# the next (the mastery tab computes its one query on every visit; the files tab has none).
BUDGETS |= {
    "dashboard /instrutor, first visit": 9,
    "dashboard /instrutor, kept visit": 5,
    "dashboard /instrutor/funil, first visit": 9,
    "dashboard /instrutor/funil, kept visit": 4,
    "dashboard /instrutor/perguntas, first visit": 10,
    "dashboard /instrutor/perguntas, kept visit": 4,
    "dashboard /instrutor/dominio, first visit": 5,
    "dashboard /instrutor/dominio, kept visit": 5,
    "dashboard /instrutor/arvores, first visit": 8,
    "dashboard /instrutor/arvores, kept visit": 4,
    "dashboard /instrutor/arquivos, first visit": 3,
    "dashboard /instrutor/arquivos, kept visit": 3,
}


def of_request(statements: list[str]) -> list[str]:
    """The statements the request's own connections sent (not the writer's)."""
    return [s for s in statements if not s.startswith("writer: ")]


def within(statements: list[str], budget: str) -> None:
    on_postgres = any("%(" in statement for statement in statements)  # psycopg's placeholders
    limit = BUDGETS.get(f"{budget}, PostgreSQL" if on_postgres else budget, BUDGETS[budget])
    assert len(statements) <= limit, f"{budget}: {len(statements)} > {limit}:\n" + "\n".join(
        statements
    )


@pytest.fixture
def learner(client: TestClient) -> TestClient:
    """A learner with progress: two answers stored, back on the kernels lesson."""
    for question in list(KERNELS.questions.values())[:2]:
        assert answer(client, "kernels", question.id, right_form(question)).status_code == 200
    client.get("/licoes/kernels")
    return client


def test_a_visitor_reads_a_lesson_with_no_database_work_and_gets_no_session(client, settings):
    with counting() as statements:
        first = client.get("/licoes/kernels")
        again = client.get("/licoes/kernels", headers={"Accept-Encoding": "gzip"})
    assert first.status_code == again.status_code == 200
    within(statements, "visitor lesson page")
    assert "curso_sessao" not in client.cookies, "ler não cria sessão"
    assert client.cookies.get("csrftoken"), "os formulários da página precisam do cookie CSRF"
    assert db_rows(settings, "SELECT count(*) FROM websession") == [(0,)]
    assert db_rows(settings, "SELECT count(*) FROM learner") == [(0,)]
    # Both answers carry this visitor's own token, in every form and in the htmx headers.
    token = client.cookies.get("csrftoken")
    for response in (first, again):
        page = soup(response.text)
        tokens = {node["value"] for node in page.select('input[name="csrftoken"]')}
        assert tokens == {token}
        assert f'"x-csrftoken": "{token}"' in response.text


def test_a_visitors_first_answer_makes_the_learner_and_the_session(client, settings):
    question = next(iter(KERNELS.questions.values()))
    page = client.get("/licoes/kernels").text
    data = answer_form(page, question.id, opcao=sorted(question.answer))
    response = client.post(f"/licoes/kernels/perguntas/{question.id}", data=data, headers=HX)
    assert response.status_code == 200
    assert "curso_sessao" in client.cookies
    assert db_rows(settings, "SELECT count(*) FROM learner") == [(1,)]
    assert db_rows(settings, "SELECT question_id FROM attempt") == [(question.id,)]


def test_a_learners_lesson_page(learner: TestClient):
    with counting() as statements:
        response = learner.get("/licoes/kernels")
    assert response.status_code == 200
    assert soup(response.text).select(".verdict"), "a página mostra as respostas guardadas"
    within(statements, "learner lesson page")


def test_the_notebook_of_mistakes_reads_the_state_once(learner: TestClient):
    question = list(KERNELS.questions.values())[2]
    answer(
        learner,
        "kernels",
        question.id,
        [next(o.id for o in question.options if o.id not in question.answer)],
    )
    with counting() as statements:
        response = learner.get("/revisar/erradas")
    assert response.status_code == 200
    assert soup(response.text).select(".notebook-entry"), "the miss is listed"
    within(statements, "notebook of mistakes")


def test_an_answer(learner: TestClient, settings):
    question = list(KERNELS.questions.values())[2]
    page = learner.get(f"/licoes/kernels?refazer={question.id}").text
    data = answer_form(page, question.id, **_form(question))
    with counting() as statements:
        response = learner.post(f"/licoes/kernels/perguntas/{question.id}", data=data, headers=HX)
    assert response.status_code == 200
    assert soup(response.text).select_one(".verdict")
    within(of_request(statements), "answer POST")
    assert any(s.startswith("writer: ") for s in statements), "the writer stored it"
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(3,)]


def test_a_tree_step(learner: TestClient):
    page = learner.get("/arvores/guia-fase17").text
    version = soup(page).select_one('form.tree-step input[name="versao"]')["value"]
    data = {"csrftoken": csrf_from(page), "c": "", "escolha": "hopper", "versao": version}
    with counting() as statements:
        response = learner.post("/arvores/guia-fase17/passo", data=data, headers=HX)
    assert response.status_code == 200
    assert response.headers["HX-Push-Url"].endswith("c=hopper")
    within(statements, "tree step")


def test_the_tree_step_that_reaches_a_result_and_stores_the_walk(learner: TestClient, settings):
    page = learner.get("/arvores/guia-fase17").text
    version = soup(page).select_one('form.tree-step input[name="versao"]')["value"]
    data = {
        "csrftoken": csrf_from(page),
        "c": "hopper,production",
        "escolha": "agents",
        "versao": version,
    }
    with counting() as statements:
        response = learner.post("/arvores/guia-fase17/passo", data=data, headers=HX)
    assert soup(response.text).select_one(".tree-result")
    within(statements, "tree step")
    assert db_rows(settings, "SELECT tree_id, path FROM walk") == [
        ("guia-fase17", "hopper,production,agents")
    ]


def test_the_progress_api(learner: TestClient):
    with counting() as statements:
        response = learner.get("/api/progresso")
    assert response.status_code == 200
    assert response.json()["percent"] > 0
    within(statements, "/api/progresso")


def _form(question) -> dict:
    fields = right_form(question)
    return fields if isinstance(fields, dict) else {"opcao": fields}


def test_a_visitors_my_data_page_asks_the_database_nothing(client: TestClient):
    with counting() as statements:
        response = client.get("/meus-dados")
        exported = client.get("/meus-dados/exportar")
    assert response.status_code == exported.status_code == 200
    within(statements, "visitor my-data page")
    page = soup(response.text)
    assert page.select_one(".stored-attempts").get_text() == "0"
    assert page.select_one(".stored-account").get_text() == "nenhuma (uso anônimo)"
    assert exported.json()["attempts"] == [] and exported.json()["learner"] is None


# Each tab of the instructor dashboard reads only the tables of what it shows (issue 27).
TAB_TABLES = {
    "/instrutor": {"learner_tally", "walk"},
    "/instrutor/funil": {"lesson_tally"},
    "/instrutor/perguntas": {"question_tally", "score_tally"},
    "/instrutor/dominio": {"mastery_tally"},
    "/instrutor/arvores": {"walk"},
    "/instrutor/arquivos": set(),
}
FIGURE_TABLES = set().union(*TAB_TABLES.values())


def test_each_dashboard_tab_reads_only_its_figures(learner: TestClient, settings):
    """A first visit computes the tab's figures and keeps them; the next one reads them kept
    (the mastery tab computes its one query on every visit)."""
    teacher = instructor(new_browser(learner), settings)
    state = learner.app.state
    with Session(state.engine) as db:  # what any tab does once after a question changes
        sync_tally_basis(db, state.live_course.current())
    for url, tables in TAB_TABLES.items():
        for visit in ("first", "kept"):
            with counting(width=100_000) as statements:
                response = teacher.get(url)
            assert response.status_code == 200
            read = {
                table
                for table in FIGURE_TABLES
                if any(re.search(rf"\b{table}\b", s) for s in statements)
            }
            assert read == (tables if visit == "first" else set()) or (
                url == "/instrutor/dominio" and read == tables
            ), (url, visit, statements)
            within(statements, f"dashboard {url}, {visit} visit")
