"""Lesson files written for a test: a good lesson, a second one, a decision tree, a scenario
question, a glossary, and folders of them."""

from __future__ import annotations

from pathlib import Path


def lessons(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "lessons"
    folder.mkdir(exist_ok=True)
    for name, content in files.items():
        (folder / f"{name}.md").write_text(content, encoding="utf-8")
    return folder


def save(path: Path, content: str) -> None:
    """Write a new version of a file, as an editor would."""
    path.write_text(content, encoding="utf-8")


def messages(course) -> list[str]:
    return [f"{p.file.name}:{p.line}:{p.col}: {p.level}: {p.message}" for p in course.problems]


GOOD = """\
---
title: Decode e prefill
slug: decode-prefill
order: 1
summary: As duas fases da inferência.
minutes: 10
objectives:
  - Distinguir prefill de decode.
---

## Duas fases

O **prefill** processa o prompt.

::: danger Não faça isso
Cuidado com o Ollama.
:::

```quiz
- id: fase-banda
  kind: single
  prompt: Qual fase acompanha a banda de memória?
  options:
    - id: a
      text: Prefill
      explanation: Errado, o prefill acompanha os kernels de attention.
    - id: b
      text: Decode
      explanation: Certo, o decode acompanha a banda.
    - id: c
      text: Tokenização
      explanation: Errado, a tokenização vem antes e não é uma das duas fases.
  answer: [b]
```
"""


PREFILL = (
    "    - id: a\n      text: Prefill\n"
    "      explanation: Errado, o prefill acompanha os kernels de attention.\n"
)


OTHER = (  # a second lesson with a title of its own
    GOOD.replace("slug: decode-prefill", "slug: outra")
    .replace("order: 1", "order: 2")
    .replace("title: Decode e prefill", "title: Outra lição")
)


HEADER = """\
---
title: Árvore de teste
slug: arvore-teste
order: 1
summary: Uma árvore pequena.
minutes: 5
objectives:
  - Testar.
---

## Árvore

"""


TREE = """\
```decision-tree
id: mini
title: Mini
source: Teste
start: hw
questions:
  hw:
    facet: hardware
    text: Qual hardware?
    options:
      - label: CPU
        value: cpu
        next: r-cpu
      - label: GPU
        value: [gpu, nvidia]
        next: scale
  scale:
    facet: scale
    text: Quantos usuários?
    options:
      - label: Um
        value: one
        next: r-cpu
      - label: Muitos
        value: many
        next: r-vllm
results:
  r-cpu:
    engines: [llama.cpp]
    verdict: recommended
    why: Roda em CPU.
  r-vllm:
    engines: [vLLM, SGLang]
    verdict: alternative
    why: Produção.
```
"""


SCENARIO = """
```quiz
- id: cenario
  kind: scenario
  tree: mini
  facts:
    hardware: nvidia
    scale: many
  prompt: Qual engine?
  options:
    - id: a
      engine: vLLM
      text: vLLM
      explanation: Certo, a árvore leva a ele.
    - id: b
      engine: llama.cpp
      text: llama.cpp
      explanation: Errado, a árvore não leva a ele.
    - id: c
      engine: TensorRT-LLM
      text: TensorRT-LLM
      explanation: Errado, ele não está na árvore.
```
"""


SECOND_LESSON = GOOD.replace("slug: decode-prefill", "slug: outra").replace("order: 1", "order: 2")


def broken_lesson(slug: str, order: int) -> str:
    """:data:`GOOD` as lesson ``slug`` at ``order``, its question's answer an option it has
    not (an error on line 33)."""
    return (
        GOOD.replace("answer: [b]", "answer: [z]")
        .replace("order: 1", f"order: {order}")
        .replace("slug: decode-prefill", f"slug: {slug}")
    )


def folder_with(tmp_path: Path, body: str) -> Path:
    """A course of three lessons; ``body`` is added to the end of the first (line 36 on)."""
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "01-a.md").write_text(GOOD + "\n" + body, encoding="utf-8")
    (folder / "02-b.md").write_text(SECOND_LESSON, encoding="utf-8")
    (folder / "03-arvore.md").write_text(
        HEADER.replace("order: 1", "order: 3") + TREE, encoding="utf-8"
    )
    (folder / "imagens").mkdir()
    (folder / "imagens" / "grafico.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return folder


VALID = """\
- term: kernel
  definition: Rotina de baixo nível que computa uma operação.
- term: KV cache
  aliases: [cache dos valores-chave]
  definition: O cache dos valores-chave do modelo.
"""


def rendered_files(monkeypatch) -> list[str]:
    """The names of the lesson files rendered from now on, in order (a disk-cache hit is not a
    render): ``load_lesson`` counted through ``monkeypatch``."""
    import app.content.course as course_module

    seen: list[str] = []
    real = course_module.load_lesson

    def counting(path: Path, glossary=None, raw=None):
        seen.append(path.name)
        return real(path, glossary, raw)

    monkeypatch.setattr(course_module, "load_lesson", counting)
    return seen
