"""CSV exports for instructors: attempts and progress, UTF-8, written by the csv module.

Both are streamed: rows come from the database in batches and go out as they are
written. Learners appear under a pseudonym (a salted SHA-256 prefix of their id, the
same in both files and in the request logs), never by account name.

``tentativas.csv`` (one row per attempt, oldest first):

- ``tentativa``: the attempt's number (database id);
- ``aluno``: the learner's pseudonym;
- ``licao``, ``pergunta``: the lesson's slug and the question's id;
- ``versao``: the question version answered (content hash, empty before versions existed);
- ``versao_atual``: ``sim`` when that version is the question as it is now;
- ``opcoes``: the chosen option ids, separated by ``;``;
- ``correta``: ``sim`` or ``não``, the grade given then;
- ``primeira_tentativa``: ``sim`` for the learner's first attempt at that question;
- ``revisao``: ``sim`` for an answer given on the spaced review page (``/revisar``);
- ``data_utc``: when it was sent, ISO 8601 in UTC.

``progresso.csv`` (one row per learner × current lesson, learners by first visit):

- ``aluno``, ``licao``;
- ``situacao``: ``não iniciada``, ``em andamento`` or ``concluída``;
- ``acertos``: current questions answered right at least once; ``total``: the lesson's questions;
- ``certas_primeira``: current questions right on the first attempt;
- ``tentativas``: attempts at the lesson's current questions;
- ``ultima_atividade_utc``: the latest of those attempts (empty when none).
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from sqlalchemy import and_, case, func, literal, select, true, tuple_, union_all
from sqlmodel import Session

from app.analytics.dashboard import current_versions
from app.content.course import Course
from app.learning.classes import class_learners
from app.learning.grading import LessonStatus
from app.learning.rules import done_sql, first_try_order
from app.platform.models import ATTEMPT, LEARNER

ATTEMPT_COLUMNS = (
    "tentativa",
    "aluno",
    "licao",
    "pergunta",
    "versao",
    "versao_atual",
    "opcoes",
    "correta",
    "primeira_tentativa",
    "revisao",
    "data_utc",
)
PROGRESS_COLUMNS = (
    "aluno",
    "licao",
    "situacao",
    "acertos",
    "total",
    "certas_primeira",
    "tentativas",
    "ultima_atividade_utc",
)
BATCH = 1000


def pseudonym(salt: bytes, learner_id: str) -> str:
    """A learner's stable pseudonym: 16 hex characters of SHA-256(salt + id)."""
    return hashlib.sha256(salt + learner_id.encode()).hexdigest()[:16]


def _yes(value) -> str:
    return "sim" if value else "não"


def _utc(value: datetime | None) -> str:
    if value is None:
        return ""
    stamp = value if value.tzinfo else value.replace(tzinfo=UTC)
    return stamp.astimezone(UTC).isoformat(timespec="seconds")


# Excel reads a CSV file in the system's code page unless it starts with the UTF-8 byte order
# mark ("nÃ£o" for "não" on Windows); other readers skip it (Python's "utf-8-sig", pandas,
# LibreOffice).
BOM = "\ufeff"


