"""Reading a Moodle XML file back with lxml, and Moodle's mark for a response.

The reader keeps what Moodle's ``qformat_xml`` import reads (type, name, idnumber, tags, texts,
answers with their fractions, the ordering options). :func:`moodle_mark` is Moodle's grading
rule for each question type, written from the question types' sources, not from the course:

- ``multichoice`` with ``single`` true: the fraction of the answer chosen;
- ``multichoice`` with ``single`` false (core multiple-answer): the sum of the fractions of
  the answers ticked, kept within 0 and 1 (``qtype_multichoice_multi_question``);
- ``multichoiceset`` (All-or-Nothing): 1 when the answers ticked are exactly those with a
  fraction above 0, else 0 (``qtype_multichoiceset_question::grade_response``);
- ``ordering`` graded ``ALL_OR_NOTHING``: 1 when every item is in its place (answers ordered by
  their fraction), else 0 (``qtype_ordering_question::GRADING_ALL_OR_NOTHING``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lxml import etree


@dataclass(frozen=True)
class XmlAnswer:
    text: str
    fraction: float
    feedback: str
    format: str | None
    tolerance: str | None = None


@dataclass(frozen=True)
class XmlQuestion:
    type: str
    category: str
    name: str
    idnumber: str
    text: str
    text_format: str | None
    general_feedback: str
    answers: list[XmlAnswer]
    tags: list[str]
    options: dict[str, str] = field(default_factory=dict)  # single, gradingtype, showunits...
    units: list[tuple[str, str]] = field(default_factory=list)  # (name, multiplier)


def _text_of(element, path: str) -> str:
    found = element.find(path)
    return "" if found is None or found.text is None else found.text


def read_moodle_xml(document: str) -> list[XmlQuestion]:
    """Every question of the file, each with the category it was read under."""
    root = etree.fromstring(document.encode("utf-8"))
    assert root.tag == "quiz"
    category, found = "", []
    for element in root.findall("question"):
        kind = element.get("type")
        if kind == "category":
            category = _text_of(element, "category/text")
            continue
        answers = [
            XmlAnswer(
                _text_of(a, "text"),
                float(a.get("fraction")),
                _text_of(a, "feedback/text"),
                a.get("format"),
                a.findtext("tolerance"),
            )
            for a in element.findall("answer")
        ]
        simple = {
            child.tag: child.text or ""
            for child in element
            if len(child) == 0 and child.tag not in ("answer",)
        }
        units = [
            (_text_of(u, "unit_name"), _text_of(u, "multiplier"))
            for u in element.findall("units/unit")
        ]
        found.append(
            XmlQuestion(
                type=kind,
                category=category,
                name=_text_of(element, "name/text"),
                idnumber=element.findtext("idnumber") or "",
                text=_text_of(element, "questiontext/text"),
                text_format=element.find("questiontext").get("format"),
                general_feedback=_text_of(element, "generalfeedback/text"),
                answers=answers,
                tags=[_text_of(t, "text") for t in element.findall("tags/tag")],
                options=simple,
                units=units,
            )
        )
    return found


def moodle_mark(question: XmlQuestion, response: Sequence[int]) -> float:
    """Moodle's mark (0 to 1) for ``response``: the indexes of the answers ticked (choice
    types) or the answers' indexes in the order given (``ordering``).

    Raises:
        AssertionError: a type or grading this reader does not know.
    """
    fractions = [a.fraction for a in question.answers]
    if question.type == "multichoice":
        if question.options["single"] == "true":
            (chosen,) = response
            return fractions[chosen] / 100
        return min(1.0, max(0.0, sum(fractions[i] for i in response) / 100))
    if question.type == "multichoiceset":
        right = {i for i, fraction in enumerate(fractions) if fraction > 0}
        return 1.0 if set(response) == right else 0.0
    if question.type == "ordering":
        assert question.options["gradingtype"] == "ALL_OR_NOTHING"
        assert question.options["selecttype"] == "ALL"
        correct = sorted(range(len(fractions)), key=fractions.__getitem__)
        return 1.0 if list(response) == correct else 0.0
    raise AssertionError(f"no rule for {question.type}")
