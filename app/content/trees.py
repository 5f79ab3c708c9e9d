"""Decision trees: the YAML model, validation with file:line, and the walk.

A ``decision-tree`` fence holds one tree (format in ``lessons/README.md``). A tree
is a DAG: options of different questions may lead to the same node, but no path
may come back to a node it already passed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field, field_validator

from app.content.errors import ContentError
from app.content.markdown import inline_text, plain_text, render_block, render_inline
from app.content.quiz import ID_PATTERN
from app.content.yamlsrc import (
    Locator,
    YamlSpec,
    is_mapping,
    read_block,
)
from app.i18n import N_, LabeledEnum, gettext

FACET_PATTERN = r"^[a-z][a-z0-9_-]*$"
VALUE_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


class Verdict(LabeledEnum):
    """How a result is judged; the value is the id used in YAML, the label what the learner
    reads ("Recomendado")."""

    RECOMMENDED = "recommended", N_("Recommended")
    ALTERNATIVE = "alternative", N_("Alternative")
    AVOID = "avoid", N_("Do not use")


class OptionSpec(YamlSpec):
    """One option of a question node, as written in YAML."""

    label: str = Field(min_length=1)
    value: list[str] = Field(min_length=1)
    next: str = Field(min_length=1)

    @field_validator("value", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)  # `value: 1` means the text "1"
        return [value] if isinstance(value, str) else value

    @field_validator("value")
    @classmethod
    def _url_safe(cls, values: list[str]) -> list[str]:
        for value in values:
            if not VALUE_RE.fullmatch(value):
                raise ValueError(
                    gettext(
                        "the value `%(value)s` may have only unaccented lowercase letters, "
                        "digits and hyphens"
                    )
                    % {"value": value}
                )
        return values


class QuestionSpec(YamlSpec):
    """A question node, as written in YAML."""

    facet: str = Field(pattern=FACET_PATTERN)
    text: str = Field(min_length=1)
    options: list[OptionSpec]


class ResultSpec(YamlSpec):
    """A result node, as written in YAML."""

    engines: list[str] = Field(min_length=1)
    verdict: Verdict
    why: str = Field(min_length=1)
    note: str | None = None


class TreeSpec(YamlSpec):
    """A whole tree, as written in YAML."""

    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=1)
    short: str | None = None
    source: str = Field(min_length=1)
    start: str = Field(min_length=1)
    facets: dict[str, str] = Field(default_factory=dict)
    questions: dict[str, QuestionSpec] = Field(min_length=1)
    results: dict[str, ResultSpec] = Field(min_length=1)


@dataclass(frozen=True)
class TreeOption:
    """A rendered option.

    Attributes:
        label: the option's plain text, taken from its rendered HTML (for labels, the
            map, announcements, the terminal and JSON).
        values: the facet values that choose this option; ``values[0]`` goes in URLs.
        next: id of the node it leads to.
        label_html: the option as inline HTML (what the learner sees on the button).
        line: 1-based line of the option in its file (0 when unknown), for ``curso check``.
    """

    label: str
    values: tuple[str, ...]
    next: str
    label_html: str = ""
    line: int = 0

    @property
    def value(self) -> str:
        """The canonical value, used in paths and URLs."""
        return self.values[0]


@dataclass(frozen=True)
class TreeQuestion:
    """A question node.

    Attributes:
        facet: the fact about the learner's situation this question asks for.
        text_html: the question, inline HTML.
        text: the question as plain Markdown source (for the terminal and JSON).
        options: the options in the instructor's order.
    """

    id: str
    facet: str
    text_html: str
    text: str
    options: tuple[TreeOption, ...]

    @property
    def text_plain(self) -> str:
        """The question's plain text, from its rendered HTML (announcements, the map)."""
        return plain_text(self.text_html)

    def option_for(self, value: str) -> TreeOption | None:
        """Return the option chosen by facet ``value``, or ``None``."""
        return next((o for o in self.options if value in o.values), None)


@dataclass(frozen=True)
class TreeResult:
    """A result node.

    Attributes:
        engines: engine names; the first is the main recommendation.
        verdict: recommended, alternative or avoid.
        why_html / why: the reason, as HTML and as Markdown source.
        note_html / note: where other texts disagree (may be empty).
        line: 1-based line of its ``engines`` in the file (0 when unknown), for ``curso check``.
    """

    id: str
    engines: tuple[str, ...]
    verdict: Verdict
    why_html: str
    why: str
    note_html: str
    note: str = ""
    line: int = 0

    @property
    def title(self) -> str:
        """Engines joined for display, e.g. ``MLX / MLX-LM``."""
        return " / ".join(self.engines)

    @property
    def main(self) -> str:
        """The main recommendation (the first engine)."""
        return self.engines[0]

    @property
    def also(self) -> tuple[str, ...]:
        """The other engines the text offers for this case."""
        return self.engines[1:]


