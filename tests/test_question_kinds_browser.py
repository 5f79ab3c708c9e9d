"""The ``numeric`` and ``ordering`` questions in real Chromium: typed numbers graded with their
explanations, steps ordered by keyboard alone, by mouse (drag and drop) and without
JavaScript (position selects), the live region, and axe at 360 px in both themes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from app.content.course import load_course
from tests.support.app import REPO_LESSONS
from tests.support.browser import ConsoleWatch, axe_violations
from tests.support.server import LiveServer

COURSE = load_course(REPO_LESSONS)
PIPELINE_SLUG = next(
    lesson.slug for lesson in COURSE.lessons if "ordem-do-pipeline" in lesson.questions
)
PIPELINE = COURSE.get(PIPELINE_SLUG).questions["ordem-do-pipeline"]
TREE_ORDER = COURSE.get("kernels").questions["ordem-da-arvore"]
MAX_TABS = 300


def tab_to(page: Page, selector: str) -> None:
    """Press Tab until the element matching ``selector`` has focus."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"o teclado não chegou a {selector}")


def shown_order(page: Page, qid: str) -> list[str]:
    return page.eval_on_selector_all(
        f"#pergunta-{qid} .ordering-item", "items => items.map(i => i.dataset.item)"
    )


def test_numeric_right_and_foreseen_wrong_with_htmx(new_page, live_server: LiveServer):
    page = new_page(360, 800)
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/licoes/kernels#pergunta-ganho-3090")
    box = page.locator("#pergunta-ganho-3090")
    box.get_by_label("Sua resposta").fill("4,4")
    box.get_by_label("Sua resposta").press("Enter")
    expect(box.locator(".verdict")).to_have_text("✓ Resposta correta")
    expect(box.locator(".numeric-key")).to_contain_text("4,41 ×")
    expect(box.locator(".working")).to_contain_text("64 ÷ 14,5 ≈ 4,41")
    expect(page.locator("#anuncio")).to_have_text("Resposta correta.")
    box.get_by_role("link", name="Responder de novo").click()
    box.get_by_label("Sua resposta").fill("49,5")
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".verdict")).to_have_text("✗ Resposta incorreta")
    expect(box.locator(".wrong-value")).to_contain_text("Você subtraiu em vez de dividir")
    box.get_by_role("link", name="Responder de novo").click()
    box.get_by_label("Sua resposta").fill("quatro")
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".form-error")).to_contain_text("“quatro” não é um número.")
    expect(box.get_by_label("Sua resposta")).to_have_value("quatro")
    assert [e for e in watch.errors if "status of 422" not in e] == [], (
        "só o 422 da resposta recusada"
    )


def test_numeric_without_javascript(new_page, live_server: LiveServer):
    page = new_page(360, 800, javascript=False)
    page.goto(live_server.url + "/licoes/kernels#pergunta-ganho-pro-6000")
    box = page.locator("#pergunta-ganho-pro-6000")
    box.get_by_label("Sua resposta").fill("3,4×")
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".verdict")).to_have_text("✓ Resposta correta")
    expect(box.locator(".numeric-key")).to_contain_text("aceito com ±3%")


def test_ordering_with_the_keyboard_alone(new_page, live_server: LiveServer):
    page = new_page(360, 800)
    watch = ConsoleWatch(page)
    qid = PIPELINE.id
    page.goto(live_server.url + f"/licoes/{PIPELINE_SLUG}#pergunta-{qid}")
    box = page.locator(f"#pergunta-{qid}")
    expect(box.locator(".ordering-js-hint")).to_be_visible()
    expect(box.locator(".ordering-nojs-hint")).to_be_hidden()
    expect(box.locator("select").first).to_be_hidden()
    assert shown_order(page, qid) != list(PIPELINE.order)
    for index, item in enumerate(PIPELINE.order):
        steps = shown_order(page, qid).index(item) - index
        if not steps:
            continue
        tab_to(page, f'#pergunta-{qid} [data-item="{item}"] [data-move="-1"]')
        for _ in range(steps):
            page.keyboard.press("Enter")
        name = page.locator(f'#pergunta-{qid} [data-item="{item}"] .ordering-text').inner_text()
        expect(page.locator("#anuncio")).to_have_text(f"{name}: posição {index + 1} de 3.")
        assert page.evaluate("() => document.activeElement.dataset.move") == "-1", (
            "o foco fica no botão"
        )
    assert shown_order(page, qid) == list(PIPELINE.order)
    tab_to(page, f'#pergunta-{qid} button[type="submit"]')
    page.keyboard.press("Enter")
    expect(box.locator(".verdict")).to_have_text("✓ Resposta correta")
    expect(box.locator(".ordering-credit")).to_have_text("3 de 3 na posição certa")
    assert watch.errors == []


