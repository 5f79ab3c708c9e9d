"""The question bank in Moodle's GIFT format (``curso exportar gift``, the dashboard download).

Written to the grammar of Moodle's "GIFT format" page (docs.moodle.org/en/GIFT_format) and to
what its reader (``qformat_gift::readquestion``) does with it:

- one ``$CATEGORY: curso/<lesson title>`` line per lesson, then its questions, one blank line
  apart; each question starts with ``// [id:<lesson slug>/<question id>]`` (Moodle's stable
  id number) and a ``// [tag:<concept>]`` line per concept (for random questions by tag);
- ``::<question sentence>::[markdown]<prompt>{…}``: the prompt and the options are the
  author's Markdown, read again from the lesson file (the loaded lesson keeps only HTML);
- ``single`` and ``scenario``: ``=`` the right option, ``~`` the others; ``multiple``: the
  right options share 100% and each wrong one is -100%, so one wrong pick gives 0 as in the
  course (Moodle's multiple-answer question still gives part of the mark for some of the
  right options and no wrong one: GIFT cannot say all-or-nothing);
- ``numeric``: ``{#=value:tolerance#…}`` (a relative tolerance becomes an absolute one), each
  likely wrong value as ``=%0%value:tolerance#its explanation``; GIFT has no units, so the
  unit is written in the stem;
- ``ordering``: a matching question, each item matched to its position (``1º``, ``2º``…);
  Moodle needs three pairs at least, so a two-item ordering becomes a description with the
  order and the explanation written out (GIFT has no ordering question);
- each option's explanation as its feedback (``#``); the working and the explanation of a
  numeric or ordering question as the general feedback (``####``).

GIFT's special characters ``~ = # { } :`` and the backslash are escaped with a backslash, and
line breaks are written ``\\n`` (a blank line would end the question). Moodle also reads a
text starting with ``[html]`` (or another format name) as that format, an option starting with
``%50%`` as its weight, and the first ``->`` of a matching item as the arrow: those are written
``\\[html]``, ``~%0%%50%`` and ``-\\>`` (the Markdown shows ``[html]`` and ``->``).

A multiple-answer question whose share of 100% Moodle lacks (eleven right options: 9.09091%)
is left out of the export with a message, and ``curso check`` warns about it
(:func:`check_gift`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeVar

from pydantic import TypeAdapter, ValidationError

from app.content.errors import ContentError
from app.content.lessons import Lesson, normalize_source
from app.content.markdown import markdown
from app.content.pools import Pool
from app.content.quiz import Question, QuestionSpec
from app.content.yamlsrc import parse_yaml
from app.i18n import N_, gettext

CATEGORY_ROOT = "curso"
POOL_TAG = "sorteio-"  # a pool's tag, before its id
NO_VARIANTS = N_(
    "the question has variants (`params`), which GIFT cannot hold; the Moodle XML export "
    "writes it as a calculated question."
)
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
NAME_LENGTH = 100  # characters of the question sentence kept as its name in the bank
WRONG_WEIGHT = "-100"  # each wrong option of a multiple-answer question
# A text Moodle would read as written in another format (parse_text_with_format).
_FORMAT_NAME = re.compile(r"\[(html|moodle|plain|markdown)\]", re.I)
NO_WEIGHT = N_("Moodle has no answer weight of %(share)s%% (%(count)s answers).")
LEFT_OUT = N_("%(reason)s The GIFT export leaves this question out.")
SKIPPED = N_("Question %(id)s left out of the GIFT export: %(reason)s")
UNIT = N_("Unit: %(unit)s (write the number alone).")
_SPECS = TypeAdapter(list[QuestionSpec])


def escape(text: str) -> str:
    """``text`` with GIFT's special characters escaped and its line breaks as ``\\n``; a
    leading format name (``[html]``) gets a backslash, so Moodle keeps it as text."""
    escaped = "".join("\\" + ch if ch in SPECIAL else ch for ch in text.strip())
    if _FORMAT_NAME.match(escaped):
        escaped = "\\" + escaped
    return escaped.replace("\r\n", "\n").replace("\n", "\\n")


def _answer(text: str) -> str:
    """An option after ``~``: a leading ``%n%`` is text, not its weight (a ``%0%`` first)."""
    escaped = escape(text)
    return "%0%" + escaped if escaped.startswith("%") else escaped


def _item(text: str) -> str:
    """A matching item: its ``->`` is text, not the arrow to its position."""
    return escape(text).replace("->", "-\\>")


def weight(count: int) -> str:
    """The share of 100% each of ``count`` answers gets, as Moodle spells it ("33.33333").

    Raises:
        ValueError: Moodle has no such weight (more than ten right options, say).
    """
    share = (Decimal(100) / count).quantize(Decimal("0.00001"))
    text = format(share.normalize(), "f")
    if text not in MOODLE_FRACTIONS:
        raise ValueError(gettext(NO_WEIGHT) % {"share": text, "count": count})
    return text


def check_gift(lessons: Iterable[Lesson]) -> list[ContentError]:
    """A warning at each question the GIFT export must leave out (a multiple-answer question
    whose share of 100% Moodle has no weight for)."""
    found = []
    for lesson in lessons:
        for question in lesson.questions.values():
            if question.kind != "multiple":
                continue
            try:
                weight(len(question.answer))
            except ValueError as exc:
                message = gettext(LEFT_OUT) % {"reason": exc}
                found.append(ContentError(lesson.path, question.line, message, level="warning"))
    return found


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
        if token.type != "fence" or token.info.strip() not in ("quiz", "bank"):
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
    name: str  # the question id
    text: str


@dataclass(frozen=True)
class GiftExport:
    """The questions written and, for each one left out, why (in Portuguese)."""

    questions: list[GiftQuestion]
    skipped: list[str]

    def document(self) -> str:
        """The GIFT file: a comment per question left out, then a ``$CATEGORY`` line per
        lesson and its questions."""
        parts = [f"// {' '.join(message.split())}" for message in self.skipped]
        category = None
        for item in self.questions:
            if item.category != category:
                category = item.category
                parts.append(f"$CATEGORY: {category}")
            parts.append(item.text)
        return "\n\n".join(parts) + "\n"


def question_prompt(spec: QuestionSpec | None, question: Question, unit: bool = True) -> str:
    """The question's stem in the author's Markdown (its sentence when the source is gone);
    with ``unit``, a line saying the unit of a numeric question (GIFT has no units)."""
    if spec is None:
        prompt = question.legend_text
    else:
        prompt = f"{spec.legend}\n\n{spec.prompt}" if spec.legend else spec.prompt
    if unit and question.numeric is not None and question.numeric.unit:
        prompt += "\n\n" + gettext(UNIT) % {"unit": question.numeric.unit}
    return prompt


def question_name(question: Question) -> str:
    """The question's name in the bank: its sentence, cut at a word near :data:`NAME_LENGTH`."""
    sentence = " ".join(question.legend_text.split()) or question.id
    if len(sentence) <= NAME_LENGTH:
        return sentence
    return sentence[:NAME_LENGTH].rsplit(" ", 1)[0] + "…"


