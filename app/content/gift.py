"""The question bank in Moodle's GIFT format (``curso exportar gift``, the dashboard download).

Written to the grammar of Moodle's "GIFT format" page (docs.moodle.org/en/GIFT_format):

- one ``$CATEGORY: curso/<slug>`` line per lesson, then its questions, one blank line apart;
- ``::<question id>::[markdown]<prompt>{…}``: the prompt and the options are the author's
  Markdown, read again from the lesson file (the loaded lesson keeps only HTML);
- ``single`` and ``scenario``: ``=`` the right option, ``~`` the others; ``multiple``: every
  option with its ``%weight%`` (the right ones share 100%, the wrong ones share -100%);
- ``numeric``: ``{#=value:tolerance#…}`` (a relative tolerance becomes an absolute one), each
  likely wrong value as ``=%0%value:tolerance#its explanation``;
- ``ordering``: a matching question, each item matched to its position (``1º``, ``2º``…);
  Moodle needs three pairs at least, so a two-item ordering becomes a description with the
  order written out (GIFT has no ordering question);
- each option's explanation as its feedback (``#``); the working and the explanation of a
  numeric or ordering question as the general feedback (``####``).

GIFT's special characters ``~ = # { } :`` and the backslash are escaped with a backslash, and
line breaks are written ``\\n`` (a blank line would end the question).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from pydantic import TypeAdapter, ValidationError

from app.content.lessons import Lesson, normalize_source
from app.content.markdown import markdown
from app.content.quiz import Question, QuestionSpec
from app.content.yamlsrc import parse_yaml
from app.i18n import gettext

CATEGORY_ROOT = "curso"
SPECIAL = "\\~=#{}:"
# Moodle accepts only these percentages as answer weights (question/format.php's list).
MOODLE_FRACTIONS = (
    "100",
    "90",
    "83.33333",
    "80",
    "75",
    "70",
    "66.66667",
    "60",
    "50",
    "40",
    "33.33333",
    "30",
    "25",
    "20",
    "16.66667",
    "14.28571",
    "12.5",
    "11.11111",
    "10",
    "5",
)
MIN_MATCHING_PAIRS = 3
_SPECS = TypeAdapter(list[QuestionSpec])


def escape(text: str) -> str:
    """``text`` with GIFT's special characters escaped and its line breaks as ``\\n``."""
    escaped = "".join("\\" + ch if ch in SPECIAL else ch for ch in text.strip())
    return escaped.replace("\r\n", "\n").replace("\n", "\\n")


def weight(count: int) -> str:
    """The share of 100% each of ``count`` answers gets, as Moodle spells it ("33.33333").

    Raises:
        ValueError: Moodle has no such weight (more than ten right options, say).
    """
    share = (Decimal(100) / count).quantize(Decimal("0.00001"))
    text = format(share.normalize(), "f")
    if text not in MOODLE_FRACTIONS:
        message = gettext("Moodle has no answer weight of %(share)s%% (%(count)s answers).")
        raise ValueError(message % {"share": text, "count": count})
    return text


def question_sources(lesson: Lesson) -> dict[str, QuestionSpec]:
    """The lesson's questions as their author wrote them (Markdown), by id.

    Read again from ``lesson.path``; a quiz block that no longer parses gives nothing (the
    export then writes that question from its rendered text).
    """
    try:
        text = normalize_source(lesson.path.read_bytes())
    except (OSError, UnicodeDecodeError):
        return {}
    specs: dict[str, QuestionSpec] = {}
    for token in markdown().parse(text):
        if token.type != "fence" or token.info.strip() != "quiz":
            continue
        try:
            found = _SPECS.validate_python(parse_yaml(token.content).data)
        except (ValidationError, ValueError):
            continue
        specs.update((spec.id, spec) for spec in found)
    return specs


@dataclass(frozen=True)
class GiftQuestion:
    """One question ready to write: its category, name and GIFT text."""

    category: str
    name: str
    text: str


