"""An open form is graded only against the version of the question it showed.

The lesson folder is edited between the GET that rendered the form and the POST that sends
it (``reload_interval=0``: the app looks at the files on every request, as live editing does).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import expect

from app.content.course import load_course
from app.learning.progress import lesson_shape_total
from app.main import create_app
from tests.support.app import REPO_LESSONS, db_rows, make_settings
from tests.support.html import HX, csrf_from, soup, text
from tests.support.learning import answer_form, key_of, shown_questions, version_of
from tests.support.lessons import GOOD, HEADER, SCENARIO, TREE
from tests.support.server import LiveServer

NOTICE = "Esta pergunta mudou; leia de novo e responda."
SLUG, QID = "decode-prefill", "fase-banda"


def save(path: Path, content: str) -> None:
    path.write_text(content, encoding="utf-8")


@pytest.fixture
def lesson_file(tmp_path: Path) -> Path:
    folder = tmp_path / "lessons"
    folder.mkdir()
    save(folder / "01-boa.md", GOOD)
    return folder / "01-boa.md"


@pytest.fixture
def live_client(tmp_path: Path, lesson_file: Path):
    settings = make_settings(tmp_path, lesson_file.parent)
    with TestClient(create_app(settings)) as client:
        client.settings = settings
        yield client


def open_form(client: TestClient, slug: str = SLUG, qid: str = QID) -> dict:
    """GET the lesson and return what its answer form for ``qid`` would send."""
    page = client.get(f"/licoes/{slug}").text
    return answer_form(page, qid)


def send(client: TestClient, form: dict, option: str, htmx: bool, slug: str = SLUG, qid: str = QID):
    return client.post(
        f"/licoes/{slug}/perguntas/{qid}",
        data={**form, "opcao": option},
        headers=HX if htmx else {},
        follow_redirects=False,
    )


def attempts(client: TestClient) -> list[tuple]:
    return db_rows(
        client.settings, "SELECT question_id, question_hash, chosen, correct FROM attempt"
    )


EDITS = {
    "answer key": ("answer: [b]", "answer: [a]"),
    "option text": ("text: Decode", "text: Decode (geração token a token)"),
}


@pytest.mark.parametrize("edit", EDITS, ids=list(EDITS))
def test_an_edit_between_get_and_post_stores_nothing_and_shows_the_new_version(
    live_client, lesson_file, edit
):
    old, new = EDITS[edit]
    form = open_form(live_client)
    save(lesson_file, GOOD.replace(old, new))
    new_hash = load_course(lesson_file.parent).get(SLUG).questions[QID].content_hash
    assert new_hash != form["versao"]

    response = send(live_client, form, "b", htmx=True)
    assert response.status_code == 409
    question = soup(response).select_one(f"#pergunta-{QID}")
    assert text(question.select_one(".form-error")) == NOTICE
    assert question.select_one('input[name="versao"]')["value"] == new_hash
    labels = [text(label) for label in question.select(".option label")]
    decode = "Decode (geração token a token)" if edit == "option text" else "Decode"
    assert sorted(labels) == sorted(["Prefill", decode, "Tokenização"])
    assert not question.select_one(".verdict"), "nada foi corrigido"
    assert attempts(live_client) == []

    again = send(
        live_client,
        {**form, "versao": new_hash, "chave": key_of(response.text, QID)},
        "b",
        htmx=True,
    )
    assert again.status_code == 200
    assert attempts(live_client) == [(QID, new_hash, "b", int(edit == "option text"))]


def test_without_javascript_the_stale_form_redirects_back_with_the_notice(live_client, lesson_file):
    form = open_form(live_client)
    save(lesson_file, GOOD.replace("answer: [b]", "answer: [a]"))
    response = send(live_client, form, "a", htmx=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/licoes/{SLUG}#pergunta-{QID}"
    page = soup(live_client.get(response.headers["location"]))
    question = page.select_one(f"#pergunta-{QID}")
    assert text(question.select_one(".form-error")) == NOTICE
    assert question.select_one("form"), "o aluno vê o formulário da nova versão"
    assert attempts(live_client) == []


def test_a_form_that_carries_no_version_stores_nothing(live_client):
    form = open_form(live_client)
    del form["versao"]
    response = send(live_client, form, "b", htmx=True)
    assert response.status_code == 409
    assert text(soup(response).select_one(".form-error")) == NOTICE
    assert attempts(live_client) == []


def test_an_unchanged_lesson_saved_again_still_accepts_the_form(live_client, lesson_file):
    form = open_form(live_client)
    save(
        lesson_file,
        GOOD.replace(
            "explanation: Certo, o decode acompanha a banda.",
            "explanation: Certo: o decode acompanha a banda de memória.",
        ),
    )
    assert send(live_client, form, "b", htmx=True).status_code == 200, (
        "explicações não mudam a versão"
    )
    assert [row[2:] for row in attempts(live_client)] == [("b", 1)]


def test_a_scenario_question_whose_tree_changed_stores_nothing(tmp_path: Path):
    folder = tmp_path / "lessons"
    folder.mkdir()
    save(folder / "01-arvore.md", HEADER + TREE + SCENARIO)
    settings = make_settings(tmp_path, folder)
    with TestClient(create_app(settings)) as client:
        client.settings = settings
        form = open_form(client, "arvore-teste", "cenario")
        save(
            folder / "01-arvore.md",
            HEADER + TREE.replace("engines: [vLLM, SGLang]", "engines: [llama.cpp]") + SCENARIO,
        )
        response = send(client, form, "a", htmx=True, slug="arvore-teste", qid="cenario")
        assert response.status_code == 409
        assert text(soup(response).select_one(".form-error")) == NOTICE
        assert attempts(client) == []


def test_every_question_of_the_course_refuses_another_version(client, settings):
    """Sweep: every question on every lesson page carries its live version, and only that
    passes. A pool's questions are those the page draws for the learner once they answered."""
    course = load_course(REPO_LESSONS)
    checked = 0
    for lesson in course.lessons:
        fixed = [q for q in lesson.questions.values() if q.id not in lesson.pooled]
        todo = list(fixed)  # the drawn questions join once the learner has their draw
        for question in todo:
            page = client.get(f"/licoes/{lesson.slug}").text
            form = {"csrftoken": csrf_from(page), "chave": key_of(page, question.id)}
            assert version_of(page, question.id) == question.content_hash
            if question.numeric:
                answer = {"valor": str(question.numeric.value)}
                variant = soup(page).select_one(f'#pergunta-{question.id} input[name="variante"]')
                if variant is not None:  # the numbers this form shows
                    answer["variante"] = variant["value"]
            elif question.items:
                answer = {"posicao": [f"{item.id}={n}" for n, item in enumerate(question.items, 1)]}
            else:
                answer = {"opcao": question.options[0].id}
            url = f"/licoes/{lesson.slug}/perguntas/{question.id}"
            stale = client.post(url, data={**form, **answer, "versao": "0" * 16}, headers=HX)
            assert stale.status_code == 409, url
            assert text(soup(stale).select_one(".form-error")) == NOTICE
            live = client.post(
                url, data={**form, **answer, "versao": question.content_hash}, headers=HX
            )
            assert live.status_code == 200, url
            checked += 1
            if question is fixed[-1]:  # now a learner: the page shows their own draw
                shown = shown_questions(client, lesson)
                drawn = [q for q in shown if q.id in lesson.pooled]
                assert len(drawn) == sum(pool.draw for pool in lesson.pools.values())
                todo += drawn
    stored = db_rows(
        settings, "SELECT lesson_slug, question_id, question_hash FROM attempt ORDER BY id"
    )
    assert len(stored) == checked == sum(lesson_shape_total(lesson) for lesson in course.lessons)
    assert all(row[2] == course.get(row[0]).questions[row[1]].content_hash for row in stored)


