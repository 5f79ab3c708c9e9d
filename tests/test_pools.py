"""Question pools (issue 39, item 1): a ``bank`` block holds questions, a ``pool`` block draws
some of them per learner (HMAC of the server's secret, the learner, the pool and the draw's
number), the same on every reload and device, stored with the learner's answers;
"Outras perguntas" draws again, unseen questions first; progress counts the questions drawn."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.analytics.dashboard import funnel, python_funnel
from app.content.course import load_course
from app.content.pools import Pool
from app.learning.draws import draw, draw_seed, first_draw, page_seed, seen_of
from app.learning.grading import lesson_progress, question_records
from app.learning.rules import counted, counted_total
from app.learning.state import AttemptRow
from app.learning.tallies.write import stored_states
from app.main import create_app
from app.platform.db import make_engine
from tests.support.accounts import new_browser, sign_in, sign_up
from tests.support.app import TEST_SECRET, db_rows, make_settings
from tests.support.html import HX, csrf_from, soup, text
from tests.support.lessons import messages
from tests.support.pools import BANK_IDS, bank_question, course_folder, pool_lesson


@pytest.fixture
def pooled(tmp_path: Path, database_url: str):
    folder = course_folder(tmp_path, pool_lesson())
    settings = make_settings(tmp_path, folder, database_url)
    with TestClient(create_app(settings)) as client:
        yield client, settings


def drawn_ids(html: str) -> list[str]:
    section = soup(html).select_one("#sorteio-decode-sorteio")
    return [node["id"].removeprefix("pergunta-") for node in section.select(".question")]


def answer_pooled(client: TestClient, qid: str, option: str = "a", htmx: bool = True):
    page = client.get("/licoes/decode-prefill").text
    form = soup(page).select_one(f"#pergunta-{qid} form")
    data = {
        "csrftoken": csrf_from(page),
        "chave": form.select_one('input[name="chave"]')["value"],
        "versao": form.select_one('input[name="versao"]')["value"],
        "opcao": [option],
    }
    return client.post(
        f"/licoes/decode-prefill/perguntas/{qid}",
        data=data,
        headers=HX if htmx else {},
        follow_redirects=False,
    )


def moment(value) -> datetime:
    """A timestamp as the database gives it back (text on SQLite)."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def learner_of(settings) -> str:
    return db_rows(settings, "SELECT id FROM learner ORDER BY created_at DESC")[0][0]


def the_pool(client: TestClient) -> Pool:
    course = client.app.state.live_course.current()
    return course.get("decode-prefill").pools["decode-sorteio"]


def errors(course) -> list[str]:
    """The errors ``curso check`` reports (the item-writing warnings left out)."""
    return [m for m in messages(course) if ": error: " in m]


# --- the blocks ---------------------------------------------------------------------------


def test_a_pool_draws_from_the_bank_by_concept_by_ids_or_from_every_bank_question(tmp_path):
    bank = pool_lesson(2, bank_ids=["banda-1", "banda-2", "banda-3"])
    lesson = load_course(course_folder(tmp_path, bank)).get("decode-prefill")
    assert lesson.pools["decode-sorteio"].candidates == ("banda-1", "banda-2", "banda-3")
    assert lesson.pooled == {"banda-1", "banda-2", "banda-3"}
    assert "banda-1" in lesson.questions, "bank questions are the lesson's questions"
    (tmp_path / "ids").mkdir()
    by_ids = bank.replace("concept: decode", "from: [banda-3, banda-1, banda-2]")
    lesson = load_course(course_folder(tmp_path / "ids", by_ids)).get("decode-prefill")
    assert lesson.pools["decode-sorteio"].candidates == ("banda-3", "banda-1", "banda-2")
    (tmp_path / "todas").mkdir()
    every = bank.replace("concept: decode\n", "")
    lesson = load_course(course_folder(tmp_path / "todas", every)).get("decode-prefill")
    assert lesson.pools["decode-sorteio"].candidates == ("banda-1", "banda-2", "banda-3")


def test_a_question_in_two_pools_is_an_error(tmp_path):
    two = pool_lesson(2, bank_ids=["banda-1", "banda-2", "banda-3"])
    two += "\n```pool\nid: outro\ndraw: 1\nfrom: [banda-1]\n```\n"
    found = errors(load_course(course_folder(tmp_path, two)))
    assert any(
        "a pergunta `banda-1` está nos sorteios `decode-sorteio` e `outro`" in m for m in found
    ), found


