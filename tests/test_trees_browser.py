"""Decision trees in Chromium: keyboard walks to every result, back/restart, history, no-JS."""

from __future__ import annotations

import contextlib
import re

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from app.content.walk import walk_path
from tests.support.browser import ConsoleWatch
from tests.support.learning import COURSE
from tests.support.server import LiveServer


@pytest.fixture
def page(new_page) -> Page:
    return new_page()


# Counts the keyboard's stops from here on, and the stop at which it first reached an option.
COUNT_STOPS = """() => {
    window.__stops = 0;
    window.__option = 0;
    document.addEventListener("focusin", (event) => {
        window.__stops += 1;
        if (!window.__option && event.target.classList.contains("tree-option")) {
            window.__option = window.__stops;
        }
    });
}"""


def tab_to_first_option(page: Page, batch: int = 8) -> None:
    """Tab from the top of the page to the first option, by keyboard alone.

    A listener counts the stops, so the page is asked once per ``batch`` Tabs rather than after
    each; Shift+Tab then comes back over the stops pressed past the first option.
    """
    page.evaluate(COUNT_STOPS)
    pressed = 0
    while pressed < 40:
        for _ in range(batch):
            page.keyboard.press("Tab")
        pressed += batch
        reached = page.evaluate("window.__option")
        if reached:
            for _ in range(pressed - reached):
                page.keyboard.press("Shift+Tab")
            assert page.evaluate(
                "document.activeElement === document.querySelector('.tree-option')"
            ), "Shift+Tab não voltou à primeira opção"
            return
    raise AssertionError("o teclado não chegou à primeira opção")


def tab_until(page: Page, selector: str, limit: int = 30) -> None:
    """Press Tab until the focused element matches ``selector``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"o teclado não chegou a {selector}")


# After a step: focus is on the new heading (data-focus); with ``news``, the live region says
# what that heading announces too (core.js's announce() writes it 50 ms after the swap).
SWAPPED = """(news) => {
    const focused = document.activeElement;
    return focused.hasAttribute("data-focus") && (!news
        || document.getElementById("anuncio").textContent === focused.dataset.announce);
}"""


def swapped(page: Page, news: bool = False) -> None:
    """Wait, polling every frame, for a step to settle: the checks after it then pass at once
    instead of waiting out expect's 100 ms and longer retries. Should it never settle, they
    still run and say what is wrong."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(SWAPPED, arg=news, timeout=5_000)


@pytest.mark.parametrize("tree_id", ["guia-osman", "guia-fase17"])
def test_walk_every_result_by_keyboard_alone(live_server: LiveServer, page: Page, tree_id: str):
    """Every path to a result, by keyboard alone, depth first from one page load.

    Tab from the top of the page to the first option; then each option of each question is
    taken once with Tab and Enter (focus on the next question's heading, or on the result,
    checked at the end of each path), and "Voltar um passo", by keyboard too, comes back to
    the question (focus on its heading again) for its next option. The last path's result
    goes back to the start with "Recomeçar".
    """
    tree = COURSE.trees[tree_id]
    watch = ConsoleWatch(page)
    tid = f"arvore-{tree_id}"
    widget = page.locator(f"#{tid}")
    engines = widget.locator(".tree-result-engines")
    back = f"#{tid} .tree-controls a:first-child"
    url = f"{live_server.url}/arvores/{tree_id}"
    results: set[str] = set()

    def at_page(values: tuple[str, ...]) -> None:
        query = "?c=" + "%2C".join(values) if values else ""
        expect(page).to_have_url(re.compile(re.escape(url + query) + "$"))

    def at_question(node: str, values: tuple[str, ...]) -> None:
        """Focus is on the heading of ``node``'s question, reached after ``values``."""
        question = tree.questions[node]
        swapped(page)
        heading = widget.locator(f"#{tid}-passo-{len(values)} .tree-question-heading")
        expect(heading.filter(has_text=question.text_plain)).to_be_focused()
        at_page(values)

    def visit(node: str, values: tuple[str, ...], on_heading: bool, last: bool) -> None:
        """Walk every result under ``node`` and come back to ``node`` (unless ``last``)."""
        if node in tree.results:
            result = walk_path(tree, values).result
            assert result is not None and result.id == node
            swapped(page, news=True)
            expect(engines).to_be_focused()
            expect(engines).to_have_text(result.main)
            expect(widget.locator(f"#{tid}-n-{node}")).to_have_class(re.compile(r"\bcurrent\b"))
            at_page(values)
            expect(page.locator("#anuncio")).to_contain_text(f"Resultado: {result.main}")
            results.add(node)
            tab_until(page, back)
            if last:  # the next stop is "Recomeçar": back to the first question
                page.keyboard.press("Tab")
                expect(widget.get_by_role("link", name="↺ Recomeçar")).to_be_focused()
                page.keyboard.press("Enter")
                at_question(tree.start, ())
                expect(widget.locator(".tree-path")).to_have_count(0)
            else:
                page.keyboard.press("Enter")
            return
        options = tree.questions[node].options
        for index, option in enumerate(options):
            # From the heading, Tab reaches the first option; from the first option, it is there.
            for _ in range(index + 1 if on_heading else index):
                page.keyboard.press("Tab")
            page.keyboard.press("Enter")
            if option.next in tree.questions:
                at_question(option.next, (*values, option.value))
            final = last and index == len(options) - 1
            visit(option.next, (*values, option.value), True, final)
            if not final:
                at_question(node, values)  # "Voltar um passo" left focus on this heading
            on_heading = True
        if values and not last:
            for _ in range(len(options) + 1):  # past the options to "Voltar um passo"
                page.keyboard.press("Tab")
            expect(page.locator(back)).to_be_focused()
            page.keyboard.press("Enter")

    page.goto(url)
    tab_to_first_option(page)
    visit(tree.start, (), False, True)
    assert results == set(tree.results), "algum resultado ficou sem caminho"
    assert watch.errors == []


