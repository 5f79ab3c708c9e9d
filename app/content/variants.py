"""Numeric variants: a ``numeric`` question with ``params`` is a family of questions, one per
point of its parameter grid (format in ``lessons/README.md``)::

    params:
      banda: [936, 1008, 1792]              # a list
      pesos: {min: 4, max: 16, step: 4}     # a range with a step
    value: banda / pesos                    # the answer, an expression (simpleeval)
    tolerance: 2%                           # a number, a percentage, or an expression
    prompt: Com {{ banda }} GB/s e {{ pesos }} GB de pesos, quantos tokens/s no máximo?

The prompt, the ``legend``, the ``working`` and the ``explanation`` are templates: ``{{ name }}``
is a parameter written as pt-BR writes numbers, and ``{{ value }}`` (in the working and the
explanation) the right answer, rounded to :data:`KEY_DECIMALS` decimals as every page writes
the key. ``{{ name | singular, plural }}`` is the word that agrees with that number, by
Babel's pt_BR plural rule (``{{ bytes }} {{ bytes | byte, bytes }}``: "1 byte", "2 bytes";
the rule's "one" takes the singular, 0 and 1,5 included; any other form the plural). Where a
parameter is written as the values it takes (:func:`label_of`: "1 ou 2"), the word agrees
with the highest ("1 ou 2 bytes"). Every expression is checked on every point of the grid
when the lesson loads, and every ``{{ … }}`` must be one of these two slots (``curso check``
reports ``file:line``). Which variant a learner gets is decided in
:mod:`app.learning.variants`; no HTTP, no database here.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from html import escape
from typing import TYPE_CHECKING

from babel import Locale
from pydantic import Field, model_validator

from app.content.numbers import evaluate, format_number
from app.content.yamlsrc import YamlSpec
from app.i18n import gettext

if TYPE_CHECKING:
    from app.content.quiz import Question

MAX_VARIANTS = 1000
# ``{{ name }}``, or ``{{ name | singular, plural }}`` (the word that agrees with the number).
SLOT = re.compile(
    r"\{\{\s*(?P<name>[a-z][a-z0-9_]*)\s*"
    r"(?:\|\s*(?P<one>[^{}|,]*?[^{}|,\s])\s*,\s*(?P<other>[^{}|,]*?[^{}|,\s])\s*)?\}\}"
)
BRACES = re.compile(r"\{\{.*?\}\}", re.DOTALL)  # anything written as a slot
VALUE_SLOT = "value"  # the right answer, in the working and the explanation
# The key of a variant as every page writes it (the working's ``{{ value }}``, "Valor certo",
# the instructor's preview) and as the Moodle XML export asks Moodle to show it: the course's
# numeric questions ask for "uma ou duas casas decimais".
KEY_DECIMALS = 2
PLURAL = Locale("pt_BR").plural_form


class RangeSpec(YamlSpec):
    """A parameter's values from ``min`` to ``max`` (both included) by ``step``."""

    min: float = Field(allow_inf_nan=False)
    max: float = Field(allow_inf_nan=False)
    step: float = Field(gt=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _order(self) -> RangeSpec:
        if self.max < self.min:
            raise ValueError(gettext("`max` must not be below `min`"))
        return self

    def values(self) -> tuple[float, ...]:
        """Every value of the range, without the float drift of adding ``step`` repeatedly."""
        low, step = Decimal(repr(self.min)), Decimal(repr(self.step))
        count = int((Decimal(repr(self.max)) - low) / step) + 1
        return tuple(float(low + step * n) for n in range(min(count, MAX_VARIANTS + 1)))


ParamSpec = list[float] | RangeSpec


def param_values(spec: ParamSpec) -> tuple[float, ...]:
    """A parameter's values, as written (a list) or spelled out (a range)."""
    return spec.values() if isinstance(spec, RangeSpec) else tuple(spec)


@dataclass(frozen=True)
class Variants:
    """What a question with ``params`` keeps to make each variant.

    Attributes:
        names: the parameters, in the order written.
        grid: every point of the grid (one value per name), in a stable order.
        value: the answer's expression.
        tolerance: the tolerance as written: a number, ``"2%"``, or an expression.
        prompt / legend / working / explanation: the templates (Markdown).
        unit: the unit shown after the input, or ``None``.
        label_html: the legend with each parameter as the values it takes (inline HTML,
            :func:`label_of`): how lists name the question, never one variant's numbers.
    """

    names: tuple[str, ...]
    grid: tuple[tuple[float, ...], ...]
    value: str
    tolerance: str
    prompt: str
    legend: str | None
    working: str
    explanation: str
    unit: str | None = None
    label_html: str = ""

    def __hash__(self) -> int:
        # A few fields of the equality, so equal families hash alike; not the grid (hundreds
        # of tuples): a question is hashed on every variant shown (the key of _instance's cache).
        return hash((self.names, self.value, self.prompt))

    def point(self, index: int) -> dict[str, float]:
        """The parameters of variant ``index`` (taken modulo the grid's size)."""
        return dict(zip(self.names, self.grid[index % len(self.grid)], strict=True))

    def index_of(self, params: Mapping[str, float]) -> int | None:
        """The variant with these parameters, or ``None`` (the question changed since)."""
        point = tuple(params.get(name) for name in self.names)
        return next((i for i, p in enumerate(self.grid) if p == point), None)


def grid_of(
    names: tuple[str, ...], specs: Mapping[str, ParamSpec]
) -> tuple[tuple[float, ...], ...]:
    """Every combination of the parameters' values (the first name varies slowest)."""
    return tuple(itertools.product(*(param_values(specs[name]) for name in names)))


def _as_shown(number: float) -> Decimal:
    """A number as the page shows it, before it is written: four decimals at most, no
    trailing zeros."""
    return Decimal(repr(round(number, 4))).normalize()


def shown(number: float) -> str:
    """A number as the page shows it: pt-BR, at most four decimals, no trailing zeros."""
    return format_number(_as_shown(number))


def shown_key(value: Decimal, places: int = KEY_DECIMALS) -> Decimal:
    """A variant's key as the pages write it: ``places`` decimals at most, rounded half up as
    taught in school (6,125 → 6,13), no trailing zeros.

    Raises:
        decimal.InvalidOperation: a key of 27 digits or more before the comma (``curso
            check`` refuses any key larger than a learner can type, far below that).
    """
    return value.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP).normalize()