def test_curso_check_says_what_is_wrong_with_a_pool_and_where(tmp_path):
    bad = (
        pool_lesson(9, bank_ids=["banda-1", "banda-2"])
        + "\n```pool\nid: outro\ndraw: 1\nfrom: [fase-banda, nada]\n```\n"
        + "\n```pool\nid: dois\ndraw: 1\nfrom: [banda-1]\nconcept: decode\n```\n"
    )
    found = errors(load_course(course_folder(tmp_path, bad)))
    assert any(
        "o sorteio `decode-sorteio` sorteia 9 perguntas mas só tem 2 para sortear" in m
        for m in found
    ), found
    assert any(
        "o sorteio `outro` cita `fase-banda`, uma pergunta de um bloco `quiz`" in m for m in found
    ), found
    assert any(
        "o sorteio `outro` cita `nada`, que não é pergunta de nenhum bloco `bank`" in m
        for m in found
    ), found
    assert any("o sorteio `dois` tem `from` e `concept`" in m for m in found), found
    assert all(m.startswith("01-a.md:") for m in found), found


def test_a_bank_question_no_pool_draws_is_an_error(tmp_path):
    lonely = "\n```bank\n" + bank_question("sozinha") + "```\n"
    found = errors(load_course(course_folder(tmp_path, lonely)))
    assert any(
        "a pergunta `sozinha` de um bloco `bank` não está em nenhum sorteio" in m for m in found
    ), found


# --- the draw, as pure functions -----------------------------------------------------------


POOL = Pool("p", 3, tuple(BANK_IDS), 1)


def test_draws_differ_between_learners_and_repeat_for_one():
    draws = {first_draw(b"segredo", f"aluno-{n}", "licao", POOL)[1] for n in range(20)}
    assert len(draws) > 1, "twenty learners do not all get one draw"
    again = first_draw(b"segredo", "aluno-1", "licao", POOL)
    assert again == first_draw(b"segredo", "aluno-1", "licao", POOL)
    assert len(again[1]) == 3 and set(again[1]) <= set(BANK_IDS)
    other_secret = {first_draw(b"outro", f"aluno-{n}", "licao", POOL)[1] for n in range(20)}
    assert other_secret != draws, "the seed is keyed by the server's secret"


def test_unseen_questions_come_first_then_the_wrong_ones_longest_ago():
    def attempt(qid: str, right: bool, minute: int) -> AttemptRow:
        return AttemptRow("licao", qid, "h", "a", right, None, datetime(2026, 1, 1, 0, minute), 0)

    # six of eight seen: banda-7 and banda-8 unseen, then wrong ones oldest first
    history = [
        attempt("banda-1", False, 5),
        attempt("banda-2", False, 1),
        attempt("banda-3", True, 0),
        attempt("banda-4", True, 2),
        attempt("banda-5", False, 9),
        attempt("banda-6", True, 3),
    ]
    chosen = draw("qualquer", POOL, seen_of(history, "licao"))
    assert chosen == ("banda-2", "banda-7", "banda-8")
    history.append(attempt("banda-2", True, 10))  # right since: no longer a wrong one
    assert draw("qualquer", POOL, seen_of(history, "licao")) == ("banda-1", "banda-7", "banda-8")


def test_the_rule_counts_a_pool_as_its_draw_up_to_the_questions_right():
    shape = (["fixa"], [(2, BANK_IDS)])
    assert counted_total(1, [2]) == 3
    assert counted(shape, ["fixa", "banda-1"]) == 2
    assert counted(shape, ["banda-1", "banda-2", "banda-3"]) == 2, "never more than the draw"
    records = question_records([])
    progress = lesson_progress("licao", ["fixa"], records, [(2, BANK_IDS)])
    assert (progress.right, progress.total) == (0, 3)


# --- over HTTP -----------------------------------------------------------------------------


def test_a_visitor_sees_the_page_draw_the_same_for_every_visitor(pooled):
    client, _ = pooled
    first = drawn_ids(client.get("/licoes/decode-prefill").text)
    other = drawn_ids(new_browser(client).get("/licoes/decode-prefill").text)
    expected = draw(page_seed("decode-prefill", the_pool(client)), the_pool(client), {})
    assert first == other == list(expected)


