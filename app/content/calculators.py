"""``calculadora`` blocks: a small calculator an author defines in a lesson.

Named inputs (unit, default, min, max) and outputs, each an expression over the inputs,
evaluated on the server by ``simpleeval`` (never ``eval``) with a whitelist of functions.
Every expression is checked when the lesson loads (``curso check`` reports ``file:line``);
a division by zero or an input out of range gives a message in Portuguese, never a 500.
Format in ``lessons/README.md``.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

from markupsafe import Markup
from pydantic import Field, TypeAdapter, model_validator
from simpleeval import InvalidExpression

from app.content.errors import ContentError
from app.content.markdown import plain_text, render_inline
from app.content.numbers import (
    FUNCTIONS,
    NAME_PATTERN,
    AnswerError,
    evaluate,
    format_number,
    parse_number,
)
from app.content.yamlsrc import (
    YamlSpec,
    read_block,
)
from app.i18n import gettext

FIELD = "calculadora"  # the query field naming the calculator a GET form sends
ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"


class InputSpec(YamlSpec):
    """One input as written in YAML."""

    name: str = Field(pattern=NAME_PATTERN, max_length=30)
    label: str = Field(min_length=1)
    unit: str = Field(default="", max_length=20)
    default: float = Field(allow_inf_nan=False)
    min: float = Field(allow_inf_nan=False)
    max: float = Field(allow_inf_nan=False)

    @model_validator(mode="after")
    def _range(self) -> InputSpec:
        if not self.min <= self.default <= self.max:
            raise ValueError(gettext("`default` must be between `min` and `max`"))
        return self


class OutputSpec(YamlSpec):
    """One output as written in YAML."""

    label: str = Field(min_length=1)
    unit: str = Field(default="", max_length=20)
    formula: str = Field(min_length=1, max_length=300)
    words: str = Field(min_length=1)


class CalculatorSpec(YamlSpec):
    """A ``calculadora`` block as written in YAML."""

    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=1)
    inputs: list[InputSpec] = Field(min_length=1, max_length=8)
    outputs: list[OutputSpec] = Field(min_length=1, max_length=6)


_CALCULATOR = TypeAdapter(CalculatorSpec)


@dataclass(frozen=True)
class Input:
    """A calculator input: ``name`` is its form field and its name in formulas."""

    name: str
    label_html: str
    unit: str
    default: Decimal
    min: Decimal
    max: Decimal


@dataclass(frozen=True)
class Output:
    """A calculator output: the expression and the formula in words (inline HTML)."""

    label_html: str
    unit: str
    formula: str
    words_html: str


@dataclass(frozen=True)
class Calculator:
    """A validated calculator.

    Attributes:
        id: unique in the lesson; the anchor is ``calculadora-<id>``.
        title_html: its title, inline HTML.
        inputs / outputs: as the author wrote them.
        line: 1-based line of the block in the file.
    """

    id: str
    title_html: str
    inputs: tuple[Input, ...]
    outputs: tuple[Output, ...]
    line: int

    @property
    def anchor(self) -> str:
        """The calculator's id in the page."""
        return f"calculadora-{self.id}"


@dataclass(frozen=True)
class Result:
    """What a calculator shows for some input values.

    Attributes:
        typed: each input's value as shown in the form.
        errors: a message in Portuguese per input that was refused, by input name.
        values: each output's value formatted pt-BR, or ``None`` when it could not be worked out.
        problem: why the outputs could not be worked out (division by zero...), or ``""``.
    """

    typed: dict[str, str]
    errors: dict[str, str]
    values: tuple[str | None, ...]
    problem: str = ""


def _names_and_calls(formula: str) -> tuple[set[str], set[str]]:
    tree = ast.parse(formula, mode="eval")
    calls = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} - calls
    return names, calls


