"""Labels, titles and announcements derived from lesson text (issue 12, item 6).

Every such text is rendered as inline Markdown and its plain text is taken from the
rendered HTML: what sits between ``<`` and ``>`` survives, and ``**x**`` or backticks are
never read aloud. The sweep walks every page that shows lesson text and every place a
label can hide (``aria-label``, ``title``, ``data-announce``, ``<title>``, ``<desc>``,
``<legend>``, SVG ``<text>``, the meta description), in a course whose every text holds
Markdown and angle brackets.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content.course import load_course
from app.content.markdown import inline_text, plain_text
from app.main import create_app
from tests.support.app import make_settings
from tests.support.html import csrf_from, soup
from tests.support.visitor import ReadOnlyClient

LATENCY = "A latência precisa ficar < 100 ms e a vazão > 50 tok/s?"
GPUS_MD = "Você tem **mais de uma** GPU e usa `vllm`?"
GPUS = "Você tem mais de uma GPU e usa vllm?"

LESSON = f"""\
---
title: "Latência **baixa** com `vllm` < 100 ms"
slug: latencia
order: 1
summary: "Quando a vazão > 50 tok/s **importa**."
minutes: 5
objectives:
  - "Escolher com `vllm` quando a latência < 100 ms."
source: "Guia **interno** <v2>"
---

## Latência < 100 ms e **vazão** > 50

Texto da seção.

::: warning Cuidado com `--max-model-len` < 4096
Texto da caixa.
:::

```decision-tree
id: metas
title: "Metas de **latência** < 100 ms"
short: "Metas `v1`"
source: "Guia **interno**"
start: latencia
facets:
  latencia: "Latência **alvo**"
  gpus: "GPUs `visíveis`"
questions:
  latencia:
    facet: latencia
    text: "{LATENCY}"
    options:
      - {{label: "**Sim**, < 100 ms", value: sim, next: gpus}}
      - {{label: "Não, `> 1 s` serve", value: nao, next: llama}}
  gpus:
    facet: gpus
    text: "{GPUS_MD}"
    options:
      - {{label: "Sim, **duas** ou mais", value: sim, next: vllm}}
      - {{label: "Não", value: nao, next: llama}}
results:
  vllm: {{engines: [vLLM], verdict: recommended, why: "Rápido."}}
  llama: {{engines: [llama.cpp], verdict: alternative, why: "Leve."}}
```

```chart
title: "Vazão com `vllm` < 2x"
unit: "tok/s"
bars:
  - {{label: "Lote **8** < 16", before: 10, after: 20}}
```

```quiz
- id: meta
  kind: single
  prompt: "Qual engine atende a latência < 100 ms e a vazão > 50 tok/s?"
  options:
    - {{id: a, text: "`vllm` com **lote**", explanation: Certo.}}
    - {{id: b, text: "Nenhum < 1", explanation: Errado.}}
  answer: [a]
```
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("licoes")
    (folder / "01-latencia.md").write_text(LESSON, encoding="utf-8")
    assert [str(p) for p in load_course(folder).errors] == []
    return folder


@pytest.fixture(scope="module")
def reader(folder: Path, tmp_path_factory) -> Iterator[ReadOnlyClient]:
    """One app of the lesson for this module's tests in ``READ_ONLY``."""
    settings = make_settings(tmp_path_factory.mktemp("leitor"), folder)
    with ReadOnlyClient(create_app(settings)) as shared:
        yield shared


@pytest.fixture
def client(request: pytest.FixtureRequest, folder: Path, tmp_path: Path):
    if request.node.get_closest_marker("read_only"):
        shared = request.getfixturevalue("reader")
        with shared.for_one_test():
            yield shared
        return
    with TestClient(create_app(make_settings(tmp_path, folder))) as test_client:
        yield test_client


def labels(html: str) -> list[tuple[str, str]]:
    """Every label-like text of a page or fragment: ``(where, text)``."""
    tree = soup(html)
    found = []
    for attribute in ("aria-label", "title", "data-announce", "alt", "placeholder"):
        found += [(f"[{attribute}]", node[attribute]) for node in tree.select(f"[{attribute}]")]
    for selector in (
        "title",
        "desc",
        "legend",
        "svg text",
        "button",
        "nav a",
        "figcaption",
        "caption",
        "h1",
        "h2",
        "h3",
    ):
        found += [
            (selector, " ".join(node.get_text(" ").split())) for node in tree.select(selector)
        ]
    found += [
        ("meta description", node["content"]) for node in tree.select("meta[name=description]")
    ]
    return found


