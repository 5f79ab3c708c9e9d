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
from app.content.markdown import markdown, plain_text, render_block, render_inline
from app.content.yamlsrc import (
    Locator,
    YamlSyntaxError,
    locator,
    parse_yaml,
    syntax_problem,
    validation_problems,
)
from app.i18n import gettext

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
    legend: str | None = Field(default=None, min_length=1)
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
        col: 1-based column of ``tree:``.
        base_hash: the question's version before its key is known; the course adds the
            key with :func:`with_key`, so resolving a lesson twice gives the same version.
    """

    tree_id: str
    facts: tuple[tuple[str, str], ...]
    line: int
    situation: tuple[tuple[str, str], ...] = ()
    values: tuple[str, ...] = ()
    tree_title: str = ""
    result_title: str = ""
    col: int = 1
    base_hash: str = ""


@dataclass(frozen=True)
class Question:
    """A rendered, validated question.

    Attributes:
        id: question id, unique in its lesson.
        kind: ``single`` or ``multiple``.
        legend_html: the question sentence, inline HTML (goes in ``<legend>``): the
            ``legend`` field, else the prompt's first top-level paragraph (see :func:`split_prompt`).
        prompt_rest_html: the rest of the prompt, block HTML, in the author's order (may be empty).
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
    def legend_text(self) -> str:
        """The legend's plain text, from its rendered HTML (labels, lists of questions)."""
        return plain_text(self.legend_html)

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
        return [], [syntax_problem(file, first_line, exc)]
    if not isinstance(source.data, list) or not source.data:
        msg = gettext(
            "the `quiz` block must be a YAML list of questions (each one starts with `- id:`)"
        )
        return [], [ContentError(file, first_line, msg)]
    try:
        specs = _QUESTIONS.validate_python(source.data)
    except ValidationError as exc:
        return [], validation_problems(file, first_line, source, exc)
    at = locator(source, first_line)
    questions, errors = [], []
    for index, spec in enumerate(specs):
        problems = _check_question(spec, file, lambda *path, i=index: at(i, *path))
        errors.extend(problems)
        if not problems:
            questions.append(_render(spec, at(index)[0], at(index, "tree")))
    return questions, errors


def split_prompt(prompt: str, legend: str | None = None) -> tuple[str, str] | None:
    """Split a question's prompt into its legend and the rest, both rendered.

    A prompt may hold any block Markdown (code, lists, tables, quotes). The legend names
    the question (``<legend>``, read first by screen readers): the ``legend`` field when
    the author wrote one (the whole prompt then follows it), else the prompt's first
    top-level paragraph, wherever it stands (a programming question often starts with a
    code block and asks its question after it).

    Args:
        prompt: the prompt's Markdown.
        legend: the ``legend`` field, if any (one line of Markdown).

    Returns:
        ``(legend inline HTML, rest block HTML)``, or ``None`` when there is no legend field
        and the prompt has no paragraph of its own to name the question.
    """
    if legend:
        return render_inline(legend), render_block(prompt)
    md = markdown()
    tokens = md.parse(prompt, {})
    first = next(
        (i for i, t in enumerate(tokens) if t.type == "paragraph_open" and t.level == 0), None
    )
    if first is None:
        return None
    inline = tokens[first + 1]
    # A soft line break is a space in the legend (code spans never hold a newline).
    legend_html = md.renderer.renderInline(inline.children or [], md.options, {}).strip().replace("\n", " ")
    rest = tokens[:first] + tokens[first + 3 :]
    rest_html = md.renderer.render(rest, md.options, {}) if rest else ""
    return legend_html, rest_html


