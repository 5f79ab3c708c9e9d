"""The answer path: one use-case (tested on an in-memory store) and one writer per process that
commits answers in groups (tested on SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import re
import threading
from dataclasses import replace

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.learning import writer
from app.learning.mastery import concept_tags
from app.learning.progress import lesson_shape_total
from app.learning.state import (
    DuplicateKeyError,
    NewAnswer,
    Place,
    Written,
)
from app.learning.usecases import (
    QUESTION_CHANGED,
    REUSED_KEY,
    STALE_FORM,
    Answer,
    AnswerPlace,
    FormRefused,
    answer_question,
)
from app.learning.writer import AnswerWriter, WriterUnavailable, store_now
from app.lti.launch import GradedLaunch
from app.lti.scores import ScoreOrder, queue_scores, score_order
from app.lti.tool import register_platform
from app.platform.db import make_engine
from tests.support.app import db_rows
from tests.support.coroutines import run as run_coroutine
from tests.support.learning import COURSE, KERNELS
from tests.support.memory_store import MemoryStore

QUESTIONS = list(KERNELS.questions.values())
TOTAL = lesson_shape_total(KERNELS)  # what the lesson counts: a pool, its draw
SINGLE = next(q for q in QUESTIONS if q.kind == "single")
RIGHT = sorted(SINGLE.answer)[0]
TAGS = concept_tags(COURSE)
CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b", re.I)


def answer(*args, **kwargs):
    """:func:`answer_question`, run to its end (it awaits the store's commit)."""
    return run_coroutine(answer_question(*args, **kwargs))


def form(key: str = "k" * 22, option: str = RIGHT, version: str | None = None) -> Answer:
    return Answer(key, SINGLE.content_hash if version is None else version, options=[option])


def test_an_answer_is_graded_stored_once_and_shown_from_one_read():
    store = MemoryStore()
    page = answer(store, COURSE, KERNELS, SINGLE, "a" * 32, form())
    assert page.stored and page.view.result is not None and page.view.result.correct
    assert store.reads == 1, "the page is built from the state read before plus the attempt"
    assert page.state is not None and len(page.state.attempts) == 1
    assert page.progress is not None and page.progress.percent > 0
    again = answer(store, COURSE, KERNELS, SINGLE, "a" * 32, form())
    assert not again.stored and len(store.keys) == 1
    assert again.state is not None and len(again.state.attempts) == 1, "not counted twice"


@pytest.mark.parametrize(
    ("sent", "reason"),
    [
        (form(key="curta"), STALE_FORM),
        (form(version="outra-versao"), QUESTION_CHANGED),
    ],
)
def test_a_refused_form_stores_nothing(sent, reason):
    store = MemoryStore()
    with pytest.raises(FormRefused) as refused:
        answer(store, COURSE, KERNELS, SINGLE, "a" * 32, sent)
    assert refused.value.reason == reason
    assert store.keys == {} and store.reads == 0


def test_a_key_used_for_another_question_is_refused():
    store = MemoryStore()
    answer(store, COURSE, KERNELS, SINGLE, "a" * 32, form())
    other = next(q for q in QUESTIONS if q.kind == "single" and q.id != SINGLE.id)
    sent = Answer("k" * 22, other.content_hash, options=[sorted(other.answer)[0]])
    with pytest.raises(FormRefused) as refused:
        answer(store, COURSE, KERNELS, other, "a" * 32, sent)
    assert refused.value.reason == REUSED_KEY


def test_review_answers_take_the_same_path_marked_review():
    store = MemoryStore()
    sent: list[NewAnswer] = []
    keep = store.store_answer

    async def spy(sent_answer: NewAnswer) -> Written:  # what the use-case sends the store
        sent.append(sent_answer)
        return await keep(sent_answer)

    store.store_answer = spy  # type: ignore[method-assign]
    answer(store, COURSE, KERNELS, SINGLE, "a" * 32, form(), AnswerPlace(review=True))
    assert [a.review for a in sent] == [True]


def _answer(learner: int, n: int, **changes) -> NewAnswer:
    base = NewAnswer(
        "kernels",
        SINGLE.id,
        SINGLE.content_hash,
        RIGHT,
        True,
        None,
        learner_id=f"{learner:032d}",
        key=f"chave-{learner}-{n:04d}-xxxxxxxx",
    )
    return replace(base, **changes)


def _statements(engine: Engine, batch: list[NewAnswer], width: int = 120) -> list[str]:
    seen: list[str] = []

    def count(_conn, _cursor, statement, _params, _context, _many):
        if not CONTROL.match(statement):
            seen.append(" ".join(statement.split())[:width])

    event.listen(engine, "before_cursor_execute", count)
    try:
        done = store_now(engine, batch, TAGS)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert not [d for d in done if isinstance(d, Exception)]
    return seen


def test_a_batch_costs_the_same_statements_whatever_its_size(settings):
    engine = make_engine(settings.database_url)
    try:
        # Everyone has answered before: cards to rate, tallies to move.
        store_now(engine, [_answer(learner, 0) for learner in range(60)], TAGS)
        one = _statements(engine, [_answer(0, 1, correct=False)])
        many = _statements(
            engine, [_answer(learner, 2, correct=learner % 3 == 0) for learner in range(60)]
        )
    finally:
        engine.dispose()
    assert len(many) == len(one), "\n".join(many)
    # PostgreSQL also locks the batch's learners and the version basis (two more statements).
    on_postgres = any("%s" in s or "%(" in s for s in many)  # psycopg's placeholders
    assert len(many) <= (14 if on_postgres else 12), "\n".join(many)
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(121,)]


