"""The question bank in Moodle XML (``curso exportar moodle-xml``), with the course's credit.

The GIFT export (:mod:`app.content.gift`) cannot give a multiple-answer or an ordering
question the course's all-or-nothing credit: Moodle's core multiple-answer question adds up
the weights of the options ticked (some of the right ones and none of the wrong ones is part
of the mark), and a matching question gives a mark per pair. Moodle XML names the question
type, so here:

- ``multiple``: ``multichoiceset``, the "All-or-Nothing Multiple Choice" question type
  (plugin ``qtype_multichoiceset``, moodle.org/plugins/qtype_multichoiceset; not in core):
  an answer with a fraction above 0 is a right option, and the mark is 1 only when exactly the
  right options are ticked, else 0, as in the course. No weights, so no weight Moodle lacks
  (eleven right options are fine here);
- ``ordering``: ``ordering`` (in core since Moodle 4.4, the ``qtype_ordering`` plugin before),
  its items in the right order, every item shown (``selecttype`` ``ALL``) and graded
  ``ALL_OR_NOTHING`` (``qtype_ordering_question::GRADING_ALL_OR_NOTHING``: "zero grade on any
  error");
- ``single`` and ``scenario``: core ``multichoice`` with ``<single>true</single>``, 100 for
  the right option and 0 for the others;
- ``numeric``: core ``numerical``, the right value with its tolerance (a relative one made
  absolute) and each likely wrong value at 0 with its explanation; the unit as a Moodle unit
  (multiplier 1, optional and not graded, ``unitgradingtype`` 0), not in the stem.

Every question is worth 1 with no penalty for a wrong try (``penalty`` 0): the course's score
counts a question right once it was answered right, whatever came before. Every question has
its name (its sentence), its ``idnumber`` (``<lesson>/<question>``, stable
between imports), a tag per concept, the stem and the options in the author's Markdown
(``format="markdown"``), each option's explanation as its feedback, and the working or the
explanation as the general feedback. Each lesson is a category ``curso/<lesson title>``, as in
the GIFT export. The element names are those of Moodle's ``qformat_xml`` and the question
types' ``import_from_xml``.

To add a question kind, add its writer to :data:`WRITERS`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from xml.etree import ElementTree as ET

from app.content.gift import (
    built_questions,
    number_text,
    question_category,
    question_name,
    question_prompt,
)
from app.content.lessons import Lesson
from app.content.quiz import Question, QuestionSpec, parse_tolerance
from app.content.variants import KEY_DECIMALS, VALUE_SLOT, substitute, word_for
from app.i18n import N_, gettext

FULL = "100"
NONE = "0"
ORDERING_GRADING = "ALL_OR_NOTHING"
SKIPPED = N_("Question %(id)s left out of the Moodle XML export: %(reason)s")
NO_WRITER = N_("the export has no Moodle question type for the kind “%(kind)s”.")
NO_FORMULA = N_("Moodle's calculated formulas cannot write `%(part)s`.")
NO_TOLERANCE = N_(
    "its tolerance is an expression; a Moodle calculated question takes a number or a percentage."
)
TOO_MANY_ITEMS = N_("its %(count)s variants are more than the %(max)s a Moodle dataset holds.")
MAX_DATASET_ITEMS = 100


def _text(parent: ET.Element, tag: str, text: str, markdown: bool = True) -> ET.Element:
    """``<tag format="markdown"><text>…</text></tag>`` (``markdown=False``: no format)."""
    element = ET.SubElement(parent, tag, {"format": "markdown"} if markdown else {})
    ET.SubElement(element, "text").text = text
    return element


def _value(parent: ET.Element, tag: str, value: str) -> None:
    ET.SubElement(parent, tag).text = value


def _answer(
    parent: ET.Element, fraction: str, text: str, feedback: str = "", markdown: bool = True
) -> ET.Element:
    answer = ET.SubElement(parent, "answer", {"fraction": fraction})
    if markdown:
        answer.set("format", "markdown")
    ET.SubElement(answer, "text").text = text
    _text(answer, "feedback", feedback)
    return answer


def _option_texts(question: Question, spec: QuestionSpec | None) -> list[tuple[str, str, str]]:
    """``(id, text, explanation)`` of each option, in the author's order and Markdown."""
    written = {option.id: option for option in spec.options or ()} if spec else {}
    found = []
    for option in question.options:
        source = written.get(option.id)
        text = source.text if source else option.id
        found.append((option.id, text, source.explanation if source else ""))
    return found


