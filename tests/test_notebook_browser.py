"""The notebook of mistakes in real Chromium: answered in place by keyboard with htmx, without
JavaScript, and axe at 360 px in both themes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import axe_violations, tab_until
from tests.support.server import LiveServer


def miss(page: Page, server: LiveServer, qid: str, option: str) -> None:
    page.goto(server.url + f"/licoes/kernels#pergunta-{qid}")
    box = page.locator(f"#pergunta-{qid}")
    box.locator(f'input[name="opcao"][value="{option}"]').check()
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".verdict")).to_have_text("✗ Resposta incorreta")


def test_a_missed_question_is_answered_in_place_by_keyboard(new_page, live_server: LiveServer):
    page = new_page(360, 800)
    miss(page, live_server, "tp-2", "a")
    page.goto(live_server.url + "/revisar")
    page.get_by_role("link", name="Só as que errei").click()
    expect(page.locator("h1")).to_have_text("Só as que errei")
    box = page.locator("#pergunta-tp-2")
    expect(page.locator(".notebook-why").first).to_contain_text("errada em")
    tab_until(page, "e.name === 'opcao' && e.closest('#pergunta-tp-2')")
    for _ in range(4):  # arrow keys move through the radio group to the right option
        if page.evaluate("document.activeElement.value") == "c":
            break
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Space")
    tab_until(page, "e.tagName === 'BUTTON' && e.closest('#pergunta-tp-2') && !e.closest('.hints')")
    page.keyboard.press("Enter")
    expect(box.locator(".verdict")).to_have_text("✓ Resposta correta")
    expect(box.locator(".question-title")).to_be_focused()
    # Why it was listed ("errada em…") gives way to the news that it left the list.
    expect(page.locator(".notebook-why").first).to_have_text("Certa: saiu da sua lista")
    page.reload()
    expect(page.locator("#pergunta-tp-2")).to_have_count(0)


def test_the_notebook_works_without_javascript(new_page, live_server: LiveServer):
    page = new_page(360, 800, javascript=False)
    miss(page, live_server, "tp-2", "a")
    page.goto(live_server.url + "/revisar/erradas")
    box = page.locator("#pergunta-tp-2")
    box.locator('input[name="opcao"][value="c"]').check()
    box.get_by_role("button", name="Responder").click()
    expect(page.locator(".notebook-just #pergunta-tp-2 .verdict")).to_have_text(
        "✓ Resposta correta"
    )


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_notebook_is_accessible_at_360_in_both_themes(
    new_page, live_server: LiveServer, artifacts, theme: str
):
    page = new_page(360, 800, color_scheme=theme)
    miss(page, live_server, "teto-do-decode", "a")
    miss(page, live_server, "onde-vai-a-gpu", "a")
    page.goto(live_server.url + "/revisar/erradas")
    expect(page.locator(".notebook-entry")).to_have_count(2)
    page.screenshot(path=str(artifacts / f"caderno-{theme}-360.png"), full_page=True)
    assert axe_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.goto(live_server.url + "/revisar")
    assert axe_violations(page) == []
