"""Numbers as a Brazilian learner types them and as pt-BR writes them (Babel).

Shared by ``numeric`` questions (graded in :mod:`app.learning.grading`) and the calculator
blocks of a lesson (:mod:`app.content.calculators`); pure code, no HTTP, no database.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal

from babel.numbers import NumberFormatError, format_decimal, parse_decimal
from simpleeval import SimpleEval

from app.i18n import gettext

# A parameter or input name in an expression (calculators, numeric variants).
NAME_PATTERN = r"^[a-z][a-z0-9_]*$"
# The only functions an expression may call (calculators, numeric variants; simpleeval).
FUNCTIONS = {
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "sqrt": math.sqrt,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "ceil": math.ceil,
    "floor": math.floor,
}


def evaluate(expression: str, names: Mapping[str, float]) -> float:
    """An expression's value over ``names`` by simpleeval with :data:`FUNCTIONS` (never ``eval``).

    Raises:
        ZeroDivisionError, ValueError, TypeError, OverflowError, or simpleeval's errors: the
        expression does not give a finite number.
    """
    result = SimpleEval(names=dict(names), functions=FUNCTIONS).eval(expression)
    if isinstance(result, bool) or not isinstance(result, int | float):
        raise TypeError(expression)
    if not math.isfinite(result):
        raise OverflowError(expression)
    return float(result)


class AnswerError(ValueError):
    """A submitted answer that cannot be graded; ``str(exc)`` is the message in Portuguese."""


MAX_NUMBER_CHARS = 40
MAX_MAGNITUDE = 12  # powers of ten either way: no course figure comes close
_PREFIX = re.compile(r"^(?:≈|~|=|cerca de|aprox\.?|aproximadamente)\s*", re.IGNORECASE)
_SUFFIX = re.compile(r"\s*(?:×|x|vezes)$", re.IGNORECASE)
_SPACES = re.compile(r"(?<=\d)[\s\u00a0\u202f](?=\d{3}\b)")
# Phone keyboards, word processors and copied text write a minus as U+2212 (minus sign),
# U+2013 (en dash), U+FE63 (small hyphen-minus), U+2010 (hyphen) or U+FF0D (fullwidth
# hyphen-minus, from CJK and some phone keyboards); Babel reads only "-".
MINUS_SIGNS = str.maketrans(dict.fromkeys("\u2212\u2013\ufe63\u2010\uff0d", "-"))


def parse_number(text: str, unit: str | None = None) -> Decimal:
    """Read a number as a Brazilian learner types it, with Babel's ``parse_decimal`` (pt_BR).

    Accepts a decimal comma or point ("4,4", "4.4"), thousands separators ("1.000",
    "1 000", "1.000,5"), a leading "≈" or "~", and a trailing "×" or the question's unit
    ("4,41×", "64 tok/s"). A point followed by exactly three digits and no comma is a
    thousands separator ("1.000" is one thousand), as in pt-BR. A minus may also be
    typed as "−", "–", "﹣", "‐" or "－" (:data:`MINUS_SIGNS`).

    Args:
        text: what the learner typed.
        unit: the question's unit, also accepted after the number.

    Returns:
        The number, finite.

    Raises:
        AnswerError: empty, too long, or not a number; the message is in Portuguese.
    """
    raw = (text or "").strip().translate(MINUS_SIGNS)
    if not raw:
        raise AnswerError(gettext("Type a number before sending your answer."))
    if len(raw) > MAX_NUMBER_CHARS:
        raise AnswerError(gettext("That answer is too long for a number."))
    raw = _PREFIX.sub("", raw)
    if unit and raw.lower().endswith(unit.lower()):
        raw = raw[: -len(unit)].rstrip()
    raw = _SPACES.sub("", _SUFFIX.sub("", raw)).strip()
    value = None
    # pt_BR first (comma decimal, point thousands), then en (point decimal): "4.4" is 4,4.
    for locale in ("pt_BR", "en_US"):
        try:
            value = parse_decimal(raw, locale=locale, strict=True)
            break
        except (NumberFormatError, ValueError, ArithmeticError):
            continue
    if value is None or not value.is_finite():
        raise AnswerError(
            gettext(
                "“%(text)s” is not a number. Type only digits, with a comma for decimals"
                " (e.g. 4,4)."
            )
            % {"text": text.strip()[:MAX_NUMBER_CHARS]}
        )
    if value and not -MAX_MAGNITUDE <= value.adjusted() <= MAX_MAGNITUDE:
        raise AnswerError(
            gettext(
                "That number is out of range: no answer in this course is that large or that small."
            )
        )
    return value


def plain_number(value: Decimal) -> str:
    """A number as stored: no exponent, no trailing zeros ("4.4", "1000", "-0.25")."""
    return format(value.normalize(), "f") if value else "0"


def format_number(value: Decimal) -> str:
    """A number as pt-BR writes it ("4,41", "1.000"), with every decimal it has."""
    places = min(MAX_MAGNITUDE, max(0, -int(value.normalize().as_tuple().exponent)))
    pattern = "#,##0." + "#" * places if places else "#,##0"
    return format_decimal(value, format=pattern, locale="pt_BR")


_POINT_THOUSANDS = re.compile(r"([+-]?\d{1,3})\.(\d{3})")


def decimal_point_reading(text: str, unit: str | None = None) -> Decimal | None:
    """The other reading of a number whose only point :func:`parse_number` takes for thousands.

    "3.438" is 3438 in pt-BR, but a learner who writes decimals with a point meant 3,438.
    The answer form asks which one before grading (see :func:`app.learning.grading.grade_form`).

    Args:
        text: what the learner typed.
        unit: the question's unit, also accepted after the number.

    Returns:
        The number read with a decimal point (``Decimal("3.438")``), or ``None`` when the
        text is not one to three digits, a point and exactly three digits (with the same
        prefixes and suffixes :func:`parse_number` accepts).
    """
    raw = _PREFIX.sub("", (text or "").strip().translate(MINUS_SIGNS))
    if unit and raw.lower().endswith(unit.lower()):
        raw = raw[: -len(unit)].rstrip()
    match = _POINT_THOUSANDS.fullmatch(_SUFFIX.sub("", raw).strip())
    return Decimal(f"{match[1]}.{match[2]}") if match else None
