"""Pools and variants reach Moodle (issue 39, item 5): each pool's questions go in a category
of their own, tagged for Moodle's random question by tag; a numeric question with variants
is a Moodle XML ``calculated`` question with one dataset item per variant, whose formula gives
the course's key for every item; GIFT, which cannot hold it, leaves it out and says why."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from lxml import etree
from simpleeval import SimpleEval

from app.content.course import load_course
from app.content.gift import gift_export
from app.content.moodle_xml import moodle_formula, moodle_xml_export
from app.content.numbers import plain_number
from app.content.variants import instance
from tests.support.moodle_xml import read_moodle_xml
from tests.support.pools import BANK_IDS, VARIANT, course_folder, pool_lesson

LESSON_CATEGORY = "curso/Decode e prefill"


def lesson_of(tmp_path: Path):
    return load_course(course_folder(tmp_path, pool_lesson() + VARIANT)).get("decode-prefill")


def moodle_value(formula: str, values: dict[str, str]) -> float:
    """What Moodle computes: each ``{name}`` replaced by the item's value, then the formula
    with PHP's functions (here the few the formula uses)."""
    text = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], formula)
    return float(SimpleEval(functions={"pow": pow, "round": round}).eval(text))


def moodle_shows(text: str, values: dict[str, str]) -> str:
    """A calculated question's text as Moodle shows it for a dataset item
    (``qtype_calculated_variable_substituter::replace_expressions_in_text`` with no length,
    as for the general feedback): each ``{=formula}`` computed and written as PHP writes a
    float (14 significant digits, no trailing zeros), then each ``{name}`` its value."""
    text = re.sub(
        r"\{=([^{}]*(?:\{[^{}]+\}[^{}]*)*)\}",
        lambda m: format(moodle_value(m[1], values), ".14G"),
        text,
    )
    return re.sub(r"\{(\w+)\}", lambda m: values[m[1]], text)


def test_a_pools_questions_form_a_category_tagged_for_the_random_question(tmp_path):
    lesson = lesson_of(tmp_path)
    questions = read_moodle_xml(moodle_xml_export([lesson]).document())
    by_id = {q.idnumber.split("/")[1]: q for q in questions}
    for qid in BANK_IDS:
        assert by_id[qid].category == f"{LESSON_CATEGORY}/decode-sorteio"
        assert by_id[qid].tags == ["decode", "sorteio-decode-sorteio"]
    assert by_id["fase-banda"].category == LESSON_CATEGORY
    assert "sorteio-decode-sorteio" not in by_id["fase-banda"].tags


def test_a_variant_question_is_calculated_and_every_dataset_item_gives_the_key(tmp_path):
    lesson = lesson_of(tmp_path)
    question = lesson.questions["teto-variante"]
    document = moodle_xml_export([lesson]).document()
    (written,) = [q for q in read_moodle_xml(document) if q.idnumber.endswith("teto-variante")]
    assert written.type == "calculated"
    assert "{banda} GB/s" in written.text and "{{" not in written.text
    assert "{=round(({banda} / {pesos}), 2)}" in written.general_feedback
    (answer,) = written.answers
    assert answer.text == "({banda} / {pesos})" == moodle_formula(question.variants.value)
    assert (answer.fraction, answer.tolerance) == (100.0, "0.02")
    root = etree.fromstring(document.encode("utf-8"))
    element = next(
        q for q in root.findall("question") if q.findtext("idnumber", "").endswith("variante")
    )
    assert element.findtext("answer/tolerancetype") == "1", "relative, as 2% is"
    # named in the bank by the values its parameters take, not by its first variant's numbers
    assert element.findtext("name/text") == (
        "Uma GPU com 936 a 1.792 GB/s lê 4 a 16 GB de pesos por token. Qual o teto do decode?"
        " (12 variantes)"
    )
    definitions = element.findall("dataset_definitions/dataset_definition")
    assert [d.findtext("name/text") for d in definitions] == ["banda", "pesos"]
    items = {
        d.findtext("name/text"): [i.findtext("value") for i in d.findall("dataset_items/*")]
        for d in definitions
    }
    assert all(
        len(values) == 12 == int(d.findtext("itemcount"))
        for d, values in zip(definitions, items.values(), strict=True)
    )
    for k in range(12):
        values = {name: column[k] for name, column in items.items()}
        params = {name: float(value) for name, value in values.items()}
        key = instance(question, params).numeric
        assert abs(Decimal(repr(moodle_value(answer.text, values))) - key.value) < Decimal(
            "0.000001"
        )
        # the working's {{ value }} as the course writes it: two decimals at most
        assert moodle_shows(written.general_feedback, values) == (
            f"{values['banda']} ÷ {values['pesos']} ≈ {plain_number(key.displayed)} tokens/s "
            "(conta secreta)"
        )


def test_moodle_reads_a_plural_slot_as_the_form_every_value_takes_else_both(tmp_path):
    """Moodle shows one dataset item and cannot choose the word by its number: a parameter
    taking 1 and 2 reads "gigabyte(s)", or "milhão/milhões" when the plural is no suffix of
    the singular; one taking 2 and 4 reads "gigabytes", "milhões". The right answer is
    written with the course's two decimals."""
    worded = VARIANT.replace(
        "lê {{ pesos }} GB",
        "lê {{ pesos }} {{ pesos | gigabyte, gigabytes }} ({{ pesos }} "
        "{{ pesos | milhão, milhões }} de kB)",
    )
    texts = []
    for n, weights in enumerate(("[1, 2]", "[2, 4]")):
        body = worded.replace("{min: 4, max: 16, step: 4}", weights)
        (tmp_path / str(n)).mkdir()
        lesson = load_course(course_folder(tmp_path / str(n), body)).get("decode-prefill")
        document = moodle_xml_export([lesson]).document()
        (written,) = [q for q in read_moodle_xml(document) if q.idnumber.endswith("variante")]
        texts.append(written.text)
        root = etree.fromstring(document.encode("utf-8"))
        assert root.findtext("question/answer/correctanswerlength") == "2"
    asked = "de pesos por token. Qual o teto do decode?"
    assert texts == [
        f"Uma GPU com {{banda}} GB/s lê {{pesos}} gigabyte(s) ({{pesos}} milhão/milhões de kB) "
        f"{asked}",
        f"Uma GPU com {{banda}} GB/s lê {{pesos}} gigabytes ({{pesos}} milhões de kB) {asked}",
    ]


def test_gift_leaves_a_variant_out_with_its_reason_and_tags_the_pools(tmp_path):
    export = gift_export([lesson_of(tmp_path)])
    assert export.skipped == [
        "Pergunta decode-prefill/teto-variante deixada de fora da exportação GIFT: a pergunta tem "
        "variantes (`params`), que o GIFT não comporta; a exportação em Moodle XML a escreve "
        "como pergunta calculada."
    ]
    document = export.document()
    assert f"$CATEGORY: {LESSON_CATEGORY}/decode-sorteio" in document
    assert document.count("// [tag:sorteio-decode-sorteio]") == len(BANK_IDS)


def test_a_formula_moodle_cannot_write_is_refused_with_what(tmp_path):
    assert moodle_formula("a ** 2 + log2(b)") == "(pow({a}, 2) + (log({b}) / log(2)))"
    try:
        moodle_formula("a if b else c")
    except ValueError as exc:
        assert (
            str(exc)
            == "as fórmulas das perguntas calculadas do Moodle não escrevem `a if b else c`."
        )
    else:
        raise AssertionError("a conditional has no Moodle formula")
