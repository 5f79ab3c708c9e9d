"""``learner_tally.answers``: one codec (``app/learning/tallies/codec.py``) writes it, in
Python and in SQL, reads it back, and counts the answers of the learners on the edge of a
27% group."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import insert, select

from app.learning.tallies.codec import (
    aggregate_lines,
    answer_line,
    count_answers,
    decode_answers,
    encode_answers,
    join_answers,
)
from app.platform.db import make_engine
from app.platform.models import FIRST_TRY, LEARNER
from tests.support.app import (
    BACKENDS,
    create_postgres_database,
    drop_postgres_database,
    make_settings,
)

ANSWERS = [
    ("kernels", "q1", "a,c", True),
    ("kernels", "q10", "b", False),
    ("memoria", "q1", "4.41", True),
]


def test_what_is_written_reads_back() -> None:
    text = encode_answers(ANSWERS)
    assert text == "kernels\tq1\ta,c\t1\nkernels\tq10\tb\t0\nmemoria\tq1\t4.41\t1"
    assert decode_answers(text) == {
        ("kernels", "q1"): ("a,c", True),
        ("kernels", "q10"): ("b", False),
        ("memoria", "q1"): ("4.41", True),
    }
    assert decode_answers("") == {} and decode_answers(None) == {}


def test_the_edge_counts_one_question_only_first_learners_for_the_top_last_for_the_bottom() -> None:
    learners = [  # in learner id order, as the dashboard reads them
        encode_answers([("kernels", "q1", "a", True), ("kernels", "q10", "x", False)]),
        encode_answers([("kernels", "q10", "y", True)]),  # q10 only: not an answer to q1
        encode_answers([("kernels", "q1", "b", False)]),
        encode_answers([("kernels", "q1", "b", False), ("memoria", "q1", "z", True)]),
        "",  # a learner with no first try at the basis
    ]
    joined = join_answers(learners)
    assert count_answers(joined, ("kernels", "q1"), 2, top=True) == {("a", "1"): 1, ("b", "0"): 1}
    assert count_answers(joined, ("kernels", "q1"), 1, top=False) == {("b", "0"): 1}
    assert count_answers(joined, ("kernels", "q10"), 5, top=True) == {("x", "0"): 1, ("y", "1"): 1}
    assert count_answers(joined, ("memoria", "q1"), 1, top=True) == {("z", "1"): 1}


@pytest.fixture(params=BACKENDS)
def connection(request, tmp_path):
    url = None
    if request.param == "postgresql":
        url = create_postgres_database()
        request.addfinalizer(lambda: drop_postgres_database(url))
    engine = make_engine(make_settings(tmp_path, database_url=url).database_url)
    try:
        with engine.begin() as connection:
            yield connection
    finally:
        engine.dispose()


def test_the_sql_lines_are_the_python_lines(connection) -> None:
    when = datetime(2026, 12, 1, tzinfo=UTC)
    connection.execute(insert(LEARNER), [{"id": "a" * 32, "created_at": when}])
    connection.execute(
        insert(FIRST_TRY),
        [
            {
                "learner_id": "a" * 32,
                "lesson_slug": slug,
                "question_id": qid,
                "question_hash": "h",
                "attempt_id": n,
                "created_at": when,
                "chosen": chosen,
                "correct": correct,
                "attempts": 1,
                "rights": int(correct),
                "last_at": when,
            }
            for n, (slug, qid, chosen, correct) in enumerate(ANSWERS, start=1)
        ],
    )
    text = connection.execute(select(aggregate_lines(answer_line(FIRST_TRY)))).scalar_one()
    assert decode_answers(text) == decode_answers(encode_answers(ANSWERS))
    assert sorted(text.split("\n")) == encode_answers(ANSWERS).split("\n")