def test_a_learner_keeps_their_draw_on_reload_and_on_a_second_device(pooled):
    client, settings = pooled
    assert sign_up(client).status_code == 303
    learner = learner_of(settings)
    secret = client.app.state.secret.encode()
    _, expected = first_draw(secret, learner, "decode-prefill", the_pool(client))
    shown = drawn_ids(client.get("/licoes/decode-prefill").text)
    assert shown == list(expected)
    assert drawn_ids(client.get("/licoes/decode-prefill").text) == shown, "the same on reload"
    answer_pooled(client, shown[0])
    stored = db_rows(
        settings, "SELECT learner_id, number, seed, question_ids FROM pool_draw ORDER BY id"
    )
    seed = draw_seed(secret, learner, "decode-prefill", "decode-sorteio", 1)
    assert stored == [(learner, 1, seed, ",".join(shown))], "stored with the first answer"
    assert draw(stored[0][2], the_pool(client), {}) == tuple(shown), "reproducible from the seed"
    phone = new_browser(client)
    assert sign_in(phone).status_code == 303
    assert drawn_ids(phone.get("/licoes/decode-prefill").text) == shown, "the same elsewhere"


def test_two_learners_are_shown_each_their_own_draw(pooled):
    client, settings = pooled
    secret = client.app.state.secret.encode()
    assert secret == TEST_SECRET.encode()
    shown = {}
    for name, browser in (("ana", client), ("bia", new_browser(client))):
        assert sign_up(browser, name).status_code == 303
        learner = learner_of(settings)
        page = drawn_ids(browser.get("/licoes/decode-prefill").text)
        assert page == list(first_draw(secret, learner, "decode-prefill", the_pool(client))[1])
        shown[name] = (learner, page)
    assert shown["ana"][0] != shown["bia"][0], "two learners, each shown the draw of their id"


