"""Search in the browser (issue 38, item 3): the header box's suggestions come from the course's
index searched in Chromium (static/js/search-index.js), and they are the server's: the same
sections, in the same order, with the same excerpt and marked words, for pt-BR typed any way
(accents or not, any case or Unicode form, plurals, word starts, words the lessons don't have).
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import snowballstemmer
from bs4 import BeautifulSoup
from playwright.sync_api import Page, expect

from app.content.text import fold, words
from tests.support.browser import ConsoleWatch, axe_violations
from tests.support.learning import COURSE
from tests.support.server import LiveServer

QUERIES = [
    "kernel",
    "kernels",
    "KERNELS",
    "quantizacao",
    "quantizações",
    "quantizacoes",
    unicodedata.normalize("NFD", "decodificação"),
    "decodif",
    "Decodificação",
    "vllm",
    "ollama",
    "llama.cpp",
    "cache kv",
    "kv cache",
    "lote continuo",
    "lotes contínuos",
    "memória da gpu",
    "atenção",
    "paged attention",
    "throughput latência",
    "servindo",
    "servir",
    "engines",
    "tokens por segundo",
    "prefill decode",
    "gp",  # two letters: whole words only
    "a",
    "de",
    "fp8",
    "int4",
    "4",
    "max_tokens",
    "flash",
    "tensorrt-llm",
    "sglang radix",
    "mlx apple",
    "hopper h100",
    "esquecimentoinexistente",
    "kernelizacoes",
    "otimizações de memória",
]

LIST = """async (q) => {
  const input = document.querySelector('[data-search-box]');
  input.value = q;
  curso.search(input);
  const list = document.getElementById(input.getAttribute('aria-controls'));
  return [...list.querySelectorAll('[role=option]')].map(o => [
    o.getAttribute('data-href'),
    o.querySelector('.search-popup-title').textContent,
    (o.querySelector('.search-popup-detail') || {}).textContent || '',
    (o.querySelector('.search-popup-snippet') || {}).innerHTML || '',
  ]);
}"""


def address(href: str) -> tuple[str, dict[str, list[str]], str]:
    """An option's address as (path, query, anchor), so two spellings of one URL compare equal."""
    parts = urlsplit(href)
    return parts.path, parse_qs(parts.query), parts.fragment


def server_list(base: str, query: str) -> list[tuple]:
    """The server's suggestions for ``query`` (the header's htmx request, /busca/lista)."""
    response = httpx.get(f"{base}/busca/lista", params={"q": query}, headers={"HX-Request": "true"})
    response.raise_for_status()
    page = BeautifulSoup(response.text, "html.parser")
    found = []
    for option in page.select("[role=option]"):
        detail = option.select_one(".search-popup-detail")
        snippet = option.select_one(".search-popup-snippet")
        found.append(
            (
                address(option["data-href"]),
                option.select_one(".search-popup-title").get_text(),
                detail.get_text() if detail else "",
                snippet.decode_contents() if snippet else "",
            )
        )
    return found


def ready(page: Page) -> None:
    """Focus the box, which loads the index and the two libraries, and wait for them."""
    page.locator("#busca-topo").focus()
    page.wait_for_function("() => window.MiniSearch && window.snowballFactory")
    page.evaluate(
        """() => new Promise((done) => {
          const input = document.querySelector('[data-search-box]');
          input.value = 'kernel';
          const check = () => {
            curso.search(input);
            const list = document.getElementById(input.getAttribute('aria-controls'));
            if (list.querySelector('.search-popup-snippet mark') && !list.hidden) done();
            else setTimeout(check, 20);
          };
          check();
        })"""
    )


def test_the_browser_finds_what_the_server_finds_in_the_same_order(
    new_page, live_server: LiveServer
):
    page = new_page(1280, 800)
    watch = ConsoleWatch(page)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(live_server.url + "/licoes/kernels")
    ready(page)
    asked.clear()
    for query in QUERIES:
        typed = " ".join(query.split())
        client = [
            (address(href), title, detail, snippet)
            for href, title, detail, snippet in page.evaluate(LIST, typed)
        ]
        assert client == server_list(live_server.url, typed), query
    assert not [url for url in asked if "/busca" in url], "nada foi perguntado ao servidor"
    assert watch.errors == []


def test_the_vendored_stemmer_is_the_servers_on_every_word_of_the_course(
    new_page, live_server: LiveServer
):
    """The client stems only what is typed; its stemmer must be the server's Snowball one."""
    stemmer = snowballstemmer.stemmer("portuguese")
    found: set[str] = set()
    for lesson in COURSE.lessons:
        for text in (lesson.meta.title_text, lesson.meta.summary_text, *lesson.parts):
            if isinstance(text, str):
                found.update(fold(w.text) for w in words(text))
    inflected = sorted({w + ending for w in found for ending in ("", "s", "es", "mente", "ção")})
    page = new_page(1280, 800)
    page.goto(live_server.url + "/licoes/kernels")
    ready(page)
    stems = page.evaluate(
        """(all) => { const s = snowballFactory.newStemmer('portuguese');
                      return all.map((w) => s.stem(w)); }""",
        inflected,
    )
    differ = [(w, j) for w, j in zip(inflected, stems, strict=True) if stemmer.stemWord(w) != j]
    assert len(inflected) > 5000
    assert differ == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 360])