def category_path(lesson: Lesson) -> str:
    """``curso/<lesson title>``; a ``/`` of the title doubled, as Moodle reads category paths."""
    return f"{CATEGORY_ROOT}/{lesson.meta.title_text.replace('/', '//')}"


def number_text(value: Decimal) -> str:
    """A decimal as Moodle reads it: a point, no exponent, no trailing zeros ("4.41")."""
    return format(value.normalize(), "f")


def pool_tag(pool: Pool) -> str:
    """The tag of a pool's questions in Moodle's bank: its random question draws by it."""
    return f"{POOL_TAG}{pool.id}"


def pools_of(lesson: Lesson, question_id: str) -> list[Pool]:
    """The lesson's pools that draw ``question_id`` (none for a quiz block's question)."""
    return [pool for pool in lesson.pools.values() if question_id in pool.candidates]


def question_category(lesson: Lesson, question_id: str) -> str:
    """The lesson's category, or for a pool's question the category of its (first) pool,
    ``curso/<lesson title>/<pool id>``: a Moodle random question draws from it."""
    pools = pools_of(lesson, question_id)
    return f"{category_path(lesson)}/{pools[0].id}" if pools else category_path(lesson)


def question_tags(lesson: Lesson, question: Question) -> list[str]:
    """Its concepts, then a tag per pool that draws it (:func:`pool_tag`)."""
    return [*question.concepts, *(pool_tag(pool) for pool in pools_of(lesson, question.id))]