def _prompt(spec: QuestionSpec | None, question: Question) -> str:
    if spec is None:
        return question.legend_text
    return f"{spec.legend}\n\n{spec.prompt}" if spec.legend else spec.prompt


def _number(value: Decimal) -> str:
    return format(value.normalize(), "f")


def gift_question(question: Question, spec: QuestionSpec | None) -> str:
    """The GIFT text of one question (without its category line)."""
    head = f"::{escape(question.id)}::[markdown]{escape(_prompt(spec, question))}"
    options = {o.id: o for o in spec.options or ()} if spec else {}

    def option_text(option_id: str, fallback: str) -> tuple[str, str]:
        written = options.get(option_id)
        if written is None:
            return fallback, ""
        return escape(written.text), escape(written.explanation)

    if question.kind in ("single", "scenario"):
        lines = []
        for option in question.options:
            text, feedback = option_text(option.id, option.id)
            mark = "=" if option.id in question.answer else "~"
            lines.append(f"\t{mark}{text}#{feedback}")
        return head + "{\n" + "\n".join(lines) + "\n}"
    if question.kind == "multiple":
        right = weight(len(question.answer))
        wrongs = len(question.options) - len(question.answer)
        wrong = weight(wrongs) if wrongs else "0"
        lines = []
        for option in question.options:
            text, feedback = option_text(option.id, option.id)
            share = right if option.id in question.answer else "-" + wrong
            lines.append(f"\t~%{share}%{text}#{feedback}")
        return head + "{\n" + "\n".join(lines) + "\n}"
    if question.kind == "numeric" and question.numeric is not None:
        key = question.numeric
        tolerance = key.tolerance * abs(key.value) if key.relative else key.tolerance
        explanation = escape(spec.explanation or "") if spec else ""
        lines = [f"\t={_number(key.value)}:{_number(tolerance)}#{explanation}"]
        written = list(spec.wrong or ()) if spec else []
        for index, (value, _html) in enumerate(key.wrong):
            feedback = escape(written[index].explanation) if index < len(written) else ""
            wrong_tolerance = key.tolerance * abs(value) if key.relative else key.tolerance
            lines.append(f"\t=%0%{_number(value)}:{_number(wrong_tolerance)}#{feedback}")
        general = escape(spec.working or "") if spec else ""
        return head + "{#\n" + "\n".join(lines) + f"\n\t####{general}\n}}"
    # ordering
    items = [(item.id, item.text) for item in spec.items or ()] if spec else []
    if not items:
        items = [(item.id, item.id) for item in question.items]
    general = escape(spec.explanation or "") if spec else ""
    if len(items) < MIN_MATCHING_PAIRS:
        order = "\n".join(f"{n}. {text}" for n, (_id, text) in enumerate(items, 1))
        note = f"{_prompt(spec, question)}\n\n{order}"
        return f"::{escape(question.id)}::[markdown]{escape(note)}"  # no braces: a description
    lines = [f"\t={escape(text)} -> {n}º" for n, (_id, text) in enumerate(items, 1)]
    return head + "{\n" + "\n".join(lines) + f"\n\t####{general}\n}}"


def gift_questions(lessons: Iterable[Lesson]) -> list[GiftQuestion]:
    """Every question of ``lessons``, in course order, ready to write."""
    found = []
    for lesson in lessons:
        specs = question_sources(lesson)
        category = f"{CATEGORY_ROOT}/{lesson.slug}"
        for question in lesson.questions.values():
            text = gift_question(question, specs.get(question.id))
            found.append(GiftQuestion(category, question.id, text))
    return found


def gift_document(lessons: Iterable[Lesson]) -> str:
    """The GIFT file of ``lessons``: a ``$CATEGORY`` line per lesson, then its questions."""
    parts: list[str] = []
    category = None
    for item in gift_questions(lessons):
        if item.category != category:
            category = item.category
            parts.append(f"$CATEGORY: {category}")
        parts.append(item.text)
    return "\n\n".join(parts) + "\n"
