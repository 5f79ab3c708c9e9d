"""Search over HTTP: Portuguese however it is typed, results with anchors, rebuilt on change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import unicodedata
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.content.search import Query, mark_words, snippet
from app.main import create_app
from app.platform.settings import PROJECT_ROOT
from tests.support.app import make_settings
from tests.support.html import is_fragment, soup
from tests.support.lessons import GOOD

HX = {"HX-Request": "true"}
DECODIFICACAO = "decodificação"


def hits(client: TestClient, q: str) -> list[tuple[str, str]]:
    """(link, section title) of every result for ``q``; each link carries the query
    (``?destaque=``).
    """
    page = soup(client.get("/busca", params={"q": q}))
    found = []
    for a in page.select(".search-hit-title a"):
        address, _, fragment = a["href"].partition("#")
        path, _, query = address.partition("?")
        assert parse_qs(query) == {"destaque": [" ".join(q.split())]}, a["href"]
        found.append((path + (f"#{fragment}" if fragment else ""), a.get_text()))
    return found


def marked(client: TestClient, q: str) -> list[str]:
    return [
        m.get_text()
        for m in soup(client.get("/busca", params={"q": q})).select(".search-snippet mark")
    ]


@pytest.mark.parametrize(
    "typed",
    [
        "decodificacao",
        "DECODIFICAÇÃO",
        unicodedata.normalize("NFD", DECODIFICACAO),
        "Decodificação",
        "decodif",
    ],
    ids=["sem-acento", "maiusculas", "nfd", "normal", "prefixo"],
)
def test_decodificacao_is_found_however_it_is_typed(client, typed):
    found = hits(client, typed)
    assert ("/licoes/alem-do-ollama#sglang", "SGLang") in found
    assert DECODIFICACAO in [m.lower() for m in marked(client, typed)]


def test_kernel_finds_kernels(client):
    assert "kernels" in [m.lower() for m in marked(client, "kernel")]
    assert ("/licoes/kernels#modelo-engine-e-kernels", "Modelo, engine e kernels") in hits(
        client, "kernel"
    )


@pytest.fixture
def plural_course(tmp_path: Path):
    """A course whose only lesson speaks of "quantizações", in the plural."""
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    body = GOOD + "\n## Formatos\n\nAs quantizações mudam de engine para engine.\n"
    (lessons / "01-licao.md").write_text(body, encoding="utf-8")
    with TestClient(create_app(make_settings(tmp_path, lessons))) as client:
        yield client, lessons


def test_quantizacao_finds_quantizacoes(plural_course):
    client, _ = plural_course
    for typed in ("quantização", "quantizacao", "QUANTIZAÇÕES"):
        assert hits(client, typed) == [("/licoes/decode-prefill#formatos", "Formatos")], typed
    assert marked(client, "quantização") == ["quantizações"]


def test_index_is_rebuilt_when_a_lesson_file_changes(plural_course):
    client, lessons = plural_course
    assert hits(client, "zebra") == []
    path = lessons / "01-licao.md"
    path.write_text(
        path.read_text(encoding="utf-8") + "\n## Zebras\n\nUma zebra no prompt.\n", encoding="utf-8"
    )
    assert hits(client, "zebra") == [("/licoes/decode-prefill#zebras", "Zebras")]
    second = GOOD.replace("slug: decode-prefill", "slug: outra").replace("order: 1", "order: 2")
    (lessons / "02-outra.md").write_text(
        second + "\n## Listras\n\nOutra zebra.\n", encoding="utf-8"
    )
    assert {link for link, _ in hits(client, "zebras")} == {
        "/licoes/decode-prefill#zebras",
        "/licoes/outra#listras",
    }


def test_every_result_links_to_a_heading_that_exists(client):
    results = soup(client.get("/busca", params={"q": "engine"}))
    links = [a["href"] for a in results.select(".search-hit-title a")]
    assert len(links) >= 5
    pages: dict[str, BeautifulSoup] = {}
    for link in links:
        path, _, anchor = link.partition("#")
        page = pages.setdefault(path, soup(client.get(path)))
        assert not anchor or page.select_one(f"[id='{anchor}']"), link
    first = results.select_one(".search-hit")
    assert first.select_one(".search-hit-lesson").get_text().startswith("Lição ")


def test_results_summary_and_empty_states(client):
    page = soup(client.get("/busca", params={"q": "kernel"}))
    summary = page.select_one("h2.search-summary")
    assert summary.get_text().endswith("resultados para “kernel”")
    assert summary["data-announce"] == summary.get_text()
    none = soup(client.get("/busca", params={"q": "xilofone"}))
    assert none.select_one("h2.search-summary").get_text() == "Nenhum resultado para “xilofone”."
    empty = soup(client.get("/busca"))
    assert (
        empty.select_one(".search-empty").get_text()
        == "Digite uma palavra acima: os resultados aparecem enquanto você digita."
    )
    assert empty.select_one("form[role=search] input[name=q]")
    assert client.get("/busca", params={"q": "x" * 201}).status_code == 422


def test_htmx_gets_only_the_results_fragment(client):
    response = client.get("/busca", params={"q": "prefill"}, headers=HX)
    assert response.status_code == 200
    assert "HX-Request" in response.headers["vary"]
    fragment = soup(response)
    assert is_fragment(response) and fragment.select_one("section.search-results")
    assert fragment.select(".search-hit")


def test_the_header_box_gets_its_suggestions_as_a_listbox(client):
    """The header's combobox swaps in this server-rendered listbox: one option per result,
    the same links and order as the search page, then "see every result"."""
    response = client.get("/busca/lista", params={"q": "  kernels "}, headers=HX)
    assert response.status_code == 200
    box = soup(response).select_one("ul#busca-topo-lista[role=listbox]")
    assert box is not None and not box.has_attr("hidden")
    assert box["data-query"] == "kernels"
    options = box.select("li[role=option]")
    page_hits = soup(client.get("/busca", params={"q": "kernels"})).select(".search-hit")
    assert len(options) == len(page_hits) + 1 >= 2
    for option, hit in zip(options, page_hits, strict=False):
        assert option["data-href"] == hit.select_one(".search-hit-title a")["href"]
        assert option.select_one(".search-popup-title").get_text() == hit.select_one("a").get_text()
        assert option["aria-selected"] == "false"
    assert [o["id"] for o in options] == [f"busca-topo-lista-{i}" for i in range(len(options))]
    assert options[-1]["data-href"] == "/busca?q=kernels"
    assert options[-1].get_text(strip=True) == "Ver todos os resultados na página de busca"
    assert box["data-announce"] == f"{len(page_hits)} resultados para “kernels”"


def test_the_header_listbox_is_empty_and_hidden_for_no_words_and_says_when_nothing_matched(client):
    empty = soup(client.get("/busca/lista", params={"q": "   "}, headers=HX)).select_one("ul")
    assert (
        empty.has_attr("hidden") and empty.select("li") == [] and "data-announce" not in empty.attrs
    )
    none = soup(client.get("/busca/lista", params={"q": "xyzzyqq"}, headers=HX)).select_one("ul")
    assert [li["data-href"] for li in none.select("li")] == ["/busca?q=xyzzyqq"]
    assert none["data-announce"] == "Nenhum resultado para “xyzzyqq”."


def test_the_listbox_address_opened_by_hand_goes_to_the_search_page(client):
    response = client.get("/busca/lista", params={"q": "fusão"}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/busca?q=fus%C3%A3o"
    too_long = client.get("/busca/lista", params={"q": "x" * 201}, headers=HX)
    assert too_long.status_code == 422


def test_snippet_escapes_text_and_marks_words():
    text = "O <script> do decode e as decodificações"
    html = snippet(text, Query.parse("decodificação"))
    assert html == "O &lt;script&gt; do decode e as <mark>decodificações</mark>"


def test_a_result_opens_its_lesson_with_the_words_marked_without_javascript(client):
    page = soup(client.get("/licoes/kernels", params={"destaque": "Kernel"}))
    article = page.select_one("article.lesson")
    assert article is not None
    assert {m.get_text() for m in article.select("mark")} == {"kernel", "kernels", "Kernels"}
    # Never in what a reader cannot see: the glossary's popup for "kernel" holds the word.
    popup = [p for p in article.select("[popover]") if "kernel" in p.get_text().lower()]
    assert popup and not article.select("[popover] mark, .heading-link mark")
    assert not [b for b in article.select("button mark") if "term-button" not in b.parent["class"]]
    # The page without the query is the one kept: no mark, and revalidated with a 304.
    plain = client.get("/licoes/kernels")
    assert not soup(plain).select("mark")
    again = client.get("/licoes/kernels", headers={"If-None-Match": plain.headers["etag"]})
    assert again.status_code == 304


def test_mark_words_marks_what_a_reader_sees_and_keeps_the_rest_byte_for_byte():
    html = (
        "<p>Os <em>kernels</em> &amp; o kernel\n<code>kernel()</code></p>"
        "<span popover>kernel</span><p hidden>kernel</p><button>kernel</button>"
        '<dfn><button class="term-button">Kernel</button></dfn><span popover>kernel</span>'
        '<form><p class="hint">kernel</p><label>kernel</label></form><svg><text>kernel</text></svg>'
        "<br><p>nada</p>"
    )
    assert mark_words(html, "KERNEL") == html.replace(
        "<em>kernels", "<em><mark>kernels</mark>"
    ).replace("o kernel", "o <mark>kernel</mark>").replace(
        "<code>kernel", "<code><mark>kernel</mark>"
    ).replace("<label>kernel", "<label><mark>kernel</mark>").replace(
        '"term-button">Kernel', '"term-button"><mark>Kernel</mark>'
    )
    assert mark_words(html, " ") == html


def test_a_word_inside_a_glossary_term_is_marked_on_the_term_not_in_its_popup(client):
    """Issue 38: "decodificação" in the SGLang section is only the glossary term "decodificação
    especulativa"; the term's button was skipped with the popup, so the result the search gave
    opened (without JavaScript) on a section with nothing marked."""
    page = soup(client.get("/licoes/alem-do-ollama", params={"destaque": "decodificacao"}))
    heading = page.select_one("#sglang")
    assert heading is not None
    section = []
    for node in heading.find_all_next():
        if node.name in {"h2", "h3"}:
            break
        section.append(node)
    marked = [n for n in section if n.name == "mark"]
    assert [m.get_text() for m in marked] == ["decodificação"]
    assert marked[0].find_parent("button", class_="term-button") is not None
    assert not page.select("[popover] mark")


def test_search_works_under_the_c_locale(tmp_path):
    """The same answers with ``LC_ALL=C``: nothing depends on the server's locale."""
    program = textwrap.dedent(f"""
        import json, re, unicodedata
        from pathlib import Path
        from bs4 import BeautifulSoup
        from fastapi.testclient import TestClient
        from app.main import create_app
        from tests.support.app import make_settings
        client = TestClient(create_app(make_settings(Path({str(tmp_path)!r}))))
        out = {{}}
        for q in [
            "decodificacao",
            "DECODIFICA\\u00c7\\u00c3O",
            unicodedata.normalize("NFD", "decodifica\\u00e7\\u00e3o"),
            "kernel",
        ]:
            page = BeautifulSoup(client.get("/busca", params={{"q": q}}).text, "lxml")
            # Without the query each link carries (?destaque=...): the sections found.
            out[q] = sorted(
                re.sub(r"[?][^#]*", "", a["href"]) for a in page.select(".search-hit-title a")
            )
        print(json.dumps(out))
    """)
    script = tmp_path / "busca_c.py"
    script.write_text(program, encoding="ascii")
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONPATH": str(PROJECT_ROOT)}
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=PROJECT_ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    variants = [found[q] for q in found if q != "kernel"]
    assert variants[0] == variants[1] == variants[2]
    assert "/licoes/alem-do-ollama#sglang" in variants[0]
    assert "/licoes/kernels#modelo-engine-e-kernels" in found["kernel"]


