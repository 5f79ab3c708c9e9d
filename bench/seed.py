"""Seed a benchmark database quickly: learners and attempts in bulk SQL (SQLite), then the
dashboard's aggregates and the kept mastery recounted from them by the code the app uses
when the course changes (``app.learning.tallies.rebuild.rebuild``,
``app.learning.mastery.rebuild_mastery``)."""

from __future__ import annotations

import random
import secrets
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app.content.course import Course
from app.learning.mastery import concept_tags, rebuild_mastery
from app.learning.tallies.rebuild import rebuild
from app.platform.db import make_engine


def seed(database: Path, course: Course, learners: int, attempts: int, rng: random.Random) -> None:
    """Insert ``learners`` learners and ``attempts`` attempts spread over the course's questions.

    Args:
        database: the migrated SQLite file.
        course: the course whose questions are answered.
        learners: how many learners to add.
        attempts: how many attempts to add in total.
        rng: the random source (seeded, so runs compare).
    """
    questions = [
        (
            lesson.slug,
            question.id,
            question.content_hash,
            [o.id for o in question.options],
            question.answer,
        )
        for lesson in course.lessons
        for question in lesson.questions.values()
        if question.options  # numeric and ordering questions have no option to pick
    ]
    ids = [secrets.token_hex(16) for _ in range(learners)]
    start = datetime.now(UTC) - timedelta(days=60)
    with sqlite3.connect(database) as db:
        db.executemany(
            "INSERT INTO learner (id, created_at) VALUES (?, ?)", [(i, _stamp(start)) for i in ids]
        )
        batch = []
        for n in range(attempts):
            slug, qid, qhash, options, answer = rng.choice(questions)
            chosen = rng.choice(options)
            when = start + timedelta(seconds=rng.randrange(60 * 86400))
            batch.append(
                (
                    ids[n % learners],
                    slug,
                    qid,
                    qhash,
                    chosen,
                    chosen in answer,
                    _stamp(when),
                    f"seed{n:012d}",
                )
            )
            if len(batch) == 50_000:
                _insert(db, batch)
                batch = []
        if batch:
            _insert(db, batch)
    engine = make_engine(f"sqlite:///{database}")
    with engine.begin() as connection:
        rebuild(connection)  # the attempts went in around the app's write path
        rebuild_mastery(connection, concept_tags(course))
    engine.dispose()


def _stamp(moment: datetime) -> str:
    """The way SQLModel's UTCDateTime stores a time in SQLite (naive UTC)."""
    return moment.astimezone(UTC).replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")


def _insert(db: sqlite3.Connection, rows: list[tuple]) -> None:
    db.executemany(
        "INSERT INTO attempt (learner_id, lesson_slug, question_id, question_hash, chosen, "
        "correct, created_at, idempotency_key) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.commit()


def generated_lessons(source: Path, target: Path, count: int) -> None:
    """Write ``count`` lessons into ``target``: copies of a tree-less course lesson
    with new slugs.
    """
    text = source.read_text(encoding="utf-8")
    target.mkdir(parents=True, exist_ok=True)
    head, _, body = text.partition("\n---\n")
    for n in range(1, count + 1):
        meta = "\n".join(
            f"slug: gerada-{n}"
            if line.startswith("slug:")
            else f"order: {n}"
            if line.startswith("order:")
            else line
            for line in head.split("\n")
        )
        (target / f"{n:03d}.md").write_text(meta + "\n---\n" + body, encoding="utf-8")
