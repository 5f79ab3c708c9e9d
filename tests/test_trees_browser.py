"""Decision trees in Chromium: keyboard walks to every result, back/restart, history, no-JS."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from app.content.walk import walk_path
from tests.support.browser import ConsoleWatch
from tests.support.learning import COURSE
from tests.support.server import LiveServer


def result_paths(tree) -> list[tuple[int, ...]]:
    """Every path from the start to a result, as option indexes."""
    paths: list[tuple[int, ...]] = []

    def visit(node: str, trail: tuple[int, ...]) -> None:
        if node in tree.results:
            paths.append(trail)
            return
        for index, option in enumerate(tree.questions[node].options):
            visit(option.next, (*trail, index))

    visit(tree.start, ())
    return paths


@pytest.fixture
def page(new_page) -> Page:
    return new_page()


def tab_to_first_option(page: Page) -> None:
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('tree-option')"):
            return
    raise AssertionError("o teclado não chegou à primeira opção")


@pytest.mark.parametrize("tree_id", ["guia-osman", "guia-fase17"])
def test_walk_every_result_by_keyboard_alone(live_server: LiveServer, page: Page, tree_id: str):
    tree = COURSE.trees[tree_id]
    watch = ConsoleWatch(page)
    widget = page.locator(f"#arvore-{tree_id}")
    for path in result_paths(tree):
        page.goto(f"{live_server.url}/arvores/{tree_id}")
        tab_to_first_option(page)
        for depth, index in enumerate(path):
            if depth:
                expect(widget.locator(".tree-question-heading")).to_be_focused()
                page.keyboard.press("Tab")
            for _ in range(index):
                page.keyboard.press("Tab")
            page.keyboard.press("Enter")
        values = [tree.questions[q].options[i].value for q, i in _nodes(tree, path)]
        result = walk_path(tree, values).result
        expect(widget.locator(".tree-result-engines")).to_be_focused()
        expect(widget.locator(".tree-result-engines")).to_have_text(result.main)
        expect(widget.locator(f"#arvore-{tree_id}-n-{result.id}")).to_have_class(
            re.compile(r"\bcurrent\b")
        )
        expect(page).to_have_url(
            re.compile(re.escape(f"/arvores/{tree_id}?c=") + re.escape("%2C".join(values)) + "$")
        )
        expect(page.locator("#anuncio")).to_contain_text(f"Resultado: {result.main}")
    assert watch.errors == []


def _nodes(tree, path):
    node = tree.start
    for index in path:
        yield node, index
        node = tree.questions[node].options[index].next


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
    page.get_by_label("Mac em primeiro lugar (ML/LLM)").check()
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
