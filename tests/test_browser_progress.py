"""Progress, accounts and "Meus dados" in real Chromium against a live uvicorn."""

from __future__ import annotations

import re
import sqlite3

import pytest
from playwright.sync_api import Page, expect

from app.learning.progress import lesson_shape_total
from tests.support.browser import ConsoleWatch, pick, sign_up_in_page
from tests.support.learning import COURSE, KERNELS
from tests.support.server import LiveServer

PASSWORD = "senha-do-navegador"
FIRST = next(iter(KERNELS.questions.values()))
TOTAL = sum(lesson_shape_total(lesson) for lesson in COURSE.lessons)  # a pool: its draw


def answer_first(page: Page, server: LiveServer) -> None:
    page.goto(server.url + "/licoes/kernels")
    pick(page, FIRST.id, "b")
    page.locator(f"#pergunta-{FIRST.id} button").click()
    expect(page.locator(f"#pergunta-{FIRST.id} .verdict")).to_have_text(
        re.compile("Resposta correta")
    )


def kernels_card(page: Page):
    return page.locator('.progress-card[data-licao="kernels"]')


def attempts_in_db(server: LiveServer) -> int:
    with sqlite3.connect(server.database) as db:  # the live server runs on SQLite
        return db.execute("SELECT COUNT(*) FROM attempt").fetchone()[0]


def test_answering_in_lesson_1_changes_its_status_on_home(
    live_server: LiveServer, new_page, artifacts
):
    page = new_page()
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/")
    first_card = page.locator(".lesson-card").first
    expect(first_card.locator(".status")).to_have_text("Não iniciada")
    expect(page.locator(".resume .course-percent")).to_have_text("0%")
    answer_first(page, live_server)
    expect(page.locator(".course-nav li[aria-current] .status")).to_have_text("Em andamento")
    page.locator(f"#pergunta-{FIRST.id}").screenshot(path=artifacts / "pergunta-historico-1280.png")
    page.locator(".lesson-aside").screenshot(path=artifacts / "navegacao-curso-1280.png")
    question = page.locator(f"#pergunta-{FIRST.id}")
    question.get_by_role("link", name="Responder de novo").click()
    wrong = next(o.id for o in FIRST.options if o.id not in FIRST.answer)
    pick(page, FIRST.id, wrong)
    question.get_by_role("button", name="Responder").click()
    expect(question.locator(".verdict")).to_have_text(re.compile("Resposta incorreta"))
    expect(question.locator(".history")).to_have_text("Primeira tentativa: certa · 2 tentativas")
    page.locator(".site-header a", has_text="Lições").click()
    expect(first_card.locator(".status")).to_have_text("Em andamento")
    expect(page.locator(".resume .course-percent")).to_have_text(f"{100 // TOTAL}%")
    # The answered question, or the section around it that app.js saw the reader stay on.
    expect(page.locator(".resume-link")).to_have_attribute("href", re.compile("^/licoes/kernels#"))
    page.screenshot(path=artifacts / "inicio-com-progresso-1280.png")
    assert watch.errors == []


@pytest.mark.parametrize("javascript", [True, False], ids=["htmx", "sem-js"])
def test_double_click_on_submit_stores_one_attempt(live_server: LiveServer, new_page, javascript):
    page = new_page(javascript=javascript)
    before = attempts_in_db(live_server)
    page.goto(live_server.url + "/licoes/kernels")
    pick(page, FIRST.id, "b")
    page.locator(f"#pergunta-{FIRST.id} button").dblclick()
    expect(page.locator(f"#pergunta-{FIRST.id} .verdict")).to_have_text(
        re.compile("Resposta correta")
    )
    page.goto(live_server.url + "/progresso")
    expect(kernels_card(page).locator(".stat-attempts")).to_have_text("1")
    assert attempts_in_db(live_server) == before + 1


def test_sign_up_keeps_progress_and_a_new_browser_sees_it_after_sign_in(
    live_server: LiveServer, new_page, artifacts
):
    page = new_page()
    answer_first(page, live_server)
    sign_up_in_page(page, live_server.url, "navegador1", PASSWORD)
    expect(page.locator(".nav-account")).to_have_text("Conta: navegador1")
    right = f"1 de {lesson_shape_total(KERNELS)}"
    expect(kernels_card(page).locator(".stat-right")).to_have_text(right)

    phone = new_page(width=360)
    phone.goto(live_server.url + "/progresso")
    expect(kernels_card(phone).locator(".stat-attempts")).to_have_text("0")
    phone.goto(live_server.url + "/conta")
    phone.screenshot(path=artifacts / "conta-360.png", full_page=True)
    phone.locator("#entrar-usuario").fill("navegador1")
    phone.locator("#entrar-senha").fill(PASSWORD)
    phone.get_by_role("button", name="Entrar", exact=True).click()
    expect(phone).to_have_url(live_server.url + "/progresso")
    expect(kernels_card(phone).locator(".stat-right")).to_have_text(
        f"1 de {lesson_shape_total(KERNELS)}"
    )
    expect(kernels_card(phone).locator(".status")).to_have_text("Em andamento")
    phone.screenshot(path=artifacts / "progresso-360.png", full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360, (
        "nada vaza para os lados no celular"
    )


def test_delete_my_data_and_see_it_gone(live_server: LiveServer, new_page, artifacts):
    page = new_page()
    answer_first(page, live_server)
    sign_up_in_page(page, live_server.url, "navegador2", PASSWORD)
    page.goto(live_server.url + "/meus-dados")
    expect(page.locator(".stored-attempts")).to_have_text("1")
    page.screenshot(path=artifacts / "meus-dados-1280.png", full_page=True)
    page.get_by_role("button", name="Apagar tudo sobre mim").click()
    (
        expect(page.locator(".stored-attempts")).to_have_text("1"),
        "sem confirmar, o navegador não envia",
    )
    page.get_by_label("Entendo que isto apaga tudo e não pode ser desfeito.").check()
    page.get_by_role("button", name="Apagar tudo sobre mim").click()
    expect(page.locator(".notice")).to_contain_text("Pronto: apagamos tudo")
    expect(page.locator(".stored-attempts")).to_have_text("0")
    expect(page.locator(".nav-account")).to_have_text("Entrar")
    page.goto(live_server.url + "/progresso")
    expect(kernels_card(page).locator(".stat-attempts")).to_have_text("0")
    page.goto(live_server.url + "/conta")
    page.locator("#entrar-usuario").fill("navegador2")
    page.locator("#entrar-senha").fill(PASSWORD)
    page.get_by_role("button", name="Entrar", exact=True).click()
    expect(page.locator("#erro-entrar")).to_have_text("Usuário ou senha incorretos.")


def test_continue_where_i_stopped_follows_the_section_read(live_server: LiveServer, new_page):
    page = new_page()
    lesson = COURSE.get("escolha-self-hosted")
    heading = lesson.headings[2]
    page.goto(f"{live_server.url}/licoes/{lesson.slug}")
    with page.expect_response(lambda r: r.url.endswith("/progresso/lugar") and r.status == 204):
        page.locator(f"#{heading.anchor}").scroll_into_view_if_needed()
        page.evaluate(f"document.getElementById('{heading.anchor}').scrollIntoView()")
    page.goto(live_server.url + "/")
    link = page.locator(".resume-link")
    expect(link).to_have_text("Continuar de onde parei")
    expect(link).to_have_attribute("href", f"/licoes/{lesson.slug}#{heading.anchor}")
    link.click()
    expect(page).to_have_url(f"{live_server.url}/licoes/{lesson.slug}#{heading.anchor}")