@dataclass(frozen=True, eq=False)
class Tree:
    """A validated decision tree (compared and hashed by identity).

    Attributes:
        title, source, short: plain text, taken from the rendered inline Markdown.
        start: id of the first question.
        facets: facet id → the facet's name as the learner reads it (plain text).
        questions / results: nodes by id.
        line: 1-based line of the block in its file.
        file: the lesson file it came from.
    """

    id: str
    title: str
    source: str
    start: str
    facets: dict[str, str]
    questions: dict[str, TreeQuestion]
    results: dict[str, TreeResult]
    line: int
    file: Path
    short: str = ""
    title_html: str = ""

    @property
    def name(self) -> str:
        """A short name for comparisons (``short``, else the title)."""
        return self.short or self.title

    def facet_label(self, facet: str) -> str:
        """The facet's readable name (its id when none is given)."""
        return self.facets.get(facet, facet)


def parse_tree(text: str, file: Path, first_line: int) -> tuple[Tree | None, list[ContentError]]:
    """Parse and validate one ``decision-tree`` block.

    Args:
        text: the YAML inside the fence.
        file: the lesson file, for error reports.
        first_line: 1-based file line of the block's first YAML line.

    Returns:
        The tree (``None`` when it has any problem) and every problem found.
    """
    msg = gettext("the `decision-tree` block must be a YAML mapping (`id:`, `title:`, ...)")
    read = read_block(text, file, first_line, TreeSpec.model_validate, (is_mapping, msg))
    if isinstance(read, list):
        return None, read
    spec, at = read
    errors = _check_structure(spec, file, at)
    if errors:
        return None, errors
    return _build(spec, file, first_line, at), []


def _check_structure(spec: TreeSpec, file: Path, at: Locator) -> list[ContentError]:
    errors: list[ContentError] = []

    def problem(where: tuple[int | str, ...], message: str, **values: object) -> None:
        errors.append(ContentError.at(file, at(*where), gettext(message) % values))

    nodes = set(spec.questions) | set(spec.results)
    for node_id in set(spec.questions) & set(spec.results):
        both = N_("the id `%(id)s` is used by a question and by a result")
        problem(("results", node_id), both, id=node_id)
    if spec.start not in spec.questions:
        start = N_("`start` points to `%(id)s`, which is not a question of this tree")
        problem(("start",), start, id=spec.start)
    for qid, question in spec.questions.items():
        if len(question.options) < 2:
            problem(
                ("questions", qid, "options"),
                N_("the question `%(question)s` needs at least two options (it has %(num)s)"),
                question=qid,
                num=len(question.options),
            )
        seen: set[str] = set()
        for i, option in enumerate(question.options):
            for value in option.value:
                if value in seen:
                    problem(
                        ("questions", qid, "options", i, "value"),
                        N_("the value `%(value)s` appears twice in the question `%(question)s`"),
                        value=value,
                        question=qid,
                    )
                seen.add(value)
            if option.next not in nodes:
                problem(
                    ("questions", qid, "options", i, "next"),
                    N_("`next: %(id)s` does not exist in this tree (question `%(question)s`)"),
                    id=option.next,
                    question=qid,
                )
    if errors:
        return errors
    errors.extend(_check_cycles(spec, file, at))
    reachable = _reachable(spec)
    unreachable = {
        "question": N_("the question `%(question)s` is unreachable: no option leads to it"),
        "result": N_("the result `%(result)s` is unreachable: no option leads to it"),
    }
    for kind, ids in (("question", spec.questions), ("result", spec.results)):
        for node_id in ids:
            if node_id not in reachable:
                problem((f"{kind}s", node_id), unreachable[kind], **{kind: node_id})
    return errors


def _reachable(spec: TreeSpec) -> set[str]:
    seen, stack = set(), [spec.start]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node in spec.questions:
            stack.extend(o.next for o in spec.questions[node].options)
    return seen


def _check_cycles(spec: TreeSpec, file: Path, at: Locator) -> list[ContentError]:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    errors: list[ContentError] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for i, option in enumerate(spec.questions[node].options if node in spec.questions else ()):
            nxt = option.next
            if state.get(nxt) == 1:
                path = [*trail, node]
                loop = " → ".join([*path[path.index(nxt) :], nxt])
                msg = gettext("cycle in the tree: %(loop)s") % {"loop": loop}
                where = at("questions", node, "options", i, "next")
                errors.append(ContentError.at(file, where, msg))
            elif nxt not in state:
                visit(nxt, [*trail, node])
        state[node] = 2

    for node in [spec.start, *spec.questions]:
        if node not in state:
            visit(node, [])
    return errors


def _build(spec: TreeSpec, file: Path, line: int, at: Locator) -> Tree:
    questions = {
        qid: TreeQuestion(
            qid,
            q.facet,
            render_inline(q.text),
            q.text,
            tuple(
                TreeOption(
                    inline_text(o.label),
                    tuple(o.value),
                    o.next,
                    render_inline(o.label),
                    at("questions", qid, "options", i)[0],
                )
                for i, o in enumerate(q.options)
            ),
        )
        for qid, q in spec.questions.items()
    }
    results = {
        rid: TreeResult(
            rid,
            tuple(r.engines),
            r.verdict,
            render_block(r.why),
            r.why,
            render_block(r.note) if r.note else "",
            r.note or "",
            at("results", rid, "engines")[0],
        )
        for rid, r in spec.results.items()
    }
    facets = {facet: inline_text(name) for facet, name in spec.facets.items()}
    return Tree(
        spec.id,
        inline_text(spec.title),
        inline_text(spec.source),
        spec.start,
        facets,
        questions,
        results,
        line,
        file,
        inline_text(spec.short) if spec.short else "",
        render_inline(spec.title),
    )