def _check_question(spec: QuestionSpec, file: Path, at: Locator) -> list[ContentError]:
    errors = []
    if split_prompt(spec.prompt, spec.legend) is None:
        msg = gettext(
            "the prompt of the question `%(question)s` has no sentence of its own (only code, "
            "lists, tables or quotes), so nothing names the question for screen readers; add "
            "`legend:` with the question in one line"
        ) % {"question": spec.id}
        errors.append(ContentError.at(file, at("prompt"), msg))
    seen: set[str] = set()
    for i, option in enumerate(spec.options):
        if option.id in seen:
            msg = gettext("the question `%(question)s` repeats the option id `%(option)s`") % {
                "question": spec.id,
                "option": option.id,
            }
            errors.append(ContentError.at(file, at("options", i, "id"), msg))
        seen.add(option.id)
    if spec.kind == "scenario":
        return errors + _check_scenario(spec, file, at)
    for field in ("tree", "facts"):
        if getattr(spec, field) is not None:
            msg = gettext(
                "`%(field)s` is only for `kind: scenario` questions "
                "(the question `%(question)s` is `%(kind)s`)"
            ) % {"field": field, "question": spec.id, "kind": spec.kind}
            errors.append(ContentError.at(file, at(field), msg))
    if not spec.answer:
        msg = gettext("missing required field: `answer` (question `%(question)s`)") % {
            "question": spec.id
        }
        return [*errors, ContentError.at(file, at(), msg)]
    for i, answer in enumerate(spec.answer):
        if answer not in seen:
            msg = gettext(
                "the answer `%(answer)s` of the question `%(question)s` is not an option; "
                "options: %(options)s"
            ) % {"answer": answer, "question": spec.id, "options": ", ".join(sorted(seen))}
            errors.append(ContentError.at(file, at("answer", i), msg))
    if len(set(spec.answer)) != len(spec.answer):
        msg = gettext("`answer` repeats an option in `%(question)s`") % {"question": spec.id}
        errors.append(ContentError.at(file, at("answer"), msg))
    if spec.kind == "single" and len(spec.answer) != 1:
        msg = gettext(
            "the question `%(question)s` is `single` and needs exactly one right answer "
            "(it has %(num)s); use `kind: multiple` for several"
        ) % {"question": spec.id, "num": len(spec.answer)}
        errors.append(ContentError.at(file, at("answer"), msg))
    return errors


def _check_scenario(spec: QuestionSpec, file: Path, at: Locator) -> list[ContentError]:
    errors = []
    if spec.answer is not None:
        msg = gettext(
            "the question `%(question)s` is `scenario`: the answer comes from the tree; "
            "delete `answer`"
        ) % {"question": spec.id}
        errors.append(ContentError.at(file, at("answer"), msg))
    for field in ("tree", "facts"):
        if not getattr(spec, field):
            msg = gettext(
                "missing required field: `%(field)s` (question `%(question)s`, `kind: scenario`)"
            ) % {"field": field, "question": spec.id}
            errors.append(ContentError.at(file, at(), msg))
    for i, option in enumerate(spec.options):
        if not option.engine:
            msg = gettext(
                "every option of a `scenario` question needs `engine` (option `%(option)s`)"
            ) % {"option": option.id}
            errors.append(ContentError.at(file, at("options", i), msg))
    return errors


def _render(spec: QuestionSpec, line: int, tree_at: tuple[int, int]) -> Question:
    legend_html, rest_html = split_prompt(spec.prompt, spec.legend) or ("", "")
    scenario = None
    if spec.kind == "scenario":
        facts = tuple((spec.facts or {}).items())
        scenario = Scenario(spec.tree or "", facts, tree_at[0], col=tree_at[1], base_hash=content_hash(spec))
    return Question(
        id=spec.id,
        kind=spec.kind,
        legend_html=legend_html,
        prompt_rest_html=rest_html,
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
    if spec.legend is not None:  # only when written, so older versions keep their hash
        canonical["legend"] = spec.legend
    if spec.kind == "scenario":  # the key comes later, from the tree: see with_key()
        canonical.update(tree=spec.tree, facts=spec.facts, engines=sorted(str(o.engine) for o in spec.options))
    encoded = json.dumps(canonical, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]


def with_key(question_hash: str, key: frozenset[str]) -> str:
    """The version of a scenario question once its key is known (the tree may change it)."""
    encoded = (question_hash + "|" + ",".join(sorted(key))).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]