def assert_clean(html: str, where: str) -> list[tuple[str, str]]:
    found = labels(html)
    assert found, where
    for place, text in found:
        assert "**" not in text and "`" not in text, (where, place, text)
        assert "&lt;" not in text and "&gt;" not in text, (where, place, text)
        if "100 ms" in text and "latência precisa" in text:
            assert LATENCY in text, (where, place, text)
    return found


PAGES = ["/licoes/latencia", "/arvores/metas", "/arvores", "/", "/progresso", "/busca?q=latencia"]


@pytest.mark.parametrize("url", PAGES)
def test_no_page_reads_markdown_aloud_or_drops_angle_brackets(client, url):
    response = client.get(url)
    assert response.status_code == 200
    assert_clean(response.text, url)


def test_tree_announcements_keep_the_comparison_and_drop_the_markdown(client):
    page = client.get("/licoes/latencia").text
    found = dict((place, text) for place, text in labels(page) if place == "[data-announce]")
    assert found["[data-announce]"] == f"Pergunta 1: {LATENCY}"
    token = csrf_from(page)
    version = soup(page).select_one('form.tree-step input[name="versao"]')
    data = {
        "csrftoken": token,
        "c": "",
        "escolha": "sim",
        "licao": "latencia",
        "versao": version["value"],
    }
    step = client.post("/arvores/metas/passo", data=data, headers={"HX-Request": "true"})
    assert step.status_code == 200
    announced = [
        text for place, text in assert_clean(step.text, "passo") if place == "[data-announce]"
    ]
    assert announced == [f"Pergunta 2: {GPUS}"]
    tree = soup(step.text)
    assert tree.select_one(".tree-question-text strong").get_text() == "mais de uma"
    assert [" ".join(li.get_text().split()) for li in tree.select(".tree-path li")] == [
        "Latência alvo: Sim, < 100 ms"
    ]
    assert "Caminho: Sim, < 100 ms." in tree.select_one("svg desc").get_text()


def test_visible_texts_render_their_markdown(client):
    tree = soup(client.get("/licoes/latencia").text)
    assert tree.select_one("h1 strong").get_text() == "baixa"
    assert tree.select_one("h1 code").get_text() == "vllm"
    assert (
        tree.select_one("title").get_text()
        == "Latência baixa com vllm < 100 ms · Engines de inferência"
    )
    assert tree.select_one(".objectives li code").get_text() == "vllm"
    box = tree.select_one("aside.callout-warning")
    assert box["aria-label"] == "Cuidado com --max-model-len < 4096"
    assert box.select_one(".callout-title code").get_text() == "--max-model-len"
    widget = tree.select_one("#arvore-metas")
    assert widget.select_one(".tree-title strong").get_text() == "latência"
    assert [
        b.select_one("strong, code").get_text() for b in widget.select("button.tree-option")
    ] == [
        "Sim",
        "> 1 s",
    ]
    assert widget.select_one("svg title").get_text() == "Mapa da árvore Metas de latência < 100 ms"
    boxes = [" ".join(t.get_text(" ").split()) for t in widget.select("svg text.tree-node-text")]
    assert boxes[:2] == [LATENCY, GPUS]
    chart = tree.select_one("figure.chart")
    assert chart.select_one("svg title").get_text() == "Vazão com vllm < 2x"
    assert chart.select_one("figcaption code").get_text() == "vllm"
    assert chart.select_one("table th[scope=row] strong").get_text() == "8"
    toc = [a.get_text() for a in tree.select("nav.toc a")]
    assert toc == ["Latência < 100 ms e vazão > 50"]
    assert tree.select_one("#pergunta-meta legend").get_text(" ", strip=True) == (
        "Qual engine atende a latência < 100 ms e a vazão > 50 tok/s?"
    )


def test_json_and_terminal_get_plain_text(client):
    tree = client.get("/api/arvores/metas").json()
    assert tree["title"] == "Metas de latência < 100 ms"
    assert tree["facets"] == {"latencia": "Latência alvo", "gpus": "GPUs visíveis"}
    labels_ = [o["label"] for q in tree["questions"] for o in q["options"]]
    assert labels_ == ["Sim, < 100 ms", "Não, > 1 s serve", "Sim, duas ou mais", "Não"]
    progress = client.get("/api/progresso").json()
    assert progress["lessons"][0]["title"] == "Latência baixa com vllm < 100 ms"


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        (LATENCY, LATENCY),
        (GPUS_MD, GPUS),
        ("a &lt; b & c", "a < b & c"),
        ("[link **forte**](https://example.org)", "link forte"),
        ("<b>não é HTML</b>", "<b>não é HTML</b>"),
        ("`<code>`", "<code>"),
    ],
)
def test_plain_text_comes_from_the_rendered_html(markdown, plain):
    assert inline_text(markdown) == plain
    assert plain_text("<p>um</p>\n<p>dois</p>\n") == "um dois"
