"""Quiz questions: the YAML model, its validation, and the rendered form.

A ``quiz`` fence holds a YAML list of questions (format in ``lessons/README.md``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from decimal import Decimal
from html import escape
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from app.content.errors import ContentError
from app.content.markdown import markdown, plain_text, render_block, render_inline
from app.content.numbers import MAX_MAGNITUDE, NAME_PATTERN, plain_number
from app.content.variants import (
    KEY_DECIMALS,
    MAX_VARIANTS,
    VALUE_SLOT,
    ParamSpec,
    Variants,
    grid_of,
    instance,
    key_value,
    label_of,
    malformed,
    param_values,
    shown_key,
    slots,
    tolerance_of,
)
from app.content.yamlsrc import (
    Locator,
    YamlSpec,
    is_nonempty_list,
    read_block,
)
from app.i18n import N_, gettext, ngettext

ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"


class OptionSpec(YamlSpec):
    """One option as written in YAML."""

    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1)
    explanation: str = Field(min_length=1)
    engine: str | None = None


class WrongValueSpec(YamlSpec):
    """A likely wrong value of a ``numeric`` question, with its own explanation."""

    value: float = Field(allow_inf_nan=False)
    explanation: str = Field(min_length=1)


class HintSpec(YamlSpec):
    """A hint written as a mapping: its text and whether it is the worked answer."""

    text: str = Field(min_length=1)
    worked: bool = False


MAX_HINTS = 3


class ItemSpec(YamlSpec):
    """One item of an ``ordering`` question, as written in YAML (in the right order)."""

    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1)


class QuestionSpec(YamlSpec):
    """One question as written in YAML.

    Choice kinds (``single``, ``multiple``, ``scenario``) have ``options``; ``numeric`` has
    the right number in ``value``, ``tolerance``, ``working`` and ``explanation`` (``unit`` and
    ``wrong`` optional); ``ordering`` has ``items`` in the right order and ``explanation``.
    """

    id: str = Field(pattern=ID_PATTERN)
    kind: Literal["single", "multiple", "scenario", "numeric", "ordering"]
    prompt: str = Field(min_length=1)
    legend: str | None = Field(default=None, min_length=1)
    options: list[OptionSpec] | None = Field(default=None, min_length=2)
    answer: list[str] | None = None
    tree: str | None = None
    facts: dict[str, str] | None = None
    value: Annotated[float, Field(allow_inf_nan=False)] | str | None = None
    params: dict[str, ParamSpec] | None = Field(default=None, min_length=1, max_length=6)
    tolerance: float | str | None = None
    unit: str | None = Field(default=None, min_length=1, max_length=20)
    working: str | None = Field(default=None, min_length=1)
    explanation: str | None = Field(default=None, min_length=1)
    wrong: list[WrongValueSpec] | None = None
    items: list[ItemSpec] | None = Field(default=None, min_length=2, max_length=9)
    concepts: list[str] = Field(default_factory=list, max_length=10)
    hints: list[str | HintSpec] | None = Field(default=None, min_length=1, max_length=MAX_HINTS)


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
class Hint:
    """One progressive hint, shown only once the learner asks for it.

    Attributes:
        number: 1 for the first hint, up to :data:`MAX_HINTS`.
        html: the hint as block HTML.
        worked: the hint is the worked answer (only the last one may be): a right answer
            after it counts as not remembered.
    """

    number: int
    html: str
    worked: bool = False


@dataclass(frozen=True)
class Item:
    """One rendered item of an ``ordering`` question.

    Attributes:
        id: item id, unique in its question.
        text_html: the item text as inline HTML.
    """

    id: str
    text_html: str


@dataclass(frozen=True)
class NumericKey:
    """What a ``numeric`` question accepts.

    Attributes:
        value: the right value.
        tolerance: how far an answer may be from ``value``: absolute, or a fraction of
            ``value`` when ``relative`` (``"2%"`` in YAML is ``Decimal("0.02")``).
        unit: the unit shown after the input (e.g. ``×``, ``tok/s``), or ``None``.
        working_html: how the right value is worked out, as HTML ("64 ÷ 14,5 ≈ 4,41").
        wrong: ``(value, explanation HTML)`` for likely wrong values, matched with the
            same tolerance.
        places: the most decimals the pages write the key with (a variant's key, worked
            out to six); ``None`` writes it as the author did.
    """

    value: Decimal
    tolerance: Decimal
    relative: bool
    unit: str | None
    working_html: str
    wrong: tuple[tuple[Decimal, str], ...] = ()
    places: int | None = None

    @property
    def displayed(self) -> Decimal:
        """The right value as every page writes it ("Valor certo", the instructor's preview):
        a variant's key rounded as its working writes ``{{ value }}``
        (:func:`app.content.variants.shown_key`); graded against :attr:`value` unrounded."""
        return self.value if self.places is None else shown_key(self.value, self.places)

    def accepts(self, answer: Decimal, target: Decimal | None = None) -> bool:
        """True when ``answer`` is within the tolerance of ``target`` (default: the key).

        Args:
            answer: the learner's value.
            target: the value to compare with; the right value when ``None``.
        """
        aim = self.value if target is None else target
        allowed = self.tolerance * abs(aim) if self.relative else self.tolerance
        return abs(answer - aim) <= allowed


@dataclass(frozen=True)
class Question:
    """A rendered, validated question.

    Attributes:
        id: question id, unique in its lesson.
        kind: ``single`` or ``multiple``.
        legend_html: the question sentence, inline HTML (goes in ``<legend>``): the
            ``legend`` field, else the prompt's first top-level paragraph (see
            :func:`split_prompt`).
        prompt_rest_html: the rest of the prompt, block HTML, in the author's order (may be empty).
        options: the options in the order the instructor wrote them.
        answer: ids of the correct options (for ``scenario``, computed by walking the tree).
        line: 1-based line of the question in its file.
        scenario: for ``scenario`` questions, the tree and facts that decide the key.
        content_hash: version of the question: see :func:`content_hash`.
        numeric: for ``numeric`` questions, the key, tolerance, unit and working.
        items: for ``ordering`` questions, the items in the right order.
        explanation_html: for ``numeric`` and ``ordering``, the explanation shown after
            an answer (HTML).
        concepts: the glossary terms (their slugs) the question tests, from ``concepts:``;
            not part of the version (tagging a question does not reset its answers).
        concept_positions: ``(line, column)`` of each tag in the file, for ``curso check``.
        hints: the progressive hints, first to last (empty when the question has none); not
            part of the version, like the explanations.
        variants: for a ``numeric`` question with ``params``, what makes each variant
            (:mod:`app.content.variants`); the question itself is then its first variant.
        variant: the parameters of the variant this is (JSON), or ``""``.
    """

    id: str
    kind: str
    legend_html: str
    prompt_rest_html: str
    options: tuple[Option, ...]
    answer: frozenset[str]
    line: int
    scenario: Scenario | None = None

    content_hash: str = ""
    numeric: NumericKey | None = None
    items: tuple[Item, ...] = ()
    explanation_html: str = ""
    concepts: tuple[str, ...] = ()
    concept_positions: tuple[tuple[int, int], ...] = ()
    hints: tuple[Hint, ...] = ()
    variants: Variants | None = None
    variant: str = ""

    @property
    def legend_text(self) -> str:
        """The legend's plain text, from its rendered HTML (labels, lists of questions)."""
        return plain_text(self.legend_html)

    @property
    def label_html(self) -> str:
        """How lists name the question (the dashboard, ``/progresso``), inline HTML: the
        legend; for a question with variants, the legend with each parameter as the values it
        takes ("936, 1.008 ou 1.792 GB/s") and how many variants there are."""
        if self.variants is None:
            return self.legend_html
        count = len(self.variants.grid)
        many = ngettext("(%(num)s variant)", "(%(num)s variants)", count) % {"num": count}
        return f"{self.variants.label_html} {escape(many)}"

    @property
    def label_text(self) -> str:
        """:attr:`label_html` as plain text (a link's text, a truncated list entry)."""
        return plain_text(self.label_html)

    @property
    def input_type(self) -> str:
        """``checkbox`` for ``multiple``, else ``radio``."""
        return "checkbox" if self.kind == "multiple" else "radio"

    @property
    def order(self) -> tuple[str, ...]:
        """The item ids of an ``ordering`` question in the right order (empty otherwise)."""
        return tuple(item.id for item in self.items)

    def item(self, item_id: str) -> Item | None:
        """Return the ``ordering`` item with ``item_id``, or ``None``."""
        return next((i for i in self.items if i.id == item_id), None)

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
    msg = gettext(
        "the `quiz` block must be a YAML list of questions (each one starts with `- id:`)"
    )
    read = read_block(text, file, first_line, _QUESTIONS.validate_python, (is_nonempty_list, msg))
    if isinstance(read, list):
        return [], read
    specs, at = read
    questions, errors = [], []
    for index, spec in enumerate(specs):
        problems = _check_question(spec, file, lambda *path, i=index: at(i, *path))
        errors.extend(problems)
        if not problems:
            question = _render(spec, at(index)[0], at(index, "tree"))
            positions = tuple(at(index, "concepts", k) for k in range(len(spec.concepts)))
            questions.append(replace(question, concept_positions=positions))
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
    # A soft line break is a space in the legend (code spans never hold a newline). The
    # renderer's render() of an inline token's children is its renderInline(): none of them
    # is an inline token itself.
    legend_source: str = md.renderer.render(inline.children or [], md.options, {})
    legend_html = legend_source.strip().replace("\n", " ")
    rest = tokens[:first] + tokens[first + 3 :]
    rest_html = md.renderer.render(rest, md.options, {}) if rest else ""
    return legend_html, rest_html


