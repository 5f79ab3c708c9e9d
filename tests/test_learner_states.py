"""The learner's state kept in memory per process (app/learning/store.py, ``LearnerStates``):
each read checks it against the database in one statement and reads only the rows newer than
those kept; two processes on one database always see each other's answers."""

from __future__ import annotations

import http.cookiejar

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from app.learning.mastery import concept_tags
from app.learning.state import NewAnswer
from app.learning.store import LearnerStates
from app.learning.writer import store_now
from app.platform.db import make_engine
from tests.support.app import (
    BACKENDS,
    REPO_LESSONS,
    create_postgres_database,
    db_rows,
    drop_postgres_database,
)
from tests.support.html import csrf_from, soup
from tests.support.learning import COURSE, KERNELS, answer, right_form, wrong_form
from tests.support.server import LiveServer

TAGS = concept_tags(COURSE)
QUESTIONS = list(KERNELS.questions.values())
SINGLE = next(q for q in QUESTIONS if q.kind == "single")
LEARNER = "e" * 32


def _answer(n: int, learner: str = LEARNER) -> NewAnswer:
    return NewAnswer(
        "kernels",
        SINGLE.id,
        SINGLE.content_hash,
        sorted(SINGLE.answer)[0],
        True,
        None,
        learner_id=learner,
        key=f"chave-estado-{n:04d}-xxxxxxxxx",
    )


