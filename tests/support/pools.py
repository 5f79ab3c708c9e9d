"""A course with a question pool, for the tests of pools (issue 39): a bank of eight questions
tagged ``decode`` and a pool that draws three of them, at the end of the test course's first
lesson (tests/support/lessons.py); and a numeric question with variants."""

from __future__ import annotations

from pathlib import Path

from tests.support.lessons import folder_with

BANK_IDS = [f"banda-{n}" for n in range(1, 9)]


def bank_question(qid: str, concept: str = "decode") -> str:
    return f"""\
- id: {qid}
  kind: single
  prompt: Pergunta {qid} sobre a banda de memória?
  concepts: [{concept}]
  options:
    - id: a
      text: Certo {qid}
      explanation: Explicação secreta certa de {qid}.
    - id: b
      text: Errado {qid}
      explanation: Explicação secreta errada de {qid}.
  answer: [a]
"""


GLOSSARY = "- term: decode\n  definition: A fase que gera um token por vez.\n"


def course_folder(tmp_path: Path, body: str) -> Path:
    """The test course of tests/support/lessons.py, ``body`` at the end of its first lesson,
    with a glossary that knows the concept ``decode``."""
    folder = folder_with(tmp_path, body)
    (folder / "glossario.yml").write_text(GLOSSARY, encoding="utf-8")
    return folder


def pool_lesson(draw_count: int = 3, pool: str = "", bank_ids=BANK_IDS) -> str:
    bank = "".join(bank_question(qid) for qid in bank_ids)
    spec = pool or f"id: decode-sorteio\ndraw: {draw_count}\nconcept: decode\n"
    return f"\n```bank\n{bank}```\n\n```pool\n{spec}```\n"


VARIANT = """
```quiz
- id: teto-variante
  kind: numeric
  params:
    banda: [936, 1008, 1792]
    pesos: {min: 4, max: 16, step: 4}
  value: banda / pesos
  tolerance: 2%
  unit: tok/s
  prompt: Uma GPU com {{ banda }} GB/s lê {{ pesos }} GB de pesos por token. Qual o teto do decode?
  working: "{{ banda }} ÷ {{ pesos }} ≈ {{ value }} tokens/s (conta secreta)"
  explanation: O teto é a banda dividida pelos bytes lidos por token (explicação secreta).
```
"""