def _legend_errors(spec: QuestionSpec, file: Path, at: Locator) -> list[ContentError]:
    errors = []
    if split_prompt(spec.prompt, spec.legend) is None:
        msg = gettext(
            "the prompt of the question `%(question)s` has no sentence of its own (only code, "
            "lists, tables or quotes), so nothing names the question for screen readers; add "
            "`legend:` with the question in one line"
        ) % {"question": spec.id}
        errors.append(ContentError.at(file, at("prompt"), msg))
    return errors


NUMERIC_FIELDS = ("value", "tolerance", "unit", "working", "wrong", "params")
KIND_FIELDS = {
    "numeric": {"value", "tolerance", "unit", "working", "wrong", "explanation", "params"},
    "ordering": {"items", "explanation"},
    "scenario": {"options", "tree", "facts", "answer"},  # `answer` gets its own message there
    "single": {"options", "answer"},
    "multiple": {"options", "answer"},
}
_PER_KIND = ("options", "answer", "tree", "facts", *NUMERIC_FIELDS, "explanation", "items")


def _misplaced(spec: QuestionSpec, file: Path, at: Locator) -> list[ContentError]:
    """A field that the question's kind does not take (``items`` on a ``single``…)."""
    errors = []
    for field in _PER_KIND:
        if getattr(spec, field) is not None and field not in KIND_FIELDS[spec.kind]:
            kinds = sorted(kind for kind, fields in KIND_FIELDS.items() if field in fields)
            msg = gettext(
                "`%(field)s` is only for questions of kind %(kinds)s "
                "(the question `%(question)s` is `%(kind)s`)"
            ) % {
                "field": field,
                "kinds": ", ".join(f"`{kind}`" for kind in kinds),
                "question": spec.id,
                "kind": spec.kind,
            }
            errors.append(ContentError.at(file, at(field), msg))
    return errors


