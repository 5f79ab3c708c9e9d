"""One writer per process: requests queue their answers, a thread commits them in groups.

A request never takes the database's write lock itself. It hands its graded answer to the
process's :class:`AnswerWriter` and waits; the writer's thread takes every answer queued at
that moment (up to :data:`MAX_BATCH`), stores them in one transaction and wakes each request
after the commit, so an answer is durable before it is acknowledged. While a batch commits,
the next one queues up: the busier the course, the larger the batches, and the cost of a
commit, of the dashboard's tallies and of the review cards is shared by the whole batch.

One batch, in one transaction, whatever its size:

1. the learners' rows: created if missing, their place moved to the question (one upsert);
2. the attempts, once per idempotency key (one ``INSERT ... ON CONFLICT DO NOTHING
   RETURNING``); a key already stored costs one more read, to answer as the first time;
3. what follows an answer, set-based for the batch: the LTI scores of launched learners
   (:func:`app.learning.lti.queue_scores`, so a grade is queued with its answer or not at
   all), the dashboard's tallies (:func:`app.learning.tallies.write.record_in_tallies`),
   mastery per learner × concept (:func:`app.learning.mastery.record_in_mastery`) and the
   review cards (:func:`app.learning.review.schedule_batch`).

Places moved by opening a lesson (a GET) are queued the same way, and the request does not
wait for them. If a batch fails, its answers are stored again one by one, so one bad answer
never costs another learner theirs.

With several worker processes each has its writer; the writers take turns on SQLite's write
lock (``BEGIN IMMEDIATE``, waiting in SQLite's busy handler: the writer thread waits, never a
request). On PostgreSQL the rows of learners in a batch are locked in id order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, Row, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite

from app.content.page_ids import question_anchor
from app.learning.lti import queue_scores
from app.learning.mastery import Tags, record_in_mastery
from app.learning.review import schedule_batch
from app.learning.state import AttemptRow, DuplicateKeyError, NewAnswer, Place, Written
from app.learning.tallies.write import record_in_tallies
from app.platform.db import IMMEDIATE, tuple_in
from app.platform.models import ACCOUNT, ATTEMPT, HINT_REVEAL, LEARNER, utcnow

log = logging.getLogger(__name__)
# Either dialect's ``insert``: both know ``ON CONFLICT`` and ``excluded``.
Insert = Callable[[Any], postgresql.Insert | sqlite.Insert]

WRITER_THREAD = "curso-writer"
MAX_BATCH = 500  # answers per transaction, at most
IDLE_S = 30.0  # the thread ends after this long without work (the next answer starts it)
# How long after a visitor's first answer a second request with the same form key (a double
# submit sent before the first response set the session cookie) joins that learner.
BIRTH_WINDOW = timedelta(seconds=30)
# How long a request waits for its answer's commit: above SQLite's busy timeout (15 s), so only
# a writer that is stuck, not one waiting its turn for the lock, makes a request give up.
STORE_TIMEOUT_S = 20.0


class WriterUnavailable(RuntimeError):
    """The writer could not store the answer now: its batch failed outside any one answer, or
    no commit came within the timeout. The answer was not acknowledged; sending the same form
    again is safe (its idempotency key stores it once)."""


@dataclass
class _Job:
    """One answer or place in the queue, and how its sender is woken after the commit: a
    thread's ``done`` event, or a coroutine's ``future`` on its event ``loop`` (resolved there,
    once per batch and loop, by :meth:`AnswerWriter._commit`); neither for a place not waited
    for."""

    item: NewAnswer | tuple[str, Place]
    done: threading.Event | None = field(default_factory=threading.Event)
    result: Written | None = None
    error: Exception | None = None
    abandoned: bool = False  # its request stopped waiting: skipped if not yet taken
    future: asyncio.Future[None] | None = None
    loop: asyncio.AbstractEventLoop | None = None


@dataclass(frozen=True, slots=True)
class _Stored(AttemptRow):
    """An attempt stored by a batch, with its learner: what the page shows and what the
    tallies, the mastery and the cards read."""

    learner_id: str = ""


class AnswerWriter:
    """The process's one writer of answers and places (see the module's docstring).

    Args:
        engine: the writer's own engine (:func:`app.platform.db.make_writer_engine`).
        tags: the concept tags of the course as it is now
            (:func:`app.learning.mastery.concept_tags`), read once per batch.
        timeout_s: how long :meth:`store` waits for the commit.
    """

    def __init__(
        self, engine: Engine, tags: Callable[[], Tags], timeout_s: float = STORE_TIMEOUT_S
    ) -> None:
        self.engine = engine
        self.tags = tags
        self.timeout_s = timeout_s
        self._queue: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.batches = 0  # committed batches (the tests read it)

    async def write(self, answer: NewAnswer) -> Written:
        """Store ``answer`` and return once it is committed, awaiting on the event loop: no
        thread waits (the writer's thread resolves a future here after the commit).

        Raises:
            The same as :meth:`store`.
        """
        job = await self._wait(answer)
        if job.error is not None:
            raise job.error
        assert job.result is not None
        return job.result

    async def place(self, learner_id: str, place: Place) -> None:
        """Keep ``place`` on the learner's row and return once it is committed, awaiting on
        the event loop (a learner without a row is left as is).

        Raises:
            WriterUnavailable: as :meth:`store`.
        """
        job = await self._wait((learner_id, place))
        if job.error is not None:
            raise job.error

    async def _wait(self, item: NewAnswer | tuple[str, Place]) -> _Job:
        loop = asyncio.get_running_loop()
        job = _Job(item, done=None, future=loop.create_future(), loop=loop)
        self._put(job)
        assert job.future is not None
        try:
            async with asyncio.timeout(self.timeout_s):
                await job.future
        except TimeoutError:
            job.abandoned = True
            raise WriterUnavailable(f"no commit within {self.timeout_s} s") from None
        return job

    def store(self, answer: NewAnswer) -> Written:
        """Store ``answer`` and return once it is committed, blocking the calling thread (for
        commands and tests; a request awaits :meth:`write`).

        Raises:
            DuplicateKeyError: the learner already used the key for another question.
            WriterUnavailable: the batch failed outside any one answer, or no commit came
                within ``timeout_s`` (the answer is then dropped if the writer has not taken
                it yet; if it has, it is stored whole, and the same form sent again answers
                as the first time).
            Exception: whatever storing this one answer raised (the others of its batch
                are stored).
        """
        job = _Job(answer)
        self._put(job)
        assert job.done is not None
        if not job.done.wait(self.timeout_s):
            job.abandoned = True
            raise WriterUnavailable(f"no commit within {self.timeout_s} s")
        if job.error is not None:
            raise job.error
        assert job.result is not None
        return job.result

    def move_place(self, learner_id: str, place: Place) -> None:
        """Keep ``place`` on the learner's row, soon; returns at once (a learner without a
        row is left as is: browsing never creates one)."""
        self._put(_Job((learner_id, place), done=None))

    def _put(self, job: _Job) -> None:
        self._queue.put(job)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=WRITER_THREAD, daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                first = self._queue.get(timeout=IDLE_S)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._thread = None
                        return
                continue
            jobs = [first]
            while len(jobs) < MAX_BATCH:
                try:
                    jobs.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            jobs = [job for job in jobs if not job.abandoned]
            if jobs:
                self._commit(jobs)

    def _commit(self, jobs: list[_Job]) -> None:
        """Write ``jobs`` and wake their requests, whatever happens: an error outside any one
        answer fails the batch's waiters with :class:`WriterUnavailable`, and the thread goes
        on with the next batch."""
        try:
            self.batches += _commit(self.engine, jobs, self.tags())
        except Exception as exc:
            log.exception("answer batch not stored")
            for job in jobs:
                if job.result is None and job.error is None:
                    job.error = WriterUnavailable(f"batch failed: {exc!r}")
        finally:
            waiting: dict[asyncio.AbstractEventLoop, list[_Job]] = {}
            for job in jobs:
                if job.done is not None:
                    job.done.set()
                elif job.loop is not None:
                    waiting.setdefault(job.loop, []).append(job)
            for loop, woken in waiting.items():  # one wake-up per event loop and batch
                # a closed loop (RuntimeError) has nobody waiting any more
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(_wake, woken)


def _wake(jobs: list[_Job]) -> None:
    """On a waiting event loop: resolve the futures of ``jobs`` (each holds its own result)."""
    for job in jobs:
        if job.future is not None and not job.future.done():
            job.future.set_result(None)


def store_now(
    engine: Engine, answers: Sequence[NewAnswer], tags: Tags
) -> list[Written | Exception]:
    """Store ``answers`` as one batch in the calling thread, as the writer's thread does (for
    commands, imports and tests; requests go through :meth:`AnswerWriter.store`).

    Returns:
        Per answer, in order, what was written or the error that refused it
        (:class:`DuplicateKeyError`, or whatever storing that answer alone raised).
    """
    jobs = [_Job(answer, done=None) for answer in answers]
    _commit(engine, jobs, tags)
    done: list[Written | Exception] = []
    for job in jobs:
        if job.error is not None:
            done.append(job.error)
        else:
            assert job.result is not None  # a job without an error was written
            done.append(job.result)
    return done


def _commit(engine: Engine, jobs: list[_Job], tags: Tags) -> int:
    """Write ``jobs`` in one transaction, or one by one when that fails; batches committed."""
    try:
        with engine.connect() as connection:
            _write_batch(connection, jobs, tags)
        return 1
    except Exception as exc:  # one bad answer must not cost the others theirs
        if len(jobs) == 1:
            log.exception("answer not stored")
            jobs[0].error = exc
            return 0
    committed = 0
    for job in jobs:
        job.result, job.error = None, None
        committed += _commit(engine, [job], tags)
    return committed


def _write_batch(connection: Connection, jobs: Sequence[_Job], tags: Tags) -> None:
    """Store a batch in one transaction (see the module's docstring); each answer job gets
    its ``result`` or ``error``."""
    answers = [job for job in jobs if isinstance(job.item, NewAnswer)]
    places = [job.item for job in jobs if isinstance(job.item, tuple)]
    now = utcnow()
    postgres = connection.dialect.name == "postgresql"
    insert = postgresql.insert if postgres else sqlite.insert
    connection = connection.execution_options(**{IMMEDIATE: True})
    with connection.begin():
        owners = {
            id(job): _claim(connection, job.item, now)
            for job in answers
            if isinstance(job.item, NewAnswer) and job.item.birth_key
        }

        def owner(job: _Job) -> str:
            assert isinstance(job.item, NewAnswer)
            return owners.get(id(job), job.item.learner_id)

        if answers:
            # An answer in a lesson moves the learner's place there; one in /revisar doesn't
            # (review is not reading: "Continuar de onde parei" stays where the reading was).
            learners: dict[str, dict[str, object]] = {}
            reviewing: dict[str, dict[str, object]] = {}
            for job in answers:
                assert isinstance(job.item, NewAnswer)
                row = {"id": owner(job), "created_at": now}
                if job.item.review:
                    reviewing[owner(job)] = row
                    continue
                learners[owner(job)] = {
                    **row,
                    "place_lesson": job.item.lesson_slug,
                    "place_section": question_anchor(job.item.question_id),
                    "place_at": now,
                }
            upsert = insert(LEARNER)
            moved = {c: upsert.excluded[c] for c in ("place_lesson", "place_section", "place_at")}
            if learners:
                connection.execute(
                    upsert.on_conflict_do_update(index_elements=["id"], set_=moved),
                    [learners[learner] for learner in sorted(learners)],  # id order: no cycles
                )
            kept = sorted(set(reviewing) - set(learners))
            if kept:
                connection.execute(
                    insert(LEARNER).on_conflict_do_nothing(index_elements=["id"]),
                    [reviewing[learner] for learner in kept],
                )
            _store_attempts(connection, answers, owner, now, insert, tags)
        if places:
            connection.execute(
                update(LEARNER)
                .where(LEARNER.c.id == bindparam("learner"))
                .values(
                    place_lesson=bindparam("lesson"),
                    place_section=bindparam("section"),
                    place_at=now,
                ),
                [
                    {"learner": learner, "lesson": p.lesson_slug, "section": p.section}
                    for learner, p in places
                ],
            )


def _store_attempts(
    connection: Connection,
    answers: Sequence[_Job],
    owner: Callable[[_Job], str],
    now: datetime,
    insert: Insert,
    tags: Tags,
) -> None:
    batch = [(job, job.item, owner(job)) for job in answers if isinstance(job.item, NewAnswer)]
    returned = connection.execute(
        insert(ATTEMPT)
        .on_conflict_do_nothing(index_elements=["learner_id", "idempotency_key"])
        .returning(ATTEMPT.c.id, ATTEMPT.c.learner_id, ATTEMPT.c.idempotency_key),
        [
            {
                "learner_id": learner_id,
                "lesson_slug": answer.lesson_slug,
                "question_id": answer.question_id,
                "question_hash": answer.question_hash,
                "chosen": answer.chosen,
                "correct": answer.correct,
                "credit": answer.credit,
                "idempotency_key": answer.key,
                "review": answer.review,
                "help": answer.help,
                "created_at": answer.at or now,
            }
            for _, answer, learner_id in batch
        ],
    ).all()
    new_ids = {(row.learner_id, row.idempotency_key): row.id for row in returned}
    stored: list[_Stored] = []
    for job, answer, learner_id in batch:
        row_id = new_ids.pop((learner_id, answer.key), None)  # the first of a key sent twice
        if row_id is None:
            continue
        row = _Stored(
            answer.lesson_slug,
            answer.question_id,
            answer.question_hash,
            answer.chosen,
            answer.correct,
            answer.credit,
            answer.at or now,
            row_id,
            help=answer.help,
            learner_id=learner_id,
        )
        stored.append(row)
        job.result = Written(row, True, learner_id)
    # Keys stored before (a form sent again), or twice in this batch: answer as the first time.
    again = [(job, answer, learner_id) for job, answer, learner_id in batch if job.result is None]
    if again:
        keys = sorted({(learner_id, answer.key) for _, answer, learner_id in again})
        existing = {
            (row.learner_id, row.idempotency_key): row
            for row in connection.execute(
                select(ATTEMPT).where(
                    tuple_in((ATTEMPT.c.learner_id, ATTEMPT.c.idempotency_key), keys)
                )
            )
        }
        for job, answer, learner_id in again:
            found = existing.get((learner_id, answer.key))
            if found is None or (found.lesson_slug, found.question_id) != (
                answer.lesson_slug,
                answer.question_id,
            ):
                job.error = DuplicateKeyError(answer.key)
            else:
                job.result = Written(_row(found), False, learner_id)
    # An LTI launch's score goes with its answer (the outbox), also for a form sent again.
    queue_scores(
        connection,
        [
            (order, learner_id, job.result.row.created_at)
            for job, answer, learner_id in batch
            if job.result is not None
            for order in answer.scores
        ],
        now,
    )
    if not stored:
        return
    helped = [row for row in stored if row.help]
    if helped:  # the hints opened before these answers now belong to them
        connection.execute(
            update(HINT_REVEAL)
            .where(
                HINT_REVEAL.c.learner_id == bindparam("learner"),
                HINT_REVEAL.c.lesson_slug == bindparam("lesson"),
                HINT_REVEAL.c.question_id == bindparam("question"),
                HINT_REVEAL.c.attempt_id.is_(None),
            )
            .values(attempt_id=bindparam("attempt")),
            [
                {
                    "learner": row.learner_id,
                    "lesson": row.lesson_slug,
                    "question": row.question_id,
                    "attempt": row.id,
                }
                for row in helped
            ],
        )
    record_in_tallies(connection, stored)
    record_in_mastery(connection, tags, stored)
    cards = schedule_batch(connection, stored)
    for job, answer, learner_id in batch:
        result = job.result
        if result is not None and result.new:
            card = cards.get((learner_id, answer.lesson_slug, answer.question_id))
            job.result = Written(result.row, True, learner_id, card)


def _row(row: Row[Any]) -> AttemptRow:
    created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    return AttemptRow(
        row.lesson_slug,
        row.question_id,
        row.question_hash,
        row.chosen,
        bool(row.correct),
        row.credit,
        created,
        row.id,
        row.help,
    )


def _claim(connection: Connection, answer: NewAnswer, now: datetime) -> str:
    """The learner of a visitor's first answer, made once per answer form.

    ``answer.learner_id`` is new (random, from the request's new session) and its
    ``birth_key`` is the answer form's idempotency key, unique to the page view that printed
    it. The learner row is made with that birth key, unless another request made one with
    the same key first: a double submit of the same form, both sent before the first response
    set the session cookie. The birth key is the form key hashed with the browser's HttpOnly
    visit cookie (:func:`app.learning.usecases.birth_key`), so only copies sent by the browser
    that showed the form meet it: however many copies a multiple click sends, they store one
    attempt. That learner is returned when it was made less than :data:`BIRTH_WINDOW` ago and
    has no account; otherwise (a form sent again long after, after a sign-out, or by someone
    who has since signed up) ``learner_id`` is made without a birth key. Nothing here reads a
    cookie.
    """
    insert = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    learner_id, key = answer.learner_id, answer.birth_key
    connection.execute(
        insert(LEARNER)
        .values(id=learner_id, created_at=now, birth_key=key)
        .on_conflict_do_nothing()
    )
    born = connection.execute(
        select(LEARNER.c.id, LEARNER.c.created_at).where(LEARNER.c.birth_key == key)
    ).first()
    if born is None or born[0] == learner_id:
        return learner_id
    created = born[1] if born[1].tzinfo else born[1].replace(tzinfo=UTC)
    signed_up = connection.execute(
        select(ACCOUNT.c.learner_id).where(ACCOUNT.c.learner_id == born[0])
    ).first()
    if now - created < BIRTH_WINDOW and signed_up is None:
        return str(born[0])
    connection.execute(
        insert(LEARNER).values(id=learner_id, created_at=now).on_conflict_do_nothing()
    )
    return learner_id