def parse_calculator(
    text: str, file: Path, first_line: int
) -> tuple[Calculator | None, list[ContentError]]:
    """Parse and check one ``calculadora`` block.

    Each formula may use only the calculator's inputs and :data:`FUNCTIONS`, and must give
    a number for the default inputs; otherwise an error at the formula's line.

    Returns:
        The calculator, or ``None`` with the problems found.
    """
    read = read_block(text, file, first_line, _CALCULATOR.validate_python)
    if isinstance(read, list):
        return None, read
    spec, at = read
    errors: list[ContentError] = []
    names = [item.name for item in spec.inputs]
    for index, name in enumerate(names):
        if names.index(name) != index:
            msg = gettext("input name repeated in the calculator: `%(name)s`") % {"name": name}
            errors.append(ContentError.at(file, at("inputs", index, "name"), msg))
    defaults = {item.name: item.default for item in spec.inputs}
    for index, output in enumerate(spec.outputs):
        where = at("outputs", index, "formula")
        problem = _formula_problem(output.formula, defaults)
        if problem:
            errors.append(ContentError.at(file, where, problem))
    if errors:
        return None, errors
    calculator = Calculator(
        id=spec.id,
        title_html=render_inline(spec.title),
        inputs=tuple(
            Input(i.name, render_inline(i.label), i.unit, _dec(i.default), _dec(i.min), _dec(i.max))
            for i in spec.inputs
        ),
        outputs=tuple(
            Output(render_inline(o.label), o.unit, o.formula, render_inline(o.words))
            for o in spec.outputs
        ),
        line=first_line - 1,
    )
    return calculator, []


def _formula_problem(formula: str, defaults: Mapping[str, float]) -> str:
    """Why ``formula`` cannot be used, in Portuguese, or ``""``."""
    try:
        names, calls = _names_and_calls(formula)
    except SyntaxError:
        return gettext("the formula `%(formula)s` is not a valid expression") % {"formula": formula}
    unknown = sorted(names - set(defaults))
    if unknown:
        return gettext(
            "the formula `%(formula)s` uses `%(name)s`, which is not an input of the "
            "calculator (inputs: %(inputs)s)"
        ) % {"formula": formula, "name": unknown[0], "inputs": ", ".join(sorted(defaults))}
    banned = sorted(calls - set(FUNCTIONS))
    if banned:
        return gettext(
            "the formula `%(formula)s` calls `%(name)s`; the functions allowed are %(allowed)s"
        ) % {"formula": formula, "name": banned[0], "allowed": ", ".join(sorted(FUNCTIONS))}
    try:
        evaluate(formula, defaults)
    except ZeroDivisionError:
        return gettext("the formula `%(formula)s` divides by zero with the default values") % {
            "formula": formula
        }
    except (InvalidExpression, TypeError, ValueError, OverflowError, ArithmeticError):
        return gettext(
            "the formula `%(formula)s` does not give a number with the default values"
        ) % {"formula": formula}
    return ""


def _dec(value: float) -> Decimal:
    return Decimal(str(value)).normalize()


def compute(calculator: Calculator, given: Mapping[str, str]) -> Result:
    """Work out the outputs for the values typed (pt-BR numbers); never raises.

    Args:
        given: input name → text typed; a missing input takes its default.

    Returns:
        The typed values, a message per refused input, and each output formatted pt-BR
        (``None`` for all when an input is refused or a formula fails, with ``problem``).
    """
    typed: dict[str, str] = {}
    errors: dict[str, str] = {}
    values: dict[str, float] = {}
    for item in calculator.inputs:
        raw = given.get(item.name)
        text = (raw if raw is not None else format_number(item.default)).strip()[:40]
        typed[item.name] = text
        try:
            number = parse_number(text, item.unit or None)
        except AnswerError as exc:
            errors[item.name] = str(exc)
            continue
        if not item.min <= number <= item.max:
            errors[item.name] = gettext("Type a value from %(min)s to %(max)s.") % {
                "min": format_number(item.min),
                "max": format_number(item.max),
            }
            continue
        values[item.name] = float(number)
    if errors:
        return Result(typed, errors, tuple(None for _ in calculator.outputs))
    shown: list[str | None] = []
    for output in calculator.outputs:
        try:
            value = evaluate(output.formula, values)
        except ZeroDivisionError:
            return Result(
                typed,
                errors,
                tuple(None for _ in calculator.outputs),
                gettext("With these values the formula divides by zero; change a value."),
            )
        except (InvalidExpression, TypeError, ValueError, OverflowError, ArithmeticError):
            return Result(
                typed,
                errors,
                tuple(None for _ in calculator.outputs),
                gettext("These values give no number; change a value."),
            )
        shown.append(format_result(value))
    return Result(typed, errors, tuple(shown))


