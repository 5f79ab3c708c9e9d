"""The kept dashboard aggregates against a full SQL recount and the plain Python rules.

Random cohorts (learners, questions, versions, answer times out of order, retries,
a learner deleted, an anonymous learner merged into another) go through the app's own
write paths; then three ways of getting the figures must agree:

1. the aggregates as kept answer by answer (``app/learning/tallies/``);
2. the aggregates recounted from ``attempt`` in SQL (:func:`app.learning.tallies.rebuild.rebuild`);
3. the rules in Python over the raw attempts: the learner's own progress rules
   (``app/learning/grading.py``) for the funnel, :func:`app.analytics.dashboard.python_items`
   for the items.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select
from sqlmodel import Session

from app.analytics.dashboard import funnel, item_stats, python_items, sync_tally_basis
from app.content.course import load_course
from app.learning.grading import AttemptFact, LessonStatus, lesson_progress, question_records
from app.learning.learners import delete_learner, merge_learner
from app.learning.mastery import concept_tags
from app.learning.tallies.codec import decode_answers
from app.learning.tallies.fold import fold, utc
from app.learning.tallies.rebuild import rebuild
from app.platform.db import make_engine
from app.platform.models import (
    FIRST_TRY,
    LEARNER_TALLY,
    LESSON_TALLY,
    QUESTION_TALLY,
    SCORE_TALLY,
    Attempt,
    FirstTry,
    Learner,
    LearnerTally,
    LessonTally,
    QuestionTally,
    ScoreTally,
    TallyBasis,
)
from tests.support.answers import record_attempt
from tests.support.app import (
    BACKENDS,
    create_postgres_database,
    drop_postgres_database,
    make_settings,
)
from tests.support.cohort import write_cohort_lessons

START = datetime(2026, 11, 1, tzinfo=UTC)
LEARNERS = [f"{n:02d}" + "a" * 30 for n in range(6)]
KEYS = itertools.count()

answer = st.tuples(
    st.just("answer"),
    st.integers(0, len(LEARNERS) - 1),  # learner
    st.integers(0, 5),  # question (0: the first lesson's, 1-5: "itens")
    st.sampled_from("abc"),  # option
    st.booleans(),  # an old version of the question
    st.integers(0, 10_000),  # minutes after START (out of order on purpose)
)
forget = st.tuples(st.just("delete"), st.integers(0, len(LEARNERS) - 1))
merge = st.tuples(
    st.just("merge"), st.integers(0, len(LEARNERS) - 1), st.integers(0, len(LEARNERS) - 1)
)
operations = st.lists(st.one_of(answer, answer, answer, answer, forget, merge), max_size=40)


@pytest.fixture(scope="module", params=BACKENDS)
def world(request, tmp_path_factory):
    """A migrated database (SQLite, and PostgreSQL when one runs) and the cohort's course
    (three lessons, six questions)."""
    tmp = tmp_path_factory.mktemp("agregados")
    folder = tmp / "lessons"
    write_cohort_lessons(folder)
    course = load_course(folder)
    url = create_postgres_database() if request.param == "postgresql" else None
    engine = make_engine(make_settings(tmp, folder, url).database_url)
    yield course, engine
    engine.dispose()
    if url:
        drop_postgres_database(url)


def _questions(course):
    return [
        (lesson.slug, question)
        for lesson in course.lessons
        for question in lesson.questions.values()
    ]


def _apply(engine, course, ops) -> None:
    questions = _questions(course)
    with Session(engine) as db:
        for op in ops:
            if op[0] == "answer":
                _, who, q, option, old, minutes = op
                slug, question = questions[q % len(questions)]
                chosen = (
                    option if option in {o.id for o in question.options} else question.options[0].id
                )
                attempt = Attempt(
                    learner_id=LEARNERS[who], lesson_slug=slug, question_id=question.id,
                    question_hash="antiga" if old else question.content_hash, chosen=chosen,
                    correct=chosen in question.answer, idempotency_key=f"k{next(KEYS)}",
                    created_at=START + timedelta(minutes=minutes),
                )  # fmt: skip
                record_attempt(db, attempt, concept_tags(course))
            elif op[0] == "delete":
                delete_learner(db, LEARNERS[op[1]])
            elif db.get(Learner, LEARNERS[op[2]]) is not None:  # an account's learner exists
                merge_learner(db, LEARNERS[op[1]], LEARNERS[op[2]], None)


def _tables(db) -> dict[str, set]:
    """Every kept aggregate row (times in UTC, score_tally's surrogate id left out)."""

    def rows(table, skip=()):
        names = [c.name for c in table.columns if c.name not in skip]
        return {
            tuple(utc(v) if isinstance(v, datetime) else v for v in row)
            for row in db.exec(select(*(table.c[n] for n in names)))
        }

    return {
        "first_try": rows(FIRST_TRY),
        "question_tally": rows(QUESTION_TALLY),
        "learner_tally": {
            (*row[:-1], frozenset(decode_answers(row[-1]).items())) for row in rows(LEARNER_TALLY)
        },
        "lesson_tally": rows(LESSON_TALLY),
        "score_tally": rows(SCORE_TALLY, ("id",)),
    }


def _figures(db, course):
    return [(s.slug, s.started, s.completed) for s in funnel(db, course)], item_stats(db, course)


def _python_funnel(attempts, course):
    """The funnel from the learner's own progress rules (``app/learning/grading.py``)."""
    by_learner: dict[str, list] = {}
    for a in sorted(attempts, key=lambda a: (utc(a.created_at), a.id)):
        by_learner.setdefault(a.learner_id, []).append(
            AttemptFact(a.lesson_slug, a.question_id, a.question_hash, a.correct)
        )
    records = {learner: question_records(facts) for learner, facts in by_learner.items()}
    out = []
    for lesson in course.lessons:
        if not lesson.questions:
            continue
        statuses = [
            lesson_progress(lesson.slug, lesson.questions, r).status for r in records.values()
        ]
        out.append(
            (
                lesson.slug,
                sum(s != LessonStatus.NOT_STARTED for s in statuses),
                sum(s == LessonStatus.DONE for s in statuses),
            )
        )
    return out


def _reset(engine, course) -> None:
    with Session(engine) as db:
        for model in (
            ScoreTally,
            LessonTally,
            LearnerTally,
            QuestionTally,
            FirstTry,
            TallyBasis,
            Attempt,
            Learner,
        ):
            db.exec(delete(model))
        db.commit()
        sync_tally_basis(db, course)  # the basis is in place before any answer, as in production


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=operations)
def test_kept_figures_equal_a_full_sql_recount_and_the_python_rules(world, ops):
    course, engine = world
    _reset(engine, course)
    _apply(engine, course, ops)
    with Session(engine) as db:
        kept = _tables(db)
        kept_figures = _figures(db, course)
        attempts = list(db.scalars(select(Attempt)))
    with Session(engine) as db:
        rebuild(db)
        db.commit()
    with Session(engine) as db:
        assert _tables(db) == kept
        assert _figures(db, course) == kept_figures
    # The rules in Python, over the raw attempts.
    states: dict[str, dict] = {}
    for a in attempts:
        states[a.learner_id] = fold(states.get(a.learner_id, {}), [a])
    assert kept_figures[0] == _python_funnel(attempts, course)
    assert kept_figures[1] == python_items(states, course)
    # Every stored learner with an answer is on the dashboard.
    assert {row[0] for row in kept["learner_tally"]} == {a.learner_id for a in attempts}