def word_for(number: float, one: str, other: str) -> str:
    """``one`` or ``other``, whichever agrees with ``number`` as the page writes it (Babel's
    pt_BR rule: its "one" category takes ``one``, every other category ``other``)."""
    return one if PLURAL(_as_shown(number)) == "one" else other


# The text of a plural slot ``{{ name | one, other }}``: ``word(name, one, other)``.
Word = Callable[[str, str, str], str | None]


def substitute(template: str, write: Callable[[str], str | None], word: Word) -> str:
    """Each slot of ``template`` replaced: ``{{ name }}`` by ``write(name)``, a plural slot
    ``{{ name | one, other }}`` by ``word(name, one, other)`` (either left as written when
    ``None``)."""

    def one(match: re.Match[str]) -> str:
        name, singular, plural = match["name"], match["one"], match["other"]
        written = write(name) if singular is None else word(name, singular, plural)
        return match[0] if written is None else written

    return SLOT.sub(one, template)


def agreeing(count: Callable[[str], float | None]) -> Word:
    """The plural slots' words agreeing with ``count(name)`` (:func:`word_for`); a name
    without a count keeps its slot."""

    def word(name: str, one: str, other: str) -> str | None:
        number = count(name)
        return None if number is None else word_for(number, one, other)

    return word


def fill(template: str, params: Mapping[str, float]) -> str:
    """A template with each ``{{ name }}`` replaced by that number, written pt-BR, and each
    ``{{ name | singular, plural }}`` by the word that agrees with it."""
    return substitute(template, lambda name: shown(params[name]), agreeing(params.__getitem__))


def spread(values: tuple[float, ...]) -> str:
    """The values a parameter takes, as a reader says them: "4", "1 ou 2", else "4 a 16"
    (lowest to highest; a list of pt-BR numbers joined by commas would read "0,1, 0,2")."""
    distinct = sorted(set(values))
    low, high = shown(distinct[0]), shown(distinct[-1])
    if len(distinct) == 1:
        return low
    if len(distinct) == 2:
        return gettext("%(one)s or %(other)s") % {"one": low, "other": high}
    return gettext("%(low)s to %(high)s") % {"low": low, "high": high}


def label_of(
    names: tuple[str, ...], grid: tuple[tuple[float, ...], ...], prompt: str, legend: str | None
) -> str:
    """The legend (inline HTML) of a question with variants as lists name it: each
    ``{{ name }}`` written as the values it takes (:func:`spread`), so the dashboard and
    ``/progresso`` never show the numbers of one variant as if they were the question's."""
    from app.content.quiz import split_prompt

    values = {name: tuple(p[i] for p in grid) for i, name in enumerate(names)}
    said = {name: spread(taken) for name, taken in values.items()}

    def fill_in(text: str) -> str:
        # A plural slot agrees with the highest value, the one written last: "1 ou 2 bytes".
        return substitute(
            text, said.get, agreeing(lambda name: max(values[name]) if name in values else None)
        )

    split = split_prompt(fill_in(prompt), fill_in(legend) if legend else None)
    return split[0] if split else ""