def format_result(value: float) -> str:
    """An output as pt-BR writes it, to three significant figures ("50", "0,333", "1.230")."""
    if value == 0:
        return "0"
    digits = max(0, 2 - math.floor(math.log10(abs(value))))
    rounded = Decimal(str(round(value, digits)))
    return format_number(rounded)


def calculator_results(
    calculators: Mapping[str, Calculator], query: Mapping[str, str]
) -> dict[str, Result]:
    """Every calculator's result on a lesson page: from the query for the one it names
    (``?calculadora=<id>&<input>=<value>``), the defaults for the others."""
    asked = query.get(FIELD)
    return {cid: compute(calc, query if cid == asked else {}) for cid, calc in calculators.items()}


_OPERATORS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
}


class _Unsupported(ValueError):
    """A formula with something ``static/js/calculator.js`` does not work out."""


def _formula_tree(node: ast.AST) -> Any:
    if isinstance(node, ast.Expression):
        return _formula_tree(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        value = node.value
        if isinstance(value, bool) or not math.isfinite(value) or abs(value) > 2**53:
            raise _Unsupported(value)
        return value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return [_OPERATORS[type(node.op)], _formula_tree(node.left), _formula_tree(node.right)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return ["neg", _formula_tree(node.operand)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
        return _formula_tree(node.operand)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and not node.keywords
    ):
        # round's places must be an int, which JSON does not tell from a float (2 and 2.0)
        places = node.args[1:2] if node.func.id == "round" else []
        if places and not (isinstance(places[0], ast.Constant) and type(places[0].value) is int):
            raise _Unsupported("round")
        return [node.func.id, *(_formula_tree(arg) for arg in node.args)]
    raise _Unsupported(type(node).__name__)


def formula_tree(formula: str) -> Any:
    """A formula as ``static/js/calculator.js`` works it out: a number, an input's name, or
    ``[operator or function, operands...]``, the operators named as Python's ``operator``
    module names them (``"add"``, ``"floordiv"``, ``"neg"`` for a minus sign in front...).

    Raises:
        ValueError: the formula uses what the page cannot work out the way the server does
            (a comparison, a condition, an integer past 2**53...).
    """
    return _formula_tree(ast.parse(formula, mode="eval"))


@lru_cache(maxsize=256)
def offline_calculator(calculator: Calculator) -> dict[str, Any] | None:
    """What ``static/js/calculator.js`` needs to work out the calculator when the server cannot
    be reached, as :func:`compute` would: only the calculator's own inputs and formulas, no
    question's. ``None`` when a formula is one the page cannot work out.

    - ``i``: per input, ``[name, label (text), unit, min, max, the out-of-range message]``;
    - ``o``: per output, ``[formula (:func:`formula_tree`), unit, label HTML, formula in
      words HTML, label (text)]``;
    - ``m``: the texts in pt-BR, with ``{name}`` where a value goes.
    """
    try:
        formulas = [formula_tree(output.formula) for output in calculator.outputs]
    except (ValueError, SyntaxError):
        return None
    return {
        "i": [
            [
                item.name,
                Markup(item.label_html).striptags(),
                item.unit,
                float(item.min),
                float(item.max),
                gettext("Type a value from %(min)s to %(max)s.")
                % {"min": format_number(item.min), "max": format_number(item.max)},
            ]
            for item in calculator.inputs
        ],
        "o": [
            [
                formula,
                output.unit,
                output.label_html,
                output.words_html,
                plain_text(output.label_html),
            ]
            for formula, output in zip(formulas, calculator.outputs, strict=True)
        ],
        "m": {
            "empty": gettext("Type a number before sending your answer."),
            "long": gettext("That answer is too long for a number."),
            "nan": gettext(
                "“%(text)s” is not a number. Type only digits, with a comma for decimals"
                " (e.g. 4,4)."
            )
            % {"text": "{text}"},
            "huge": gettext(
                "That number is out of range: no answer in this course is that large or that small."
            ),
            "zero": gettext("With these values the formula divides by zero; change a value."),
            "none": gettext("These values give no number; change a value."),
            "value": gettext("Estimate: ≈ %(value)s %(unit)s")
            % {"value": "{value}", "unit": "{unit}"},
            "words": gettext("Formula: %(words)s") % {"words": "{words}"},
            "say": gettext("%(label)s: estimate ≈ %(value)s %(unit)s.")
            % {"label": "{label}", "value": "{value}", "unit": "{unit}"},
        },
    }
