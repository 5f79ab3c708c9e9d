"""Quiz questions: the YAML model, its validation, and the rendered form.

A ``quiz`` fence holds a YAML list of questions (format in ``lessons/README.md``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from app.content.errors import ContentError
from app.content.markdown import render_block, render_inline
from app.content.yamlsrc import (
    YamlSource,
    YamlSyntaxError,
    line_of,
    parse_yaml,
    pydantic_messages,
)

ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"


class OptionSpec(BaseModel):
    """One option as written in YAML."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1)
    explanation: str = Field(min_length=1)
    engine: str | None = None


class QuestionSpec(BaseModel):
    """One question as written in YAML."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    id: str = Field(pattern=ID_PATTERN)
    kind: Literal["single", "multiple", "scenario"]
    prompt: str = Field(min_length=1)
    options: list[OptionSpec] = Field(min_length=2)
    answer: list[str] | None = None
    tree: str | None = None
    facts: dict[str, str] | None = None


_QUESTIONS = TypeAdapter(list[QuestionSpec])


@dataclass(frozen=True)
class Option:
    """A rendered option.

    Attributes:
        id: option id, unique in its question.
        text_html: the option text as inline HTML.
        explanation_html: why this option is right or wrong, as HTML.
    """

    id: str
    text_html: str
    explanation_html: str
    engine: str | None = None


@dataclass(frozen=True)
class Scenario:
    """What a ``scenario`` question asks: walk ``tree_id`` with ``facts``.

    Attributes:
        tree_id: the decision tree that holds the key.
        facts: facet → value, the learner's situation.
        line: 1-based line of ``tree:`` in the file, for error reports.
        situation: ``(facet name, option label)`` for each question the walk answers
            (filled when the course resolves it).
        values: the option values of that walk, for a link to the map.
        tree_title: the tree's title.
        result_title: the engines of the result reached.
    """

    tree_id: str
    facts: tuple[tuple[str, str], ...]
    line: int
    situation: tuple[tuple[str, str], ...] = ()
    values: tuple[str, ...] = ()
    tree_title: str = ""
    result_title: str = ""


@dataclass(frozen=True)
class Question:
    """A rendered, validated question.

    Attributes:
        id: question id, unique in its lesson.
        kind: ``single`` or ``multiple``.
        legend_html: first paragraph of the prompt, inline HTML (goes in ``<legend>``).
        prompt_rest_html: the rest of the prompt, block HTML (may be empty).
        options: the options in the order the instructor wrote them.
        answer: ids of the correct options (for ``scenario``, computed by walking the tree).
        line: 1-based line of the question in its file.
        scenario: for ``scenario`` questions, the tree and facts that decide the key.
        content_hash: version of the question: see :func:`content_hash`.
    """

    id: str
    kind: str
    legend_html: str
    prompt_rest_html: str
    options: tuple[Option, ...]
    answer: frozenset[str]
    line: int
    scenario: Scenario | None = None

    @property
    def input_type(self) -> str:
        """``checkbox`` for ``multiple``, else ``radio``."""
        return "checkbox" if self.kind == "multiple" else "radio"
    content_hash: str = ""

    def option(self, option_id: str) -> Option | None:
        """Return the option with ``option_id``, or ``None``."""
        return next((o for o in self.options if o.id == option_id), None)


def parse_quiz(text: str, file: Path, first_line: int) -> tuple[list[Question], list[ContentError]]:
    """Parse and validate one ``quiz`` block.

    Args:
        text: the YAML inside the fence.
        file: the lesson file, for error reports.
        first_line: 1-based file line of the block's first YAML line.

    Returns:
        The valid questions and the problems found; a question with a problem is left out.
    """
    try:
        source = parse_yaml(text)
    except YamlSyntaxError as exc:
        return [], [ContentError(file, first_line + exc.line, exc.message)]
    if not isinstance(source.data, list) or not source.data:
        msg = "o bloco `quiz` deve ser uma lista YAML de perguntas (cada uma começa com `- id:`)"
        return [], [ContentError(file, first_line, msg)]
    try:
        specs = _QUESTIONS.validate_python(source.data)
    except ValidationError as exc:
        return [], [
            ContentError(file, first_line + line_of(source.node, loc), message)
            for loc, message in pydantic_messages(exc)
        ]
    questions, errors = [], []
    for index, spec in enumerate(specs):
        problems = _check_question(spec, index, source, file, first_line)
        errors.extend(problems)
        if not problems:
            line = first_line + line_of(source.node, (index,))
            questions.append(_render(spec, line, first_line + line_of(source.node, (index, "tree"))))
    return questions, errors


def _check_question(
    spec: QuestionSpec, index: int, source: YamlSource, file: Path, first_line: int
) -> list[ContentError]:
    def at(*path: int | str) -> int:
        return first_line + line_of(source.node, (index, *path))

    errors = []
    seen: set[str] = set()
    for i, option in enumerate(spec.options):
        if option.id in seen:
            msg = f"a pergunta `{spec.id}` repete o id de opção `{option.id}`"
            errors.append(ContentError(file, at("options", i, "id"), msg))
        seen.add(option.id)
    if spec.kind == "scenario":
        return errors + _check_scenario(spec, file, at)
    for field in ("tree", "facts"):
        if getattr(spec, field) is not None:
            msg = f"`{field}` só vale para perguntas `kind: scenario` (a pergunta `{spec.id}` é `{spec.kind}`)"
            errors.append(ContentError(file, at(field), msg))
    if not spec.answer:
        return [*errors, ContentError(file, at(), f"campo obrigatório ausente: `answer` (pergunta `{spec.id}`)")]
    for i, answer in enumerate(spec.answer):
        if answer not in seen:
            msg = (
                f"a resposta `{answer}` da pergunta `{spec.id}` não é uma opção; "
                f"opções: {', '.join(sorted(seen))}"
            )
            errors.append(ContentError(file, at("answer", i), msg))
    if len(set(spec.answer)) != len(spec.answer):
        errors.append(ContentError(file, at("answer"), f"`answer` repete uma opção em `{spec.id}`"))
    if spec.kind == "single" and len(spec.answer) != 1:
        msg = (
            f"a pergunta `{spec.id}` é `single` e precisa de exatamente uma resposta correta "
            f"(tem {len(spec.answer)}); use `kind: multiple` para várias"
        )
        errors.append(ContentError(file, at("answer"), msg))
    return errors


def _check_scenario(spec: QuestionSpec, file: Path, at) -> list[ContentError]:
    errors = []
    if spec.answer is not None:
        msg = f"a pergunta `{spec.id}` é `scenario`: a resposta vem da árvore; apague `answer`"
        errors.append(ContentError(file, at("answer"), msg))
    for field in ("tree", "facts"):
        if not getattr(spec, field):
            errors.append(ContentError(file, at(), f"campo obrigatório ausente: `{field}` (pergunta `{spec.id}`, `kind: scenario`)"))
    for i, option in enumerate(spec.options):
        if not option.engine:
            msg = f"cada opção de uma pergunta `scenario` precisa de `engine` (opção `{option.id}`)"
            errors.append(ContentError(file, at("options", i), msg))
    return errors


def _render(spec: QuestionSpec, line: int, tree_line: int) -> Question:
    first, _, rest = spec.prompt.partition("\n\n")
    scenario = None
    if spec.kind == "scenario":
        scenario = Scenario(spec.tree or "", tuple((spec.facts or {}).items()), tree_line)
    return Question(
        id=spec.id,
        kind=spec.kind,
        legend_html=render_inline(" ".join(first.split("\n"))),
        prompt_rest_html=render_block(rest) if rest.strip() else "",
        options=tuple(
            Option(o.id, render_inline(o.text), render_block(o.explanation), o.engine)
            for o in spec.options
        ),
        answer=frozenset(spec.answer or ()),
        line=line,
        scenario=scenario,
        content_hash=content_hash(spec),
    )


def content_hash(spec: QuestionSpec) -> str:
    """Return the version of a question: a hash of its prompt, options and key.

    Options count by id and text, in any order (the page shuffles them anyway);
    explanations are left out, so fixing an explanation does not mark the question changed.

    Args:
        spec: the validated question.

    Returns:
        16 hex characters of a SHA-256 over the canonical JSON of those fields.
    """
    canonical = {
        "prompt": spec.prompt,
        "options": sorted([option.id, option.text] for option in spec.options),
        "answer": sorted(spec.answer or ()),
    }
    if spec.kind == "scenario":  # the key comes later, from the tree: see with_key()
        canonical.update(tree=spec.tree, facts=spec.facts, engines=sorted(str(o.engine) for o in spec.options))
    encoded = json.dumps(canonical, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]


def with_key(question_hash: str, key: frozenset[str]) -> str:
    """The version of a scenario question once its key is known (the tree may change it)."""
    encoded = (question_hash + "|" + ",".join(sorted(key))).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]
