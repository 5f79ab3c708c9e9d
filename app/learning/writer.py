"""One writer per process: requests queue their answers, a thread commits them in groups.

A request never takes the database's write lock itself. It hands its graded answer to the
process's :class:`AnswerWriter` and awaits it on its event loop (no thread waits); the
writer's thread takes every answer queued at that moment (up to :data:`MAX_BATCH`), stores
them in one transaction and wakes each request after the commit (one
``loop.call_soon_threadsafe`` per batch and event loop), so an answer is durable before it
is acknowledged. While a batch commits,
the next one queues up: the busier the course, the larger the batches, and the cost of a
commit, of the dashboard's tallies and of the review cards is shared by the whole batch.

One batch, in one transaction, whatever its size:

1. the learners' rows: created if missing, their place moved to the question (one upsert);
2. the attempts, once per idempotency key (one ``INSERT ... ON CONFLICT DO NOTHING
   RETURNING``); a key already stored costs one more read, to answer as the first time;
3. what follows an answer, set-based for the batch: what the answers carry for the
   writer's :data:`Outbox` (given by the app, so what another floor keeps with an answer is
   kept with it or not at all), the dashboard's tallies
   (:func:`app.learning.tallies.write.record_in_tallies`), mastery per learner × concept
   (:func:`app.learning.mastery.record_in_mastery`) and the review cards
   (:func:`app.learning.review.schedule_batch`).

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
import json
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine

from app.content.page_ids import question_anchor
from app.learning.mastery import Tags, record_in_mastery
from app.learning.review import schedule_batch
from app.learning.state import AttemptRow, DuplicateKeyError, NewAnswer, Place, Written
from app.learning.tallies.write import record_in_tallies
from app.platform.db import IMMEDIATE, Plain, driver_time, stored_time
from app.platform.models import utcnow

log = logging.getLogger(__name__)

WRITER_THREAD = "curso-writer"
MAX_BATCH = 500  # answers per transaction, at most
IDLE_S = 30.0  # the thread ends after this long without work (the next answer starts it)
# How long after a visitor's first answer a second request with the same form key (a double
# submit sent before the first response set the session cookie) joins that learner.
BIRTH_WINDOW = timedelta(seconds=30)
# How long a request waits for its answer's commit: above SQLite's busy timeout (15 s), so only
# a writer that is stuck, not one waiting its turn for the lock, makes a request give up.
STORE_TIMEOUT_S = 20.0
# Stores, in the batch's transaction, what the answers carry in ``NewAnswer.outbox``: each item
# with the answer's learner and the time it was stored at (the first time, for a form sent
# again), then the batch's time. Learning does not look inside the items.
Outbox = Callable[[Connection, Sequence[tuple[Any, str, datetime]], datetime], None]


class WriterUnavailable(RuntimeError):
    """The writer could not store the answer now: its batch failed outside any one answer, or
    no commit came within the timeout. The answer was not acknowledged; sending the same form
    again is safe (its idempotency key stores it once)."""


@dataclass
class _Job:
    """One answer or place in the queue, and the ``future`` its request awaits on its event
    ``loop`` (resolved there, once per batch and loop, by :meth:`AnswerWriter._commit`); none
    for a place not waited for, or a batch stored in the calling thread (:func:`store_now`)."""

    item: NewAnswer | tuple[str, Place]
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
        outbox: stores what answers carry in ``NewAnswer.outbox`` (:data:`Outbox`).
        timeout_s: how long :meth:`write` and :meth:`place` wait for the commit.
    """

    def __init__(
        self,
        engine: Engine,
        tags: Callable[[], Tags],
        outbox: Outbox | None = None,
        timeout_s: float = STORE_TIMEOUT_S,
    ) -> None:
        self.engine = engine
        self.tags = tags
        self.outbox = outbox
        self.timeout_s = timeout_s
        self._queue: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.batches = 0  # committed batches (the tests read it)

    async def write(self, answer: NewAnswer) -> Written:
        """Store ``answer`` and return once it is committed, awaiting on the event loop: no
        thread waits (the writer's thread resolves a future here after the commit).

        Raises:
            DuplicateKeyError: the learner already used the key for another question.
            WriterUnavailable: the batch failed outside any one answer, or no commit came
                within ``timeout_s`` (the answer is then dropped if the writer has not taken
                it yet; if it has, it is stored whole, and the same form sent again answers
                as the first time).
            Exception: whatever storing this one answer raised (the others of its batch
                are stored).
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
            WriterUnavailable: as :meth:`write`.
        """
        job = await self._wait((learner_id, place))
        if job.error is not None:
            raise job.error

    async def _wait(self, item: NewAnswer | tuple[str, Place]) -> _Job:
        loop = asyncio.get_running_loop()
        job = _Job(item, future=loop.create_future(), loop=loop)
        self._put(job)
        assert job.future is not None
        try:
            async with asyncio.timeout(self.timeout_s):
                await job.future
        except TimeoutError:
            job.abandoned = True
            raise WriterUnavailable(f"no commit within {self.timeout_s} s") from None
        return job

    def move_place(self, learner_id: str, place: Place) -> None:
        """Keep ``place`` on the learner's row, soon; returns at once (a learner without a
        row is left as is: browsing never creates one)."""
        self._put(_Job((learner_id, place)))

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
            self.batches += _commit(self.engine, jobs, self.tags(), self.outbox)
        except Exception as exc:
            log.exception("answer batch not stored")
            for job in jobs:
                if job.result is None and job.error is None:
                    job.error = WriterUnavailable(f"batch failed: {exc!r}")
        finally:
            waiting: dict[asyncio.AbstractEventLoop, list[_Job]] = {}
            for job in jobs:
                if job.loop is not None:
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
    engine: Engine, answers: Sequence[NewAnswer], tags: Tags, outbox: Outbox | None = None
) -> list[Written | Exception]:
    """Store ``answers`` as one batch in the calling thread, as the writer's thread does (for
    commands, imports and tests; requests await :meth:`AnswerWriter.write`), with ``outbox``
    as the writer's.

    Returns:
        Per answer, in order, what was written or the error that refused it
        (:class:`DuplicateKeyError`, or whatever storing that answer alone raised).
    """
    jobs = [_Job(answer) for answer in answers]
    _commit(engine, jobs, tags, outbox)
    done: list[Written | Exception] = []
    for job in jobs:
        if job.error is not None:
            done.append(job.error)
        else:
            assert job.result is not None  # a job without an error was written
            done.append(job.result)
    return done


