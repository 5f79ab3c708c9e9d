"""Progress over HTTP: status, retries, shuffle, idempotent answers, versions, resume, API."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import IntegrityError

from app.content.course import load_course
from app.learning.progress import lesson_shape_total
from app.main import create_app
from app.platform.db import make_engine
from app.platform.models import Attempt
from tests.support.answers import answer_writer, record_attempt, store_attempts, writer_settled
from tests.support.app import db_rows, make_settings
from tests.support.html import HX, csrf_from, is_fragment, soup, text
from tests.support.learning import (
    COURSE,
    KERNELS,
    answer,
    answer_form,
    card,
    key_of,
    right_answer,
    right_form,
    shown_questions,
    store_walk,
    stored,
    wrong_form,
    wrong_option,
)
from tests.support.lessons import GOOD, PREFILL


def home_status(client: TestClient, slug: str) -> str:
    page = soup(client.get("/"))
    link = page.select_one(f'.lesson-card h2 a[href="/licoes/{slug}"]')
    return text(link.find_parent("li").select_one(".status"))


def test_a_lesson_is_done_when_every_question_was_right_at_least_once(client):
    opener = next(iter(KERNELS.questions.values()))
    answer(client, "kernels", opener.id, right_form(opener))
    questions = shown_questions(client, KERNELS)  # a pool shows only the learner's draw
    assert questions[0] == opener
    assert len(questions) == lesson_shape_total(KERNELS) < len(KERNELS.questions)
    for question in questions[1:-1]:
        answer(client, "kernels", question.id, right_answer(client, "kernels", question))
    last = questions[-1]
    answer(client, "kernels", last.id, wrong_form(last))
    assert home_status(client, "kernels") == "Em andamento"
    answer(client, "kernels", last.id, right_answer(client, "kernels", last))
    assert home_status(client, "kernels") == "Concluída"
    assert home_status(client, "escolha-self-hosted") == "Não iniciada"
    total = sum(lesson_shape_total(lesson) for lesson in COURSE.lessons)
    percent = f"{100 * len(questions) // total}%"
    assert text(soup(client.get("/")).select_one(".resume .course-percent")) == percent
    nav = soup(client.get("/licoes/escolha-self-hosted")).select_one(".course-nav")
    assert text(nav.select_one(".course-percent")) == percent
    assert [text(s) for s in nav.select(".status")] == ["Concluída", "Não iniciada", "Não iniciada"]
    n = len(questions)
    assert card(client, "kernels") == {
        "status": "Concluída",
        "right": f"{n} de {n}",
        "first": f"{n - 1} de {n}",
        "attempts": str(n + 1),
    }


def test_answering_updates_the_course_navigation_out_of_band(client):
    question = next(iter(KERNELS.questions.values()))
    response = answer(client, "kernels", question.id, ["b"])
    nav = soup(response).select_one('nav.course-nav[hx-swap-oob="true"]')
    assert text(nav.select_one("li[aria-current] .status")) == "Em andamento"


def test_retry_keeps_every_attempt_the_first_try_and_the_current_state(client, settings):
    question = list(KERNELS.questions.values())[1]
    answer(client, "kernels", question.id, [wrong_option(question)])
    graded = soup(client.get("/licoes/kernels")).select_one(f"#pergunta-{question.id}")
    retry = graded.select_one("a.retry")
    assert text(retry) == "Responder de novo"
    assert retry["href"] == f"/licoes/kernels?refazer={question.id}#pergunta-{question.id}"

    fragment = client.get(f"/licoes/kernels/perguntas/{question.id}?refazer=1", headers=HX)
    assert fragment.headers["vary"].startswith("HX-Request")
    form = soup(fragment)
    assert is_fragment(fragment) and form.select_one(f"#pergunta-{question.id} form")
    assert text(form.select_one(".history")) == "Primeira tentativa: errada · 1 tentativa"
    plain = client.get(f"/licoes/kernels/perguntas/{question.id}?refazer=1", follow_redirects=False)
    assert plain.status_code == 303
    assert (
        plain.headers["location"] == f"/licoes/kernels?refazer={question.id}#pergunta-{question.id}"
    )

    answer(client, "kernels", question.id, sorted(question.answer))
    page = soup(client.get("/licoes/kernels")).select_one(f"#pergunta-{question.id}")
    assert text(page.select_one(".verdict")) == "✓ Resposta correta"
    assert text(page.select_one(".history")) == "Primeira tentativa: errada · 2 tentativas"
    assert [row[3] for row in stored(settings)] == [0, 1]
    assert card(client, "kernels") == {
        "status": "Em andamento",
        "right": f"1 de {lesson_shape_total(KERNELS)}",
        "first": f"0 de {lesson_shape_total(KERNELS)}",
        "attempts": "2",
    }


def test_options_are_shuffled_per_learner_stable_and_graded_by_id_over_50_learners(client):
    opener, question = list(KERNELS.questions.values())[:2]
    authored = [option.id for option in question.options]
    (right,) = question.answer
    url = f"/licoes/kernels/perguntas/{question.id}"
    orders = set()
    for _ in range(50):
        learner = TestClient(client.app)
        # A visitor becomes a learner with their first answer; from then on the order is theirs.
        page = learner.get("/licoes/kernels").text
        answer(learner, "kernels", opener.id, sorted(opener.answer), form_of=page)
        first = learner.get(url, headers=HX).text
        order = [node["value"] for node in soup(first).select('input[name="opcao"]')]
        again = soup(learner.get(url, headers=HX)).select('input[name="opcao"]')
        assert [node["value"] for node in again] == order, "a ordem não muda entre visitas"
        assert sorted(order) == sorted(authored)
        orders.add(tuple(order))
        data = answer_form(first, question.id, opcao=right)
        graded = soup(learner.post(url, data=data, headers=HX))
        assert text(graded.select_one(".verdict")) == "✓ Resposta correta"
        assert [n["class"] for n in graded.select(".graded-option")] == [
            ["graded-option", "chosen", "right"]
        ]
    assert len(orders) > 5, "cada aluno vê a sua própria ordem"
    page = [
        n["value"]
        for n in soup(learner.get("/licoes/kernels?refazer=" + question.id)).select(
            f'#pergunta-{question.id} input[name="opcao"]'
        )
    ]
    assert page == order, "a página e o fragmento mostram a mesma ordem"


def test_visitors_share_one_order_and_their_first_answer_keeps_it(client):
    question = list(KERNELS.questions.values())[1]
    seen = set()
    for _ in range(5):
        visitor = TestClient(client.app)
        page = soup(visitor.get("/licoes/kernels"))
        seen.add(
            tuple(n["value"] for n in page.select(f'#pergunta-{question.id} input[name="opcao"]'))
        )
    assert len(seen) == 1, "quem ainda não guardou nada vê a mesma ordem (a página vem do cache)"
    (order,) = seen
    html = str(page)
    graded = soup(answer(visitor, "kernels", question.id, sorted(question.answer), form_of=html))
    # The graded fragment explains the other options in the order the visitor saw them.
    texts = {option.id: text(soup(option.text_html)) for option in question.options}
    others = [texts[oid] for oid in order if oid not in question.answer]
    assert [text(n) for n in graded.select(".other-options .option-label")] == others


def test_the_same_form_sent_twice_stores_one_attempt(client, settings):
    question = next(iter(KERNELS.questions.values()))
    page = client.get("/licoes/kernels").text
    token, key = csrf_from(page), key_of(page, question.id)
    first = answer(client, "kernels", question.id, ["b"], token=token, key=key)
    second = answer(client, "kernels", question.id, ["b"], token=token, key=key)
    plain = answer(client, "kernels", question.id, ["b"], htmx=False, token=token, key=key)
    assert first.status_code == second.status_code == 200
    assert text(soup(second).select_one(".verdict")) == "✓ Resposta correta"
    assert plain.status_code == 303
    assert stored(settings) == [("kernels", question.id, "b", 1)]
    assert card(client, "kernels")["attempts"] == "1"


def test_the_same_form_sent_at_once_from_many_threads_stores_one_attempt(client, settings):
    question = next(iter(KERNELS.questions.values()))
    page = client.get("/licoes/kernels").text
    data = answer_form(page, question.id, opcao="b")
    url = f"/licoes/kernels/perguntas/{question.id}"
    with ThreadPoolExecutor(max_workers=8) as pool:
        responses = list(pool.map(lambda _: client.post(url, data=data, headers=HX), range(8)))
    assert [r.status_code for r in responses] == [200] * 8
    assert stored(settings) == [("kernels", question.id, "b", 1)]


def test_a_form_sent_twice_in_one_batch_is_stored_once_and_both_get_that_attempt(settings):
    engine = make_engine(settings.database_url)

    def attempt() -> Attempt:
        return Attempt(
            learner_id="a" * 32,
            lesson_slug="kernels",
            question_id="q",
            chosen="b",
            correct=True,
            idempotency_key="k" * 22,
        )

    # Both copies reach the writer before either is committed: one INSERT ... ON CONFLICT.
    first, again = store_attempts(engine, [attempt(), attempt()])
    assert first.new and not again.new
    assert (again.row.id, again.row.chosen) == (first.row.id, first.row.chosen)
    assert len(db_rows(settings, "SELECT id FROM attempt")) == 1
    # Sent again later, it answers as the first time and stores nothing.
    later, created = record_attempt(engine, attempt())
    assert (later.id, created) == (first.row.id, False)
    assert len(db_rows(settings, "SELECT id FROM attempt")) == 1


def test_a_missing_or_reused_key_is_refused_in_portuguese(client, settings):
    first, second = list(KERNELS.questions.values())[:2]
    page = client.get("/licoes/kernels").text
    token = csrf_from(page)
    url = f"/licoes/kernels/perguntas/{first.id}"
    missing = client.post(url, data={"csrftoken": token, "opcao": "b"}, headers=HX)
    assert missing.status_code == 422
    assert text(soup(missing).select_one(".form-error")) == (
        "Este formulário está desatualizado. Recarregue a página e responda de novo."
    )
    key = key_of(page, first.id)
    answer(client, "kernels", first.id, ["b"], token=token, key=key)
    reused = answer(client, "kernels", second.id, ["c"], htmx=False, token=token, key=key)
    assert reused.status_code == 303
    reused = client.get(reused.headers["location"])
    assert text(soup(reused).select_one(f"#pergunta-{second.id} .form-error")) == (
        "Este envio pertence a outra pergunta. Recarregue a página e responda de novo."
    )
    assert stored(settings) == [("kernels", first.id, "b", 1)]


def test_the_database_refuses_a_second_attempt_with_the_same_key(client, settings):
    answer(client, "kernels", next(iter(KERNELS.questions)), ["b"])
    ((learner, key),) = db_rows(settings, "SELECT learner_id, idempotency_key FROM attempt")
    with pytest.raises(IntegrityError, match="(?i)unique|duplicate"):
        db_rows(
            settings,
            "INSERT INTO attempt (lesson_slug, question_id, question_hash, chosen, correct,"
            " created_at, learner_id, idempotency_key)"
            " VALUES ('kernels', 'x', '', 'a', false, '2026-01-01', ?, ?)",
            learner,
            key,
        )


def lesson_folder(tmp_path: Path, text_: str) -> Path:
    folder = tmp_path / "lessons"
    folder.mkdir(exist_ok=True)
    (folder / "01-boa.md").write_text(text_, encoding="utf-8")
    return folder


def test_an_edited_question_keeps_old_grades_and_shows_the_new_version(tmp_path: Path):
    folder = lesson_folder(tmp_path, GOOD)
    settings = make_settings(tmp_path, folder)
    old_hash = load_course(folder).get("decode-prefill").questions["fase-banda"].content_hash
    with TestClient(create_app(settings)) as client:
        answer(client, "decode-prefill", "fase-banda", ["b"])
        cookies = dict(client.cookies)
    (folder / "01-boa.md").write_text(GOOD.replace("answer: [b]", "answer: [a]"), encoding="utf-8")
    new_hash = load_course(folder).get("decode-prefill").questions["fase-banda"].content_hash
    with TestClient(create_app(settings), cookies=cookies) as client:
        question = soup(client.get("/licoes/decode-prefill")).select_one("#pergunta-fase-banda")
        assert question.select_one("form"), "o aluno vê a nova versão, para responder"
        assert text(question.select_one(".changed")) == (
            "Pergunta atualizada O instrutor mudou esta pergunta depois da sua última "
            "resposta (certa). "
            "Responda à nova versão."
        )
        assert card(client, "decode-prefill")["right"] == "1 de 1", "o progresso não se perde"
        graded = soup(answer(client, "decode-prefill", "fase-banda", ["a"]))
        assert text(graded.select_one(".verdict")) == "✓ Resposta correta"
        assert not soup(client.get("/licoes/decode-prefill")).select_one(".changed")
    rows = db_rows(settings, "SELECT question_hash, chosen, correct FROM attempt ORDER BY id")
    assert rows == [(old_hash, "b", 1), (new_hash, "a", 1)]


def test_removed_questions_and_options_drop_out_without_errors(tmp_path: Path):
    folder = lesson_folder(tmp_path, GOOD)
    settings = make_settings(tmp_path, folder)
    with TestClient(create_app(settings)) as client:
        answer(client, "decode-prefill", "fase-banda", ["a"])
        cookies = dict(client.cookies)
    other = "    - id: d\n      text: Nenhuma\n      explanation: Errado.\n"
    without_option = GOOD.replace(PREFILL, other)
    (folder / "01-boa.md").write_text(without_option, encoding="utf-8")
    with TestClient(create_app(settings), cookies=cookies) as client:
        page = soup(client.get("/licoes/decode-prefill"))
        assert "(errada)" in text(page.select_one("#pergunta-fase-banda .changed"))
        assert sorted(n["value"] for n in page.select('input[name="opcao"]')) == ["b", "c", "d"]
        assert client.get("/licoes/decode-prefill?refazer=fase-banda").status_code == 200
        assert client.get("/progresso").status_code == 200
    renamed = GOOD.replace("- id: fase-banda", "- id: fase-nova")
    (folder / "01-boa.md").write_text(renamed, encoding="utf-8")
    with TestClient(create_app(settings), cookies=cookies) as client:
        assert client.get("/licoes/decode-prefill").status_code == 200
        assert card(client, "decode-prefill") == {
            "status": "Não iniciada",
            "right": "0 de 1",
            "first": "0 de 1",
            "attempts": "0",
        }
        assert client.get("/api/progresso").json()["lessons"][0]["total"] == 1
    assert len(db_rows(settings, "SELECT id FROM attempt")) == 1, (
        "a tentativa antiga continua guardada"
    )


def test_continue_where_i_stopped_follows_lessons_sections_and_answers(client):
    assert text(soup(client.get("/")).select_one(".resume-link")) == "Começar pela primeira lição"
    token = csrf_from(client.get("/licoes/alem-do-ollama").text)
    # Only reading stores nothing, not even a session: the place starts with the first POST.
    assert text(soup(client.get("/")).select_one(".resume-link")) == "Começar pela primeira lição"
    lesson = COURSE.get("alem-do-ollama")
    heading = lesson.headings[1]
    saved = client.post(
        "/progresso/lugar", data={"csrftoken": token, "licao": lesson.slug, "secao": heading.anchor}
    )
    assert saved.status_code == 204
    home = soup(client.get("/"))
    assert home.select_one(".resume-link")["href"] == f"/licoes/alem-do-ollama#{heading.anchor}"
    assert text(home.select_one(".resume-where")) == f"{lesson.meta.title} › {heading.text}"
    bad = client.post(
        "/progresso/lugar", data={"csrftoken": token, "licao": lesson.slug, "secao": "nao-existe"}
    )
    assert (bad.status_code, bad.text) == (422, "Lugar desconhecido nesta lição.")
    client.get("/licoes/escolha-self-hosted")  # from now on, opening a lesson moves the place
    writer_settled(answer_writer(client))
    link = soup(client.get("/")).select_one(".resume-link")
    assert (text(link), link["href"]) == ("Continuar de onde parei", "/licoes/escolha-self-hosted")
    question = next(iter(KERNELS.questions.values()))
    answer(client, "kernels", question.id, ["b"])
    assert (
        soup(client.get("/")).select_one(".resume-link")["href"]
        == f"/licoes/kernels#pergunta-{question.id}"
    )


def test_browsing_stores_no_learner(client, settings):
    for url in ("/", "/licoes/kernels", "/progresso", "/api/progresso", "/meus-dados"):
        assert client.get(url).status_code == 200
    assert db_rows(settings, "SELECT id FROM learner") == []


def test_progress_names_a_walk_by_the_tree_title_the_result_and_the_labels_chosen(client, settings):
    """Issue 27: /progresso showed raw ids ("guia-osman → resultado: vllm · Caminho: hopper ›
    general-production")."""
    tree = COURSE.trees["guia-osman"]
    first = next(o for o in tree.questions[tree.start].options if o.next in tree.questions)
    second = tree.questions[first.next].options[0]
    result = tree.results[second.next]
    answer(client, "kernels", next(iter(KERNELS.questions)), ["a"])
    ((learner,),) = db_rows(settings, "SELECT id FROM learner")
    store_walk(settings, learner, tree.id, f"{first.value},{second.value}", result.id)
    walk = soup(client.get("/progresso")).select_one(".walk")
    assert text(walk.select_one(".walk-tree")) == tree.title
    assert text(walk.select_one(".walk-result")) == result.main
    assert f"Caminho: {first.label} › {second.label}" in text(walk)
    assert tree.id not in text(walk)


def test_api_progress_matches_the_page_and_is_documented(client, settings):
    question = next(iter(KERNELS.questions.values()))
    answer(client, "kernels", question.id, ["a"])
    answer(client, "kernels", question.id, ["b"])
    ((learner,),) = db_rows(settings, "SELECT id FROM learner")
    store_walk(settings, learner, "escolha-engine", "gpu,muitos-usuarios", "vllm")
    data = client.get("/api/progresso").json()
    assert data["lessons"][0] == {
        "slug": "kernels",
        "title": KERNELS.meta.title,
        "status": "em andamento",
        "right": 1,
        "total": lesson_shape_total(KERNELS),
        "first_try_right": 0,
        "attempts": 2,
    }
    assert [lesson["slug"] for lesson in data["lessons"]] == [
        lesson.slug for lesson in COURSE.lessons
    ]
    assert data["walks"] == [
        {
            "tree_id": "escolha-engine",
            "path": ["gpu", "muitos-usuarios"],
            "result_id": "vllm",
            "created_at": "2026-05-01T10:00:00Z",
        }
    ]
    walk = soup(client.get("/progresso")).select_one(".walk")
    assert text(walk.select_one(".walk-tree")) == "escolha-engine"
    assert text(walk.select_one(".walk-result")) == "vllm"
    assert "gpu › muitos-usuarios" in text(walk)
    schema = client.get("/api/openapi.json").json()
    operation = schema["paths"]["/api/progresso"]["get"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ProgressPublic"
    }
    fields = schema["components"]["schemas"]["LessonProgressPublic"]["properties"]
    assert {"slug", "status", "right", "total", "first_try_right", "attempts"} <= set(fields)
    assert "walks" in schema["components"]["schemas"]["ProgressPublic"]["properties"]


def test_the_api_docs_say_what_each_lesson_field_and_status_means(client):
    """/api/openapi.json (the API docs page) explains a lesson's progress in plain words."""
    schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    fields = schemas["LessonProgressPublic"]["properties"]
    names = ["slug", "title", "status", "right", "total", "first_try_right", "attempts"]
    assert set(fields) == set(names)
    for name in names:
        assert fields[name]["description"].strip(), name
    assert fields["status"]["$ref"] == "#/components/schemas/LessonStatus"
    status = schemas["LessonStatus"]
    assert status["enum"] == ["não iniciada", "em andamento", "concluída"]
    for value in status["enum"]:
        assert f'"{value}" (' in status["description"]  # each value, then what it means
    described = [status["description"], *(field["description"] for field in fields.values())]
    assert not [words for words in described if "`" in words or ":class:" in words]


def test_a_prefetched_lesson_does_not_move_the_place(client):
    """app.js fetches the next lesson ahead (Sec-Purpose: prefetch): not opened, not the place."""
    question = next(iter(KERNELS.questions.values()))
    answer(client, "kernels", question.id, ["b"])
    where = f"/licoes/kernels#pergunta-{question.id}"
    assert soup(client.get("/")).select_one(".resume-link")["href"] == where
    for header in ({"Sec-Purpose": "prefetch"}, {"Purpose": "prefetch"}):
        ahead = client.get("/licoes/escolha-self-hosted", headers=header)
        assert ahead.status_code == 200
        assert soup(client.get("/")).select_one(".resume-link")["href"] == where
    client.get("/licoes/escolha-self-hosted")  # opened for real
    writer_settled(answer_writer(client))
    assert soup(client.get("/")).select_one(".resume-link")["href"] == "/licoes/escolha-self-hosted"