class Reads:
    """The statements and parameters an engine sends while the block runs."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sent: list[tuple[str, object]] = []

    def _seen(self, _conn, _cursor, statement, params, _context, _many) -> None:
        if not statement.lstrip().upper().startswith(("BEGIN", "ROLLBACK", "COMMIT")):
            self.sent.append((statement, params))

    def __enter__(self) -> Reads:
        event.listen(self.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *_) -> None:
        event.remove(self.engine, "before_cursor_execute", self._seen)


def test_an_answer_stored_by_another_process_is_read_as_its_rows_alone(settings):
    """Process A's writer stores; process B (its own engine and kept states) reads: one
    statement each time, and only the rows newer than those B keeps."""
    writer_engine, reader_engine = (
        make_engine(settings.database_url),
        make_engine(settings.database_url),
    )
    states = LearnerStates()
    try:
        store_now(writer_engine, [_answer(n) for n in range(3)], TAGS)
        first = states.read(reader_engine, LEARNER)
        assert len(first.attempts) == 3 and states.rows_read == 3
        newest = max(a.id for a in first.attempts)

        store_now(writer_engine, [_answer(3)], TAGS)  # "another process" answers
        with Reads(reader_engine) as reads:
            second = states.read(reader_engine, LEARNER)
        assert len(reads.sent) == 1, reads.sent
        (params,) = [p for _, p in reads.sent]
        assert newest in (params.values() if isinstance(params, dict) else params)
        assert states.rows_read == 3 + 1, "only the new attempt was read"
        assert [a.id for a in second.attempts[:3]] == [a.id for a in first.attempts]
        assert second.attempts[-1].id > newest and len(second.attempts) == 4
        assert len(second.cards) == 1 and second.cards[0].due >= first.cards[0].due

        third = states.read(reader_engine, LEARNER)  # nothing new: nothing read
        assert states.rows_read == 4 and third == second
    finally:
        writer_engine.dispose()
        reader_engine.dispose()


def test_rows_that_come_or_go_below_those_kept_read_the_state_whole(settings):
    """Attempts moved in from another learner (a sign-in merges them) are older than those
    kept: the counts tell, and the state is read whole again; an erased learner reads empty."""
    engine = make_engine(settings.database_url)
    other = "d" * 32
    states = LearnerStates()
    try:
        store_now(engine, [_answer(0, other), _answer(1, other)], TAGS)  # the lower ids
        store_now(engine, [_answer(0)], TAGS)
        assert len(states.read(engine, LEARNER).attempts) == 1
        with engine.begin() as connection:
            connection.exec_driver_sql(
                f"UPDATE attempt SET learner_id = '{LEARNER}', idempotency_key = "
                f"idempotency_key || 'm' WHERE learner_id = '{other}'"
            )
        merged = states.read(engine, LEARNER)
        assert len(merged.attempts) == 3
        assert [a.id for a in merged.attempts] == sorted(a.id for a in merged.attempts)
        with engine.begin() as connection:
            connection.exec_driver_sql(f"DELETE FROM attempt WHERE learner_id = '{LEARNER}'")
            connection.exec_driver_sql(f"DELETE FROM review_card WHERE learner_id = '{LEARNER}'")
            connection.exec_driver_sql(f"DELETE FROM learner WHERE id = '{LEARNER}'")
        erased = states.read(engine, LEARNER)
        assert erased.attempts == () and not erased.stored
    finally:
        engine.dispose()


def test_the_least_recently_read_learner_is_dropped_beyond_the_bound(settings):
    engine = make_engine(settings.database_url)
    states = LearnerStates(max_learners=2)
    learners = [str(n) * 32 for n in range(1, 4)]
    try:
        store_now(engine, [_answer(0, learner) for learner in learners], TAGS)
        for learner in learners:
            states.read(engine, learner)
        assert states.rows_read == 3
        states.read(engine, learners[0])  # dropped: read whole again
        assert states.rows_read == 4
        states.read(engine, learners[2])  # kept: nothing read
        assert states.rows_read == 4
    finally:
        engine.dispose()


@pytest.fixture(params=BACKENDS)
def two_servers(request, tmp_path):
    """Two uvicorn processes on one database (one SQLite file, or one PostgreSQL database)."""
    url = create_postgres_database() if request.param == "postgresql" else ""
    first = LiveServer(tmp_path, REPO_LESSONS, database_url=url)
    second = LiveServer(tmp_path, REPO_LESSONS, database_url=url)
    first.start()
    second.start()
    yield first, second
    second.stop()
    first.stop()
    if url:
        drop_postgres_database(url)


def _right_count(client: httpx.Client) -> tuple[int, int]:
    progress = client.get("/api/progresso").json()
    kernels = next(lesson for lesson in progress["lessons"] if lesson["slug"] == "kernels")
    return kernels["right"], kernels["attempts"]


def test_two_processes_answering_through_one_and_reading_through_the_other_see_every_answer(
    two_servers,
):
    first, second = two_servers
    jar = http.cookiejar.CookieJar()  # one browser: the same session cookie on both
    a = httpx.Client(base_url=first.url, cookies=jar, timeout=30)
    b = httpx.Client(base_url=second.url, cookies=jar, timeout=30)
    with a, b:
        a.get("/licoes/kernels")
        token = csrf_from(a.get("/licoes/kernels").text)
        asked = [q for q in QUESTIONS if q.kind in ("single", "multiple")][:4]
        assert answer(a, "kernels", asked[0].id, right_form(asked[0]), token=token).is_success
        assert _right_count(b) == (1, 1), "B reads A's first answer"
        assert _right_count(a) == (1, 1)
        for n, question in enumerate(asked[1:], start=2):
            writer, reader = (a, b) if n % 2 else (b, a)
            sent = answer(writer, "kernels", question.id, right_form(question), token=token)
            assert sent.is_success
            assert _right_count(reader) == (n, n), f"answer {n} seen through the other process"
        # A wrong answer through A is shown graded on B's lesson page, kept or not.
        missed = asked[0]
        assert answer(a, "kernels", missed.id, wrong_form(missed), token=token).is_success
        assert _right_count(b) == (4, 5)
        page = soup(b.get("/licoes/kernels").text)
        assert len(page.select(".verdict")) == 4, "the four questions answered show graded"
    assert db_rows(first.settings, "SELECT count(*) FROM attempt") == [(5,)]