TREE_EDITS = {
    "options swap results": (
        "        value: one\n        next: r-cpu\n      - label: Muitos\n        value: many\n     "
        "   next: r-vllm",
        "        value: one\n        next: r-vllm\n      - label: Muitos\n        value: many\n    "
        "    next: r-cpu",
    ),
    "option label": ("      - label: Muitos", "      - label: Milhares"),
    "question text": ("    text: Quantos usuários?", "    text: Quantos usuários ao mesmo tempo?"),
}


@pytest.fixture
def tree_client(tmp_path: Path):
    folder = tmp_path / "lessons"
    folder.mkdir()
    save(folder / "01-arvore.md", HEADER + TREE)
    settings = make_settings(tmp_path, folder)
    with TestClient(create_app(settings)) as client:
        client.settings = settings
        client.folder = folder
        yield client


def open_step(client: TestClient, path: str) -> dict:
    page = soup(client.get(f"/arvores/mini?c={path}"))
    form = page.select_one("form.tree-step")
    return {node["name"]: node["value"] for node in form.select("input[type=hidden]")}


def walks(client: TestClient) -> list[tuple]:
    return db_rows(client.settings, "SELECT tree_id, path, result_id FROM walk")


@pytest.mark.parametrize("edit", TREE_EDITS, ids=list(TREE_EDITS))
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "sem-js"])
def test_a_tree_step_from_an_older_tree_takes_no_step(tree_client, edit, htmx):
    """The same class in decision trees: the step form carries the tree's version."""
    form = open_step(tree_client, "gpu")
    assert form["versao"]
    old, new = TREE_EDITS[edit]
    assert old in TREE
    save(tree_client.folder / "01-arvore.md", HEADER + TREE.replace(old, new))
    response = tree_client.post(
        "/arvores/mini/passo",
        data={**form, "escolha": "many"},
        headers=HX if htmx else {},
        follow_redirects=False,
    )
    if htmx:
        assert response.status_code == 409
        widget = soup(response)
    else:
        assert response.status_code == 303
        assert response.headers["location"] == "/arvores/mini?c=gpu&aviso=mudou"
        widget = soup(tree_client.get(response.headers["location"]))
    assert text(widget.select_one(".form-error")) == NOTICE
    assert widget.select_one("form.tree-step input[name=versao]")["value"] != form["versao"]
    assert [text(li) for li in widget.select(".tree-path li")] == ["hardware: GPU"], (
        "o passo não foi dado"
    )
    assert walks(tree_client) == []
    fresh = open_step(tree_client, "gpu")
    done = tree_client.post("/arvores/mini/passo", data={**fresh, "escolha": "many"}, headers=HX)
    assert done.status_code == 200
    assert len(walks(tree_client)) == 1


