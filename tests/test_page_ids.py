"""The page's ids in one place (app/content/page_ids.py): the chrome's ids and the widgets'."""

from __future__ import annotations

import re

import pytest

from app.content import page_ids
from app.content.markdown import RESERVED_IDS, render_document
from app.content.page_ids import CHROME_IDS
from tests.conftest import PROJECT_ROOT

# The templates that wrap a lesson: every literal id in them is one a heading may not take.
CHROME_TEMPLATES = [
    "base.html",
    "lesson.html",
    "_course_nav.html",
    "_content_problems.html",
    "_resume.html",
]


def test_every_literal_id_of_the_page_chrome_is_reserved():
    found = set()
    for name in CHROME_TEMPLATES:
        text = (PROJECT_ROOT / "templates" / name).read_text(encoding="utf-8")
        found.update(re.findall(r'\bid="([a-z][a-z0-9-]*)"', text))
    assert "busca-topo" in found
    assert found <= CHROME_IDS, sorted(found - CHROME_IDS)
    assert RESERVED_IDS == CHROME_IDS


@pytest.mark.parametrize("reserved", sorted(CHROME_IDS))
def test_a_heading_never_takes_an_id_of_the_chrome(reserved):
    text = reserved.replace("-", " ").capitalize()
    rendered = render_document(f"## {text}\n\nTexto.\n")
    assert f'id="{reserved}"' not in rendered.html
    assert f'<h2 id="{reserved}-2">' in rendered.html
    assert rendered.problems == (
        (
            0,
            f"o título gera a âncora `#{reserved}`, que a página já usa; mude o texto do título",
        ),
    )


def test_busca_topo_heading_gets_its_own_id():
    rendered = render_document("## Busca topo\n\n## Busca topo\n")
    assert re.findall(r'<h2 id="([^"]+)"', rendered.html) == ["busca-topo-2", "busca-topo-3"]


def test_widget_ids_keep_their_shapes():
    # ``pergunta-<id>`` is also what the database keeps as a learner's place: never change it.
    assert page_ids.question_anchor("q1") == "pergunta-q1"
    assert page_ids.error_anchor("q1") == "erro-q1"
    assert page_ids.option_anchor("q1", "b") == "op-q1-b"
    assert page_ids.tree_anchor("roteiro") == "arvore-roteiro"
    assert page_ids.term_anchor("kv-cache") == "termo-kv-cache"
    assert page_ids.chart_anchor("vazao") == "grafico-vazao"
    assert page_ids.WIDGET_ID_PREFIXES == (
        "arvore-",
        "pergunta-",
        "grafico-",
        "termo-",
        "erro-",
        "op-",
    )