def csv_lines(header: Iterable[str], rows: Iterable[Iterable]) -> Iterator[str]:
    """Write :data:`BOM`, ``header`` and ``rows`` with the csv module, yielding text in chunks."""
    buffer = io.StringIO()
    buffer.write(BOM)
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    for number, row in enumerate(rows, start=1):
        writer.writerow(row)
        if number % BATCH == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def attempt_rows(
    db: Session, course: Course, salt: bytes, class_id: int | None = None
) -> Iterator[tuple]:
    """Every attempt, oldest first, as the columns of :data:`ATTEMPT_COLUMNS`, read through
    ``db`` as the rows are taken (a streamed response's session: it must stay open until then).

    ``class_id`` keeps only the attempts of that class's learners.
    """
    versions = current_versions(course)
    first = func.row_number().over(
        partition_by=(ATTEMPT.c.learner_id, ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id),
        order_by=first_try_order(ATTEMPT),
    )
    is_current = (
        tuple_(ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id, ATTEMPT.c.question_hash).in_(versions)
        if versions
        else literal(False)
    )
    query = select(
        ATTEMPT.c.id,
        ATTEMPT.c.learner_id,
        ATTEMPT.c.lesson_slug,
        ATTEMPT.c.question_id,
        ATTEMPT.c.question_hash,
        case((is_current, 1), else_=0),
        ATTEMPT.c.chosen,
        ATTEMPT.c.correct,
        first == 1,
        ATTEMPT.c.review,
        ATTEMPT.c.created_at,
    ).order_by(ATTEMPT.c.created_at, ATTEMPT.c.id)
    if class_id is not None:
        query = query.where(ATTEMPT.c.learner_id.in_(class_learners(class_id)))
    for row in db.execute(query.execution_options(yield_per=BATCH)):
        (
            number,
            learner,
            slug,
            qid,
            version,
            current,
            chosen,
            correct,
            first_try,
            review,
            created,
        ) = row
        yield (
            number,
            pseudonym(salt, learner),
            slug,
            qid,
            version,
            _yes(current),
            chosen.replace(",", ";"),
            _yes(correct),
            _yes(first_try),
            _yes(review),
            _utc(created),
        )


def progress_rows(
    db: Session, course: Course, salt: bytes, class_id: int | None = None
) -> Iterator[tuple]:
    """One row per learner × current lesson, as the columns of :data:`PROGRESS_COLUMNS`, read
    through ``db`` as the rows are taken (as :func:`attempt_rows`).

    ``class_id`` keeps only that class's learners.
    """
    lessons = [(lesson.slug, len(lesson.questions), n) for n, lesson in enumerate(course.lessons)]
    if not lessons:
        return
    ids = [(slug, qid) for slug, qid, _ in current_versions(course)] or [("", "")]
    try_number = func.row_number().over(
        partition_by=(ATTEMPT.c.learner_id, ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id),
        order_by=first_try_order(ATTEMPT),
    )
    tries = (
        select(ATTEMPT, try_number.label("try_number"))
        .where(tuple_(ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id).in_(ids))
        .subquery("tries")
    )
    stats = (
        select(
            tries.c.learner_id,
            tries.c.lesson_slug,
            func.count(func.distinct(case((tries.c.correct, tries.c.question_id)))).label("right"),
            func.sum(case((and_(tries.c.try_number == 1, tries.c.correct), 1), else_=0)).label(
                "first_right"
            ),
            func.count().label("attempts"),
            func.max(tries.c.created_at).label("latest"),
        )
        .group_by(tries.c.learner_id, tries.c.lesson_slug)
        .subquery("stats")
    )
    catalog = union_all(
        *(
            select(
                literal(slug).label("slug"),
                literal(total).label("total"),
                literal(n).label("position"),
            )
            for slug, total, n in lessons
        )
    ).subquery("catalog")
    right = func.coalesce(stats.c.right, 0)
    attempts = func.coalesce(stats.c.attempts, 0)
    status = case(
        (done_sql(right, catalog.c.total), LessonStatus.DONE.value),
        (attempts > 0, LessonStatus.IN_PROGRESS.value),
        else_=LessonStatus.NOT_STARTED.value,
    )
    query = (
        select(
            LEARNER.c.id,
            catalog.c.slug,
            status,
            right,
            catalog.c.total,
            func.coalesce(stats.c.first_right, 0),
            attempts,
            stats.c.latest,
        )
        .select_from(LEARNER.join(catalog, true()))
        .outerjoin(
            stats, and_(stats.c.learner_id == LEARNER.c.id, stats.c.lesson_slug == catalog.c.slug)
        )
        .order_by(LEARNER.c.created_at, LEARNER.c.id, catalog.c.position)
    )
    if class_id is not None:
        query = query.where(LEARNER.c.id.in_(class_learners(class_id)))
    for row in db.execute(query.execution_options(yield_per=BATCH)):
        learner, slug, situation, right_n, total, first_right, tries_n, latest = row
        yield (
            pseudonym(salt, learner),
            slug,
            situation,
            right_n,
            total,
            first_right,
            tries_n,
            _utc(latest),
        )