def _missing(
    spec: QuestionSpec, file: Path, at: Locator, fields: tuple[str, ...]
) -> list[ContentError]:
    errors = []
    for field in fields:
        if getattr(spec, field) is None:
            msg = gettext(
                "missing required field: `%(field)s` (question `%(question)s`, `kind: %(kind)s`)"
            ) % {"field": field, "question": spec.id, "kind": spec.kind}
            errors.append(ContentError.at(file, at(), msg))
    return errors


def _hint_errors(spec: QuestionSpec, file: Path, at: Locator) -> list[ContentError]:
    """Only the last hint may be the worked answer: the hints go from light to complete."""
    errors = []
    hints = spec.hints or []
    for i, hint in enumerate(hints[:-1]):
        if isinstance(hint, HintSpec) and hint.worked:
            msg = gettext(
                "only the last hint of the question `%(question)s` may be the worked answer "
                "(`worked: true`); hints go from the lightest to the most complete"
            ) % {"question": spec.id}
            errors.append(ContentError.at(file, at("hints", i), msg))
    return errors


def _check_question(spec: QuestionSpec, file: Path, at: Locator) -> list[ContentError]:
    errors = _legend_errors(spec, file, at) + _hint_errors(spec, file, at)
    if spec.kind == "numeric":
        return errors + _check_numeric(spec, file, at)
    if spec.kind == "ordering":
        return errors + _check_ordering(spec, file, at)
    errors += _misplaced(spec, file, at)
    if spec.options is None:
        return [*errors, *_missing(spec, file, at, ("options",))]
    repeated = N_("the question `%(question)s` repeats the option id `%(option)s`")
    errors += _repeated_ids(spec, "options", repeated, file, at)
    if spec.kind == "scenario":
        return errors + _check_scenario(spec, file, at)
    if not spec.answer:
        msg = gettext("missing required field: `answer` (question `%(question)s`)") % {
            "question": spec.id
        }
        return [*errors, ContentError.at(file, at(), msg)]
    seen = {option.id for option in spec.options}
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
    for i, option in enumerate(spec.options or ()):
        if not option.engine:
            msg = gettext(
                "every option of a `scenario` question needs `engine` (option `%(option)s`)"
            ) % {"option": option.id}
            errors.append(ContentError.at(file, at("options", i), msg))
    return errors


