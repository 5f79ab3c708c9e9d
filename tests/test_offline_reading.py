"""Reading a downloaded lesson with no network (issue 40, item 2), in Chromium at 360 px with
``context.set_offline(True)``: its decision tree walks from the tree's data in the page, drawn
as the server draws it (every point of the walk compared with the server's widget), with Back
and an address reloaded offline; its calculator works out the same figures as the server.
And without JavaScript, online, both still go through the server."""

from __future__ import annotations

import re
from urllib.parse import quote

import httpx
from bs4 import Tag
from playwright.sync_api import Page, expect

from app.content.trees import Tree
from tests.support.browser import ConsoleWatch
from tests.support.html import soup
from tests.support.learning import KERNELS
from tests.support.offline import download
from tests.support.server import LiveServer

TREE: Tree = next(iter(KERNELS.trees.values()))
WIDGET = f"#arvore-{TREE.id}"


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


def test_without_javascript_the_tree_still_walks_through_the_server(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740, javascript=False)
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    widget = page.locator(WIDGET)
    datacenter = TREE.questions[TREE.start].options[4]
    cluster = TREE.questions[datacenter.next].options[3]
    widget.locator(".tree-option", has_text=datacenter.label).click()
    expect(widget.locator(".tree-question-heading")).to_contain_text("Pergunta 2")
    widget.locator(".tree-option", has_text=cluster.label).click()
    expect(widget.locator(".tree-result-engines")).to_have_text(TREE.results[cluster.next].main)
    assert re.search(r"[?&]c=", page.url)
