"""Mastery per concept: ``concepts:`` tags checked against the glossary by ``curso check``
(file:line), the rule on ``/progresso`` (one learner) and on the dashboard (SQL over learners)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert
from sqlmodel import Session

from app.content.course import load_course
from app.learning.mastery import (
    DECAY,
    concept_tags,
    course_mastery,
    learner_mastery,
    rebuild_mastery,
)
from app.platform.db import make_engine
from app.platform.models import ATTEMPT, LEARNER
from tests.support.answers import record_choice, session_of
from tests.support.app import REPO_LESSONS
from tests.support.cli import run
from tests.support.html import soup, text
from tests.support.learning import COURSE, answer, right_form, wrong_form
from tests.support.lessons import GOOD
from tests.support.statements import counting

KERNELS = COURSE.get("kernels")
DECODE_QUESTIONS = [q for q in KERNELS.questions.values() if "decode" in q.concepts]
GLOSSARY = """\
- term: prefill
  definition: A fase que processa o prompt inteiro.
- term: decode
  definition: A fase que gera um token por passo.
- term: KV cache
  definition: As chaves e valores da atenção, guardados entre passos.
"""


def course_folder(tmp_path, concepts: str):
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "glossario.yml").write_text(GLOSSARY, encoding="utf-8")
    tagged = GOOD.replace("  kind: single\n", f"  kind: single\n  concepts: {concepts}\n", 1)
    (folder / "01-a.md").write_text(tagged, encoding="utf-8")
    return folder


def test_an_unknown_concept_is_an_error_at_its_line(tmp_path):
    folder = course_folder(tmp_path, "[decode, kv-cach]")
    result = run("check", str(folder))
    assert result.returncode == 1
    line = next(n for n, text in enumerate(GOOD.splitlines(), 1) if "kind: single" in text) + 1
    assert f"01-a.md:{line}:" in result.stdout
    unknown = "o conceito `kv-cach` da pergunta `fase-banda` não é um termo do glossário"
    assert unknown in result.stdout
    assert "(você quis dizer `kv-cache`?)" in result.stdout


def test_a_glossary_term_no_question_tests_is_a_warning(tmp_path):
    result = run("check", str(course_folder(tmp_path, "[decode]")))
    assert result.returncode == 0, result.stdout
    assert "glossario.yml:1:1: warning: nenhuma pergunta testa o termo `prefill`" in result.stdout
    assert "`decode`" not in result.stdout


def test_every_glossary_term_of_the_course_is_tested_and_tags_keep_versions(tmp_path):
    assert COURSE.problems == ()
    tags = {c for lesson in COURSE.lessons for q in lesson.questions.values() for c in q.concepts}
    assert tags == {term.slug for term in COURSE.glossary.terms}
    assert len(DECODE_QUESTIONS) >= 3
    # Tagging is not a new version: without its `concepts:` lines, every version is the same.
    untagged = tmp_path / "lessons"
    untagged.mkdir()
    for source in REPO_LESSONS.iterdir():
        if source.is_file():
            lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
            kept = "".join(line for line in lines if not line.startswith("  concepts: "))
            (untagged / source.name).write_text(kept, encoding="utf-8")
    before = load_course(untagged)
    for lesson in COURSE.lessons:
        for qid, question in lesson.questions.items():
            assert before.get(lesson.slug).questions[qid].content_hash == question.content_hash


@pytest.fixture
def db(settings):
    with session_of(settings) as session:
        yield session


def store(db, learner: str, question, correct: bool, minutes: int) -> None:
    at = datetime(2026, 3, 2, tzinfo=UTC) + timedelta(minutes=minutes)
    key = f"{learner[:4]}-{question.id}-{minutes}".ljust(16, "x")
    record_choice(db, learner, question, correct, at, key)


def by_slug(rows):
    return {row.concept.term.slug: row for row in rows}


def test_the_rule_weighs_the_latest_answers_most(db):
    first, second, *_ = DECODE_QUESTIONS
    store(db, "a" * 32, first, False, 0)
    store(db, "a" * 32, second, True, 1)
    decode = by_slug(learner_mastery(db, COURSE, "a" * 32))["decode"]
    assert decode.answers == 2
    assert decode.mastery == pytest.approx(1 / (1 + DECAY))  # right (1) then wrong (0.8)
    assert by_slug(learner_mastery(db, COURSE, "a" * 32))["lmcache"].mastery is None


def test_only_the_last_ten_answers_count(db):
    question = DECODE_QUESTIONS[0]
    for minute in range(5):
        store(db, "a" * 32, question, False, minute)
    for minute in range(5, 15):
        store(db, "a" * 32, question, True, minute)
    decode = by_slug(learner_mastery(db, COURSE, "a" * 32))["decode"]
    assert (decode.answers, decode.percent) == (10, 100)


def test_the_dashboard_means_mastery_over_learners_in_sql(db):
    question = DECODE_QUESTIONS[0]
    store(db, "a" * 32, question, True, 0)
    store(db, "b" * 32, question, False, 0)
    store(db, "c" * 32, KERNELS.questions["tp-2"], True, 0)
    rows = by_slug(course_mastery(db, COURSE))
    assert (rows["decode"].learners, rows["decode"].percent) == (2, 50)
    assert (rows["tensor-parallelism"].learners, rows["tensor-parallelism"].percent) == (1, 100)
    assert rows["moe"].mastery is None and rows["moe"].learners == 0


def test_mastery_for_decode_moves_on_progresso(client):
    page = soup(client.get("/progresso"))
    item = page.select_one('[data-conceito="decode"]')
    assert "Ainda sem respostas" in text(item)
    assert item.select_one("h3 a")["href"] == "/glossario#decode"
    links = [a["href"] for a in item.select(".mastery-questions a")]
    assert links == [f"/licoes/kernels#pergunta-{q.id}" for q in DECODE_QUESTIONS]
    assert "últimas 10 respostas" in text(page.select_one(".mastery-rule"))
    question = DECODE_QUESTIONS[0]
    answer(client, "kernels", question.id, wrong_form(question))
    answer(client, "kernels", question.id, right_form(question))
    item = soup(client.get("/progresso")).select_one('[data-conceito="decode"]')
    assert item.select_one("svg")["aria-label"] == "Domínio de decode: 56%"
    assert item.select_one(".mastery-fill")["width"] == "56"
    assert "56% · 2 respostas contadas" in text(item.select_one(".mastery-value"))


def test_ten_thousand_learners_mastery_reads_the_kept_rows_in_two_statements(settings):
    """The dashboard's mastery comes from the kept rows: the tags checked, then one aggregate
    statement, a row per concept; the attempt table is not read."""
    engine = make_engine(settings.database_url)
    now = datetime(2026, 3, 2, tzinfo=UTC)
    first, second, *_ = DECODE_QUESTIONS
    learners = [{"id": f"{n:032x}", "created_at": now} for n in range(10_000)]
    attempts = [
        {
            "learner_id": row["id"],
            "lesson_slug": "kernels",
            "question_id": question.id,
            "question_hash": question.content_hash,
            "chosen": "x",
            "correct": question is second or n % 2 == 0,  # odd learners miss, then get it
            "created_at": now + timedelta(minutes=minute),
            "review": False,
        }
        for n, row in enumerate(learners)
        for minute, question in enumerate((first, second))
    ]
    with engine.begin() as connection:
        connection.execute(insert(LEARNER), learners)
        connection.execute(insert(ATTEMPT), attempts)
        rebuild_mastery(connection, concept_tags(COURSE))  # inserted around the write path
    with Session(engine) as db, counting(engine, width=100_000) as statements:
        rows = by_slug(course_mastery(db, COURSE))
    engine.dispose()
    assert len(statements) == 2
    assert not [s for s in statements if "attempt" in s], statements
    decode = rows["decode"]
    assert (decode.learners, decode.answers) == (10_000, 20_000)
    # Even learners: right, right → 1; odd ones: wrong then right → 1 ÷ 1,8.
    assert decode.mastery == pytest.approx((1 + 1 / (1 + DECAY)) / 2)
