"""Reading a downloaded lesson with no network (issue 40, item 2), in Chromium at 360 px with
``context.set_offline(True)``: its decision tree walks from the tree's data in the page, drawn
as the server draws it (every point of the walk compared with the server's widget), with Back
and an address reloaded offline; its calculator works out the same figures as the server.
And without JavaScript, online, both still go through the server."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import httpx
from bs4 import Tag
from playwright.sync_api import Page, expect

from app.content.calculators import compute, offline_calculator, parse_calculator
from app.platform.settings import PROJECT_ROOT
from app.web.templating import json_island
from tests.support.browser import ConsoleWatch, axe_violations
from tests.support.html import soup
from tests.support.learning import KERNELS
from tests.support.offline import TREE, WIDGET, download, walk_to_a_result
from tests.support.server import LiveServer

CALCULATOR = next(iter(KERNELS.calculators.values()))
NAMES = [item.name for item in CALCULATOR.inputs]
# What a learner may type in the three inputs: pt-BR and en numbers, thousands, units, signs,
# and what the server refuses (each message), with the figures it works out from them.
TYPED = [
    ("70", "0,5", "3.350"),
    ("1.000", "2", "1000"),
    ("4.4", "1,5", "1 000"),
    ("≈ 7", "2 bytes", "1,000.5"),
    ("1e3", "0,25", "20.000"),
    ("1,23456", "1.00", "999"),
    ("0,3", "0,3", "1"),
    ("abc", "", "99999"),
    ("−5", "4,0", "123456789012345"),
    ("1.000,50", "1.0000", "2.5e1"),
    ("2000", "4", "1"),
]


def shape(node: Tag) -> tuple:
    """An element as a reader and a screen reader get it: tag, attributes (the CSRF token's
    value left out: it is each page's own) and children, with runs of spaces as one."""
    attrs = {k: " ".join(v) if isinstance(v, list) else v for k, v in node.attrs.items()}
    if attrs.get("name") == "csrftoken":
        attrs.pop("value", None)
    children = []
    for child in node.children:
        if isinstance(child, Tag):
            children.append(shape(child))
        elif " ".join(str(child).split()):
            children.append(" ".join(str(child).split()))
    return (node.name, sorted(attrs.items()), children)


def drawn(html: str) -> tuple:
    """What a step changes in the widget: the walk, the map's classes and its description."""
    widget = soup(html).select_one(".tree-widget")
    marks = sorted((el["id"], " ".join(el["class"])) for el in widget.select("svg [id][class]"))
    desc = widget.select_one("svg desc").get_text()
    return shape(widget.select_one(".tree-walk")), marks, desc, widget["data-c"]


def server_widget(live_server: LiveServer, values: tuple[str, ...]) -> tuple:
    query = f"c={quote(','.join(values), safe='')}&licao={KERNELS.slug}"
    response = httpx.get(f"{live_server.url}/arvores/{TREE.id}/widget?{query}")
    assert response.status_code == 200
    return drawn(response.text)


def shown(page: Page) -> tuple:
    return drawn(page.locator(WIDGET).evaluate("el => el.outerHTML"))


def test_a_downloaded_lesson_walks_its_tree_offline_as_the_server_draws_it(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    console = ConsoleWatch(page)
    download(page, live_server.url, KERNELS.slug)
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("h1")).to_have_text(KERNELS.meta.title_text)
    widget = page.locator(WIDGET)
    assert shown(page) == server_widget(live_server, ())

    # Every point of the walk, option by option, back by "Voltar um passo".
    def visit(values: tuple[str, ...], node: str) -> None:
        question = TREE.questions.get(node)
        if question is None:
            return
        for option in question.options:
            widget.locator(".tree-options button", has_text=option.label).click()
            at = (*values, option.value)
            expect(widget).to_have_attribute("data-c", ",".join(at))
            assert shown(page) == server_widget(live_server, at), at
            visit(at, option.next)
            widget.get_by_role("link", name="← Voltar um passo").click()
            expect(widget).to_have_attribute("data-c", ",".join(values))

    visit((), TREE.start)

    # A walk to a result: the focus on its heading, read out; the address follows; Back works.
    datacenter = TREE.questions[TREE.start].options[4]
    cluster = TREE.questions[datacenter.next].options[3]
    widget.locator(".tree-option", has_text=datacenter.label).click()
    heading = widget.locator(".tree-question-heading")
    expect(heading).to_be_focused()
    expect(heading).to_contain_text("Pergunta 2")
    widget.locator(".tree-option", has_text=cluster.label).click()
    result = TREE.results[cluster.next]
    engines = widget.locator(".tree-result-engines")
    expect(engines).to_have_text(result.main)
    expect(engines).to_be_focused()
    expect(page.locator("#anuncio")).to_have_text(f"Resultado: {result.main}. Recomendado.")
    assert axe_violations(page) == []
    walked = f"c={quote(datacenter.value + ',' + cluster.value, safe='')}"
    assert walked in page.url
    page.go_back()
    expect(heading).to_contain_text("Pergunta 2")
    expect(widget.locator(".tree-result")).to_have_count(0)
    page.go_forward()
    expect(engines).to_have_text(result.main)
    # The address of a walk, opened again offline: the device's copy, drawn at that walk.
    page.reload()
    expect(page.locator(f"{WIDGET} .tree-result-engines")).to_have_text(result.main)
    assert shown(page) == server_widget(live_server, (datacenter.value, cluster.value))
    page.go_back()
    expect(page.locator(f"{WIDGET} .tree-question-heading")).to_contain_text("Pergunta 2")
    assert [e for e in console.errors if "ERR_INTERNET_DISCONNECTED" not in e] == []


def calculator_result(html: str) -> tuple:
    box = soup(html).select_one(f"#{CALCULATOR.anchor}-resultado")
    return shape(box), box["data-announce"]


def test_a_downloaded_lesson_works_out_its_calculator_offline_as_the_server_does(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    console = ConsoleWatch(page)
    download(page, live_server.url, KERNELS.slug)
    page.context.set_offline(True)
    page.reload()
    asked = []  # offline, nothing is asked of the server's calculator route
    page.on("request", lambda r: "/calculadoras/" in r.url and asked.append(r.url))
    section = page.locator(f"#{CALCULATOR.anchor}")
    result = section.locator(f"#{CALCULATOR.anchor}-resultado")
    for typed in TYPED:
        values = dict(zip(NAMES, typed, strict=True))
        server = httpx.get(
            f"{live_server.url}/licoes/{KERNELS.slug}/calculadoras/{CALCULATOR.id}", params=values
        )
        expected = calculator_result(server.text)
        for name, value in values.items():
            section.locator(f"input[name='{name}']").fill(value)
        section.locator(f"input[name='{NAMES[-1]}']").press("Enter")
        expect(result).to_have_attribute("data-announce", expected[1])
        assert calculator_result(section.evaluate("el => el.outerHTML")) == expected, typed
    # As the learner types: the default figures again, read out; the address shares them.
    section.locator(f"input[name='{NAMES[0]}']").fill("10")
    section.locator(f"input[name='{NAMES[1]}']").fill("2")
    section.locator(f"input[name='{NAMES[2]}']").fill("")
    section.locator(f"input[name='{NAMES[2]}']").press_sequentially("1000")
    expect(result.locator(".calculator-value")).to_have_text(
        ["Estimativa: ≈ 20 GB", "Estimativa: ≈ 50 tokens/s"]
    )
    expect(page.locator("#anuncio")).to_have_text(
        "Pesos lidos por token (sem o KV cache): estimativa ≈ 20 GB. "
        "Teto do decode: estimativa ≈ 50 tokens/s."
    )
    assert "calculadora=teto-do-decode&parametros=10&bytes_por_parametro=2&banda=1000" in page.url
    # That address opened again offline: the device's copy, worked out with those values.
    section.locator(f"input[name='{NAMES[2]}']").fill("500")
    section.locator(f"input[name='{NAMES[2]}']").press("Enter")
    page.reload()
    expect(section.locator(f"input[name='{NAMES[2]}']")).to_have_value("500")
    expect(result.locator(".calculator-value")).to_have_text(
        ["Estimativa: ≈ 20 GB", "Estimativa: ≈ 25 tokens/s"]
    )
    assert asked == []
    # Chromium logs each request the cut connection failed, and htmx each failed send: the
    # reading place (static/js/place.js) is posted as the learner scrolls to the calculator.
    assert [
        e for e in console.errors if "ERR_INTERNET_DISCONNECTED" not in e and "htmx:" not in e
    ] == []


def test_a_request_that_finds_no_network_is_worked_out_in_the_page(
    new_page, live_server: LiveServer
):
    """The browser says it is online, but the step and the calculator's request fail."""
    page = new_page(360, 740)
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    cut = []

    def no_network(route):
        cut.append(route.request.url)
        route.abort("internetdisconnected")

    page.route("**/arvores/*/passo", no_network)
    page.route("**/calculadoras/*", no_network)
    widget = page.locator(WIDGET)
    datacenter = TREE.questions[TREE.start].options[4]
    widget.locator(".tree-option", has_text=datacenter.label).click()
    heading = widget.locator(".tree-question-heading")
    expect(heading).to_contain_text("Pergunta 2")
    expect(heading).to_be_focused()
    assert shown(page) == server_widget(live_server, (datacenter.value,))
    section = page.locator(f"#{CALCULATOR.anchor}")
    section.locator(f"input[name='{NAMES[2]}']").fill("500")
    expect(section.locator(".calculator-value")).to_have_text(
        ["Estimativa: ≈ 20 GB", "Estimativa: ≈ 25 tokens/s"]
    )
    assert len(cut) == 2, cut
    expect(page.locator("#aviso-erro")).to_be_hidden()


def test_without_javascript_the_tree_still_walks_through_the_server(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740, javascript=False)
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    walk_to_a_result(page)
    assert re.search(r"[?&]c=", page.url)


def test_without_javascript_the_calculator_still_works_out_on_the_server(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740, javascript=False)
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    section = page.locator(f"#{CALCULATOR.anchor}")
    section.locator(f"input[name='{NAMES[2]}']").fill("500")
    section.get_by_role("button", name="Calcular").click()
    expect(page.locator(f"#{CALCULATOR.anchor} .calculator-value")).to_have_text(
        ["Estimativa: ≈ 20 GB", "Estimativa: ≈ 25 tokens/s"]
    )
    assert "banda=500" in page.url


# Formulas that take Python's own paths (floor division and modulo of negatives, round half to
# even, powers, logarithms, a division by zero, a complex number), each in a calculator of its
# own when it may fail, worked out in the page and by compute() on the server for each input.
FORMULAS = [
    [
        "a // b",
        "a % b",
        "round(a * 0.125, 2)",
        "round(a)",
        "min(a, b) / max(a, b)",
        "abs(-a) * 1e6",
    ],
    ["floor(a / b) + ceil(a)", "a * 0.125", "-a ** 2", "a ** b", "log(abs(a) + 1, 2)", "b / 3"],
    ["sqrt(a - b)"],
    ["a / (b - 2)"],
    ["log10(a) + log2(b)"],
    ["(a - b) ** 0.5 + 2 ** -b"],
]
INPUTS = [
    ("3", "7"),
    ("-7", "2"),
    ("9", "2"),
    ("2,5", "-3"),
    ("21", "1,5"),
    ("0,5", "2"),
    ("-1", "-1"),
    ("1.000", "0,001"),
    ("12,345", "10"),
    ("3", "abc"),
    ("", "2"),
]


def calculator_yaml(number: int, formulas: list[str]) -> str:
    outputs = "".join(
        f"  - label: saída {n}\n    formula: {formula}\n    words: a conta {n}\n"
        for n, formula in enumerate(formulas)
    )
    return (
        f"id: c{number}\ntitle: conta {number}\ninputs:\n"
        "  - name: a\n    label: A\n    default: 9\n    min: -5000\n    max: 5000\n"
        "  - name: b\n    label: B\n    default: 4\n    min: -5000\n    max: 5000\n"
        f"outputs:\n{outputs}"
    )


def test_the_page_works_out_each_formula_as_the_server_does(new_page):
    calculators = []
    for number, formulas in enumerate(FORMULAS):
        calculator, problems = parse_calculator(calculator_yaml(number, formulas), Path("t.md"), 1)
        assert problems == [] and calculator is not None
        calculators.append(calculator)
    boxes = "".join(
        f'<section class="calculator" id="{c.anchor}"><form class="calculator-form">'
        '<input name="a"><input name="b"><button>Calcular</button></form>'
        f'<div class="calculator-result" id="{c.anchor}-resultado"></div>'
        f'<script type="application/json" id="{c.anchor}-dados" data-calculator-data>'
        f"{json_island(dict(offline_calculator(c), u='/licoes/x'))}</script></section>"
        for c in calculators
    )
    page = new_page(360, 740)
    page.context.set_offline(True)
    page.set_content(f'<body><div id="anuncio"></div>{boxes}</body>')
    for script in ("core.js", "calculator.js"):
        page.add_script_tag(path=str(PROJECT_ROOT / "static" / "js" / script))
    for calculator in calculators:
        section = page.locator(f"#{calculator.anchor}")
        for a, b in INPUTS:
            result = compute(calculator, {"a": a, "b": b})
            if result.errors or result.problem:
                texts = [
                    f"{item.name.upper()}: {result.errors[item.name]}"
                    for item in calculator.inputs
                    if item.name in result.errors
                ] + ([result.problem] if result.problem else [])
                shown = section.locator(".calculator-problems li")
            else:
                texts = [f"Estimativa: ≈ {value}" for value in result.values]
                shown = section.locator(".calculator-value")
            section.locator("input[name=a]").fill(a)
            section.locator("input[name=b]").fill(b)
            section.locator("input[name=b]").press("Enter")
            expect(shown).to_have_text(texts)
