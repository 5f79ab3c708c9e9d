"""Keyboard-only walks and what a learner sees in Chromium: quiz, search, theme, glossary,
code copy, print, dates in the learner's zone, and the page weight budget."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from playwright.sync_api import Browser, Page, expect

from app.i18n import local_datetime
from app.learning.progress import lesson_shape_total
from tests.support.app import query
from tests.support.browser import BUDGET_BYTES, ConsoleWatch, focused, tab_until
from tests.support.learning import COURSE
from tests.support.server import LiveServer

KERNELS = COURSE.get("kernels")
FIRST = next(iter(KERNELS.questions.values()))


@pytest.fixture
def page(new_page) -> Page:
    return new_page(360, 800)


def assert_focus_visible(stops: list[dict]) -> None:
    hidden = [s for s in stops if s["outline"] == "none" or s["width"] < 2]
    assert hidden == [], "todo foco de teclado deve ser visível"


def test_skip_link_then_landmarks(new_page, live_server: LiveServer):
    page = new_page(1280, 800)
    page.goto(live_server.url + "/licoes/kernels")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Pular para o conteúdo")
    expect(skip).to_be_focused()
    box = skip.bounding_box()
    assert box and box["y"] >= 0, "o link aparece ao receber o foco"
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    for role, name in (
        ("banner", None),
        ("navigation", "Principal"),
        ("search", "Busca no curso"),
        ("main", None),
        ("contentinfo", None),
    ):
        expect(page.get_by_role(role, name=name) if name else page.get_by_role(role)).to_have_count(
            1
        )


def test_on_a_phone_the_menu_and_the_search_button_hold_the_links_and_the_search(
    page: Page, live_server: LiveServer
):
    page.goto(live_server.url + "/licoes/kernels")
    stops = tab_until(page, "e.classList.contains('menu-button')")
    page.keyboard.press("Enter")
    menu = page.get_by_role("dialog", name="Menu", exact=True)
    expect(menu.get_by_role("navigation", name="Principal")).to_have_count(1)
    page.keyboard.press("Escape")
    stops += tab_until(page, "e.classList.contains('search-toggle')")
    page.keyboard.press("Enter")
    expect(page.get_by_role("search", name="Busca no curso")).to_have_count(1)
    expect(page.locator("#busca-topo")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_role("search", name="Busca no curso")).to_have_count(0)
    expect(page.locator(".search-toggle")).to_be_focused()
    assert_focus_visible(stops)


def test_answer_a_quiz_question_by_keyboard_alone(page: Page, live_server: LiveServer, artifacts):
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/licoes/kernels")
    stops = tab_until(page, f"e.name === 'opcao' && e.id.startsWith('op-{FIRST.id}-')")
    right = page.locator(f"#op-{FIRST.id}-b")  # the right answer; options are shuffled per learner
    page.keyboard.press("Space")
    for _ in FIRST.options:
        if right.is_checked():
            break
        page.keyboard.press("ArrowDown")
    expect(right).to_be_checked()
    stops += tab_until(page, "e.tagName === 'BUTTON' && e.closest('.question')")
    page.keyboard.press("Enter")
    question = page.locator(f"#pergunta-{FIRST.id}")
    heading = question.get_by_role("heading", level=3)
    expect(heading).to_be_focused()
    expect(question.locator(".verdict")).to_contain_text("Resposta correta")
    expect(page.locator("#anuncio")).to_have_text("Resposta correta.")
    stops.append(focused(page))
    assert_focus_visible(stops)
    page.screenshot(path=artifacts / "teclado-quiz-360.png")
    assert watch.errors == []


def test_a_send_that_fails_offline_keeps_the_focus_on_the_question_and_says_why(
    page: Page, live_server: LiveServer
):
    """Issue 38: after a failed send (no network) the focus dropped to the top of the page."""
    page.goto(live_server.url + "/licoes/kernels")
    page.locator(f"#op-{FIRST.id}-b").check()  # the first interaction brings htmx
    page.wait_for_function("() => !!window.htmx")
    page.context.set_offline(True)
    button = page.locator(f"#pergunta-{FIRST.id}").get_by_role("button", name="Responder")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#aviso-erro")).to_have_text(
        "Sem conexão com o servidor. Verifique a rede e tente de novo; sua resposta não foi "
        "enviada."
    )
    expect(button).to_be_focused()
    page.context.set_offline(False)
    page.keyboard.press("Enter")  # sent again from where the focus stayed
    expect(page.locator(f"#pergunta-{FIRST.id} .verdict")).to_contain_text("Resposta correta")


def test_every_quiz_question_and_tree_node_is_a_fieldset_with_its_question_in_the_legend(
    page: Page, live_server: LiveServer
):
    page.goto(live_server.url + "/licoes/escolha-self-hosted")
    for fieldset in page.locator(".question fieldset, .tree-question").all():
        legend = fieldset.locator(":scope > legend")
        expect(legend).to_have_count(1)
        assert legend.inner_text().strip(), "a legenda traz o texto da pergunta"
    expect(page.locator(".question fieldset")).to_have_count(
        lesson_shape_total(COURSE.get("escolha-self-hosted"))  # a pool: its draw
    )


def test_search_by_keyboard_alone_as_you_type(page: Page, live_server: LiveServer, artifacts):
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/")
    stops = tab_until(page, "e.classList.contains('search-toggle')")  # a phone: the bar's button
    page.keyboard.press("Enter")
    expect(page.locator("#busca-topo")).to_be_focused()
    page.keyboard.type("KERNEL")
    page.keyboard.press("Enter")  # the header form is a plain GET: it works without JavaScript too
    expect(page).to_have_url(re.compile(r"/busca\?q=KERNEL$"))
    stops += tab_until(page, "e.id === 'busca'")
    page.keyboard.press("Control+A")
    page.keyboard.type("quantizacoes")  # no accent, plural: still finds "quantização"
    summary = page.locator(".search-summary")
    expect(summary).to_have_text(re.compile(r"resultados? para “quantizacoes”"))
    expect(page.locator("#anuncio")).to_have_text(summary.inner_text())
    expect(page.locator("#busca")).to_be_focused()  # typing keeps focus in the box
    expect(page.locator(".search-snippet mark").first).to_have_text(re.compile("quantização", re.I))
    expect(page).to_have_url(re.compile(r"/busca\?q=quantizacoes$"))
    page.screenshot(path=artifacts / "teclado-busca-360.png")
    page.keyboard.press("Enter")  # submitting moves focus to the results' heading
    expect(summary).to_be_focused()
    stops += tab_until(page, "e.closest('.search-hit-title')")
    target = page.evaluate("document.activeElement.getAttribute('href')")
    page.keyboard.press("Enter")
    path, anchor = target.split("#")
    expect(page).to_have_url(re.compile(re.escape(target) + "$"))
    expect(page.locator(f"[id='{anchor}']")).to_be_in_viewport()
    assert_focus_visible(stops)
    assert watch.errors == []


def test_theme_switch_is_remembered_and_keeps_focus(browser: Browser, live_server: LiveServer):
    context = browser.new_context(color_scheme="light", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(live_server.url + "/glossario")
    background = "getComputedStyle(document.body).backgroundColor"
    assert page.evaluate(background) == "rgb(255, 255, 255)"
    tab_until(page, "e.classList.contains('theme-to-dark')")
    page.keyboard.press("Enter")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.get_by_role("button", name="Tema claro")).to_be_focused()
    expect(page.locator("#anuncio")).to_have_text("Tema escuro ativado.")
    page.goto(live_server.url + "/")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert page.evaluate(background) == "rgb(15, 20, 25)"
    context.close()
    dark_system = browser.new_context(color_scheme="dark", java_script_enabled=False)
    page = dark_system.new_page()
    page.goto(live_server.url + "/")
    assert page.evaluate(background) == "rgb(15, 20, 25)", "sem escolha, segue o sistema"
    page.get_by_role("button", name="Tema claro").click()  # a plain form post without JavaScript
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    assert page.evaluate(background) == "rgb(255, 255, 255)"
    dark_system.close()


def test_glossary_definition_opens_and_closes_by_keyboard(
    page: Page, live_server: LiveServer, artifacts
):
    page.goto(live_server.url + "/licoes/kernels")
    tab_until(page, "e.classList.contains('term-button')")
    term = page.evaluate("document.activeElement.getAttribute('popovertarget')")
    popover = page.locator(f"#{term}")
    expect(popover).to_be_hidden()
    page.keyboard.press("Enter")
    expect(popover).to_be_visible()
    expect(popover.get_by_role("link")).to_have_attribute("href", re.compile("^/glossario#"))
    page.screenshot(path=artifacts / "glossario-popover-360.png")
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()
    expect(page.locator(".term-button").first).to_be_focused()


def test_code_block_is_highlighted_and_copied_by_keyboard(
    browser: Browser, live_server: LiveServer
):
    context = browser.new_context(viewport={"width": 360, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(live_server.url + "/licoes/escolha-self-hosted")
    block = page.locator(".code-block").first
    expect(block.locator("pre.highlight span").first).to_be_visible()
    button = block.get_by_role("button", name="Copiar código")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#anuncio")).to_have_text("Código copiado.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("curso arvore guia-fase17") and "--json" in copied
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    context.close()


def test_print_shows_the_lesson_without_navigation_or_forms(
    page: Page, live_server: LiveServer, artifacts
):
    page.goto(live_server.url + "/licoes/kernels")
    page.emulate_media(media="print")
    hidden_on_paper = (
        ".site-header",
        ".toc",
        ".course-nav",
        ".pager",
        ".site-footer",
        ".question input",
        ".question button",
        ".tree-map-frame",
        ".heading-link",
        ".menu-button",
    )
    for hidden in hidden_on_paper:
        expect(page.locator(hidden).first).to_be_hidden()
    expect(page.locator("h1")).to_be_visible()
    expect(page.locator(".lesson h2").first).to_be_visible()
    page.pdf(path=str(artifacts / "licao-impressa.pdf"), format="A4")


def test_answer_time_is_shown_in_the_learners_zone(browser: Browser, live_server: LiveServer):
    context = browser.new_context(timezone_id="America/Manaus")
    page = context.new_page()
    lesson = COURSE.get("alem-do-ollama")
    question = next(iter(lesson.questions.values()))
    page.goto(f"{live_server.url}/licoes/{lesson.slug}")
    page.reload()  # the first visit taught the server the learner's zone (a cookie)
    node = page.locator(f"#pergunta-{question.id}")
    node.locator(f"#op-{question.id}-{next(iter(question.answer))}").check()
    node.get_by_role("button", name="Responder").click()
    shown = node.locator(".answered-at")
    expect(shown).to_have_text(re.compile(r"^Respondida em \d+ de \w+ de \d{4}, \d\d:\d\d$"))
    [(stored,)] = query(
        live_server.settings, "SELECT created_at FROM attempt ORDER BY id DESC LIMIT 1"
    )
    stored = stored if isinstance(stored, datetime) else datetime.fromisoformat(stored)
    expected = local_datetime(stored, "America/Manaus")
    expect(shown).to_have_text(f"Respondida em {expected}")
    context.close()


@pytest.mark.parametrize("lesson", [lesson.slug for lesson in COURSE.lessons])
def test_a_lesson_page_weighs_at_most_100_kb_compressed(
    browser: Browser, live_server: LiveServer, lesson: str
):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/licoes/{lesson}", wait_until="load")
    entries = page.evaluate(
        """() => [...performance.getEntriesByType("navigation"),
                   ...performance.getEntriesByType("resource")]
              .map(e => ({name: e.name, transfer: e.transferSize, encoded: e.encodedBodySize,
                          decoded: e.decodedBodySize}))"""
    )
    total = sum(e["transfer"] for e in entries)
    assert all(e["transfer"] > 0 for e in entries), "tudo veio da rede nesta visita"
    assert not [e for e in entries if re.search(r"\.(woff2?|ttf|otf)$", e["name"])], (
        "nenhuma fonte web"
    )
    for entry in entries:
        if entry["decoded"] > 1024:
            assert entry["encoded"] < entry["decoded"], f"{entry['name']} veio sem compressão"
    assert total <= BUDGET_BYTES, f"{lesson}: {total} bytes transferidos"
    context.close()


def test_a_form_error_puts_the_cursor_on_the_field_to_fix(new_page, live_server: LiveServer):
    """Issue 38: a wrong password or a confirmation that differs took no focus."""
    page = new_page(360, 800)
    page.goto(live_server.url + "/conta")
    page.fill("#entrar-usuario", "ninguem-aqui")
    page.fill("#entrar-senha", "senha-errada-123")
    page.get_by_role("button", name="Entrar").click()
    expect(page.locator("#erro-entrar")).to_be_visible()
    expect(page.locator("#entrar-senha")).to_be_focused()
    page.fill("#criar-usuario", "nova-conta")
    page.fill("#criar-senha", "senha-boa-123")
    page.fill("#criar-confirmacao", "senha-outra-123")
    page.get_by_role("button", name="Criar conta").click()
    expect(page.locator("#erro-criar")).to_have_text("A confirmação não é igual à senha.")
    expect(page.locator("#criar-confirmacao")).to_be_focused()
