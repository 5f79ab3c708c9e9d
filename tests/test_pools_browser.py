"""Pools and numeric variants in real Chromium (issue 39): axe finds nothing at 360 px in
both themes, the drawn questions and "Outras perguntas" work by keyboard, and without
JavaScript every step is a plain form."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.support.accounts import PASSWORD
from tests.support.app import REPO_LESSONS
from tests.support.browser import ConsoleWatch, axe_violations
from tests.support.learning import answer
from tests.support.pools import VARIANT, course_folder, pool_lesson
from tests.support.server import LiveServer, server_with_instructors

LESSON = "/licoes/decode-prefill"
POOL = "#sorteio-decode-sorteio"


@pytest.fixture(scope="module")
def pool_server(tmp_path_factory) -> Iterator[LiveServer]:
    tmp = tmp_path_factory.mktemp("sorteios")
    server = LiveServer(tmp, course_folder(tmp, pool_lesson() + VARIANT))
    server.start()
    yield server
    server.stop()


def drawn(page: Page) -> list[str]:
    ids = page.locator(f"{POOL} .question").evaluate_all("nodes => nodes.map(n => n.id)")
    return [qid.removeprefix("pergunta-") for qid in ids]


def answer_all_by_keyboard(page: Page) -> None:
    """Answer each drawn question still showing a form, by keyboard alone, until the pool
    offers other questions (a visitor's first answer makes them a learner with a draw of
    their own, so the page is read again after each answer)."""
    for _ in range(10):
        if page.locator(f"{POOL} .pool-redraw button").count():
            return
        qid = page.locator(f"{POOL} .question:not(.answered)").first.get_attribute("id")
        box = page.locator(f"#{qid}")
        option = box.locator('input[type="radio"]').first
        option.focus()
        page.keyboard.press("Space")
        expect(option).to_be_checked()
        box.get_by_role("button", name="Responder").focus()
        page.keyboard.press("Enter")
        expect(box.locator(".verdict")).to_be_visible()
        page.reload()
    raise AssertionError("the pool never offered other questions")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_pool_and_a_variant_have_no_axe_violation_at_360_px(
    new_page, pool_server: LiveServer, theme: str
):
    page = new_page(360, 800, color_scheme=theme)
    watch = ConsoleWatch(page)
    page.goto(pool_server.url + LESSON)
    expect(page.locator(f"{POOL} .question")).to_have_count(3)
    expect(page.locator(f"{POOL} .pool-note")).to_have_text("3 perguntas sorteadas entre 8.")
    expect(page.locator("#pergunta-teto-variante legend")).to_contain_text("GB/s")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert axe_violations(page) == []
    assert watch.errors == []


def test_drawn_questions_and_other_questions_by_keyboard(new_page, pool_server: LiveServer):
    page = new_page(360, 800)
    page.goto(pool_server.url + LESSON + POOL)
    answer_all_by_keyboard(page)
    before = drawn(page)
    button = page.locator(f"{POOL} .pool-redraw button")
    expect(button).to_have_text("Outras perguntas")
    # at the top: scrolled to the pool, the fixed header sits next to an option of the quiz
    # above it, and axe's target-size counts the header as that radio's neighbour
    page.evaluate("window.scrollTo(0, 0)")
    assert axe_violations(page) == []
    button.focus()
    page.keyboard.press("Enter")  # htmx swaps the new draw in (see the test below)
    expect(page.locator(f"{POOL} .pool-redraw")).to_have_count(0)
    after = drawn(page)
    assert len(after) == 3 and not set(after) & set(before), "unseen questions first"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_other_questions_appear_and_swap_in_without_a_reload(
    new_page, pool_server: LiveServer, theme: str
):
    """Found by a learner walk: with JavaScript, "Outras perguntas" appeared only after a reload.
    Now the last answer brings it, and it swaps the new draw in place: no page load, the
    focus on the first new question, the new draw announced; axe finds nothing at 360 px."""
    page = new_page(360, 800, color_scheme=theme)
    watch = ConsoleWatch(page)
    page.goto(pool_server.url + LESSON + POOL)
    page.evaluate("window.curso_same_page = true")
    before = drawn(page)
    for qid in before:
        box = page.locator(f"#pergunta-{qid}")
        option = box.locator('input[type="radio"]').first
        option.focus()
        page.keyboard.press("Space")
        box.get_by_role("button", name="Responder").focus()
        page.keyboard.press("Enter")
        expect(box.locator(".verdict")).to_be_visible(timeout=15_000)
        # the swap settles by putting the focus on the answered question's title (as a
        # reader's would be): only then is the next question's button focused, or the settle
        # takes the focus back from it under load and Enter answers nothing
        expect(box.locator(".question-title")).to_be_focused()
    button = page.locator(f"{POOL} .pool-redraw button")
    expect(button).to_have_text("Outras perguntas")
    # htmx sets up what it swapped in when the swap settles: a person takes longer than that
    page.wait_for_function(
        "() => (document.querySelector('.pool-redraw') || {})['htmx-internal-data']?.initHash"
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator(f"{POOL} .question:not(.answered)")).to_have_count(3)
    after = drawn(page)
    assert not set(after) & set(before), "unseen questions first"
    heading = page.locator(f"#pergunta-{after[0]} .question-title")
    expect(heading).to_be_focused()
    expect(page.locator("#anuncio")).to_have_text("Novas perguntas sorteadas.")
    expect(page.locator(f"{POOL} .pool-redraw")).to_have_count(0)
    assert page.evaluate("window.curso_same_page === true"), "no page load"
    page.evaluate("window.scrollTo(0, 0)")  # the fixed header beside a radio: see above
    assert axe_violations(page) == []
    assert watch.errors == []


def test_pools_and_variants_without_javascript(new_page, pool_server: LiveServer):
    page = new_page(360, 800, javascript=False)
    page.goto(pool_server.url + LESSON)
    box = page.locator("#pergunta-teto-variante")
    box.get_by_role("textbox").fill("1")
    box.get_by_role("button", name="Responder").click()
    expect(page.locator("#pergunta-teto-variante .verdict")).to_have_text("✗ Resposta incorreta")
    for _ in range(10):
        if page.locator(f"{POOL} .pool-redraw button").count():
            break
        qid = page.locator(f"{POOL} .question:not(.answered)").first.get_attribute("id")
        page.locator(f"#{qid} input[type='radio']").first.check()
        page.locator(f"#{qid}").get_by_role("button", name="Responder").click()
    before = drawn(page)
    with page.expect_navigation():
        page.locator(f"{POOL} .pool-redraw button").click()
    expect(page).to_have_url(pool_server.url + LESSON + POOL)
    assert not set(drawn(page)) & set(before)


def test_other_questions_in_a_tab_whose_draw_changed_show_the_current_draw(
    new_page, pool_server: LiveServer
):
    """Found in review: "Outras perguntas" in a second tab, after the first tab drew again,
    swapped the whole pool (questions and answers) for one line of error."""
    tab_a = new_page(360, 800)
    tab_a.goto(pool_server.url + LESSON + POOL)
    answer_all_by_keyboard(tab_a)
    tab_b = tab_a.context.new_page()
    watch = ConsoleWatch(tab_b)
    tab_b.goto(pool_server.url + LESSON + POOL)
    expect(tab_b.locator(f"{POOL} .pool-redraw button")).to_have_text("Outras perguntas")
    tab_b.wait_for_load_state("load")  # htmx has set the button up
    tab_a.locator(f"{POOL} .pool-redraw button").click()
    expect(tab_a.locator(f"{POOL} .question:not(.answered)")).to_have_count(3)
    current = drawn(tab_a)
    tab_b.locator(f"{POOL} .pool-redraw button").click()
    refusal = tab_b.locator(f"{POOL} .form-error")
    expect(refusal).to_have_text(
        "Estas perguntas já foram trocadas em outra aba; aqui estão as atuais."
    )
    expect(refusal).to_be_focused()
    expect(tab_b.locator(f"{POOL} .question:not(.answered)")).to_have_count(3)
    assert drawn(tab_b) == current
    expect(tab_b.locator(f"{POOL} .pool-redraw")).to_have_count(0)
    # Chromium logs the 409 itself; nothing else went wrong
    assert [e for e in watch.errors if "status of 409" not in e] == []


def test_an_instructor_reads_each_variant_in_the_prompts_words_at_360_px(new_page, tmp_path):
    """On a phone, the dashboard names each variant by the prompt's clauses with its numbers
    ("guardado com 1 byte por parâmetro"), not by its parameters' ids ("parametros = 5, bytes
    = 1"); the table within the width, axe clean."""
    qid = "teto-do-decode-variante"
    with server_with_instructors(tmp_path, REPO_LESSONS, "professora") as server:
        for _ in range(3):  # three learners, each a wrong first answer to their own numbers
            with httpx.Client(base_url=server.url) as learner:
                assert answer(learner, "kernels", qid, {"valor": "1"}).status_code == 200
        page = new_page(360, 800)
        page.goto(server.url + "/conta")
        page.fill("#entrar-usuario", "professora")
        page.fill("#entrar-senha", PASSWORD)
        page.get_by_role("button", name="Entrar").click()
        page.goto(server.url + f"/instrutor/perguntas#q-kernels-{qid}")
        card = page.locator(f"#q-kernels-{qid}")
        card.locator("summary").click()
        rows = card.locator(".variant-table tbody tr td:first-child")
        expect(rows.first).to_be_visible()
        for label in rows.all_inner_texts():
            assert re.fullmatch(
                r"Um modelo hipotético de [\d.]+ bilhões de parâmetros, guardado com "
                r"(1 byte|2 bytes) por parâmetro, roda numa máquina com [\d.]+ GB/s de banda "
                r"de memória",
                label,
            ), label
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        assert axe_violations(page) == []