@dataclass(frozen=True)
class ChoiceType:
    """A Moodle question type whose answers are the question's options, each with full marks
    when it is right and none when it is wrong: the type's name and the settings (element,
    text) it is always written with. A writer of :data:`WRITERS`."""

    name: str
    settings: Mapping[str, str]

    def __call__(self, element: ET.Element, question: Question, spec: QuestionSpec | None) -> str:
        for tag, value in self.settings.items():
            _value(element, tag, value)
        for option_id, text, explanation in _option_texts(question, spec):
            _answer(element, FULL if option_id in question.answer else NONE, text, explanation)
        return self.name


# Core multichoice with one right option.
_CHOICE = ChoiceType(
    "multichoice", {"single": "true", "shuffleanswers": "true", "answernumbering": "abc"}
)
# qtype_multichoiceset (all or nothing), without Moodle's "Select one or more" line.
_ALL_OR_NOTHING = ChoiceType(
    "multichoiceset",
    {"shuffleanswers": "1", "answernumbering": "abc", "showstandardinstruction": "0"},
)


def _numerical(element: ET.Element, question: Question, spec: QuestionSpec | None) -> str:
    if question.variants is not None:
        return _calculated(element, question, spec)
    key = question.numeric
    assert key is not None  # a numeric question always has its key

    def tolerance_of(value: Decimal) -> Decimal:
        return key.tolerance * abs(value) if key.relative else key.tolerance

    explanation = (spec.explanation or "") if spec else ""
    right = _answer(element, FULL, number_text(key.value), explanation, markdown=False)
    _value(right, "tolerance", number_text(tolerance_of(key.value)))
    written = list(spec.wrong or ()) if spec else []
    for index, (value, _html) in enumerate(key.wrong):
        feedback = written[index].explanation if index < len(written) else ""
        wrong = _answer(element, NONE, number_text(value), feedback, markdown=False)
        _value(wrong, "tolerance", number_text(tolerance_of(value)))
    if key.unit:
        _unit(element, key.unit)
    return "numerical"


def _unit(element: ET.Element, name: str) -> None:
    """The answer's unit as a Moodle unit: multiplier 1, optional and not graded, typed after
    the number (``numerical`` and ``calculated`` read the same elements)."""
    units = ET.SubElement(element, "units")
    unit = ET.SubElement(units, "unit")
    _value(unit, "multiplier", "1")
    _value(unit, "unit_name", name)
    _value(element, "unitgradingtype", "0")  # qtype_numerical::UNITOPTIONAL
    _value(element, "unitpenalty", "0")
    _value(element, "showunits", "0")  # qtype_numerical::UNITINPUT
    _value(element, "unitsleft", "0")


# simpleeval's functions as Moodle's calculated formulas write them (PHP's functions).
_MOODLE_CALLS = {
    "min": "min",
    "max": "max",
    "abs": "abs",
    "round": "round",
    "sqrt": "sqrt",
    "log": "log",
    "log10": "log10",
    "ceil": "ceil",
    "floor": "floor",
}
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Mod: "%"}


