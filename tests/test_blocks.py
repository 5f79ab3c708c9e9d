"""The block registry: a kind registered in app/content/blocks.py alone flows through the
loader, and the registry, the documented examples and the template macros name the same kinds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from jinja2 import Environment, FileSystemLoader, nodes

from app.content.blocks import BLOCKS, BlockPart, Found, Processed
from app.content.errors import ContentError, ContentErrors
from app.content.lessons import HTML, load_lesson
from app.platform.settings import PROJECT_ROOT

HEADER = """\
---
title: Contadores
slug: contadores
order: 1
summary: Uma lição com um bloco novo.
minutes: 1
objectives: [Contar.]
---
"""


@dataclass(frozen=True)
class CounterPart(BlockPart):
    """The part of the test's ``contador`` block."""

    kind: ClassVar[str] = "counter"
    start: int


def _counter(text: str, path: Path, line: int, found: Found) -> Processed:
    """``contador`` blocks hold one number; each puts ``contador-<n>`` on the page."""
    if not text.strip().isdigit():
        problem = ContentError(path, line, f"o contador precisa de um número, não `{text.strip()}`")
        return Processed(CounterPart(0), [problem])
    start = int(text)
    return Processed(CounterPart(start), [], (f"contador-{start}",))


def load(tmp_path: Path, body: str):
    path = tmp_path / "contadores.md"
    path.write_text(HEADER + body, encoding="utf-8")
    return load_lesson(path)


def problems(tmp_path: Path, body: str) -> list[tuple[int, str]]:
    with pytest.raises(ContentErrors) as info:
        load(tmp_path, body)
    return [(e.line, e.message) for e in info.value.errors]


def test_a_kind_registered_in_the_test_alone_flows_through_the_loader(tmp_path, monkeypatch):
    body = "Antes.\n\n```contador\n3\n```\n\nDepois.\n"
    unknown = load(tmp_path, body)
    assert [block.kind for block in unknown.blocks] == [HTML], "sem registro, é código"
    assert 'data-lang="contador"' in unknown.parts[0]

    monkeypatch.setitem(BLOCKS, "contador", _counter)
    lesson = load(tmp_path, body)

    assert [block.kind for block in lesson.blocks] == [HTML, "counter", HTML]
    assert lesson.parts[1] == CounterPart(3)
    assert "<p>Antes.</p>" in lesson.parts[0] and "<p>Depois.</p>" in lesson.parts[2]
    assert "contador" not in lesson.parts[0] + lesson.parts[2]


def test_a_registered_kinds_problems_anchors_and_spelling_are_checked_with_file_and_line(
    tmp_path, monkeypatch
):
    monkeypatch.setitem(BLOCKS, "contador", _counter)
    # HEADER has 8 lines: the body starts on line 9.
    assert problems(tmp_path, "```contador\ntrês\n```\n") == [
        (10, "o contador precisa de um número, não `três`")
    ]
    assert problems(tmp_path, "## Contador 3\n\n```contador\n3\n```\n") == [
        (
            9,
            "o título gera a âncora `#contador-3`, que uma pergunta, árvore, gráfico ou termo "
            "do glossário desta página já usa; mude o texto do título",
        )
    ]
    assert problems(tmp_path, "- item\n\n  ```contador\n  3\n  ```\n") == [
        (
            11,
            "o bloco `contador` deve ficar no nível principal (fora de listas, citações ou caixas)",
        )
    ]
    assert problems(tmp_path, "```Contador\n3\n```\n") == [
        (9, "bloco `Contador`: escreva `contador`, em minúsculas e com hífen")
    ]


def _documented_example(guide: str, kind: str) -> str:
    match = re.search(rf"^```{re.escape(kind)}\n.*?^```$", guide, re.MULTILINE | re.DOTALL)
    assert match, f"lessons/README.md não mostra um bloco `{kind}`"
    return match.group(0)


def test_every_registered_kind_has_its_macro_and_every_macro_its_kind(tmp_path):
    """The documented example of each kind loads, and each block part it makes is drawn by
    the macro of templates/_blocks.html named by its kind (a chart is HTML)."""
    guide = (PROJECT_ROOT / "lessons" / "README.md").read_text(encoding="utf-8")
    body = "\n\n".join(_documented_example(guide, kind) for kind in BLOCKS)
    lesson = load(tmp_path, body)
    kinds = {block.kind for block in lesson.blocks} - {HTML}

    templates = PROJECT_ROOT / "templates"
    env = Environment(loader=FileSystemLoader(templates), extensions=["jinja2.ext.i18n"])
    source = (templates / "_blocks.html").read_text(encoding="utf-8")
    macros = {macro.name for macro in env.parse(source).find_all(nodes.Macro)}

    assert kinds == {"quiz", "tree", "calculator", "bank", "pool"}
    assert macros == kinds
    assert len(lesson.parts) == len(BLOCKS), "each example is one part; the chart is its HTML"


def test_a_special_fence_inside_a_question_explanation_shows_as_code(tmp_path):
    """Only the lesson body holds blocks: one written inside an explanation is shown as code,
    not dropped."""
    body = """\
```quiz
- id: q1
  kind: single
  prompt: Qual?
  options:
    - id: a
      text: A
      explanation: |
        Veja:

        ```chart
        title: x
        ```
    - {id: b, text: B, explanation: Certo.}
  answer: [b]
```
"""
    explanation = load(tmp_path, body).questions["q1"].options[0].explanation_html
    assert 'data-lang="chart"' in explanation and "title: x" in explanation
    assert "curso-part" not in explanation
