"""The question bank in Moodle XML: read back with lxml, every question keeps the lesson file's
texts, and Moodle's mark under the exported types equals the course's credit for every
response (multiple-answer and ordering questions are all-or-nothing in both places)."""

from __future__ import annotations

import itertools
import re
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient

from app.content.course import load_course
from app.content.gift import pools_of
from app.content.moodle_xml import moodle_formula, moodle_xml_export
from app.learning.grading import grade, grade_order
from app.main import create_app
from tests.support.accounts import instructor
from tests.support.app import REPO_LESSONS, make_settings
from tests.support.cli import curso
from tests.support.gift import ORDERING_AND_NUMERIC, misreadable_lesson, written_questions
from tests.support.html import soup, text
from tests.support.lessons import lessons
from tests.support.moodle_xml import XmlQuestion, moodle_mark, read_moodle_xml

EDGES = misreadable_lesson(
    "Bordas / do XML",
    "xml-bordas",
    prompt=" <b>&amp;</b>",
    more=ORDERING_AND_NUMERIC,
)


# The course's plural slots as Moodle reads them: both forms, as their parameters take 1 and
# more (Moodle cannot choose the word by the number; tests/test_moodle_pools.py).
MOODLE_WORDS = {
    "{{ bytes | byte, bytes }}": "byte(s)",
    "{{ lote | sequência, sequências }}": "sequência(s)",
}


def read_back(folder) -> tuple[object, list[XmlQuestion]]:
    course = load_course(folder)
    assert course.errors == ()
    export = moodle_xml_export(course.lessons)
    assert export.skipped == []
    return course, read_moodle_xml(export.document())


def check_texts(course, read: list[XmlQuestion]) -> int:
    """Each exported question against its lesson file, read as YAML here."""
    by_id = {q.idnumber: q for q in read}
    checked = 0
    for lesson in course.lessons:
        written = written_questions(lesson.path)
        for question_id, question in lesson.questions.items():
            xml, source = by_id[f"{lesson.slug}/{question_id}"], written[question_id]
            category = "curso/" + lesson.meta.title_text.replace("/", "//")
            pools = pools_of(lesson, question_id)  # a pool's questions: a category of its own
            assert xml.category == (f"{category}/{pools[0].id}" if pools else category)
            assert xml.tags == [*source.get("concepts", []), *(f"sorteio-{x.id}" for x in pools)]
            assert xml.text_format == "markdown"
            prompt = source["prompt"].strip()
            if source.get("legend"):
                prompt = f"{source['legend'].strip()}\n\n{prompt}"
            if question.variants is not None:  # Moodle's calculated: {{ name }} is {name}
                prompt = re.sub(r"\{\{\s*(\w+)\s*\}\}", r"{\1}", prompt)
                prompt = re.sub(r"\{\{[^{}|]*\|[^{}]*\}\}", lambda m: MOODLE_WORDS[m[0]], prompt)
            assert xml.text == prompt  # a unit is Moodle's, not the stem's
            kind = source["kind"]
            if question.variants is not None:  # its datasets: tests/test_moodle_pools.py
                assert xml.type == "calculated"
                (key,) = xml.answers
                assert key.text == moodle_formula(question.variants.value)
                assert key.feedback == source["explanation"].strip()
            elif kind in ("single", "scenario", "multiple"):
                options = source["options"]
                assert xml.type == ("multichoiceset" if kind == "multiple" else "multichoice")
                assert [a.text for a in xml.answers] == [o["text"].strip() for o in options]
                assert [a.feedback for a in xml.answers] == [
                    o["explanation"].strip() for o in options
                ]
                assert [a.fraction for a in xml.answers] == [
                    100 if o["id"] in question.answer else 0 for o in options
                ]
            elif kind == "numeric":
                assert xml.type == "numerical"
                first, *wrongs = xml.answers
                tolerance = str(source["tolerance"])
                value = Decimal(str(source["value"]))
                absolute = (
                    Decimal(tolerance[:-1]) / 100 * abs(value)
                    if tolerance.endswith("%")
                    else Decimal(tolerance)
                )
                assert (Decimal(first.text), first.fraction) == (value, 100)
                assert Decimal(first.tolerance) == absolute
                assert first.feedback == source["explanation"].strip()
                assert [(Decimal(w.text), w.fraction, w.feedback) for w in wrongs] == [
                    (Decimal(str(w["value"])), 0, w["explanation"].strip())
                    for w in source.get("wrong", [])
                ]
                assert xml.general_feedback == source["working"].strip()
                unit = source.get("unit")
                assert xml.units == ([(unit, "1")] if unit else [])
            else:
                assert xml.type == "ordering"
                items = [item["text"].strip() for item in source["items"]]
                in_order = sorted(xml.answers, key=lambda a: a.fraction)
                assert [a.text for a in in_order] == items
                assert xml.general_feedback == source["explanation"].strip()
            checked += 1
    return checked


