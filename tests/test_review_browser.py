"""Spaced review and mastery in real Chromium: a learner misses a question, finds it due on
``/revisar`` once its interval has passed (the card's due date moved back, as the clock would),
answers it with htmx and without JavaScript; mastery for "decode" moves on ``/progresso``;
axe at 360 px in both themes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import Page, expect

from tests.support.app import query
from tests.support.browser import ConsoleWatch, axe_violations
from tests.support.learning import COURSE, wrong_option
from tests.support.server import LiveServer

Q = COURSE.get("kernels").questions["qual-fase-domina"]
RIGHT = next(iter(Q.answer))


def miss_the_question(page: Page, server: LiveServer) -> str:
    """Answer ``Q`` wrong in the lesson; return the learner's id."""
    page.goto(server.url + f"/licoes/kernels#pergunta-{Q.id}")
    box = page.locator(f"#pergunta-{Q.id}")
    box.locator(f"#op-{Q.id}-{wrong_option(Q)}").check()
    box.get_by_role("button", name="Responder").click()
    expect(page.locator(f"#pergunta-{Q.id} .verdict")).to_contain_text("Resposta incorreta")
    newest = "SELECT learner_id FROM attempt ORDER BY id DESC LIMIT 1"
    ((learner,),) = query(server.settings, newest)
    return learner


def let_time_pass(server: LiveServer, learner: str) -> None:
    """Make the learner's cards due a minute ago: what the clock does after ten minutes.

    Naive UTC, the way SQLite stores the app's times (the server runs on a SQLite file).
    """
    past = (datetime.now(UTC) - timedelta(minutes=1)).replace(tzinfo=None)
    sql = "UPDATE review_card SET due = :d WHERE learner_id = :l"
    query(server.settings, sql, d=past, l=learner)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_missed_question_comes_back_and_is_answered_with_htmx(
    new_page, live_server: LiveServer, artifacts, theme: str
):
    page = new_page(360, 800, color_scheme=theme)
    watch = ConsoleWatch(page)
    learner = miss_the_question(page, live_server)
    page.goto(live_server.url + "/revisar")
    expect(page.locator(".review-none")).to_contain_text("Nada para revisar agora")
    assert axe_violations(page) == []
    let_time_pass(live_server, learner)
    page.goto(live_server.url + "/")
    expect(page.locator(".resume .review-due")).to_have_text("1 pergunta para revisar")
    page.locator(".resume .review-due").click()
    expect(page).to_have_url(live_server.url + "/revisar")
    card = page.locator("#revisao")
    expect(card.locator(".review-count")).to_have_text("1 pergunta para revisar")
    expect(card.locator("h3")).to_contain_text("qual fase domina")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert axe_violations(page) == []
    page.screenshot(path=str(artifacts / f"revisar-{theme}-360.png"), full_page=True)
    card.locator(f"#op-{Q.id}-{RIGHT}").check()
    card.get_by_role("button", name="Responder").click()
    expect(card.locator(".verdict")).to_have_text("✓ Resposta correta")
    expect(page.locator("#anuncio")).to_have_text("Resposta correta.")
    expect(card.locator(".review-next")).to_contain_text("Essa era a última pergunta")
    assert axe_violations(page) == []
    page.screenshot(path=str(artifacts / f"revisar-respondida-{theme}-360.png"), full_page=True)
    rows = query(
        live_server.settings,
        "SELECT correct, review FROM attempt WHERE learner_id = :l ORDER BY id",
        l=learner,
    )
    assert [(bool(c), bool(r)) for c, r in rows] == [(False, False), (True, True)]
    assert watch.errors == []


def test_next_question_swaps_the_card_without_reloading_the_page(new_page, live_server: LiveServer):
    """Issue 38: "Próxima pergunta" reloaded the whole page; it swaps the card, and the next
    question's heading takes the focus."""
    page = new_page(360, 800)
    watch = ConsoleWatch(page)
    learner = miss_the_question(page, live_server)
    second = next(
        q for q in COURSE.get("kernels").questions.values() if q.kind == "single" and q.id != Q.id
    )
    box = page.locator(f"#pergunta-{second.id}")
    box.locator(f"#op-{second.id}-{wrong_option(second)}").check()
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".verdict")).to_contain_text("Resposta incorreta")
    let_time_pass(live_server, learner)
    page.goto(live_server.url + "/revisar")
    card = page.locator("#revisao")
    expect(card.locator(".review-count")).to_have_text("2 perguntas para revisar")
    first_title = card.locator("h3").inner_text()
    card.locator("input[name=opcao]").first.check()
    card.get_by_role("button", name="Responder").click()
    expect(card.locator(".review-next")).to_contain_text("mais 1 pergunta para revisar")
    page.evaluate("window.samePage = true")
    card.get_by_role("link", name="Próxima pergunta").click()
    expect(card.locator(".review-count")).to_have_text("1 pergunta para revisar")
    expect(card.locator("h3")).not_to_have_text(first_title)
    expect(card.locator("h3")).to_be_focused()
    assert page.evaluate("window.samePage === true"), "the page was reloaded"
    assert watch.errors == []


def test_a_review_without_javascript(new_page, live_server: LiveServer):
    page = new_page(360, 800, javascript=False)
    learner = miss_the_question(page, live_server)
    let_time_pass(live_server, learner)
    page.goto(live_server.url + "/revisar")
    card = page.locator("#revisao")
    card.locator(f"#op-{Q.id}-{wrong_option(Q)}").check()
    card.get_by_role("button", name="Responder").click()
    expect(page).to_have_url(f"{live_server.url}/revisar/kernels/{Q.id}#pergunta-{Q.id}")
    expect(card.locator(".verdict")).to_have_text("✗ Resposta incorreta")
    page.goto(live_server.url + "/revisar")
    expect(page.locator(".review-none")).to_be_visible()  # missed again: back in ten minutes
    rows = query(
        live_server.settings,
        "SELECT review FROM attempt WHERE learner_id = :l ORDER BY id",
        l=learner,
    )
    assert [bool(r) for (r,) in rows] == [False, True]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_mastery_for_decode_moves_on_progresso(
    new_page, live_server: LiveServer, artifacts, theme: str
):
    page = new_page(360, 800, color_scheme=theme)
    page.goto(live_server.url + "/progresso")
    decode = page.locator('[data-conceito="decode"]')
    expect(decode.locator(".mastery-value")).to_have_text("Ainda sem respostas")
    miss_the_question(page, live_server)
    box = page.locator(f"#pergunta-{Q.id}")
    box.get_by_role("link", name="Responder de novo").click()
    box.locator(f"#op-{Q.id}-{RIGHT}").check()
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".verdict")).to_have_text("✓ Resposta correta")
    page.goto(live_server.url + "/progresso")
    expect(decode.get_by_role("img")).to_have_attribute("aria-label", "Domínio de decode: 56%")
    expect(decode.locator(".mastery-value")).to_contain_text("56%")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert axe_violations(page) == []
    decode.screenshot(path=str(artifacts / f"dominio-decode-{theme}-360.png"))
    page.screenshot(path=str(artifacts / f"progresso-dominio-{theme}-360.png"), full_page=True)
