"""The question bank in Moodle's GIFT format: read back by pygiftparser, every question,
option, key and explanation comes out as the lesson file wrote it."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content.course import load_course
from app.content.gift import gift_document, pools_of, question_category
from app.main import create_app
from tests.support.accounts import instructor
from tests.support.app import REPO_LESSONS, make_settings
from tests.support.cli import curso
from tests.support.gift import (
    ORDERING_AND_NUMERIC,
    misreadable_lesson,
    moodle_id,
    moodle_tags,
    read_gift,
    unescape,
    written_questions,
)
from tests.support.lessons import lessons


def prompt_of(question: dict) -> str:
    prompt = question["prompt"].strip()
    prompt = f"{question['legend'].strip()}\n\n{prompt}" if question.get("legend") else prompt
    if question.get("unit"):  # GIFT has no units: the stem says it
        prompt += f"\n\nUnidade: {question['unit']} (escreva só o número)."
    return prompt


def category_of(lesson) -> str:
    """The lesson's category path in Moodle: its title, a ``/`` in it doubled."""
    return "curso/" + lesson.meta.title_text.replace("/", "//")


def check_round_trip(folder: Path, skipped: tuple[str, ...] = ()) -> int:
    """Export the course in ``folder``, read it back and compare; the number of questions
    (those ``skipped`` must be left out, and so are variants: GIFT cannot hold them). A pool's
    questions are in a category of their own under the lesson's, tagged with the pool."""
    course = load_course(folder)
    assert course.errors == ()
    read = read_gift(gift_document(course.lessons))
    expected: dict[str, list[tuple[object, str]]] = {}
    for lesson in course.lessons:
        for qid, question in lesson.questions.items():
            if qid in skipped or question.variants is not None:
                continue
            category = question_category(lesson, qid)
            assert category.startswith(category_of(lesson))
            expected.setdefault(category, []).append((lesson, qid))
    assert list(read) == list(expected)
    checked = 0
    for category, questions in expected.items():
        parsed = read[category]
        ids = [moodle_id(q) for q in parsed]
        assert ids == [f"{lesson.slug}/{qid}" for lesson, qid in questions]
        for (lesson, question_id), gift in zip(questions, parsed, strict=True):
            assert gift.valid, question_id
            written = written_questions(lesson.path)
            source, question = written[question_id], lesson.questions[question_id]
            name, sentence = unescape(gift.title), " ".join(question.legend_text.split())
            assert name == sentence or sentence.startswith(name.removesuffix("…")), name
            pools = [f"sorteio-{pool.id}" for pool in pools_of(lesson, question_id)]
            assert moodle_tags(gift) == [*source.get("concepts", []), *pools]
            check_question(gift, source, question)
            checked += 1
    return checked