def moodle_formula(expression: str) -> str:
    """A variant's ``value`` expression as a Moodle calculated formula: each parameter as
    ``{name}``, ``a ** b`` as ``pow(a, b)``, ``log2(x)`` as ``(log(x) / log(2))``.

    Raises:
        ValueError: something Moodle's formulas cannot write (the message says what).
    """

    def write(node: ast.AST) -> str:
        if isinstance(node, ast.Expression):
            return write(node.body)
        if isinstance(node, ast.Name):
            return "{" + node.id + "}"
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return repr(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            sign = "-" if isinstance(node.op, ast.USub) else "+"
            return f"({sign}{write(node.operand)})"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return f"pow({write(node.left)}, {write(node.right)})"
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return f"({write(node.left)} {_OPERATORS[type(node.op)]} {write(node.right)})"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            args = ", ".join(write(arg) for arg in node.args)
            if node.func.id == "log2":
                return f"(log({args}) / log(2))"
            if node.func.id in _MOODLE_CALLS:
                return f"{_MOODLE_CALLS[node.func.id]}({args})"
        raise ValueError(gettext(NO_FORMULA) % {"part": ast.unparse(node)})

    return write(ast.parse(expression, mode="eval"))


def moodle_template(
    template: str, formula: str, values: Mapping[str, Sequence[float]] | None = None
) -> str:
    """A variant's template in Moodle's calculated text: ``{{ name }}`` as ``{name}`` and
    ``{{ value }}`` as ``{=round(formula, 2)}`` (:data:`KEY_DECIMALS`: Moodle writes a
    ``{=…}`` of the general feedback unrounded, and its calculated formulas take ``round``
    with one or two arguments). Moodle cannot choose a word by the number: a plural slot is
    the form every value of ``values[name]`` takes, else both ("byte(s)", "milhão/milhões")."""

    def write(name: str) -> str:
        if name == VALUE_SLOT:
            return "{=round(" + formula + f", {KEY_DECIMALS})}}"
        return "{" + name + "}"

    def word(name: str, one: str, other: str) -> str:
        forms = {word_for(v, one, other) for v in (values or {}).get(name, ())}
        if len(forms) == 1:
            return forms.pop()
        return f"{one}({other[len(one) :]})" if other.startswith(one) else f"{one}/{other}"

    return substitute(template, write, word)


def _calculated(element: ET.Element, question: Question, spec: QuestionSpec | None) -> str:
    """A numeric question with variants: Moodle's core ``calculated``, one dataset item per
    point of the grid (Moodle pairs the items of its datasets by number)."""
    variants = question.variants
    assert variants is not None
    if len(variants.grid) > MAX_DATASET_ITEMS:
        raise ValueError(
            gettext(TOO_MANY_ITEMS) % {"count": len(variants.grid), "max": MAX_DATASET_ITEMS}
        )
    text, relative = variants.tolerance.strip(), False
    try:
        tolerance, relative = parse_tolerance(text)
    except ValueError as exc:
        raise ValueError(gettext(NO_TOLERANCE)) from exc
    formula = moodle_formula(variants.value)
    taken = {name: [p[i] for p in variants.grid] for i, name in enumerate(variants.names)}
    prompt = f"{variants.legend}\n\n{variants.prompt}" if variants.legend else variants.prompt
    for path, template in (("questiontext", prompt), ("generalfeedback", variants.working)):
        text_of = element.find(f"{path}/text")
        if text_of is not None:  # written by question_element, from the first variant
            text_of.text = moodle_template(template, formula, taken)
    _value(element, "synchronize", "0")
    _value(element, "single", "0")
    _value(element, "answernumbering", "abc")
    _value(element, "shuffleanswers", "0")
    right = _answer(
        element, FULL, formula, moodle_template(variants.explanation, formula, taken), False
    )
    _value(right, "tolerance", number_text(tolerance))
    _value(right, "tolerancetype", "1" if relative else "2")  # relative, else nominal
    _value(right, "correctanswerformat", "1")  # decimals
    _value(right, "correctanswerlength", str(KEY_DECIMALS))  # as the course writes the key
    if variants.unit:
        _unit(element, variants.unit)
    definitions = ET.SubElement(element, "dataset_definitions")
    for position, name in enumerate(variants.names):
        values = [point[position] for point in variants.grid]
        definition = ET.SubElement(definitions, "dataset_definition")
        _text(definition, "status", "private", markdown=False)
        _text(definition, "name", name, markdown=False)
        _value(definition, "type", "calculated")
        _text(definition, "distribution", "uniform", markdown=False)
        _text(definition, "minimum", number_text(Decimal(repr(min(values)))), markdown=False)
        _text(definition, "maximum", number_text(Decimal(repr(max(values)))), markdown=False)
        _text(definition, "decimals", str(_decimals(values)), markdown=False)
        _value(definition, "itemcount", str(len(values)))
        items = ET.SubElement(definition, "dataset_items")
        for number, value in enumerate(values, 1):
            item = ET.SubElement(items, "dataset_item")
            _value(item, "number", str(number))
            _value(item, "value", number_text(Decimal(repr(value))))
        _value(definition, "number_of_items", str(len(values)))
    return "calculated"


def _decimals(values: list[float]) -> int:
    """The most decimals a parameter's values have (Moodle's ``decimals`` of its dataset)."""
    exponents = [Decimal(repr(v)).normalize().as_tuple().exponent for v in values]
    return max(max(0, -e) if isinstance(e, int) else 0 for e in exponents)


def _ordering(element: ET.Element, question: Question, spec: QuestionSpec | None) -> str:
    items = [(item.id, item.text) for item in spec.items or ()] if spec else []
    if not items:
        items = [(item.id, item.id) for item in question.items]
    _value(element, "layouttype", "VERTICAL")
    _value(element, "selecttype", "ALL")
    _value(element, "selectcount", str(len(items)))
    _value(element, "gradingtype", ORDERING_GRADING)
    _value(element, "showgrading", "SHOW")
    _value(element, "numberingstyle", "none")
    for position, (_id, text) in enumerate(items, 1):
        _answer(element, str(position), text)
    return "ordering"


Writer = Callable[[ET.Element, Question, QuestionSpec | None], str]
# Each writer adds its type's elements and returns the Moodle question type.
WRITERS: dict[str, Writer] = {
    "single": _CHOICE,
    "scenario": _CHOICE,
    "multiple": _ALL_OR_NOTHING,
    "numeric": _numerical,
    "ordering": _ordering,
}


def question_element(
    question: Question, spec: QuestionSpec | None, lesson_slug: str, tags: Sequence[str] = ()
) -> ET.Element:
    """One ``<question>`` element; ``tags``: besides its concepts, its pools'.

    Raises:
        ValueError: no writer for the question's kind (:data:`WRITERS`).
    """
    writer = WRITERS.get(question.kind)
    if writer is None:
        raise ValueError(gettext(NO_WRITER) % {"kind": question.kind})
    element = ET.Element("question")
    name = ET.SubElement(element, "name")
    ET.SubElement(name, "text").text = question_name(question)
    _text(element, "questiontext", question_prompt(spec, question, unit=False))
    # numeric: the working (its explanation is the right answer's feedback); ordering: the
    # explanation; the choice kinds explain each option instead.
    general = ""
    if spec is not None:
        general = (spec.working if question.kind == "numeric" else spec.explanation) or ""
    _text(element, "generalfeedback", general)
    _value(element, "defaultgrade", "1")
    _value(element, "penalty", "0")
    _value(element, "hidden", "0")
    _value(element, "idnumber", f"{lesson_slug}/{question.id}")
    element.set("type", writer(element, question, spec))
    names = list(dict.fromkeys([*question.concepts, *tags]))
    if names:
        tag_list = ET.SubElement(element, "tags")
        for tag in names:
            ET.SubElement(ET.SubElement(tag_list, "tag"), "text").text = tag
    return element


def _category(path: str) -> ET.Element:
    element = ET.Element("question", {"type": "category"})
    _text(element, "category", path, markdown=False)
    return element


@dataclass(frozen=True)
class MoodleXmlExport:
    """The ``<quiz>`` document, how many questions it holds and, for each one left out, why
    (in Portuguese)."""

    quiz: ET.Element
    count: int
    skipped: list[str]

    def document(self) -> str:
        """The XML file's text (UTF-8, with its declaration), indented."""
        tree = ET.ElementTree(self.quiz)
        ET.indent(tree)
        body = ET.tostring(self.quiz, encoding="unicode")
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def moodle_xml_export(lessons: Iterable[Lesson]) -> MoodleXmlExport:
    """Every question of ``lessons``, in course order, one category per lesson."""
    quiz = ET.Element("quiz")
    count, category = 0, None
    skipped: list[str] = []
    for lesson, question, element in built_questions(lessons, question_element, SKIPPED, skipped):
        here = question_category(lesson, question.id)
        if here != category:  # a lesson, and each of its pools, in a category of its own
            quiz.append(_category(here))
            category = here
        quiz.append(element)
        count += 1
    return MoodleXmlExport(quiz, count, skipped)