def _commit(engine: Engine, jobs: list[_Job], tags: Tags, outbox: Outbox | None) -> int:
    """Write ``jobs`` in one transaction, or one by one when that fails; batches committed."""
    try:
        with engine.connect() as connection:
            _write_batch(connection, jobs, tags, outbox)
        return 1
    except Exception as exc:  # one bad answer must not cost the others theirs
        if len(jobs) == 1:
            log.exception("answer not stored")
            jobs[0].error = exc
            return 0
    committed = 0
    for job in jobs:
        job.result, job.error = None, None
        committed += _commit(engine, [job], tags, outbox)
    return committed


# The batch's own statements: fixed text, run by the driver (one ``executemany`` per list of
# rows), the same whatever the batch's size (app.platform.db.Plain).
_MOVE_LEARNERS = Plain(
    """INSERT INTO learner (id, created_at, place_lesson, place_section, place_at)
    VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET place_lesson = excluded.place_lesson,
    place_section = excluded.place_section, place_at = excluded.place_at"""
)
_KEEP_LEARNERS = Plain("INSERT INTO learner (id, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING")
_MOVE_PLACES = Plain(
    "UPDATE learner SET place_lesson = ?, place_section = ?, place_at = ? WHERE id = ?"
)
_ATTEMPT_COLUMNS = """learner_id, lesson_slug, question_id, question_hash, chosen, correct, credit,
    idempotency_key, review, help, variant, created_at"""
