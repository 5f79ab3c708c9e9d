"""Hints in real Chromium (issue 39, item 3): opened by keyboard with htmx (what the learner
ticked stays, the hint takes the focus and is announced), without JavaScript, and axe at
360 px in both themes."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser import ConsoleWatch, axe_violations, tab_until
from tests.support.learning import KERNELS
from tests.support.server import LiveServer

DECODE = KERNELS.questions["teto-do-decode"]
BOX = f"#pergunta-{DECODE.id}"


def test_hints_open_by_keyboard_keep_the_choice_and_take_the_focus(
    new_page, live_server: LiveServer
):
    page = new_page(360, 800)
    watch = ConsoleWatch(page)
    page.goto(live_server.url + f"/licoes/kernels{BOX}")
    box = page.locator(BOX)
    box.locator('input[name="opcao"][value="a"]').check()
    tab_until(page, "e.classList.contains('hint-button')")
    page.keyboard.press("Enter")
    first = box.locator(".hint-item").first
    expect(first).to_be_focused()
    expect(first).to_contain_text("A conta de bolso divide a banda de memória")
    expect(page.locator("#anuncio")).to_have_text("Dica 1 aberta.")
    expect(box.locator('input[name="opcao"][value="a"]')).to_be_checked()
    expect(box.locator(".hint-worked")).to_have_count(0)
    tab_until(page, "e.classList.contains('hint-button')")
    page.keyboard.press("Enter")
    expect(box.locator(".hint-worked")).to_be_focused()
    expect(box.locator(".hint-worked")).to_contain_text("500 GB/s ÷ 10 GB")
    expect(page.locator("#anuncio")).to_have_text("Resolução aberta.")
    box.locator('input[name="opcao"][value="b"]').check()
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".verdict")).to_have_text("✓ Resposta correta")
    expect(box.locator(".hint-used .tag")).to_have_text("viu a resolução")
    assert watch.errors == []


def test_hints_work_without_javascript(new_page, live_server: LiveServer):
    page = new_page(360, 800, javascript=False)
    page.goto(live_server.url + f"/licoes/kernels{BOX}")
    page.locator(BOX).locator('input[name="opcao"][value="a"]').check()
    page.locator(BOX).get_by_role("button", name="Ver a dica 1 de 2").click()
    box = page.locator(BOX)
    expect(box.locator(".hint-item")).to_have_count(1)
    expect(box.locator(".hint-item")).to_contain_text("A conta de bolso")
    expect(box.locator('input[name="opcao"][value="a"]')).to_be_checked()  # kept (issue 39)
    box.get_by_role("button", name="Ver a resolução").click()
    expect(page.locator(BOX).locator(".hint-worked")).to_contain_text("500 GB/s ÷ 10 GB")
    page.locator(BOX).locator('input[name="opcao"][value="b"]').check()
    page.locator(BOX).get_by_role("button", name="Responder").click()
    expect(page.locator(BOX).locator(".hint-used .tag")).to_have_text("viu a resolução")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_hints_are_accessible_at_360_in_both_themes(
    new_page, live_server: LiveServer, artifacts, theme: str
):
    page = new_page(360, 800, color_scheme=theme)
    page.goto(live_server.url + f"/licoes/kernels{BOX}")
    box = page.locator(BOX)
    box.get_by_role("button", name="Ver a dica 1 de 2").click()
    expect(box.locator(".hint-item")).to_have_count(1)
    box.get_by_role("button", name="Ver a resolução").click()
    expect(box.locator(".hint-worked")).to_be_visible()
    box.screenshot(path=str(artifacts / f"dicas-{theme}-360.png"))
    assert axe_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    box.locator('input[name="opcao"][value="b"]').check()
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".hint-used")).to_be_visible()
    box.screenshot(path=str(artifacts / f"dicas-respondida-{theme}-360.png"))
    assert axe_violations(page) == []


@pytest.mark.parametrize("javascript", [True, False])
def test_enter_in_a_number_field_answers_and_opens_no_hint(
    new_page, live_server: LiveServer, javascript: bool
):
    """The hint buttons sit in the answer form (issue 39: a hint without JavaScript keeps the
    answer); "Responder" comes first, so Enter in the field still sends the answer."""
    gain = KERNELS.questions["ganho-pro-6000"]  # numeric, with hints
    page = new_page(360, 800, javascript=javascript)
    page.goto(live_server.url + f"/licoes/kernels#pergunta-{gain.id}")
    box = page.locator(f"#pergunta-{gain.id}")
    expect(box.locator(".hint-button")).to_be_visible()
    box.locator('input[name="valor"]').focus()
    page.keyboard.type("3,4")
    page.keyboard.press("Enter")
    expect(page.locator(f"#pergunta-{gain.id} .verdict")).to_be_visible(timeout=15_000)
    expect(page.locator(f"#pergunta-{gain.id} .hint-item")).to_have_count(0)