def check_credit(course, read: list[XmlQuestion]) -> int:
    """Moodle's mark for every response to each multiple-answer and ordering question (up to
    5,040 orders) equals the course's credit for it; the number of responses compared."""
    by_id = {q.idnumber: q for q in read}
    compared = 0
    for lesson in course.lessons:
        for question_id, question in lesson.questions.items():
            xml = by_id[f"{lesson.slug}/{question_id}"]
            if question.kind == "multiple":
                ids = [option.id for option in question.options]
                for size in range(1, len(ids) + 1):
                    for ticked in itertools.combinations(range(len(ids)), size):
                        course_credit = grade(question, frozenset(ids[i] for i in ticked))
                        assert moodle_mark(xml, ticked) == float(course_credit.correct), ticked
                        compared += 1
            elif question.kind == "ordering":
                ids = [item.id for item in question.items]  # the right order
                for order in itertools.islice(itertools.permutations(range(len(ids))), 5040):
                    course_credit = grade_order(question, [ids[i] for i in order])
                    assert moodle_mark(xml, order) == float(course_credit.correct), order
                    compared += 1
    return compared


def test_the_whole_course_keeps_its_texts_and_its_credit():
    course, read = read_back(REPO_LESSONS)
    assert len(read) == check_texts(course, read) == sum(len(x.questions) for x in course.lessons)
    kinds = {q.type for q in read}
    assert {"multichoiceset", "ordering", "multichoice", "numerical"} <= kinds
    assert check_credit(course, read) > 100


def test_a_partial_selection_scores_what_the_course_gives_not_what_gift_would():
    course, read = read_back(REPO_LESSONS)
    question = next(
        q for lesson in course.lessons for q in lesson.questions.values() if q.kind == "multiple"
    )
    xml = next(q for q in read if q.idnumber.endswith("/" + question.id))
    some_right = [i for i, o in enumerate(question.options) if o.id in question.answer][:1]
    assert len(question.answer) > 1 and not grade(question, frozenset(["x"])).correct
    assert moodle_mark(xml, some_right) == 0.0  # the course gives nothing for part of the key
    # The same response under the GIFT export's weights, in Moodle's core multiple-answer
    # question, would get part of the mark: the reason for this export.
    as_gift = XmlQuestion(
        **{**xml.__dict__, "type": "multichoice", "options": {**xml.options, "single": "false"}}
    )
    shares = [100 / len(question.answer) if a.fraction > 0 else -100 for a in xml.answers]
    as_gift = XmlQuestion(
        **{
            **as_gift.__dict__,
            "answers": [
                a.__class__(**{**a.__dict__, "fraction": s})
                for a, s in zip(xml.answers, shares, strict=True)
            ],
        }
    )
    assert moodle_mark(as_gift, some_right) == pytest.approx(1 / len(question.answer))


def test_what_gift_cannot_hold_is_exported_with_its_meaning(tmp_path, monkeypatch):
    folder = lessons(tmp_path, bordas=EDGES)
    course, read = read_back(folder)
    assert check_texts(course, read) == 5
    assert check_credit(course, read) == 2**12 - 1 + 6 + 2
    by_id = {q.idnumber.removeprefix("xml-bordas/"): q for q in read}
    assert [a.fraction for a in by_id["onze"].answers] == [100] * 11 + [0]  # no weight needed
    assert [a.text for a in by_id["formato"].answers][:2] == [
        "[html] é só texto aqui",
        "%50% não é um peso",
    ]
    assert by_id["formato"].text == "Qual opção é texto puro? <b>&amp;</b>"
    assert [a.text for a in by_id["setas"].answers] == ["prompt -> prefill", "decode", "fim"]
    assert by_id["dois-passos"].type == "ordering"
    assert by_id["dois-passos"].general_feedback == "Primeiro o prompt, depois os tokens."
    assert by_id["relativo"].units == [("×", "1")]
    assert by_id["relativo"].options["unitgradingtype"] == "0"  # the unit is optional
    assert by_id["onze"].name == "Quais são certas?"

    monkeypatch.setenv("CURSO_LESSONS_DIR", str(folder))
    target = tmp_path / "nova" / "pasta" / "bordas.xml"
    done = curso(make_settings(tmp_path), "exportar", "moodle-xml", "--saida", str(target))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"5 perguntas gravadas em {target}.\n"
    assert read_moodle_xml(target.read_text(encoding="utf-8")) == read


def test_the_command_writes_the_lessons_named(tmp_path):
    settings = make_settings(tmp_path)
    done = curso(settings, "exportar", "moodle-xml", "kernels")
    assert done.returncode == 0, done.stderr
    kernels = load_course(REPO_LESSONS).get("kernels")
    read = read_moodle_xml(done.stdout)
    assert [q.idnumber for q in read] == [f"kernels/{q}" for q in kernels.questions]
    unknown = curso(settings, "exportar", "moodle-xml", "nada")
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("Nenhuma lição tem o slug nada.")


def test_the_dashboard_offers_the_download(tmp_path):
    settings = make_settings(tmp_path)
    client = instructor(TestClient(create_app(settings), follow_redirects=False), settings)
    link = soup(client.get("/instrutor").text).select_one(
        'a[href="/instrutor/exportar/questoes.xml"]'
    )
    assert text(link) == "Banco de questões (Moodle XML)"
    response = client.get("/instrutor/exportar/questoes.xml")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/xml; charset=utf-8"
    assert response.headers["content-disposition"].startswith('attachment; filename="questoes-')
    assert response.headers["content-disposition"].endswith('.xml"')
    read = read_moodle_xml(response.text)
    assert read == read_moodle_xml(moodle_xml_export(load_course(REPO_LESSONS).lessons).document())