def test_a_tree_saved_with_only_a_new_reason_keeps_the_form(tree_client):
    form = open_step(tree_client, "gpu")
    save(
        tree_client.folder / "01-arvore.md",
        HEADER + TREE.replace("why: Produção.", "why: Produção, muitos usuários."),
    )
    response = tree_client.post("/arvores/mini/passo", data={**form, "escolha": "many"}, headers=HX)
    assert response.status_code == 200
    assert walks(tree_client) == [("mini", "gpu,many", "r-vllm")]


def test_in_chromium_the_stale_answer_shows_the_new_version_with_the_notice(
    tmp_path: Path, monkeypatch, new_page
):
    """htmx swaps the 409 fragment in place: the notice, the new option text, nothing graded."""
    monkeypatch.setenv("CURSO_RELOAD_INTERVAL", "0")
    folder = tmp_path / "lessons"
    folder.mkdir()
    save(folder / "01-boa.md", GOOD)
    server = LiveServer(tmp_path, folder)
    server.start()
    try:
        page = new_page()
        page.goto(f"{server.url}/licoes/{SLUG}")
        question = page.locator(f"#pergunta-{QID}")
        question.get_by_label("Decode", exact=True).check()
        save(folder / "01-boa.md", GOOD.replace("text: Decode", "text: Decode (token a token)"))
        question.get_by_role("button", name="Responder").click()
        expect(question.locator(".form-error")).to_have_text(NOTICE)
        expect(question.get_by_label("Decode (token a token)")).to_be_visible()
        expect(question.locator(".verdict")).to_have_count(0)
        assert db_rows(server.settings, "SELECT count(*) FROM attempt") == [(0,)]
        question.get_by_label("Decode (token a token)").check()
        question.get_by_role("button", name="Responder").click()
        expect(question.locator(".verdict")).to_have_text("✓ Resposta correta")
    finally:
        server.stop()
