"""Mastery per concept kept per learner × concept, against the rule computed in SQL.

A random history (learners, tagged and untagged questions, old versions, answers out of time
order, ties in time, batches of any size, a learner erased, an anonymous learner merged into
another) goes in through :func:`app.learning.mastery.record_in_mastery`, as the write paths
call it; then the kept figures must be the ones the reference SQL
(:func:`~app.learning.mastery.reference_learner_mastery`,
:func:`~app.learning.mastery.reference_course_mastery`) computes from ``attempt``, for each
learner, for the course and for a class, and a rebuild from ``attempt`` must give the same
rows. Also: the course's tags change, the migration builds the rows for the attempts already
stored, and answers over HTTP (lesson and ``/revisar``) reach ``/progresso``.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import column, event, insert, select
from sqlalchemy import table as core_table
from sqlmodel import Session

from app.content.course import load_course
from app.learning.learners import delete_learner, merge_learner
from app.learning.mastery import (
    concept_tags,
    course_mastery,
    in_sync,
    learner_mastery,
    rebuild_mastery,
    record_in_mastery,
    reference_course_mastery,
    reference_learner_mastery,
)
from app.platform.db import make_engine
from app.platform.migrate import downgrade, upgrade
from app.platform.models import (
    KEPT_MASTERY,
    LEARNER,
    MASTERY_TAG,
    MASTERY_TALLY,
    Attempt,
    ClassMember,
    Classroom,
    Learner,
)
from tests.support.app import db_rows
from tests.support.html import soup, text
from tests.support.learning import (
    COURSE,
    KERNELS,
    answer,
    answer_form,
    let_time_pass,
    right_form,
    wrong_form,
)
from tests.support.lessons import GOOD

T0 = datetime(2026, 3, 2, tzinfo=UTC)
LEARNERS = [f"{n:032x}" for n in range(1, 13)]
TAGS = concept_tags(COURSE)
QUESTIONS = [(lesson.slug, q) for lesson in COURSE.lessons for q in lesson.questions.values()]


@pytest.fixture
def engine(settings):
    engine = make_engine(settings.database_url)
    yield engine
    engine.dispose()


def assert_same(kept, reference) -> None:
    """The same concepts, answers and learners, and the same mastery but for the last bits of
    a float (sums in another order; the dashboard's sums in 10⁻¹² steps)."""
    assert [(r.concept.term.slug, r.answers, r.learners) for r in kept] == [
        (r.concept.term.slug, r.answers, r.learners) for r in reference
    ]
    for mine, theirs in zip(kept, reference, strict=True):
        if theirs.mastery is None:
            assert mine.mastery is None, mine.concept.term.slug
        else:
            assert mine.mastery == pytest.approx(theirs.mastery, abs=1e-9), mine.concept.term.slug
            assert mine.percent == theirs.percent


def by_slug(rows):
    return {r.concept.term.slug: r for r in rows}


def kept_rows(engine) -> list[tuple]:
    """Every ``kept_mastery`` row, then every ``mastery_tally`` row."""
    with engine.connect() as connection:
        rows = select(KEPT_MASTERY).order_by(KEPT_MASTERY.c.learner_id, KEPT_MASTERY.c.concept)
        tally = select(MASTERY_TALLY).order_by(MASTERY_TALLY.c.concept)
        return [tuple(row) for row in connection.execute(rows)] + [
            tuple(row) for row in connection.execute(tally)
        ]


def random_batches(rng: random.Random, count: int) -> list[list[Attempt]]:
    """``count`` attempts in batches of 1 to 40, at times out of order with ties."""
    attempts = []
    for n in range(count):
        slug, question = rng.choice(QUESTIONS)
        attempts.append(
            Attempt(
                learner_id=rng.choice(LEARNERS),
                lesson_slug=slug,
                question_id=question.id,
                question_hash=rng.choice([question.content_hash, "antiga"]),
                chosen="x",
                correct=rng.random() < 0.6,
                created_at=T0 + timedelta(minutes=rng.randrange(30)),  # many ties
                idempotency_key=f"k{n:015d}",
                review=rng.random() < 0.3,
            )
        )
    batches = []
    while attempts:
        size = rng.randint(1, 40)
        batches.append(attempts[:size])
        attempts = attempts[size:]
    return batches


def assert_same_as_reference(db: Session, class_id: int) -> None:
    for learner in LEARNERS:
        assert_same(
            learner_mastery(db, COURSE, learner), reference_learner_mastery(db, COURSE, learner)
        )
    assert_same(course_mastery(db, COURSE), reference_course_mastery(db, COURSE))
    assert_same(
        course_mastery(db, COURSE, class_id), reference_course_mastery(db, COURSE, class_id)
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kept_mastery_is_the_rule_over_a_random_history(engine, seed):
    rng = random.Random(seed)
    with Session(engine) as db:
        db.add_all(Learner(id=lid, created_at=T0) for lid in LEARNERS)
        classroom = Classroom(name="Turma", join_code=f"codigo-{seed}")
        db.add(classroom)
        db.flush()
        assert classroom.id is not None
        db.add_all(ClassMember(class_id=classroom.id, learner_id=lid) for lid in LEARNERS[::3])
        db.commit()
        for batch in random_batches(rng, 600):
            db.add_all(batch)
            db.flush()
            record_in_mastery(db, TAGS, batch)
            db.commit()
        assert any(r.learners for r in course_mastery(db, COURSE)), "some concept was answered"
        assert_same_as_reference(db, classroom.id)
        kept = kept_rows(engine)
        rebuild_mastery(db, TAGS)
        db.commit()
        assert kept_rows(engine) == kept, "kept answer by answer == computed again from attempt"

        delete_learner(db, LEARNERS[0])
        merge_learner(db, LEARNERS[1], LEARNERS[2], None)
        assert_same_as_reference(db, classroom.id)
        assert not [row for row in kept_rows(engine) if row[0] in LEARNERS[:2]]
        kept = kept_rows(engine)
        rebuild_mastery(db, TAGS)
        db.commit()
        assert kept_rows(engine) == kept, "kept through erasure and merge == computed again"


def test_an_attempt_folded_twice_counts_once_and_an_older_one_finds_its_place(engine):
    question = next(q for q in KERNELS.questions.values() if "decode" in q.concepts)

    def attempt(n: int, minutes: int, correct: bool) -> Attempt:
        return Attempt(
            learner_id=LEARNERS[0],
            lesson_slug="kernels",
            question_id=question.id,
            question_hash=question.content_hash,
            chosen="x",
            correct=correct,
            created_at=T0 + timedelta(minutes=minutes),
            idempotency_key=f"k{n:015d}",
        )

    with Session(engine) as db:
        db.add(Learner(id=LEARNERS[0], created_at=T0))
        db.flush()
        newer = [attempt(n, 10 + n, True) for n in range(10)]
        older = attempt(99, 0, False)  # older than the ten kept: counts for nothing
        db.add_all([*newer, older])
        db.flush()
        record_in_mastery(db, TAGS, newer)
        record_in_mastery(db, TAGS, newer[-3:])  # the same attempts again
        record_in_mastery(db, TAGS, [older])
        db.commit()
        decode = by_slug(learner_mastery(db, COURSE, LEARNERS[0]))["decode"]
        assert (decode.answers, decode.percent) == (10, 100)
        assert_same(
            learner_mastery(db, COURSE, LEARNERS[0]),
            reference_learner_mastery(db, COURSE, LEARNERS[0]),
        )
        assert by_slug(course_mastery(db, COURSE))["decode"].answers == 10


def test_a_batch_costs_the_same_statements_whatever_its_size(engine):
    counted: list[str] = []

    def seen(_conn, _cursor, statement, *_):
        if statement.split()[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            counted.append(statement)

    tagged = [(s, q) for s, q in QUESTIONS if TAGS.get((s, q.id))]
    with Session(engine) as db:
        db.add_all(Learner(id=lid, created_at=T0) for lid in LEARNERS)
        db.commit()
        sizes = []
        for size in (1, 300):
            batch = [
                Attempt(
                    learner_id=LEARNERS[n % len(LEARNERS)],
                    lesson_slug=tagged[n % len(tagged)][0],
                    question_id=tagged[n % len(tagged)][1].id,
                    question_hash="v",
                    chosen="x",
                    correct=n % 3 == 0,
                    created_at=T0 + timedelta(seconds=n),
                    idempotency_key=f"s{size}-{n:012d}",
                )
                for n in range(size)
            ]
            db.add_all(batch)
            db.flush()
            counted.clear()
            event.listen(engine, "before_cursor_execute", seen)
            record_in_mastery(db, TAGS, batch)
            event.remove(engine, "before_cursor_execute", seen)
            sizes.append(len(counted))
            db.commit()
    # read the pairs' rows (and lock the learners), upsert them, add to the concepts' sums
    assert sizes == [3, 3], counted


GLOSSARY = """\
- term: prefill
  definition: A fase que processa o prompt inteiro.
- term: decode
  definition: A fase que gera um token por passo.
"""


def tagged_course(tmp_path, concepts: str):
    folder = tmp_path / concepts.strip("[]").replace(", ", "-")
    folder.mkdir()
    (folder / "glossario.yml").write_text(GLOSSARY, encoding="utf-8")
    tagged = GOOD.replace("  kind: single\n", f"  kind: single\n  concepts: {concepts}\n", 1)
    (folder / "01-a.md").write_text(tagged, encoding="utf-8")
    return load_course(folder)


def test_when_the_tags_change_the_kept_rows_are_counted_again(engine, tmp_path):
    before = tagged_course(tmp_path, "[decode]")
    after = tagged_course(tmp_path, "[decode, prefill]")
    lesson = before.lessons[0]
    question = next(q for q in lesson.questions.values() if q.concepts)
    with Session(engine) as db:
        rebuild_mastery(db, concept_tags(before))  # the course served until now
        db.add(Learner(id=LEARNERS[0], created_at=T0))
        db.flush()
        attempts = [
            Attempt(
                learner_id=LEARNERS[0],
                lesson_slug=lesson.slug,
                question_id=question.id,
                question_hash=question.content_hash,
                chosen="x",
                correct=n != 1,
                created_at=T0 + timedelta(minutes=n),
                idempotency_key=f"t{n:015d}",
            )
            for n in range(3)
        ]
        db.add_all(attempts)
        db.flush()
        record_in_mastery(db, concept_tags(before), attempts)
        db.commit()
        assert [r[1] for r in kept_rows(engine) if r[0] == LEARNERS[0]] == ["decode"]
        # The lesson now also tags "prefill": /progresso is right at once, without writing...
        mine = learner_mastery(db, after, LEARNERS[0])
        assert_same(mine, reference_learner_mastery(db, after, LEARNERS[0]))
        prefill = by_slug(mine)["prefill"]
        assert (prefill.answers, prefill.percent) == (3, 67)  # (1 + 0.64) ÷ (1 + 0.8 + 0.64)
        assert [r[1] for r in kept_rows(engine) if r[0] == LEARNERS[0]] == ["decode"]
        # ...and the dashboard counts the rows again once.
        assert_same(course_mastery(db, after), reference_course_mastery(db, after))
        assert [r[1] for r in kept_rows(engine) if r[0] == LEARNERS[0]] == ["decode", "prefill"]
        assert in_sync(db, concept_tags(after))


ATTEMPT_0013 = (
    "learner_id",
    "lesson_slug",
    "question_id",
    "question_hash",
    "chosen",
    "correct",
    "created_at",
    "review",
)


def test_the_migration_counts_the_attempts_already_stored_and_walks_down_and_up(settings):
    url = settings.database_url
    downgrade(url, "0013")
    question = next(q for q in KERNELS.questions.values() if "decode" in q.concepts)
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(insert(LEARNER), [{"id": LEARNERS[0], "created_at": T0}])
            connection.execute(
                # the columns of attempt at revision 0013 (``help`` came in 0017)
                insert(core_table("attempt", *(column(c) for c in ATTEMPT_0013))),
                [
                    {
                        "learner_id": LEARNERS[0],
                        "lesson_slug": "kernels",
                        "question_id": question.id,
                        "question_hash": "uma-versao-antiga",
                        "chosen": "x",
                        "correct": n % 2 == 0,
                        "created_at": T0 + timedelta(minutes=n),
                        "review": False,
                    }
                    for n in range(3)
                ],
            )
        upgrade(url)
        with Session(engine) as db:
            assert in_sync(db, TAGS)
            kept = learner_mastery(db, COURSE, LEARNERS[0])
            assert_same(kept, reference_learner_mastery(db, COURSE, LEARNERS[0]))
            assert (by_slug(kept)["decode"].answers, by_slug(kept)["decode"].percent) == (3, 67)
            assert_same(course_mastery(db, COURSE), reference_course_mastery(db, COURSE))
        rows = kept_rows(engine)
        concepts = sorted(TAGS[("kernels", question.id)])
        assert [row[:2] for row in rows] == [(LEARNERS[0], c) for c in concepts] + [
            (c, 1) for c in concepts
        ]
        downgrade(url, "0013")
        assert db_rows(settings, "SELECT count(*) FROM attempt") == [(3,)]
        upgrade(url)
        assert kept_rows(engine) == rows
        with engine.connect() as connection:
            assert connection.execute(select(MASTERY_TAG)).all()
    finally:
        engine.dispose()


def test_answers_in_the_lesson_and_on_revisar_reach_progresso(client, settings):
    question = next(q for q in KERNELS.questions.values() if "decode" in q.concepts)
    answer(client, "kernels", question.id, wrong_form(question))
    let_time_pass(settings)
    page = client.get("/revisar").text
    assert f'id="pergunta-{question.id}"' in page
    data = answer_form(page, question.id, opcao=right_form(question))
    response = client.post(f"/revisar/kernels/{question.id}", data=data, follow_redirects=False)
    assert response.status_code == 303
    item = soup(client.get("/progresso")).select_one('[data-conceito="decode"]')
    # right on /revisar (1), wrong in the lesson before (0.8): 1 ÷ 1.8
    assert "56% · 2 respostas contadas" in text(item.select_one(".mastery-value"))
    stored = db_rows(settings, "SELECT concept, answers FROM kept_mastery ORDER BY concept")
    assert stored == [(c, 2) for c in sorted(TAGS[("kernels", question.id)])]