def gift_question(
    question: Question, spec: QuestionSpec | None, lesson_slug: str = "", tags: Sequence[str] = ()
) -> str:
    """The GIFT text of one question (without its category line), its ``// [id:…]`` and
    ``// [tag:…]`` lines first (``tags``: besides its concepts, its pools').

    Raises:
        ValueError: Moodle has no weight for a multiple-answer question's right options, or the
            question has variants (GIFT has no calculated questions).
    """
    if question.variants is not None:
        raise ValueError(gettext(NO_VARIANTS))
    lines = [f"// [id:{lesson_slug}/{question.id}]"] if lesson_slug else []
    lines += [f"// [tag:{tag}]" for tag in dict.fromkeys([*question.concepts, *tags])]
    lead = "\n".join([*lines, f"::{escape(question_name(question))}::[markdown]"])
    head = lead + escape(question_prompt(spec, question))
    options = {o.id: o for o in spec.options or ()} if spec else {}

    def option_text(option_id: str, fallback: str) -> tuple[str, str]:
        written = options.get(option_id)
        if written is None:
            return _answer(fallback), ""
        return _answer(written.text), escape(written.explanation)

    if question.kind in ("single", "scenario"):
        lines = []
        for option in question.options:
            text, feedback = option_text(option.id, option.id)
            mark = "=" if option.id in question.answer else "~"
            lines.append(f"\t{mark}{text}#{feedback}")
        return head + "{\n" + "\n".join(lines) + "\n}"
    if question.kind == "multiple":
        right = weight(len(question.answer))
        lines = []
        for option in question.options:
            text, feedback = option_text(option.id, option.id)
            share = right if option.id in question.answer else WRONG_WEIGHT
            lines.append(f"\t~%{share}%{text}#{feedback}")
        return head + "{\n" + "\n".join(lines) + "\n}"
    if question.kind == "numeric" and question.numeric is not None:
        key = question.numeric
        tolerance = key.tolerance * abs(key.value) if key.relative else key.tolerance
        explanation = escape(spec.explanation or "") if spec else ""
        lines = [f"\t={number_text(key.value)}:{number_text(tolerance)}#{explanation}"]
        written = list(spec.wrong or ()) if spec else []
        for index, (value, _html) in enumerate(key.wrong):
            feedback = escape(written[index].explanation) if index < len(written) else ""
            wrong_tolerance = key.tolerance * abs(value) if key.relative else key.tolerance
            lines.append(f"\t=%0%{number_text(value)}:{number_text(wrong_tolerance)}#{feedback}")
        general = escape(spec.working or "") if spec else ""
        return head + "{#\n" + "\n".join(lines) + f"\n\t####{general}\n}}"
    # ordering
    items = [(item.id, item.text) for item in spec.items or ()] if spec else []
    if not items:
        items = [(item.id, item.id) for item in question.items]
    explanation = (spec.explanation or "") if spec else ""
    if len(items) < MIN_MATCHING_PAIRS:  # a description: no braces, no feedback of its own
        order = "\n".join(f"{n}. {text}" for n, (_id, text) in enumerate(items, 1))
        note = "\n\n".join(
            part for part in (question_prompt(spec, question), order, explanation) if part
        )
        return lead + escape(note)
    lines = [f"\t={_item(text)} -> {n}º" for n, (_id, text) in enumerate(items, 1)]
    return head + "{\n" + "\n".join(lines) + f"\n\t####{escape(explanation)}\n}}"


T = TypeVar("T")


def built_questions(
    lessons: Iterable[Lesson],
    build: Callable[[Question, QuestionSpec | None, str, list[str]], T],
    left_out: str,
    skipped: list[str],
) -> Iterator[tuple[Lesson, Question, T]]:
    """Each question of ``lessons``, in course order, with what ``build`` (the GIFT or the
    Moodle XML of one question, from its source, lesson slug and tags) made of it. A question
    ``build`` refuses with ``ValueError`` (Moodle cannot take it) is left out: the message
    ``left_out`` (with ``%(id)s`` and ``%(reason)s``) is appended to ``skipped``."""
    for lesson in lessons:
        specs = question_sources(lesson)
        for question in lesson.questions.values():
            tags = question_tags(lesson, question)
            try:
                built = build(question, specs.get(question.id), lesson.slug, tags)
            except ValueError as exc:
                reason = {"id": f"{lesson.slug}/{question.id}", "reason": exc}
                skipped.append(gettext(left_out) % reason)
                continue
            yield lesson, question, built


def gift_export(lessons: Iterable[Lesson]) -> GiftExport:
    """Every question of ``lessons``, in course order, ready to write; those Moodle cannot
    take are left out, each with its reason."""
    skipped: list[str] = []
    found = [
        GiftQuestion(question_category(lesson, question.id), question.id, text)
        for lesson, question, text in built_questions(lessons, gift_question, SKIPPED, skipped)
    ]
    return GiftExport(found, skipped)


def gift_document(lessons: Iterable[Lesson]) -> str:
    """The GIFT file of ``lessons`` (:meth:`GiftExport.document`)."""
    return gift_export(lessons).document()