def test_the_answers_own_statements_keep_one_text_whatever_the_batchs_size(settings):
    """The learners' upsert and the attempts' insert are fixed text run by the driver (issue
    35): SQLAlchemy rendered one ``VALUES`` group per answer of the insert, a new text (and
    compilation) for each batch size."""
    engine = make_engine(settings.database_url)
    try:
        one = _statements(engine, [_answer(0, 1)], width=100_000)
        many = _statements(engine, [_answer(learner, 2) for learner in range(30)], width=100_000)
    finally:
        engine.dispose()
    own = ("INSERT INTO attempt", "INSERT INTO learner ")
    mine_one = [s for s in one if s.startswith(own)]
    assert len(mine_one) == 2 and mine_one == [s for s in many if s.startswith(own)]


def test_one_bad_answer_does_not_cost_the_others_of_its_batch(settings):
    engine = make_engine(settings.database_url)
    try:
        done = store_now(
            engine,
            # The middle answer has no lesson on purpose: NOT NULL refuses it, and only it.
            [_answer(1, 1), _answer(2, 1, lesson_slug=None), _answer(3, 1)],  # type: ignore[arg-type]
            TAGS,
        )
    finally:
        engine.dispose()
    assert isinstance(done[0], Written) and isinstance(done[2], Written)
    assert isinstance(done[1], Exception)
    assert db_rows(settings, "SELECT learner_id FROM attempt ORDER BY learner_id") == [
        (f"{1:032d}",),
        (f"{3:032d}",),
    ]


def store(writer: AnswerWriter, answer: NewAnswer) -> Written:
    """``answer`` stored through ``writer`` as a request does: awaited on an event loop."""
    return run_coroutine(writer.write(answer))


def test_answers_sent_at_once_share_commits_and_each_returns_after_its_own(settings):
    engine = make_engine(settings.database_url)
    writer = AnswerWriter(engine, lambda: TAGS)
    results: list[Written] = []

    async def send(learner: int) -> None:
        written = await writer.write(_answer(learner, 1))
        rows = db_rows(settings, f"SELECT id FROM attempt WHERE id = {written.row.id}")
        assert rows == [(written.row.id,)], "durable before acknowledged"
        results.append(written)

    async def everyone() -> None:  # 40 requests of one worker's event loop, at once
        await asyncio.gather(*(send(n) for n in range(40)))

    run_coroutine(everyone())
    engine.dispose()
    assert len(results) == 40 and all(w.new for w in results)
    assert writer.batches < 40, "answers queued while a batch commits go in the next one"
    assert db_rows(settings, "SELECT count(*) FROM review_card") == [(40,)]


