"""Store attempts the way the app does (the writer's batch), for tests that build histories."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import cast

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session

from app.learning.mastery import Tags, concept_tags
from app.learning.state import AttemptRow, NewAnswer, Place, Written
from app.learning.writer import AnswerWriter, store_now
from app.platform.db import make_engine
from app.platform.models import Attempt
from tests.support.coroutines import run
from tests.support.learning import COURSE


def new_answer(attempt: Attempt) -> NewAnswer:
    """The writer's form of an unsaved ``Attempt`` (its ``created_at`` kept when set)."""
    return NewAnswer(
        attempt.lesson_slug,
        attempt.question_id,
        attempt.question_hash,
        attempt.chosen,
        attempt.correct,
        attempt.credit,
        learner_id=attempt.learner_id,
        key=attempt.idempotency_key or "",
        review=attempt.review,
        at=attempt.created_at,
    )


def store_attempts(
    db: Session | Engine, attempts: Iterable[Attempt], tags: Tags | None = None
) -> list[Written]:
    """Store ``attempts`` in one batch through the app's writer path; raise the first refusal.

    ``tags``: the concept tags mastery counts with; the repository's course's by default.
    """
    engine = db.get_bind() if isinstance(db, Session) else db
    assert isinstance(engine, Engine)
    if isinstance(db, Session):
        db.commit()  # the writer has its own connection: nothing of the test's may hold the lock
    written = []
    tags = concept_tags(COURSE) if tags is None else tags
    for item in store_now(engine, [new_answer(a) for a in attempts], tags):
        if isinstance(item, Exception):
            raise item
        written.append(item)
    return written


def record_attempt(
    db: Session | Engine, attempt: Attempt, tags: Tags | None = None
) -> tuple[AttemptRow, bool]:
    """Store one attempt through the writer path: the stored row and whether it is new."""
    (written,) = store_attempts(db, [attempt], tags)
    return written.row, written.new


def record_choice(
    db: Session, learner: str, question, correct: bool, at: datetime, key: str
) -> AttemptRow:
    """Store an answer to a ``kernels`` question (option ``x``, graded ``correct``) made at
    ``at`` with the idempotency key ``key``: the stored row."""
    attempt = Attempt(
        learner_id=learner,
        lesson_slug="kernels",
        question_id=question.id,
        question_hash=question.content_hash,
        chosen="x",
        correct=correct,
        created_at=at,
        idempotency_key=key,
    )
    return record_attempt(db, attempt)[0]


@contextmanager
def session_of(settings) -> Iterator[Session]:
    """A session on the test's database; its engine is disposed after."""
    engine = make_engine(settings.database_url)
    try:
        with Session(engine) as session:
            yield session
    finally:
        engine.dispose()


NOBODY = "0" * 32  # no learner has this id: a place kept for it changes no row


def writer_settled(writer: AnswerWriter) -> None:
    """Return once everything ``writer`` was handed before is committed: pages only queue the
    place they move (``move_place``), and a request that reads right after may come first. A
    place kept for no learner is queued behind them and awaited (the queue is first in, first
    out)."""
    run(writer.place(NOBODY, Place("")))


def answer_writer(client: TestClient) -> AnswerWriter:
    """The answer writer of ``client``'s app (``app.state.answer_writer``)."""
    return cast(FastAPI, client.app).state.answer_writer