def check_question(gift, source: dict, question) -> None:
    kind = source["kind"]
    answers = getattr(gift.answers, "answers", [])
    assert gift.markup == "markdown"
    if kind in ("single", "scenario", "multiple"):
        assert unescape(gift.text) == prompt_of(source)
        options = source["options"]
        assert [unescape(a.answer) for a in answers] == [o["text"].strip() for o in options]
        assert [unescape(a.feedback) for a in answers] == [
            o["explanation"].strip() for o in options
        ]
        right = [o["id"] for o in options if o["id"] in question.answer]
        if kind == "multiple":
            assert right == sorted(source["answer"], key=[o["id"] for o in options].index)
            weights = [a.fraction for a in answers]
            assert sum(w for w in weights if w > 0) == pytest.approx(100, abs=0.001)
            assert [w > 0 for w in weights] == [o["id"] in right for o in options]
            # One wrong pick gives 0, as in the course.
            assert [w for w in weights if w < 0] == [-100] * (len(options) - len(right))
        else:
            assert [a.select for a in answers] == [o["id"] in right for o in options]
            assert sum(a.select for a in answers) == 1
    elif kind == "numeric":
        assert unescape(gift.text) == prompt_of(source)
        first, *wrongs = answers
        tolerance = str(source["tolerance"])
        if tolerance.endswith("%"):
            absolute = Decimal(tolerance[:-1]) / 100 * abs(Decimal(str(source["value"])))
        else:
            absolute = Decimal(tolerance)
        assert (first.value, first.fraction) == (source["value"], 100)
        assert first.tolerance == pytest.approx(float(absolute))
        assert unescape(first.feedback) == source["explanation"].strip()
        assert [(w.value, w.fraction) for w in wrongs] == [
            (w["value"], 0) for w in source.get("wrong", [])
        ]
        assert [unescape(w.feedback) for w in wrongs] == [
            w["explanation"].strip() for w in source.get("wrong", [])
        ]
        assert unescape(gift.generalFeedback) == source["working"].strip()
    else:  # ordering
        items = [item["text"].strip() for item in source["items"]]
        if len(items) < 3:
            assert type(gift.answers).__name__ == "Description"
            order = "\n".join(f"{n}. {text}" for n, text in enumerate(items, 1))
            explanation = source["explanation"].strip()
            assert unescape(gift.text) == f"{prompt_of(source)}\n\n{order}\n\n{explanation}"
            return
        assert type(gift.answers).__name__ == "MatchingSet"
        assert unescape(gift.text) == prompt_of(source)
        pairs = [(unescape(a.question), a.answer.strip()) for a in answers]
        assert pairs == [(text, f"{n}º") for n, text in enumerate(items, 1)]
        assert unescape(gift.generalFeedback) == source["explanation"].strip()


def test_the_whole_course_round_trips():
    course = load_course(REPO_LESSONS)
    variants = sum(1 for x in course.lessons for q in x.questions.values() if q.variants)
    written = sum(len(written_questions(lesson.path)) for lesson in course.lessons)
    questions = sum(len(lesson.questions) for lesson in course.lessons)
    assert variants >= 3, "the course's variants, which GIFT leaves out"
    assert check_round_trip(REPO_LESSONS) == written - variants == questions - variants > 30


HOSTILE = (
    """\
---
title: "Caracteres do GIFT"
slug: gift-especial
order: 1
summary: "Tudo o que o GIFT trata como especial."
minutes: 1
objectives: ["Escapar"]
---

## Perguntas

```quiz
- id: chaves
  kind: single
  legend: "Qual é o `{x: y}` de `a = b ~ c # d`?"
  prompt: |
    Primeiro parágrafo com `\\\\` e {chaves}.

    Segundo parágrafo: ratio 2:1, 100% = tudo.
  options:
    - id: a
      text: "`a=1` ~ certo"
      explanation: "Certo: # não é comentário,\\nnem = resposta."
    - id: b
      text: "b: errado"
      explanation: "Errado: b#c."
  answer: [a]
- id: todas
  kind: multiple
  prompt: "Quais? Todas."
  options:
    - {id: a, text: "A", explanation: "Sim, A."}
    - {id: b, text: "B", explanation: "Sim, B."}
    - {id: c, text: "C", explanation: "Sim, C."}
  answer: [a, b, c]
- id: tres
  kind: multiple
  prompt: "Quais das três?"
  options:
    - {id: a, text: "A", explanation: "Sim."}
    - {id: b, text: "B", explanation: "Não."}
    - {id: c, text: "C", explanation: "Sim."}
    - {id: d, text: "D", explanation: "Não."}
    - {id: e, text: "E", explanation: "Sim."}
  answer: [a, c, e]
"""
    + ORDERING_AND_NUMERIC
    + "```\n"
)


def test_special_characters_line_breaks_and_the_edge_kinds_round_trip(tmp_path):
    folder = lessons(tmp_path, gift=HOSTILE)
    assert check_round_trip(folder) == 5
    text = gift_document(load_course(folder).lessons)
    todas = "// [id:gift-especial/todas]\n::Quais? Todas.::[markdown]Quais? Todas.{\n"
    assert todas + "\t~%33.33333%A#Sim, A." in text
    assert "~%-100%B#Não." in text  # each wrong option takes the whole mark away
    assert "=4.41:0.0882#A razão das vazões." in text  # 2% of 4.41, absolute
    assert "\\{chaves\\}" in text and "`a\\=1` \\~ certo" in text