# Every attempt of the batch in one parameter (SQLite: a JSON array of rows; PostgreSQL: one
# array per column), so one statement with a fixed text returns the ids of those inserted.
_INSERT_ATTEMPTS = Plain(
    f"""INSERT INTO attempt ({_ATTEMPT_COLUMNS})
    SELECT {", ".join(f"json_extract(value, '$[{n}]')" for n in range(12))} FROM json_each(?)
    WHERE true ON CONFLICT (learner_id, idempotency_key) DO NOTHING
    RETURNING id, learner_id, idempotency_key""",
    f"""INSERT INTO attempt ({_ATTEMPT_COLUMNS})
    SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::boolean[],
    ?::float8[], ?::text[], ?::boolean[], ?::integer[], ?::text[], ?::timestamptz[])
    ON CONFLICT (learner_id, idempotency_key) DO NOTHING
    RETURNING id, learner_id, idempotency_key""",
)
_STORED_COLUMNS = """id, learner_id, idempotency_key, lesson_slug, question_id, question_hash,
    chosen, correct, credit, created_at, help, variant"""
_STORED_KEYS = Plain(
    f"""SELECT {_STORED_COLUMNS} FROM attempt
    WHERE learner_id IN (SELECT value FROM json_each(?))
    AND (learner_id, idempotency_key) IN
    (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))""",
    f"""SELECT {_STORED_COLUMNS} FROM attempt
    WHERE (learner_id, idempotency_key) IN (SELECT * FROM unnest(?::text[], ?::text[]))""",
)
_KEEP_DRAWS = Plain(
    """INSERT INTO pool_draw (learner_id, lesson_slug, pool_id, number, seed, question_ids,
    created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"""
)
_TAKE_HINTS = Plain(
    """UPDATE hint_reveal SET attempt_id = ? WHERE learner_id = ? AND lesson_slug = ?
    AND question_id = ? AND attempt_id IS NULL"""
)
_BEAR = Plain(
    "INSERT INTO learner (id, created_at, birth_key) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
)
_BORN = Plain("SELECT id, created_at FROM learner WHERE birth_key = ?")
_SIGNED_UP = Plain("SELECT learner_id FROM account WHERE learner_id = ?")


def _write_batch(
    connection: Connection, jobs: Sequence[_Job], tags: Tags, outbox: Outbox | None
) -> None:
    """Store a batch in one transaction (see the module's docstring); each answer job gets
    its ``result`` or ``error``."""
    answers = [job for job in jobs if isinstance(job.item, NewAnswer)]
    places = [job.item for job in jobs if isinstance(job.item, tuple)]
    now = utcnow()
    stamp = driver_time(connection, now)
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
            learners: dict[str, tuple[object, ...]] = {}
            reviewing: set[str] = set()
            for job in answers:
                assert isinstance(job.item, NewAnswer)
                if job.item.review:
                    reviewing.add(owner(job))
                    continue
                anchor = question_anchor(job.item.question_id)
                learners[owner(job)] = (owner(job), stamp, job.item.lesson_slug, anchor, stamp)
            # id order: PostgreSQL locks the rows in one order, so two batches never deadlock
            _MOVE_LEARNERS.run(connection, [learners[learner] for learner in sorted(learners)])
            kept = sorted(reviewing - set(learners))
            _KEEP_LEARNERS.run(connection, [(learner, stamp) for learner in kept])
            _store_attempts(connection, answers, owner, now, tags, outbox)
        _MOVE_PLACES.run(
            connection,
            [(place.lesson_slug, place.section, stamp, learner) for learner, place in places],
        )


def _attempt_rows(connection: Connection, rows: list[tuple[Any, ...]]) -> list[object]:
    """The parameters of :data:`_INSERT_ATTEMPTS`: the rows as one JSON array (SQLite), or one
    array per column (PostgreSQL)."""
    if connection.dialect.name == "postgresql":
        return [list(column) for column in zip(*rows, strict=True)]
    return [json.dumps(rows)]