def test_other_questions_come_once_the_draw_is_answered_unseen_first(pooled):
    client, settings = pooled
    sign_up(client)
    page = client.get("/licoes/decode-prefill").text
    first = drawn_ids(page)
    assert not soup(page).select_one(".pool-redraw"), "not before the draw is answered"
    for qid in first[:-1]:
        answer_pooled(client, qid)
    token = csrf_from(client.get("/licoes/decode-prefill").text)
    early = client.post("/licoes/decode-prefill/sorteios/decode-sorteio", data={"csrftoken": token})
    assert early.status_code == 409
    assert "Responda a todas as perguntas sorteadas antes de pedir outras." in early.text
    answer_pooled(client, first[-1], option="b")
    page = client.get("/licoes/decode-prefill").text
    button = soup(page).select_one(".pool-redraw button")
    assert text(button) == "Outras perguntas"
    response = client.post(
        "/licoes/decode-prefill/sorteios/decode-sorteio",
        data={"csrftoken": csrf_from(page)},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/licoes/decode-prefill#sorteio-decode-sorteio"
    second = drawn_ids(client.get(response.headers["location"]).text)
    assert not set(second) & set(first), "five unseen questions left: all three are new"
    rows = db_rows(
        settings, "SELECT number, seed, question_ids, created_at FROM pool_draw ORDER BY number"
    )
    assert [r[0] for r in rows] == [1, 2]
    assert rows[1][2] == ",".join(second)
    # reproducible: the stored seed and the attempts stored before the draw give it again
    attempts = [
        AttemptRow("decode-prefill", qid, "", "", bool(ok), None, moment(at), i)
        for i, (qid, ok, at) in enumerate(
            db_rows(settings, "SELECT question_id, correct, created_at FROM attempt ORDER BY id")
        )
    ]
    seen = seen_of(attempts, "decode-prefill", before=moment(rows[1][3]))
    assert draw(rows[1][1], the_pool(client), seen) == tuple(second)


def test_progress_counts_the_questions_drawn(pooled):
    client, _ = pooled
    sign_up(client)
    progress = soup(client.get("/progresso"))
    card = progress.select_one('.progress-card[data-licao="decode-prefill"]')
    assert "0 de 4" in text(card.select_one(".stat-right")), text(card)
    for qid in drawn_ids(client.get("/licoes/decode-prefill").text):
        answer_pooled(client, qid)
    card = soup(client.get("/progresso")).select_one('.progress-card[data-licao="decode-prefill"]')
    assert "3 de 4" in text(card.select_one(".stat-right")), text(card)


def test_nothing_of_a_bank_question_key_is_in_the_page_before_answering(pooled):
    client, _ = pooled
    sign_up(client)
    for browser in (client, new_browser(client)):  # a learner and a visitor
        html = browser.get("/licoes/decode-prefill").text
        assert "Explicação secreta" not in html
        drawn = drawn_ids(html)
        assert len(drawn) == 3
        for qid in BANK_IDS:
            if qid not in drawn:
                assert f"Pergunta {qid} sobre" not in html, "a question not drawn stays out"


def test_signing_in_keeps_the_accounts_draw_and_erasing_removes_the_draws(pooled):
    client, settings = pooled
    sign_up(client)
    account = learner_of(settings)
    shown = drawn_ids(client.get("/licoes/decode-prefill").text)
    answer_pooled(client, shown[0])
    other = new_browser(client)
    visitor_draw = drawn_ids(other.get("/licoes/decode-prefill").text)
    answer_pooled(other, visitor_draw[0])  # a visitor's first answer: a learner of its own
    assert len(db_rows(settings, "SELECT id FROM pool_draw")) == 2
    assert sign_in(other).status_code == 303
    assert db_rows(settings, "SELECT learner_id, number FROM pool_draw") == [(account, 1)]
    assert drawn_ids(other.get("/licoes/decode-prefill").text) == shown
    exported = other.get("/meus-dados/exportar").json()
    assert [(d["pool_id"], d["number"], d["question_ids"]) for d in exported["draws"]] == [
        ("decode-sorteio", 1, shown)
    ]
    page = other.get("/meus-dados").text
    erase = other.post(
        "/meus-dados/apagar",
        data={"csrftoken": csrf_from(page), "confirmo": "sim"},
        follow_redirects=False,
    )
    assert erase.status_code == 303, erase.text
    assert db_rows(settings, "SELECT id FROM pool_draw") == []


def test_the_dashboard_completion_counts_a_pool_as_its_draw(pooled):
    client, settings = pooled
    sign_up(client)
    learner = learner_of(settings)
    course = client.app.state.live_course.current()

    def completed() -> tuple[int, int]:
        engine = make_engine(settings.database_url)
        try:
            with Session(engine) as db:
                sql = {step.slug: step for step in funnel(db, course)}
                states = stored_states(db.connection(), [learner])
                python = {step.slug: step for step in python_funnel(states, course)}
        finally:
            engine.dispose()
        return sql["decode-prefill"].completed, python["decode-prefill"].completed

    answer_pooled(client, "fase-banda", option="b")
    drawn = drawn_ids(client.get("/licoes/decode-prefill").text)
    for qid in drawn[:-1]:
        answer_pooled(client, qid)
    assert completed() == (0, 0), "one drawn question still to get right"
    answer_pooled(client, drawn[-1])
    assert completed() == (1, 1), "the quiz question and the three drawn: done (5 never seen)"


def test_a_visitor_answering_in_a_pool_keeps_the_draw_the_page_showed(pooled):
    """Found by a new-user walk: a visitor's first answer in a pool stored the new learner's
    own draw, so the page after the answer showed other questions and the answered one left."""
    client, settings = pooled
    shown = drawn_ids(client.get("/licoes/decode-prefill").text)
    assert answer_pooled(client, shown[0]).status_code == 200
    assert drawn_ids(client.get("/licoes/decode-prefill").text) == shown
    stored = db_rows(settings, "SELECT number, seed, question_ids FROM pool_draw")
    assert stored == [(1, page_seed("decode-prefill", the_pool(client)), ",".join(shown))]


# --- "Outras perguntas" without a reload (htmx), and the pool's name -----------------------


def footer(html: str):
    return soup(html).select_one("#outras-sorteio-decode-sorteio")


def test_the_answer_to_the_draws_last_question_brings_other_questions_out_of_band(pooled):
    """Found by a learner walk: with JavaScript, "Outras perguntas" appeared only after a
    reload, because the answer's response replaced the question alone."""
    client, _ = pooled
    shown = drawn_ids(client.get("/licoes/decode-prefill").text)
    for qid in shown[:-1]:
        response = answer_pooled(client, qid)
        assert footer(response.text)["hx-swap-oob"] == "true"
        assert not footer(response.text).select_one(".pool-redraw"), "not before the last"
    last = answer_pooled(client, shown[-1])
    form = footer(last.text).select_one("form.pool-redraw")
    assert text(form.button) == "Outras perguntas"
    assert form["hx-post"] == form["action"] == "/licoes/decode-prefill/sorteios/decode-sorteio"
    assert form["hx-target"] == "closest .pool" and form["hx-swap"] == "outerHTML"


def test_a_question_outside_pools_sends_no_pool_foot(client):
    page = client.get("/licoes/kernels").text
    response = client.post(
        "/licoes/kernels/perguntas/tp-2",
        data={
            "csrftoken": csrf_from(page),
            "chave": soup(page).select_one('#pergunta-tp-2 input[name="chave"]')["value"],
            "versao": soup(page).select_one('#pergunta-tp-2 input[name="versao"]')["value"],
            "opcao": ["c"],
        },
        headers=HX,
    )
    assert response.status_code == 200
    assert not soup(response.text).select(".pool-footer")


def test_other_questions_with_htmx_swap_in_the_new_draw_as_forms(pooled):
    client, _ = pooled
    first = drawn_ids(client.get("/licoes/decode-prefill").text)
    for qid in first:
        last = answer_pooled(client, qid)
    form = footer(last.text).select_one("form.pool-redraw")
    response = client.post(
        form["hx-post"], data={"csrftoken": csrf_from(client.get("/").text)}, headers=HX
    )
    assert response.status_code == 200
    section = soup(response.text).select_one("section.pool")
    assert section["id"] == "sorteio-decode-sorteio"
    second = [n["id"].removeprefix("pergunta-") for n in section.select(".question")]
    assert len(second) == 3 and not set(second) & set(first)
    assert all(q.select_one("form") for q in section.select(".question")), "to answer"
    assert text(section.select_one(".pool-note")) == "3 perguntas sorteadas para você entre 8."
    assert section.select_one(".pool-note")["data-announce"] == "Novas perguntas sorteadas."
    first_heading = section.select_one("[data-focus]")
    assert first_heading.find_parent(class_="question")["id"] == f"pergunta-{second[0]}"
    assert not section.select_one(".pool-redraw"), "the new draw is not answered yet"
    assert drawn_ids(client.get("/licoes/decode-prefill").text) == second, "as the page shows"


def test_a_question_drawn_again_shows_as_a_form_in_the_new_draw(pooled):
    """Draw 3 of 8 candidates, 3 at a time, takes one question the learner answered in draw 1:
    it shows as a form (the draw counts only answers since it started), not as the old answer."""
    client, _ = pooled
    for _ in range(2):
        for qid in drawn_ids(client.get("/licoes/decode-prefill").text):
            answer_pooled(client, qid)
        page = client.get("/licoes/decode-prefill").text
        client.post(
            "/licoes/decode-prefill/sorteios/decode-sorteio", data={"csrftoken": csrf_from(page)}
        )
    page = soup(client.get("/licoes/decode-prefill").text)
    section = page.select_one("#sorteio-decode-sorteio")
    questions = section.select(".question")
    assert len(questions) == 3
    assert not section.select(".question.answered"), "every question of draw 3 is to answer"
    assert not section.select_one(".pool-redraw")


def test_the_pool_is_named_for_people_not_by_its_id(pooled):
    """Found by a screen reader walk: the region was read as "Perguntas sorteadas:
    decode-sorteio", the author's id."""
    client, _ = pooled
    visitor = soup(client.get("/licoes/decode-prefill").text).select_one("section.pool")
    assert visitor["aria-label"] == "Perguntas sorteadas"
    note = visitor.select_one(".pool-note")
    assert visitor["aria-describedby"] == note["id"] == "nota-sorteio-decode-sorteio"
    assert text(note) == "3 perguntas sorteadas entre 8."
    sign_up(client)
    learner = soup(client.get("/licoes/decode-prefill").text).select_one("section.pool")
    assert learner["aria-label"] == "Perguntas sorteadas para você"
    assert "decode-sorteio" not in learner["aria-label"]


def test_two_pools_in_a_lesson_are_told_apart(tmp_path, database_url):
    bank = "".join(bank_question(qid) for qid in BANK_IDS)
    body = (
        f"\n```bank\n{bank}```\n\n"
        "```pool\nid: primeiro\ndraw: 2\nfrom: [banda-1, banda-2, banda-3, banda-4]\n```\n\n"
        "```pool\nid: segundo\ndraw: 2\nfrom: [banda-5, banda-6, banda-7, banda-8]\n```\n"
    )
    settings = make_settings(tmp_path, course_folder(tmp_path, body), database_url)
    with TestClient(create_app(settings)) as client:
        page = soup(client.get("/licoes/decode-prefill").text)
    labels = [s["aria-label"] for s in page.select("section.pool")]
    assert labels == ["Perguntas sorteadas (1 de 2)", "Perguntas sorteadas (2 de 2)"]