def parse_tolerance(raw: float | str) -> tuple[Decimal, bool]:
    """Read a ``tolerance``: a number (absolute) or a percentage such as ``"2%"`` (relative).

    Returns:
        ``(tolerance, relative)``; a relative tolerance is a fraction (``"2%"`` → ``0.02``).

    Raises:
        ValueError: not a number or percentage, or negative; the message is from the catalog.
    """
    text = str(raw).strip()
    relative = text.endswith("%")
    try:
        amount = Decimal(text.removesuffix("%").strip().replace(",", "."))
    except ArithmeticError as exc:
        raise ValueError(
            gettext(
                "`tolerance` must be a number (absolute, e.g. `0.05`) "
                "or a percentage (relative, e.g. `2%`)"
            )
        ) from exc
    if not amount.is_finite() or amount < 0:
        raise ValueError(gettext("`tolerance` cannot be negative"))
    return (amount / 100 if relative else amount), relative


def _check_numeric(spec: QuestionSpec, file: Path, at: Locator) -> list[ContentError]:
    errors = _misplaced(spec, file, at)
    errors += _missing(spec, file, at, ("value", "tolerance", "working", "explanation"))
    if spec.params is not None or isinstance(spec.value, str):
        return errors or _check_variants(spec, file, at)
    if spec.tolerance is not None:
        try:
            tolerance, relative = parse_tolerance(spec.tolerance)
        except ValueError as exc:
            return [*errors, ContentError.at(file, at("tolerance"), str(exc))]
        if errors or spec.value is None:
            return errors
        assert not isinstance(spec.value, str)  # an expression goes to _check_variants
        key = NumericKey(_decimal(spec.value), tolerance, relative, spec.unit, "")
        for i, wrong in enumerate(spec.wrong or ()):
            if key.accepts(_decimal(wrong.value)):
                msg = gettext(
                    "the wrong value %(wrong)s of the question `%(question)s` is within the "
                    "tolerance of the right value %(value)s: a learner who types it is graded right"
                ) % {"wrong": wrong.value, "question": spec.id, "value": spec.value}
                errors.append(ContentError.at(file, at("wrong", i, "value"), msg))
    return errors