def _store_attempts(
    connection: Connection,
    answers: Sequence[_Job],
    owner: Callable[[_Job], str],
    now: datetime,
    tags: Tags,
    outbox: Outbox | None,
) -> None:
    batch = [(job, job.item, owner(job)) for job in answers if isinstance(job.item, NewAnswer)]
    returned = _INSERT_ATTEMPTS.rows(
        connection,
        _attempt_rows(
            connection,
            [
                (
                    learner_id,
                    *answer.graded,
                    answer.key,
                    answer.review,
                    answer.help,
                    answer.variant,
                    driver_time(connection, answer.at or now),
                )
                for _, answer, learner_id in batch
            ],
        ),
    )
    new_ids = {(learner_id, key): row_id for row_id, learner_id, key in returned}
    stored: list[_Stored] = []
    for job, answer, learner_id in batch:
        row_id = new_ids.pop((learner_id, answer.key), None)  # the first of a key sent twice
        if row_id is None:
            continue
        row = _Stored(
            *answer.graded,
            answer.at or now,
            row_id,
            help=answer.help,
            variant=answer.variant,
            learner_id=learner_id,
        )
        stored.append(row)
        job.result = Written(row, True, learner_id)
    # Keys stored before (a form sent again), or twice in this batch: answer as the first time.
    again = [(job, answer, learner_id) for job, answer, learner_id in batch if job.result is None]
    if again:
        keys = sorted({(learner_id, answer.key) for _, answer, learner_id in again})
        if connection.dialect.name == "postgresql":
            params: list[object] = [[k[0] for k in keys], [k[1] for k in keys]]
        else:
            params = [json.dumps([k[0] for k in keys]), json.dumps(keys)]
        existing = {(row[1], row[2]): row for row in _STORED_KEYS.rows(connection, params)}
        for job, answer, learner_id in again:
            found = existing.get((learner_id, answer.key))
            if found is None or (found[3], found[4]) != (answer.lesson_slug, answer.question_id):
                job.error = DuplicateKeyError(answer.key)
            else:
                job.result = Written(_row(found), False, learner_id)
    # What the answers carry for the outbox goes with them, also for a form sent again.
    carried = [
        (item, learner_id, job.result.row.created_at)
        for job, answer, learner_id in batch
        if job.result is not None
        for item in answer.outbox
    ]
    if carried:
        if outbox is None:
            raise TypeError("answers carry outbox items, and the writer was given no outbox")
        outbox(connection, carried, now)
    if not stored:
        return
    # the hints opened before these answers now belong to them
    _TAKE_HINTS.run(
        connection,
        [(row.id, row.learner_id, row.lesson_slug, row.question_id) for row in stored if row.help],
    )
    # a learner's first answer in a pool keeps the draw they were shown (app.learning.draws)
    _KEEP_DRAWS.run(
        connection,
        [
            (learner_id, answer.lesson_slug, *answer.draw, driver_time(connection, now))
            for job, answer, learner_id in batch
            if answer.draw is not None and job.result is not None and job.result.new
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


def _row(row: Sequence[Any]) -> AttemptRow:
    """An attempt read by :data:`_STORED_KEYS`, as the pages need it."""
    _, _, _, slug, question_id, question_hash, chosen, correct, credit, created, help_, variant = (
        row
    )
    return AttemptRow(
        slug,
        question_id,
        question_hash,
        chosen,
        bool(correct),
        credit,
        stored_time(created),
        row[0],
        help_,
        variant,
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
    learner_id, key = answer.learner_id, answer.birth_key
    stamp = driver_time(connection, now)
    _BEAR.run(connection, [(learner_id, stamp, key)])
    born = _BORN.rows(connection, [key])
    if not born or born[0][0] == learner_id:
        return learner_id
    created = stored_time(born[0][1])
    signed_up = _SIGNED_UP.rows(connection, [born[0][0]])
    if now - created < BIRTH_WINDOW and not signed_up:
        return str(born[0][0])
    _KEEP_LEARNERS.run(connection, [(learner_id, stamp)])
    return learner_id