def test_a_lesson_opened_moves_the_place_through_the_writer(settings):
    engine = make_engine(settings.database_url)
    writer = AnswerWriter(engine, lambda: TAGS)
    store(writer, _answer(7, 1))
    writer.move_place(f"{7:032d}", Place("escolha-self-hosted"))
    store(writer, _answer(8, 1))  # queued after the move: the move is committed by then
    engine.dispose()
    assert db_rows(settings, f"SELECT place_lesson FROM learner WHERE id = '{7:032d}'") == [
        ("escolha-self-hosted",)
    ]
    with pytest.raises(DuplicateKeyError):
        store(writer, _answer(7, 1, question_id=QUESTIONS[-1].id))


def _in_thread(call) -> tuple[threading.Thread, list[object]]:
    """Run ``call`` in a thread; its result or exception lands in the returned list."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(call())
        except Exception as exc:
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def test_an_error_outside_any_answer_fails_its_batch_and_the_writer_goes_on(settings):
    """Issue 34, finding 8: an exception outside the writer's ``try`` (here, the batch's read
    of the concept tags) ended the thread, and its waiting answers hung forever."""
    engine = make_engine(settings.database_url)
    calls = iter([RuntimeError("tags unreadable")])

    def tags():
        failure = next(calls, None)
        if failure is not None:
            raise failure
        return TAGS

    writer = AnswerWriter(engine, tags)
    thread, out = _in_thread(lambda: store(writer, _answer(1, 1)))
    thread.join(60)
    assert not thread.is_alive(), "the request waiting for the failed batch was answered"
    assert isinstance(out[0], WriterUnavailable) and "batch failed" in str(out[0])
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(0,)], "nothing half-stored"
    assert store(writer, _answer(1, 1)).new, "the next answer is stored: the writer goes on"
    engine.dispose()
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(1,)]


def test_a_request_gives_up_waiting_and_its_answer_is_dropped_if_not_taken(settings):
    """``write`` waits ``timeout_s`` at most; an answer the writer has not taken by then is
    never stored, so the learner's retry of the same form is the one that counts."""
    engine = make_engine(settings.database_url)
    release = threading.Event()

    def slow_tags():
        release.wait(60)
        return TAGS

    writer = AnswerWriter(engine, slow_tags, timeout_s=0.5)
    first, first_out = _in_thread(lambda: store(writer, _answer(1, 1)))
    first.join(5)  # the writer holds the first answer's batch (in slow_tags)
    with pytest.raises(WriterUnavailable):
        store(writer, _answer(2, 1))  # queued behind it, not taken: given up
    release.set()
    writer.timeout_s = 60
    assert store(writer, _answer(3, 1)).new
    engine.dispose()
    stored = db_rows(settings, "SELECT learner_id FROM attempt ORDER BY learner_id")
    assert stored == [(f"{1:032d}",), (f"{3:032d}",)], "the given-up answer was not stored"
    assert isinstance(first_out[0], WriterUnavailable), "the first request gave up too"


def test_a_failed_batch_answers_503_in_portuguese_and_the_retry_stores_once(client, settings):
    from tests.support.html import HX, soup, text
    from tests.support.learning import key_of, version_of

    page = client.get("/licoes/kernels").text
    data = {
        "csrftoken": client.cookies["csrftoken"],
        "chave": key_of(page, SINGLE.id),
        "versao": version_of(page, SINGLE.id),
        "opcao": RIGHT,
    }
    writer = client.app.state.answer_writer
    kept = writer.tags
    writer.tags = lambda: (_ for _ in ()).throw(RuntimeError("tags unreadable"))
    url = f"/licoes/kernels/perguntas/{SINGLE.id}"
    refused = client.post(url, data=data, headers=HX)
    assert refused.status_code == 503
    assert refused.headers["Retry-After"] == "1"
    assert text(soup(refused).select_one(".form-error")) == (
        "O curso não conseguiu guardar a sua resposta agora, e nada dela ficou guardado pela "
        "metade. Tente de novo: enviar a mesma resposta outra vez a guarda uma vez só."
    )
    plain = client.post(url, data=data, follow_redirects=False)  # without JavaScript
    assert plain.status_code == 503
    assert text(soup(plain).select_one("h1")) == "Resposta não guardada"
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(0,)]
    writer.tags = kept
    for _ in range(2):
        assert client.post(url, data=data, headers=HX).status_code == 200
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(1,)]