def _variant_names(spec: QuestionSpec) -> tuple[str, ...]:
    return tuple(spec.params or {})


def _check_variants(spec: QuestionSpec, file: Path, at: Locator) -> list[ContentError]:
    """A question with ``params``: names, grid size, templates and every expression on every
    point of the grid (the first failing point is named)."""
    question = {"question": spec.id}
    if spec.params is None:
        msg = (
            gettext(
                "`value` of the question `%(question)s` is an expression but the question has no "
                "`params`; write a number, or add `params`"
            )
            % question
        )
        return [ContentError.at(file, at("value"), msg)]
    errors = []
    if spec.wrong:
        msg = (
            gettext(
                "the question `%(question)s` has `params`: its `wrong` values would change with "
                "each variant; leave `wrong` out"
            )
            % question
        )
        errors.append(ContentError.at(file, at("wrong"), msg))
    names = _variant_names(spec)
    for name in names:
        if not re.match(NAME_PATTERN, name) or name == VALUE_SLOT:
            msg = gettext(
                "the parameter `%(name)s` of the question `%(question)s` must be lowercase "
                "letters, digits and `_`, start with a letter, and not be `value`"
            ) % {"name": name, **question}
            errors.append(ContentError.at(file, at("params", name), msg))
    if errors:
        return errors
    grid = grid_of(names, spec.params)
    if not grid or len(grid) > MAX_VARIANTS:
        msg = gettext(
            "the parameters of the question `%(question)s` make %(num)s variants; write "
            "between 1 and %(max)s"
        ) % {"num": len(grid), "max": MAX_VARIANTS, **question}
        return [ContentError.at(file, at("params"), msg)]
    known = set(names)
    templates = {"prompt": spec.prompt, "legend": spec.legend or ""}
    answered = {"working": spec.working or "", "explanation": spec.explanation or ""}
    for field, template in {**templates, **answered}.items():
        for written in malformed(template):
            msg = gettext(
                "`%(written)s` in `%(field)s` of the question `%(question)s` is no slot: write "
                "`{{ name }}` for a number, or `{{ name | singular, plural }}` for the word "
                "that agrees with it (e.g. `{{ bytes | byte, bytes }}`)"
            ) % {"written": written, "field": field, **question}
            errors.append(ContentError.at(file, at(field), msg))
        allowed = known | ({VALUE_SLOT} if field in answered else set())
        for name in sorted(slots(template) - allowed):
            msg = gettext(
                "`{{ %(name)s }}` in `%(field)s` of the question `%(question)s` is no "
                "parameter; parameters: %(names)s"
            ) % {"name": name, "field": field, "names": ", ".join(names), **question}
            errors.append(ContentError.at(file, at(field), msg))
    value = str(spec.value)
    for point in grid:
        params = dict(zip(names, point, strict=True))
        where = ", ".join(f"{n} = {v:g}" for n, v in params.items())
        try:
            right = key_value(value, params)
        except Exception as exc:  # noqa: BLE001 - simpleeval raises many kinds; each is reported
            msg = gettext(
                "`value` of the question `%(question)s` fails for %(where)s: %(reason)s"
            ) % {"where": where, "reason": _reason(exc), **question}
            return [*errors, ContentError.at(file, at("value"), msg)]
        try:
            tolerance, relative = tolerance_of(str(spec.tolerance), params)
        except Exception as exc:  # noqa: BLE001 - as above
            msg = gettext(
                "`tolerance` of the question `%(question)s` fails for %(where)s: %(reason)s"
            ) % {"where": where, "reason": _reason(exc), **question}
            return [*errors, ContentError.at(file, at("tolerance"), msg)]
        if relative and right == 0:
            msg = gettext(
                "the question `%(question)s` has a relative tolerance, but its answer is 0 for "
                "%(where)s: no answer could be right; use an absolute tolerance"
            ) % {"where": where, **question}
            return [*errors, ContentError.at(file, at("tolerance"), msg)]
        if not relative and right != 0 and tolerance >= abs(right):
            msg = gettext(
                "the tolerance of the question `%(question)s` is as large as its answer for "
                "%(where)s: 0 would be graded right"
            ) % {"where": where, **question}
            return [*errors, ContentError.at(file, at("tolerance"), msg)]
        if right.adjusted() > MAX_MAGNITUDE:
            msg = gettext(
                "the right value of the question `%(question)s` for %(where)s is %(value)s, "
                "larger than a learner can type (%(digits)s digits before the decimal point at "
                "most): change the units so the answer is smaller"
            ) % {
                "where": where,
                "value": plain_number(right),
                "digits": MAX_MAGNITUDE + 1,
                **question,
            }
            return [*errors, ContentError.at(file, at("value"), msg)]
        rounded = shown_key(right)
        if not NumericKey(right, tolerance, relative, None, "").accepts(rounded):
            msg = gettext(
                "the right value of the question `%(question)s` for %(where)s is %(value)s, "
                "written on the page with at most %(num)s decimals as %(written)s, outside its "
                "tolerance: change the units so the answer needs fewer decimals"
            ) % {
                "where": where,
                "value": plain_number(right),
                "num": KEY_DECIMALS,
                "written": plain_number(rounded),
                **question,
            }
            return [*errors, ContentError.at(file, at("value"), msg)]
    return errors