def test_typed_words_show_suggestions_with_marked_excerpts(
    new_page, live_server: LiveServer, width: int, scheme: str
):
    page = new_page(width, 800, color_scheme=scheme)
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/glossario")
    page.keyboard.press("/")
    box = page.locator("#busca-topo")
    expect(box).to_be_focused()
    page.keyboard.type("quantizacoes")
    listbox = page.get_by_role("listbox")
    expect(listbox).to_be_visible()
    expect(listbox).to_have_attribute("data-query", "quantizacoes")
    expect(listbox.locator(".search-popup-snippet mark").first).to_have_text("quantização")
    count = len(server_list(live_server.url, "quantizacoes")) - 1  # less "see every result"
    expect(page.locator("#anuncio")).to_have_text(f"{count} resultados para “quantizacoes”")
    page.keyboard.press("ArrowDown")
    assert axe_violations(page) == []
    assert watch.errors == []


LANDING = """() => {
  const first = document.querySelector('mark.mark-first');
  const box = first.getBoundingClientRect();
  const header = document.querySelector('.site-header').getBoundingClientRect();
  return {visible: first.checkVisibility(), top: box.top, bottom: box.bottom,
          under: Math.max(0, header.bottom), height: innerHeight,
          inPopover: !!first.closest('[popover]'),
          popoverMarks: document.querySelectorAll('[popover] mark').length};
}"""


@pytest.mark.parametrize("width", [1280, 360])
def test_a_suggestion_lands_on_the_first_visible_marked_word_not_in_a_glossary_popup(
    new_page, live_server: LiveServer, width: int
):
    """ "agendador" is first written in the kernels lesson (past its term's button) inside a
    glossary popup, hidden until the term is pressed: the page used to mark it there and scroll
    to it, which left the reader at the top of the page."""
    page = new_page(width, 740)
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/licoes/kernels")
    first_written = page.evaluate(
        """() => { const walk = document.createTreeWalker(
                     document.querySelector('article.lesson'), NodeFilter.SHOW_TEXT);
                   const seen = (n) => /agendador/i.test(n.nodeValue)
                     && !n.parentNode.closest('button');
                   while (walk.nextNode() && !seen(walk.currentNode));
                   return walk.currentNode.parentNode.closest('[popover]') !== null; }"""
    )
    assert first_written, "o primeiro “agendador” da lição está num popup do glossário"
    page.keyboard.press("/")
    page.keyboard.type("agendador")
    listbox = page.get_by_role("listbox")
    expect(listbox).to_have_attribute("data-query", "agendador")
    expect(listbox.get_by_role("option").first).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/licoes/[^?#]+\?destaque=agendador"))
    expect(page.locator("mark.mark-first")).to_be_attached()
    page.wait_for_function(
        "() => { const r = document.querySelector('mark.mark-first').getBoundingClientRect();"
        " return r.top > 0 && r.bottom < innerHeight; }"
    )
    landing = page.evaluate(LANDING)
    assert landing["visible"] and not landing["inPopover"], landing
    assert landing["popoverMarks"] == 0, landing
    assert landing["under"] <= landing["top"] and landing["bottom"] <= landing["height"], landing
    expect(page.locator("#anuncio")).to_have_text(
        re.compile(r"Palavras da busca marcadas na página: \d+\.")
    )
    assert watch.errors == []


SECTION_LANDING = """(id) => {
  const heading = document.getElementById(id);
  const headings = [...document.querySelectorAll('article.lesson :is(h2, h3)')];
  const next = headings[headings.indexOf(heading) + 1];
  const first = document.querySelector('mark.mark-first');
  const inside = (node) => !!node
    && (heading.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0
    && (!next || (next.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_PRECEDING) !== 0);
  const box = (first || heading).getBoundingClientRect();
  return {first: first && first.textContent, inSection: first ? inside(first) : null,
          top: box.top, bottom: box.bottom, height: innerHeight,
          under: Math.max(0,
                          document.querySelector('.site-header').getBoundingClientRect().bottom)};
}"""


@pytest.mark.parametrize("width", [1280, 360])
def test_a_result_lands_in_its_own_section(new_page, live_server: LiveServer, width: int):
    """Issue 38: the result "SGLang" for "decodificacao" scrolled to a marked word in a later
    section ("ExLlamaV3 com TabbyAPI"), thousands of pixels below. A result lands on the first
    visible marked word of its section, here the glossary term; a section that shows none
    (vLLM, whose own text lacks the word) lands on its heading."""
    page = new_page(width, 740)
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/licoes/alem-do-ollama?destaque=decodificacao#sglang")
    expect(page.locator("mark.mark-first")).to_be_attached()
    page.wait_for_function(
        "() => { const r = document.querySelector('mark.mark-first').getBoundingClientRect();"
        " return r.top > 0 && r.bottom < innerHeight; }"
    )
    landing = page.evaluate(SECTION_LANDING, "sglang")
    assert landing["first"] == "decodificação" and landing["inSection"], landing
    assert landing["under"] <= landing["top"] and landing["bottom"] <= landing["height"], landing
    expect(page.locator("#anuncio")).to_have_text(
        re.compile(r"Palavras da busca marcadas na página: \d+\.")
    )
    assert watch.errors == []

    page = new_page(width, 740)  # a new document: the same address with another #fragment is not
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/licoes/alem-do-ollama?destaque=decodificacao#vllm")
    expect(page.locator("#anuncio")).to_have_text(
        re.compile(r"Palavras da busca marcadas na página: \d+\.")
    )
    landing = page.evaluate(SECTION_LANDING, "vllm")
    assert landing["first"] is None, landing
    assert landing["under"] <= landing["top"] < landing["height"] / 2, landing
    assert watch.errors == []