def excerpt_html(
    names: tuple[str, ...], prompt: str, legend: str | None, params: Mapping[str, float]
) -> str:
    """One variant as an instructor reads it in a list of variants (inline HTML): the clauses
    of the legend and the prompt that hold its parameters, filled with its numbers in
    ``<strong>`` ("Uma GPU com **936** GB/s lê **4** GB de pesos por token"). Clauses end at
    ``, ; : . ? !`` before a space; a clause without a parameter not yet shown is left out,
    and ``…`` marks where (before the first clause kept, or between two). A parameter the
    texts do not use ends the excerpt as ``name = value``."""
    from app.content.markdown import plain_text, render_block, render_inline

    # Private-use marks around each number, through Markdown; the opening mark holds the
    # name's position, so two parameters of equal value are two marks.
    start, after, end = "\ue000", "\ue001", "\ue002"
    given = [name for name in names if name in params]
    marked = {name: f"{start}{i}{after}{shown(params[name])}{end}" for i, name in enumerate(given)}

    def fill_in(text: str) -> str:
        return substitute(text, marked.get, agreeing(params.get))

    sources = [plain_text(render_inline(fill_in(legend)))] if legend else []
    sources.append(plain_text(render_block(fill_in(prompt))))
    pieces = re.split(r"([,;:.?!]\s+)", " ".join(sources).rstrip(".?!"))
    left = set(marked.values())
    kept: list[str] = []
    follows = 0  # the clause that would follow the last one kept without a gap
    for i in range(0, len(pieces), 2):
        clause = pieces[i]
        new = {mark for mark in left if mark in clause}
        if not new:
            continue
        left -= new
        if i != follows:
            kept.append(" … " if kept else "… ")
        elif i:
            kept.append(pieces[i - 1])  # the punctuation before it
        kept.append(clause)
        follows = i + 2
    unused = [f"{name} = {mark}" for name, mark in marked.items() if mark in left]
    text = "; ".join(part for part in ("".join(kept), "; ".join(unused)) if part)
    opening = re.compile(f"{start}\\d+{after}")
    return opening.sub("<strong>", escape(text)).replace(end, "</strong>")


def slots(template: str) -> set[str]:
    """The names a template uses, in plain and plural slots."""
    return {match["name"] for match in SLOT.finditer(template)}


def malformed(template: str) -> list[str]:
    """Each ``{{ … }}`` of a template that is no slot (a plural without both forms, a name
    with capitals or accents), as written."""
    return [found[0] for found in BRACES.finditer(template) if not SLOT.fullmatch(found[0])]


def tolerance_of(raw: str, params: Mapping[str, float]) -> tuple[Decimal, bool]:
    """A variant's tolerance: ``(amount, relative)``; an expression is absolute.

    Raises:
        ValueError: negative; or the expression's own errors (see :func:`evaluate`).
    """
    from app.content.quiz import parse_tolerance

    text = raw.strip()
    try:
        return parse_tolerance(text)
    except ValueError:
        if text.endswith("%"):
            raise
    amount = Decimal(repr(round(evaluate(text, params), 6)))
    if amount < 0:
        raise ValueError(gettext("`tolerance` cannot be negative"))
    return amount, False


def key_value(expression: str, params: Mapping[str, float]) -> Decimal:
    """The right answer of a variant (its ``value`` expression), six decimals at most."""
    return Decimal(repr(round(evaluate(expression, params), 6)))


def encode(params: Mapping[str, float]) -> str:
    """A variant's parameters as stored with the attempt (JSON, names sorted)."""
    return json.dumps(dict(params), sort_keys=True, separators=(",", ":"))


def decode(text: str) -> dict[str, float]:
    """The parameters stored with an attempt (empty for a question without variants)."""
    if not text:
        return {}
    data = json.loads(text)
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def instance(question: Question, params: Mapping[str, float]) -> Question:
    """The question as variant ``params`` shows it: prompt, key, working and explanation
    filled in (rendered once per question version and variant)."""
    variants = question.variants
    if variants is None:
        return question
    point = tuple(sorted(params.items()))
    return _instance(question, point)


@lru_cache(maxsize=4096)
def _instance(question: Question, point: tuple[tuple[str, float], ...]) -> Question:
    from app.content.markdown import render_block
    from app.content.quiz import NumericKey, split_prompt

    variants = question.variants
    assert variants is not None  # only called for a question with variants
    params = dict(point)
    value = key_value(variants.value, params)
    tolerance, relative = tolerance_of(variants.tolerance, params)
    with_value = {**params, VALUE_SLOT: float(shown_key(value))}
    legend = fill(variants.legend, params) if variants.legend else None
    legend_html, rest_html = split_prompt(fill(variants.prompt, params), legend) or ("", "")
    working = render_block(fill(variants.working, with_value))
    numeric = NumericKey(value, tolerance, relative, variants.unit, working, places=KEY_DECIMALS)
    return replace(
        question,
        legend_html=legend_html,
        prompt_rest_html=rest_html,
        numeric=numeric,
        explanation_html=render_block(fill(variants.explanation, with_value)),
        variant=encode(params),
    )