def test_the_command_writes_the_lessons_named(tmp_path):
    settings = make_settings(tmp_path)
    target = tmp_path / "kernels.gift"
    done = curso(settings, "exportar", "gift", "kernels", "--saida", str(target))
    assert done.returncode == 0, done.stderr
    kernels = load_course(REPO_LESSONS).get("kernels")
    fixed = [q for q in kernels.questions.values() if q.variants is None]  # GIFT: no variants
    assert done.stdout == f"{len(fixed)} perguntas gravadas em {target}.\n"
    written = read_gift(target.read_text(encoding="utf-8"))
    assert list(written) == [
        f"curso/{kernels.meta.title_text}",
        *(f"curso/{kernels.meta.title_text}/{pool}" for pool in kernels.pools),
    ]
    everything = curso(settings, "exportar", "gift")
    assert list(read_gift(everything.stdout)) == [
        category
        for lesson in load_course(REPO_LESSONS).lessons
        for category in (
            f"curso/{lesson.meta.title_text}",
            *(f"curso/{lesson.meta.title_text}/{pool}" for pool in lesson.pools),
        )
    ]
    unknown = curso(settings, "exportar", "gift", "nada")
    assert unknown.returncode == 1
    assert unknown.stderr == (
        "Nenhuma lição tem o slug nada. Lições: kernels, escolha-self-hosted, alem-do-ollama\n"
    )


def test_the_dashboard_offers_the_download(tmp_path):
    settings = make_settings(tmp_path)
    client = instructor(TestClient(create_app(settings), follow_redirects=False), settings)
    page = client.get("/instrutor")
    assert 'href="/instrutor/exportar/questoes.gift"' in page.text
    response = client.get("/instrutor/exportar/questoes.gift")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.headers["content-disposition"].startswith('attachment; filename="questoes-')
    assert response.text == gift_document(load_course(REPO_LESSONS).lessons)


EDGES = misreadable_lesson("Bordas / do GIFT", "gift-bordas")


def test_what_moodle_would_misread_keeps_its_meaning_and_a_missing_weight_is_skipped(
    tmp_path, monkeypatch
):
    folder = lessons(tmp_path, bordas=EDGES)
    course = load_course(folder)
    assert [p.message for p in course.errors] == []
    assert [(p.file.name, p.line, p.message) for p in course.warnings if "GIFT" in p.message] == [
        (
            "bordas.md",
            13,
            "O Moodle não tem peso de resposta de 9.09091% (11 respostas). "
            "A exportação GIFT deixa esta pergunta de fora.",
        )
    ]
    assert check_round_trip(folder, skipped=("onze",)) == 2
    text = gift_document(course.lessons)
    assert "\t=\\[html] é só texto aqui#\\[html] também aqui." in text
    assert "\t~%0%%50% não é um peso#Errada." in text
    assert "\t=prompt -\\> prefill -> 1º" in text
    assert text.startswith(
        "// Pergunta gift-bordas/onze deixada de fora da exportação GIFT: "
        "O Moodle não tem peso de resposta de 9.09091% (11 respostas).\n\n"
        "$CATEGORY: curso/Bordas // do GIFT\n"
    )
    monkeypatch.setenv("CURSO_LESSONS_DIR", str(folder))
    target = tmp_path / "nova" / "pasta" / "bordas.gift"
    done = curso(make_settings(tmp_path), "exportar", "gift", "--saida", str(target))
    assert done.returncode == 0
    assert done.stderr == (
        "Pergunta gift-bordas/onze deixada de fora da exportação GIFT: "
        "O Moodle não tem peso de resposta de 9.09091% (11 respostas).\n"
    )
    assert done.stdout == f"2 perguntas gravadas em {target}.\n"
    assert target.read_text(encoding="utf-8") == text