def _launched(settings) -> ScoreOrder:
    """A learner's LTI launch of ``kernels`` with grades: the score its answers queue."""
    with Session(make_engine(settings.database_url)) as db:
        platform, _ = register_platform(
            db, "https://lms.example", "c", ["1"], *["https://lms.example/x"] * 3
        )
        assert platform.id is not None
        launch = GradedLaunch(
            platform.id, None, "sub-1", "kernels", "https://lms.example/lineitems/1", "", "link-1"
        )
    return score_order(launch, COURSE, KERNELS)


def test_an_lti_score_is_queued_in_the_answers_transaction_or_not_at_all(settings, monkeypatch):
    order = _launched(settings)
    engine = make_engine(settings.database_url)

    def broken(*_args, **_kwargs):
        raise RuntimeError("the tallies failed after the score was queued")

    try:
        with monkeypatch.context() as faults:
            faults.setattr(writer, "record_in_tallies", broken)
            failed = store_now(engine, [_answer(1, 1, outbox=(order,))], TAGS, queue_scores)
        assert isinstance(failed[0], RuntimeError)  # not acknowledged: the learner sends again
        assert db_rows(settings, "SELECT count(*) FROM attempt") == [(0,)]
        assert db_rows(settings, "SELECT count(*) FROM lti_score") == [(0,)]
        done = store_now(engine, [_answer(1, 1, outbox=(order,))], TAGS, queue_scores)
    finally:
        engine.dispose()
    assert isinstance(done[0], Written) and done[0].new
    stored = db_rows(settings, "SELECT created_at FROM attempt")
    assert db_rows(
        settings, "SELECT user_sub, score_given, score_maximum, answered_at, status FROM lti_score"
    ) == [("sub-1", 1.0, float(lesson_shape_total(KERNELS)), stored[0][0], "pending")]


def test_a_form_sent_again_queues_the_score_its_answer_is_missing(settings):
    order = _launched(settings)
    engine = make_engine(settings.database_url)

    def broken(*_args, **_kwargs):
        raise RuntimeError("the score could not be queued")

    try:
        failed = store_now(engine, [_answer(2, 1, outbox=(order,))], TAGS, broken)
        assert isinstance(failed[0], RuntimeError)
        assert db_rows(settings, "SELECT count(*) FROM attempt") == [(0,)]
        first = store_now(engine, [_answer(2, 1, outbox=(order,))], TAGS, queue_scores)
        assert isinstance(first[0], Written) and first[0].new
        # A score lost some other way (queued apart from its answer, before this fix).
        with engine.begin() as connection:
            connection.execute(sa.text("DELETE FROM lti_score"))
        again = store_now(engine, [_answer(2, 1, outbox=(order,))], TAGS, queue_scores)
    finally:
        engine.dispose()
    assert isinstance(again[0], Written) and not again[0].new
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(1,)]
    assert db_rows(settings, "SELECT score_given, status FROM lti_score") == [(1.0, "pending")]


def test_the_grade_comment_names_what_was_wrong_and_how_many_are_left(settings):
    order = _launched(settings)
    tagged = QUESTIONS[4]  # qual-fase-domina: decode, prefill, banda de memória
    assert len(tagged.concepts) == 3
    wrong = sorted({o.id for o in tagged.options} - set(tagged.answer))[0]
    engine = make_engine(settings.database_url)
    try:
        done = store_now(
            engine,
            [
                _answer(3, 1, outbox=(order,)),
                _answer(
                    3,
                    2,
                    question_id=tagged.id,
                    question_hash=tagged.content_hash,
                    chosen=wrong,
                    correct=False,
                    outbox=(order,),
                ),
            ],
            TAGS,
            queue_scores,
        )
    finally:
        engine.dispose()
    assert all(isinstance(d, Written) for d in done)
    terms = ", ".join(COURSE.glossary.get(slug).term for slug in tagged.concepts)
    assert db_rows(settings, "SELECT comment FROM lti_score") == [
        (f"Acertou 1 de {TOTAL}. Errou: {terms}. {TOTAL - 2} sem resposta.",)
    ]
