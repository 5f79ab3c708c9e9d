"""Reading a GIFT file back with pygiftparser (PyPI), split by its ``$CATEGORY`` lines.

pygiftparser 1.1 reads a category name only up to its first hyphen and leaves GIFT's escapes
(``\\=``, ``\\{``...) in the texts, so the categories are split here and the texts unescaped
as Moodle's GIFT grammar says (``\\n`` is a line break, ``\\X`` is ``X``). It also ends an
answer block at the first ``}``, even an escaped one, so the tests keep braces to the prompt.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import yaml
from pygiftparser import parser

FENCE = re.compile(r"^```(?:quiz|bank)\n(.*?)^```", re.M | re.S)  # questions: quizzes and banks
_ESCAPE = re.compile(r"\\(.)", re.S)
_ID = re.compile(r"^// \[id:(.+)\]$", re.M)
_TAG = re.compile(r"^// \[tag:(.+)\]$", re.M)


def moodle_id(question) -> str:
    """The ``// [id:…]`` line before a parsed question (Moodle's id number), or ""."""
    found = _ID.findall(question.full)
    return found[0] if found else ""


def moodle_tags(question) -> list[str]:
    """The ``// [tag:…]`` lines before a parsed question."""
    return _TAG.findall(question.full)


def unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), text).strip()


def read_gift(text: str) -> dict[str, list]:
    """The questions of a GIFT file by category, as pygiftparser reads each category's part."""
    found: dict[str, list] = {}
    category = "$course$"
    chunk: list[str] = []

    def flush() -> None:
        parsed = parser.parseFile(io.StringIO("".join(chunk))) if "".join(chunk).strip() else []
        if parsed:  # comments alone (the questions left out) are no category
            found.setdefault(category, []).extend(parsed)

    for line in text.splitlines(keepends=True):
        if line.startswith("$CATEGORY:"):
            flush()
            chunk = []
            category = line.removeprefix("$CATEGORY:").strip()
        else:
            chunk.append(line)
    flush()
    return found


def written_questions(path: Path) -> dict[str, dict]:
    """The questions of a lesson file as YAML, read here without the app's parser."""
    found = {}
    for block in FENCE.findall(path.read_text(encoding="utf-8")):
        for question in yaml.safe_load(block):
            found[question["id"]] = question
    return found


# Quiz items of the other kinds: an ordering of two steps, and a numeric question with a
# tolerance in percent, a unit, its working and a wrong value explained.
ORDERING_AND_NUMERIC = """\
- id: dois-passos
  kind: ordering
  prompt: "Ponha em ordem."
  items:
    - {id: p, text: "prefill"}
    - {id: d, text: "decode"}
  explanation: "Primeiro o prompt, depois os tokens."
- id: relativo
  kind: numeric
  prompt: "Quanto dá 64 ÷ 14,5?"
  value: 4.41
  tolerance: "2%"
  unit: "×"
  working: "64 ÷ 14,5 ≈ 4,41"
  explanation: "A razão das vazões."
  wrong:
    - {value: 0.23, explanation: "Você dividiu ao contrário: 14,5 ÷ 64."}
"""


# A lesson's option lines: eleven right options, a weight that Moodle's GIFT has not (100/11 %).
ELEVEN_RIGHT = "\n".join(
    f'    - {{id: o{n}, text: "Opção {n}", explanation: "Certa."}}' for n in range(1, 12)
)


def misreadable_lesson(title: str, slug: str, prompt: str = "", more: str = "") -> str:
    """A lesson of what Moodle's import would read otherwise if it were written as is: eleven
    right options, ``[html]`` and ``%50%`` at the start of texts (a format and a weight in
    GIFT), an arrow in an ordering item; ``prompt`` ends the second question's prompt and
    ``more`` (quiz items) follows the three questions."""
    return f"""\
---
title: "{title}"
slug: {slug}
order: 1
summary: "O que o Moodle leria de outro jeito."
minutes: 1
objectives: ["Exportar"]
---

## Perguntas

```quiz
- id: onze
  kind: multiple
  prompt: "Quais são certas?"
  options:
{ELEVEN_RIGHT}
    - {{id: x, text: "Nenhuma", explanation: "Errada."}}
  answer: [o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11]
- id: formato
  kind: single
  prompt: "Qual opção é texto puro?{prompt}"
  options:
    - {{id: a, text: "[html] é só texto aqui", explanation: "[html] também aqui."}}
    - {{id: b, text: "%50% não é um peso", explanation: "Errada."}}
    - {{id: c, text: "Outra", explanation: "Errada."}}
  answer: [a]
- id: setas
  kind: ordering
  prompt: "Ponha em ordem."
  items:
    - {{id: p, text: "prompt -> prefill"}}
    - {{id: d, text: "decode"}}
    - {{id: f, text: "fim"}}
  explanation: "Primeiro o prefill."
{more}```
"""