def _reason(exc: Exception) -> str:
    if isinstance(exc, ZeroDivisionError):
        return gettext("division by zero")
    if isinstance(exc, OverflowError):
        return gettext("the result is not a finite number")
    if isinstance(exc, TypeError):
        return gettext("the result is not a number")
    return gettext("invalid expression (%(detail)s)") % {"detail": str(exc)[:120]}


def _check_ordering(spec: QuestionSpec, file: Path, at: Locator) -> list[ContentError]:
    errors = _misplaced(spec, file, at) + _missing(spec, file, at, ("items", "explanation"))
    repeated = N_("the question `%(question)s` repeats the item id `%(item)s`")
    return errors + _repeated_ids(spec, "items", repeated, file, at)


def _repeated_ids(
    spec: QuestionSpec, field: str, repeated: str, file: Path, at: Locator
) -> list[ContentError]:
    """A problem for each option or item (``field``: ``options`` or ``items``) whose id an
    earlier one of the question has; ``repeated`` is a message id with ``%(question)s`` and
    ``%(option)s`` or ``%(item)s`` (the field's singular)."""
    errors: list[ContentError] = []
    seen: set[str] = set()
    for i, entry in enumerate(getattr(spec, field) or ()):
        if entry.id in seen:
            msg = gettext(repeated) % {"question": spec.id, field.removesuffix("s"): entry.id}
            errors.append(ContentError.at(file, at(field, i, "id"), msg))
        seen.add(entry.id)
    return errors


def _decimal(number: float) -> Decimal:
    """A YAML float as the decimal its author wrote (``4.41`` → ``Decimal("4.41")``)."""
    return Decimal(repr(number))


def _render(spec: QuestionSpec, line: int, tree_at: tuple[int, int]) -> Question:
    question = _render_one(spec, line, tree_at)
    if question.variants is None:
        return question
    return instance(question, question.variants.point(0))  # the page before any learner


