"""A new lesson file from a template (``curso nova``): a unique slug and the next order."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from pathlib import Path

from app.content.course import Course, lesson_files, slug_from_filename
from app.content.markdown import slugify
from app.i18n import gettext

SLUG_MAX = 80
TEMPLATE = """\
---
title: {title}
slug: {slug}
order: {order}
summary: "Resumo de uma ou duas frases, mostrado no índice das lições."
minutes: 10
objectives:
  - "O que o aluno sabe fazer ao terminar esta lição."
draft: true
---

## Primeira seção

Escreva aqui o texto da lição em Markdown. O formato (caixas de destaque, quizzes,
árvores de decisão, gráficos) está em `lessons/README.md`.

::: tip
Uma caixa de destaque: os tipos são `tip`, `warning` e `danger`.
:::

## Quiz

```quiz
- id: primeira-pergunta
  kind: single
  prompt: Escreva aqui a pergunta.
  options:
    - id: a
      text: Uma opção errada.
      explanation: Errado. Diga por que esta opção não serve.
    - id: b
      text: A opção certa.
      explanation: Certo. Diga por que esta é a resposta.
    - id: c
      text: Outra opção errada.
      explanation: Errado. Pelo menos três opções, para o chute não ficar fácil.
  answer: [b]
```
"""


class TitleError(ValueError):
    """A title that cannot give a slug; ``str(exc)`` is the message in Portuguese."""


def unique_slug(title: str, taken: Collection[str]) -> str:
    """The slug of ``title`` with accents folded (“Decodificação” → ``decodificacao``).

    Never one in ``taken``.

    A slug already used gets ``-2``, ``-3``... Long titles are cut at a word, to
    :data:`SLUG_MAX` characters.

    Raises:
        TitleError: the title has no letter or digit.
    """
    if not any(character.isalnum() for character in title):
        raise TitleError(gettext("The title needs at least one letter or digit."))
    base = slugify(title)
    if len(base) > SLUG_MAX:
        base = base[:SLUG_MAX].rsplit("-", 1)[0]
    slug, number = base, 1
    while slug in taken:
        number += 1
        slug = f"{base}-{number}"
    return slug


def lesson_text(title: str, slug: str, order: int) -> str:
    """The template filled in: a lesson that ``curso check`` accepts as it is, marked
    ``draft: true`` (learners see it once an instructor publishes it)."""
    return TEMPLATE.format(
        title=json.dumps(title.strip(), ensure_ascii=False), slug=slug, order=order
    )


def new_lesson(folder: Path, title: str, course: Course) -> Path:
    """Write a new lesson file in ``folder`` and return its path.

    The slug is unique among the lessons served, the files that failed to load and the
    file names; the order comes after every lesson and every numbered file name.

    Raises:
        TitleError: the title has no letter or digit.
    """
    files = lesson_files(folder)
    course = course.with_drafts
    taken = {lesson.slug for lesson in course.lessons} | set(course.unavailable)
    taken |= {slug_from_filename(path) for path in files}
    slug = unique_slug(title, taken)
    numbers = [int(m.group()) for path in files if (m := re.match(r"\d+", path.name))]
    order = max([lesson.meta.order for lesson in course.lessons] + numbers + [0]) + 1
    path = folder / f"{order:02d}-{slug}.md"
    path.write_text(lesson_text(title, slug, order), encoding="utf-8")
    return path
