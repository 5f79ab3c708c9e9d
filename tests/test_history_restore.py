"""History restores (htmx 2): every URL that htmx pushes or replaces answers with the full page.

htmx 2 sends ``HX-Request: true`` together with ``HX-History-Restore-Request: true`` when Back
finds no snapshot in ``sessionStorage['htmx-history-cache']``; it then puts the answer in place
of the whole ``<body>``. A route that answered with its fragment left the page with no header,
no heading and no search box (issue 12, item 5 of the probes: "A search page restored from
history comes back as a bare fragment").
"""

from __future__ import annotations

import re
from urllib.parse import urlencode, urljoin

import pytest
from playwright.sync_api import Page, expect

from app.content.course import load_course
from tests.support.app import REPO_LESSONS
from tests.support.browser import ConsoleWatch
from tests.support.html import csrf_from, soup
from tests.support.server import LiveServer

COURSE = load_course(REPO_LESSONS)
HX = {"HX-Request": "true"}
RESTORE = {"HX-Request": "true", "HX-History-Restore-Request": "true"}
TREE = "guia-fase17"
TREE_LESSON = COURSE.tree_lessons[TREE]


def assert_full_page(html: str, url: str) -> None:
    """The page has its site header, one ``h1`` and a search box."""
    page = soup(html)
    assert page.select_one("header.site-header"), f"{url}: sem o cabeçalho do site"
    assert len(page.select("h1")) == 1, f"{url}: sem o h1"
    assert page.select_one("input[type=search][name=q]"), f"{url}: sem a caixa de busca"


def first_path(tree) -> tuple[str, ...]:
    """The option values of a path from the start to a result, through at least two questions."""
    values, node = [], tree.start
    while node in tree.questions:
        options = tree.questions[node].options
        option = next((o for o in options if o.next in tree.questions), options[0])
        values.append(option.value)
        node = option.next
    return tuple(values)


def pushed_urls(client) -> set[str]:
    """Every URL htmx pushes or replaces, as the pages and responses announce them.

    Read from the markup (``hx-push-url``/``hx-replace-url``: a URL, or ``true`` for the
    element's ``hx-get`` with its form's fields) and from the ``HX-Push-Url``/``HX-Replace-Url``
    headers of every tree step along a whole walk, embedded and standalone.
    """
    urls: set[str] = set()
    tree = COURSE.trees[TREE]
    pages = [f"/busca?{urlencode({'q': 'prefill'})}"]
    for lesson in ("", TREE_LESSON):
        path = first_path(tree)
        for depth in range(len(path)):
            page = client.get(f"/arvores/{TREE}").text
            version = soup(page).select_one('form.tree-step input[name="versao"]')["value"]
            data = {
                "csrftoken": csrf_from(page),
                "c": ",".join(path[:depth]),
                "escolha": path[depth],
                "licao": lesson,
                "versao": version,
            }
            response = client.post(f"/arvores/{TREE}/passo", data=data, headers=HX)
            assert response.status_code == 200
            for header in ("HX-Push-Url", "HX-Replace-Url"):
                if header in response.headers:
                    urls.add(response.headers[header])
            pages.append(response.headers["HX-Push-Url"])
    for url in pages:
        for element in soup(client.get(url).text).select("[hx-push-url], [hx-replace-url]"):
            value = element.get("hx-push-url") or element.get("hx-replace-url")
            if value == "true":
                form = element if element.name == "form" else element.find_parent("form")
                field = element.get("name") or "q"
                value = (
                    element["hx-get"] + "?" + urlencode({field: "prefill"})
                    if form
                    else element["hx-get"]
                )
            urls.add(urljoin(url, value))
    return {url.split("#")[0] for url in urls}


def test_search_restore_reproducer_gets_the_full_page(client):
    url = "/busca?q=prefill"
    fragment = client.get(url, headers=HX)
    assert (
        soup(fragment.text).select_one("header.site-header") is None
    )  # typing still swaps a fragment
    restored = client.get(url, headers=RESTORE)
    assert restored.status_code == 200
    assert "HX-History-Restore-Request" in restored.headers["vary"]
    assert_full_page(restored.text, url)
    assert soup(restored.text).select_one("#busca")["value"] == "prefill"


def test_every_pushed_or_replaced_url_restores_as_a_full_page(client):
    urls = pushed_urls(client)
    assert any(u.startswith("/busca?") for u in urls)
    assert any(u.startswith(f"/arvores/{TREE}") for u in urls)
    assert any(u.startswith(f"/licoes/{TREE_LESSON}?arvore={TREE}") for u in urls)
    for url in sorted(urls):
        response = client.get(url, headers=RESTORE)
        assert response.status_code == 200, url
        assert_full_page(response.text, url)


@pytest.fixture
def page(new_page) -> Page:
    return new_page()


def back_after_cache_miss(page: Page) -> None:
    page.evaluate("sessionStorage.removeItem('htmx-history-cache')")
    page.go_back()


def expect_whole_page(page: Page) -> None:
    expect(page.locator("header.site-header")).to_be_visible()
    expect(page.locator("h1")).to_have_count(1)
    expect(page.locator("input[type=search][name=q]")).to_be_visible()


def test_back_on_search_after_a_cache_miss(live_server: LiveServer, page: Page):
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/busca")
    box = page.locator("#busca")
    for word in ("prefill", "decode", "batching"):
        # Set the words without an ``input`` event: typing would also fire the box's own
        # search, whose ``hx-replace-url`` rewrites the current entry at an unpredictable time.
        box.evaluate("(element, word) => { element.value = word; }", word)
        box.press("Enter")  # submits the form: ``hx-push-url``
        expect(page).to_have_url(re.compile(rf"q={word}$"))
        expect(page.locator("h2.search-summary")).to_contain_text(word)
    back_after_cache_miss(page)
    expect(page).to_have_url(re.compile(r"q=decode$"))
    expect_whole_page(page)
    expect(page.locator("h1")).to_have_text("Buscar nas lições")
    expect(page.locator("h2.search-summary")).to_contain_text("decode")
    assert watch.errors == []


@pytest.mark.parametrize("start", [f"/arvores/{TREE}", f"/licoes/{TREE_LESSON}"])
def test_back_on_a_tree_walk_after_a_cache_miss(live_server: LiveServer, page: Page, start: str):
    watch = ConsoleWatch(page)
    tree = COURSE.trees[TREE]
    page.goto(live_server.url + start)
    widget = page.locator(f"#arvore-{TREE}")
    node = tree.start
    labels = []
    # Two steps that each lead to another question (so the second step still shows a form).
    first = next(
        o
        for o in tree.questions[node].options
        if o.next in tree.questions
        and any(p.next in tree.questions for p in tree.questions[o.next].options)
    )
    for _ in range(2):
        option = (
            first
            if not labels
            else next(o for o in tree.questions[node].options if o.next in tree.questions)
        )
        widget.get_by_role("button", name=option.label, exact=True).click()
        labels.append(option.value)
        expect(page).to_have_url(re.compile("c=" + re.escape("%2C".join(labels))))
        node = option.next
    back_after_cache_miss(page)
    expect(page).to_have_url(re.compile(f"c={re.escape(labels[0])}(#|$)"))
    expect_whole_page(page)
    expect(widget.locator(".tree-path li")).to_have_count(1)
    widget.get_by_role("link", name="← Voltar um passo").click()  # an hx-push-url link
    expect(widget.locator(".tree-path li")).to_have_count(0)
    back_after_cache_miss(page)
    expect_whole_page(page)
    expect(widget.locator(".tree-path li")).to_have_count(1)
    assert watch.errors == []