def _render_one(spec: QuestionSpec, line: int, tree_at: tuple[int, int]) -> Question:
    legend_html, rest_html = split_prompt(spec.prompt, spec.legend) or ("", "")
    scenario = None
    if spec.kind == "scenario":
        facts = tuple((spec.facts or {}).items())
        scenario = Scenario(
            spec.tree or "", facts, tree_at[0], col=tree_at[1], base_hash=content_hash(spec)
        )
    numeric = None
    variants = None
    if spec.kind == "numeric" and spec.params is not None:
        names = _variant_names(spec)
        grid = grid_of(names, spec.params)
        variants = Variants(
            names,
            grid,
            str(spec.value),
            str(spec.tolerance),
            spec.prompt,
            spec.legend,
            spec.working or "",
            spec.explanation or "",
            spec.unit,
            label_of(names, grid, spec.prompt, spec.legend),
        )
    elif spec.kind == "numeric" and spec.value is not None and spec.tolerance is not None:
        assert not isinstance(spec.value, str)  # an expression needs params (checked)
        tolerance, relative = parse_tolerance(spec.tolerance)
        numeric = NumericKey(
            _decimal(spec.value),
            tolerance,
            relative,
            spec.unit,
            render_block(spec.working or ""),
            tuple((_decimal(w.value), render_block(w.explanation)) for w in spec.wrong or ()),
        )
    return Question(
        id=spec.id,
        kind=spec.kind,
        legend_html=legend_html,
        prompt_rest_html=rest_html,
        options=tuple(
            Option(o.id, render_inline(o.text), render_block(o.explanation), o.engine)
            for o in spec.options or ()
        ),
        answer=frozenset(spec.answer or ()),
        line=line,
        scenario=scenario,
        content_hash=content_hash(spec),
        numeric=numeric,
        items=tuple(Item(item.id, render_inline(item.text)) for item in spec.items or ()),
        explanation_html=render_block(spec.explanation) if spec.explanation else "",
        concepts=tuple(spec.concepts),
        hints=tuple(_hint(number, hint) for number, hint in enumerate(spec.hints or (), 1)),
        variants=variants,
    )


def _hint(number: int, hint: str | HintSpec) -> Hint:
    if isinstance(hint, str):
        return Hint(number, render_block(hint))
    return Hint(number, render_block(hint.text), hint.worked)


def content_hash(spec: QuestionSpec) -> str:
    """Return the version of a question: a hash of its prompt, options and key.

    For ``numeric``, the key is the value, tolerance and unit; for ``ordering``, the items
    in their order. The working and the explanations stay out, like option explanations.

    Options count by id and text, in any order (the page shuffles them anyway);
    explanations are left out, so fixing an explanation does not mark the question changed.

    Returns:
        16 hex characters of a SHA-256 over the canonical JSON of those fields.
    """
    canonical: dict[str, object] = {
        "prompt": spec.prompt,
        "options": sorted([option.id, option.text] for option in spec.options or ()),
        "answer": sorted(spec.answer or ()),
    }
    if spec.legend is not None:  # only when written, so older versions keep their hash
        canonical["legend"] = spec.legend
    if spec.kind == "numeric":  # the key is the value, its tolerance and its unit
        canonical.update(value=spec.value, tolerance=str(spec.tolerance), unit=spec.unit)
        if spec.params is not None:  # ...and, for variants, the grid the value is worked over
            canonical["params"] = {
                name: list(param_values(values)) for name, values in spec.params.items()
            }
    if spec.kind == "ordering":  # the key is the order the items are written in
        canonical.update(items=[[item.id, item.text] for item in spec.items or ()])
    if spec.kind == "scenario":  # the key comes later, from the tree: see with_key()
        canonical.update(
            tree=spec.tree,
            facts=spec.facts,
            engines=sorted(str(o.engine) for o in spec.options or ()),
        )
    encoded = json.dumps(canonical, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]


def with_key(question_hash: str, key: frozenset[str]) -> str:
    """The version of a scenario question once its key is known (the tree may change it)."""
    encoded = (question_hash + "|" + ",".join(sorted(key))).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]