def test_the_browsers_index_is_named_by_its_digest_and_cached_for_a_year(plural_course):
    """Every page names the index the header box searches in the browser by its content's
    digest; that address is cached as immutable, and a lesson edit gives a new one (an old
    address still answers, with today's index, revalidated)."""
    client, lessons = plural_course
    box = soup(client.get("/")).select_one("#busca-topo")
    first = box["data-search-index"]
    assert first.startswith("/busca/indice.") and first.endswith(".json")
    assert [src.split("/")[-1].split(".")[0] for src in box["data-search-scripts"].split()] == [
        "minisearch",
        "snowball-stemmers",
    ]
    response = client.get(first)
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert response.headers["content-type"] == "application/json"
    index = response.json()
    assert index["lessons"] == [["decode-prefill", "Decode e prefill"]]
    assert ["formatos", "Formatos", "As quantizações mudam de engine para engine."] in [
        s[1:] for s in index["sections"]
    ]
    assert index["keys"]["quantizacoes"] == "quantiz"
    path = lessons / "01-licao.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n## Zebras\n\nUma zebra.\n", "utf-8")
    second = soup(client.get("/")).select_one("#busca-topo")["data-search-index"]
    assert second != first
    assert "zebra" in client.get(second).text
    stale = client.get(first)
    assert stale.headers["cache-control"] == "no-cache" and "zebra" in stale.text