def test_back_restart_link_and_browser_history(live_server: LiveServer, page: Page, artifacts):
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/licoes/escolha-self-hosted#arvore-guia-fase17")
    widget = page.locator("#arvore-guia-fase17")
    widget.get_by_role("button", name="NVIDIA Hopper (H100 / H200)").click()
    widget.get_by_role("button", name="100–10 mil usuários / produção").click()
    expect(widget.locator("legend")).to_contain_text("o workload decide")
    expect(page).to_have_url(
        re.compile(r"\?arvore=guia-fase17&c=hopper%2Cproduction#arvore-guia-fase17$")
    )
    page.set_viewport_size({"width": 1280, "height": 900})
    widget.screenshot(path=artifacts / "arvore-meio-1280.png")
    page.set_viewport_size({"width": 360, "height": 800})
    widget.screenshot(path=artifacts / "arvore-meio-360.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, (
        "nada rola para o lado na página"
    )
    page.set_viewport_size({"width": 1280, "height": 900})

    widget.get_by_role("link", name="← Voltar um passo").click()
    expect(widget.locator("legend")).to_contain_text("Agora a escala")
    expect(page).to_have_url(re.compile(r"c=hopper#arvore-guia-fase17$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"c=hopper%2Cproduction#arvore-guia-fase17$"))
    expect(widget.locator("legend")).to_contain_text("o workload decide")
    widget.get_by_role("link", name="↺ Recomeçar").click()
    expect(widget.locator("legend")).to_contain_text("Primeiro o hardware")
    expect(widget.locator(".tree-path")).to_have_count(0)

    page.goto(
        f"{live_server.url}/licoes/escolha-self-hosted?arvore=guia-fase17&c=hopper%2Cproduction%2Ccode#arvore-guia-fase17"
    )
    expect(widget.locator(".tree-result-engines")).to_have_text("vLLM")
    expect(widget.locator(".tree-also")).to_have_text("Também indicados no texto: SGLang")
    assert watch.errors == []


def test_walk_without_javascript(live_server: LiveServer, browser: Browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/licoes/kernels")
    widget = page.locator("#arvore-guia-osman")
    widget.get_by_role("button", name="GPUs NVIDIA de datacenter (H100, H200, B200…)").click()
    expect(page).to_have_url(
        re.compile(r"/licoes/kernels\?arvore=guia-osman&c=hopper#arvore-guia-osman$")
    )
    widget.get_by_role("button", name="Contexto longo, MoE ou routing").click()
    expect(widget.locator(".tree-result-engines")).to_have_text("SGLang")
    widget.get_by_role("link", name="← Voltar um passo").click()
    expect(widget.locator("legend")).to_contain_text("o que o seu caso pede?")
    context.close()


def test_scenario_question_in_the_browser(live_server: LiveServer, page: Page):
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/licoes/kernels")
    question = page.locator("#pergunta-cenario-cluster")
    expect(question.locator(".scenario-facts")).to_contain_text("Orquestrar um cluster")
    question.get_by_label("vLLM").check()
    question.get_by_role("button", name="Responder").click()
    expect(question.locator(".verdict")).to_have_text(re.compile("Resposta incorreta"))
    expect(question.locator(".graded-option.right")).to_contain_text("NVIDIA Dynamo")
    expect(question.locator(".scenario-walk")).to_contain_text("este caminho chega a NVIDIA Dynamo")
    assert watch.errors == []


def test_compare_page_in_the_browser(live_server: LiveServer, page: Page, artifacts):
    page.goto(f"{live_server.url}/arvores/comparar")
    page.get_by_label("Mac com Apple Silicon em primeiro lugar (ML/LLM)").check()
    page.get_by_label("10–100 usuários / equipe pequena").check()  # the Fase 17 tree asks it
    page.get_by_role("button", name="Comparar").click()
    expect(page.locator(".compare-agreement")).to_contain_text("Os guias divergem")
    page.screenshot(path=artifacts / "comparar-1280.png", full_page=True)


def test_api_docs_page_loads_from_our_own_host(live_server: LiveServer, page: Page):
    hosts: set[str] = set()
    page.on("request", lambda request: hosts.add(request.url.split("/")[2]))
    page.goto(f"{live_server.url}/api/docs")
    expect(page.get_by_text("/api/arvores/{tree_id}")).to_be_visible()
    assert hosts == {f"127.0.0.1:{live_server.port}"}