def test_ordering_by_drag_and_drop_with_partial_credit(new_page, live_server: LiveServer):
    page = new_page(1280, 900)
    qid = TREE_ORDER.id
    page.goto(live_server.url + f"/licoes/kernels#pergunta-{qid}")
    box = page.locator(f"#pergunta-{qid}")
    first = TREE_ORDER.order[0]
    target = box.locator(".ordering-item").first
    if shown_order(page, qid)[0] != first:
        box.locator(f'[data-item="{first}"]').drag_to(target, target_position={"x": 20, "y": 2})
    assert shown_order(page, qid)[0] == first
    positions = page.eval_on_selector_all(f"#pergunta-{qid} select", "s => s.map(x => x.value)")
    assert positions[0] == f"{first}=1", "os selects acompanham a nova ordem"
    in_place = sum(a == b for a, b in zip(shown_order(page, qid), TREE_ORDER.order, strict=True))
    box.get_by_role("button", name="Responder").click()
    verdict = "✓ Resposta correta" if in_place == len(TREE_ORDER.order) else "✗ Resposta incorreta"
    expect(box.locator(".verdict")).to_have_text(verdict)
    total = len(TREE_ORDER.order)
    expect(box.locator(".ordering-credit")).to_have_text(f"{in_place} de {total} na posição certa")


def test_ordering_without_javascript_by_position_selects(new_page, live_server: LiveServer):
    page = new_page(360, 800, javascript=False)
    qid = PIPELINE.id
    page.goto(live_server.url + f"/licoes/{PIPELINE_SLUG}#pergunta-{qid}")
    box = page.locator(f"#pergunta-{qid}")
    expect(box.locator(".ordering-move").first).to_be_hidden()
    shown = shown_order(page, qid)
    wanted = [PIPELINE.order[1], PIPELINE.order[0], PIPELINE.order[2]]  # one pair swapped
    for item in shown:
        box.locator(f'[data-item="{item}"] select').select_option(
            f"{item}={wanted.index(item) + 1}"
        )
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".verdict")).to_have_text("✗ Resposta incorreta")
    expect(box.locator(".ordering-credit")).to_have_text("1 de 3 na posição certa")
    expect(box.locator(".right-order li")).to_have_count(3)
    box.get_by_role("link", name="Responder de novo").click()
    # The link loads a page (no JavaScript): read the order once its form is there.
    expect(box.locator(".ordering-item select")).to_have_count(3)
    shown = shown_order(page, qid)  # now a learner: the order is their own from here on
    first = box.locator(f'[data-item="{shown[0]}"] select')
    first.select_option(f"{shown[0]}=2")  # the second position is taken: two steps in one place
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".form-error")).to_contain_text("Cada posição só cabe uma etapa")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_new_kinds_are_accessible_at_360_before_and_after_answering(
    new_page, live_server: LiveServer, artifacts, theme: str
):
    page = new_page(360, 800, color_scheme=theme)
    page.goto(live_server.url + f"/licoes/{PIPELINE_SLUG}#pergunta-{PIPELINE.id}")
    assert axe_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.locator(f"#pergunta-{PIPELINE.id}").screenshot(
        path=str(artifacts / f"ordenacao-form-{theme}-360.png")
    )
    page.locator(f"#pergunta-{PIPELINE.id}").get_by_role("button", name="Responder").click()
    expect(page.locator(f"#pergunta-{PIPELINE.id} .ordering-credit")).to_be_visible()
    page.goto(live_server.url + "/licoes/kernels#pergunta-ganho-3090")
    box = page.locator("#pergunta-ganho-3090")
    box.get_by_label("Sua resposta").fill("49,5")
    box.get_by_role("button", name="Responder").click()
    expect(box.locator(".wrong-value")).to_be_visible()
    box.screenshot(path=str(artifacts / f"numerica-{theme}-360.png"))
    assert axe_violations(page) == []
    page.goto(live_server.url + f"/licoes/{PIPELINE_SLUG}#pergunta-{PIPELINE.id}")
    page.locator(f"#pergunta-{PIPELINE.id}").screenshot(
        path=str(artifacts / f"ordenacao-{theme}-360.png")
    )
    assert axe_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
