"""The grades an LMS gets back (LTI AGS): the score an answer queues with it (the answer
writer's outbox), counted from the stored attempts, and the queue the sender
(:mod:`app.lti.sender`) takes them from, with its backoff and the passback state per class
(no HTTP here).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from textwrap import shorten
from typing import Any

from sqlalchemy import Connection, Integer, and_, case, cast, func, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from app.content.course import Course
from app.content.lessons import Lesson
from app.i18n import gettext, ngettext
from app.learning.rules import NO_HELP, counted, counted_total
from app.lti.launch import GradedLaunch
from app.platform.db import begin_write, tuple_in
from app.platform.models import (
    ATTEMPT,
    LTI_SCORE,
    Classroom,
    LtiScore,
    utcnow,
)

PENDING, SENT, SUPERSEDED, FAILED = "pending", "sent", "superseded", "failed"
MAX_REFUSALS = 3  # tries of a score the platform refuses (a 4xx) before it is left failed
MAX_BACKOFF = timedelta(hours=1)
QUESTION_LABEL_CHARS = 60  # a question without concepts is named by its sentence, this long
LEASE = timedelta(minutes=2)  # how long a sender holds a score it is sending


def score_comment(
    right: int, total: int, wrong: list[str], unanswered: int, hinted: Sequence[str] = ()
) -> str:
    """The pt-BR summary sent with a score: "Acertou 2 de 18, com dica: KV cache. Errou: Mac e
    Ollama. 15 sem resposta." (``wrong``: what names each question answered but never right;
    ``hinted``: each question answered right only after opening a hint)."""
    counts = {"right": right, "total": total}
    text = gettext("Got %(right)s of %(total)s right.") % counts
    if hinted:
        text = gettext("Got %(right)s of %(total)s right, with a hint: %(questions)s.") % {
            **counts,
            "questions": "; ".join(dict.fromkeys(hinted)),
        }
    if wrong:
        named = "; ".join(dict.fromkeys(wrong))
        text += " " + gettext("Wrong: %(questions)s.") % {"questions": named}
    if unanswered:
        text += " " + ngettext("%(count)s unanswered.", "%(count)s unanswered.", unanswered) % {
            "count": unanswered
        }
    return text


@dataclass(frozen=True)
class ScoreOrder:
    """A score to queue with an answer, in the writer's transaction (the outbox): where it
    goes, and what the writer needs to count the lesson from the stored attempts.

    Attributes:
        questions: per question of the lesson, its id and how the comment names it when the
            learner got it wrong (its concepts, else the start of its sentence).
        pools: per pool of the lesson, its draw and the ids it draws from: a pool counts as
            its draw (:func:`app.learning.rules.counted`).
    """

    launch: GradedLaunch
    lesson_title: str
    questions: tuple[tuple[str, str], ...]
    pools: tuple[tuple[int, tuple[str, ...]], ...] = ()


def score_order(launch: GradedLaunch, course: Course, lesson: Lesson) -> ScoreOrder:
    """The score to queue after an answer in ``lesson`` for ``launch``."""
    named = []
    for question in lesson.questions.values():
        terms = [course.glossary.get(slug) for slug in question.concepts]
        label = ", ".join(term.term for term in terms if term is not None)
        if not label:
            sentence = shorten(question.legend_text, QUESTION_LABEL_CHARS, placeholder="…")
            label = f"“{sentence}”"
        named.append((question.id, label))
    pools = tuple((pool.draw, pool.candidates) for pool in lesson.pools.values())
    return ScoreOrder(launch, lesson.meta.title_text[:255], tuple(named), pools)


def queue_scores(
    connection: Connection, orders: Sequence[tuple[ScoreOrder, str, datetime]], now: datetime
) -> None:
    """Upsert the scores of ``orders`` (the order, the learner, when the answer that makes it
    was given), in the caller's transaction: the answer writer's, with the answers' attempts
    (it is the writer's outbox, :data:`app.learning.writer.Outbox`, given in ``app/main.py``).

    Each is counted from the learner's stored attempts in the lesson: ``scoreGiven`` the
    questions answered right at least once (in any version), ``scoreMaximum`` the question
    count. A column keeps one row per learner: a score from a newer answer replaces it and is
    sent again; one from an older answer (or the same, a form sent again) changes nothing, so
    a retry only queues a score that is missing.
    """
    if not orders:
        return
    pairs = sorted({(learner, order.launch.lesson_slug) for order, learner, _ in orders})
    best: dict[tuple[str, str, str], bool] = {}
    alone: set[tuple[str, str, str]] = set()  # right at least once with no hint
    unhelped_right = case((and_(ATTEMPT.c.correct, ATTEMPT.c.help == NO_HELP), 1), else_=0)
    for row in connection.execute(
        sa_select(
            ATTEMPT.c.learner_id,
            ATTEMPT.c.lesson_slug,
            ATTEMPT.c.question_id,
            func.max(cast(ATTEMPT.c.correct, Integer)),
            func.max(unhelped_right),
        )
        .where(tuple_in((ATTEMPT.c.learner_id, ATTEMPT.c.lesson_slug), pairs))
        .group_by(ATTEMPT.c.learner_id, ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id)
    ):
        best[(row[0], row[1], row[2])] = bool(row[3])
        if row[4]:
            alone.add((row[0], row[1], row[2]))
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for order, learner, answered_at in orders:
        launch, slug = order.launch, order.launch.lesson_slug
        hit, wrong, hinted, unanswered = set[str](), list[str](), list[str](), 0
        pooled = {qid for _, ids in order.pools for qid in ids}
        for question_id, label in order.questions:
            got = best.get((learner, slug, question_id))
            if got:
                hit.add(question_id)
                if (learner, slug, question_id) not in alone:
                    hinted.append(label)
            elif question_id in pooled:
                if got is not None:  # a pool's question not drawn is not missing
                    wrong.append(label)
            elif got is None:
                unanswered += 1
            else:
                wrong.append(label)
        for draw, ids in order.pools:  # a pool's draw not yet answered is missing
            answered = sum(1 for qid in ids if (learner, slug, qid) in best)
            unanswered += max(0, draw - answered)
        fixed = [qid for qid, _ in order.questions if qid not in pooled]
        right = counted((fixed, order.pools), hit)
        total = counted_total(len(fixed), (draw for draw, _ in order.pools))
        key = (launch.target, launch.sub)
        if key in rows and rows[key]["answered_at"] >= answered_at:
            continue
        rows[key] = {
            "target": launch.target,
            "platform_id": launch.platform_id,
            "class_id": launch.class_id,
            "learner_id": learner,
            "user_sub": launch.sub,
            "lineitem_url": launch.lineitem,
            "lineitems_url": launch.lineitems,
            "resource_link_id": launch.resource_link_id,
            "lesson_slug": slug,
            "lesson_title": order.lesson_title,
            "score_given": right,
            "score_maximum": total,
            "comment": score_comment(right, total, wrong, unanswered, hinted)[:1000],
            "activity_progress": "Completed" if right == total else "InProgress",
            "grading_progress": "FullyGraded",
            "created_at": now,
            "answered_at": answered_at,
            "status": PENDING,
            "tries": 0,
            "next_try_at": now,
            "last_error": "",
            "claim": "",
        }
    insert = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    upsert = insert(LTI_SCORE)
    newer = {
        name: upsert.excluded[name]
        for name in (
            "class_id",
            "learner_id",
            "score_given",
            "score_maximum",
            "comment",
            "activity_progress",
            "answered_at",
            "status",
            "tries",
            "next_try_at",
            "last_error",
        )
    }
    connection.execute(
        upsert.on_conflict_do_update(
            index_elements=["target", "user_sub"],
            set_=newer,
            where=LTI_SCORE.c.answered_at < upsert.excluded.answered_at,
        ),
        [rows[key] for key in sorted(rows)],
    )


def claim_next(
    db: Session, claim: str, everything: bool = False, skip: Collection[int] = ()
) -> LtiScore | None:
    """Take the oldest score to send (due, or any unsent with ``everything``; none in
    ``skip``) for the sender ``claim``, for :data:`LEASE`: another sender skips it meanwhile,
    so each score is posted once. PostgreSQL locks the candidate ``FOR UPDATE SKIP LOCKED``
    (concurrent senders take different rows without waiting); SQLite's write transaction
    does the same. ``None`` when nothing is left. Committed; the row is detached (read once:
    the HTTP calls run outside any transaction)."""
    now = utcnow()
    db.rollback()
    begin_write(db)
    query = select(LtiScore.id).where(
        col(LtiScore.status) == PENDING,
        col(LtiScore.claimed_until).is_(None) | (col(LtiScore.claimed_until) <= now),
    )
    if not everything:
        query = query.where(col(LtiScore.next_try_at) <= now)
    if skip:
        query = query.where(col(LtiScore.id).not_in(sorted(skip)))
    score_id = db.exec(
        query.order_by(col(LtiScore.id)).limit(1).with_for_update(skip_locked=True)
    ).first()
    if score_id is None:
        db.rollback()
        return None
    db.exec(
        update(LtiScore)
        .where(col(LtiScore.id) == score_id)
        .values(claim=claim, claimed_until=now + LEASE)
    )
    db.commit()
    score = db.get(LtiScore, score_id)
    if score is not None:
        db.expunge(score)
    db.rollback()
    return score


def _settle(
    db: Session, score: LtiScore, values: dict[str, Any], kept: dict[str, Any] | None = None
) -> None:
    """Record how a try of ``score`` went (``values``), when the row still holds that score
    and this sender's claim, and free the row. When a newer answer replaced the score
    meanwhile, only ``kept`` is recorded: the newer score stays pending and goes next.
    Committed."""
    assert score.id is not None  # a stored score
    db.rollback()
    begin_write(db)
    mine = [col(LtiScore.id) == score.id, col(LtiScore.claim) == score.claim]
    freed = {"claim": "", "claimed_until": None, **(kept or {})}
    done = db.exec(
        update(LtiScore)
        .where(*mine, col(LtiScore.answered_at) == score.answered_at)
        .values(**freed, **values)
    )
    if not done.rowcount:
        db.exec(update(LtiScore).where(*mine).values(**freed))
    db.commit()


def mark_sent(db: Session, score: LtiScore, lineitem: str) -> None:
    """Record that ``score`` reached the gradebook, in the column ``lineitem`` (kept, so a
    newer score goes straight there); committed."""
    sent = {"status": SENT, "sent_at": utcnow(), "last_error": "", "tries": 0}
    _settle(db, score, sent, {"lineitem_url": lineitem})


def mark_superseded(db: Session, score: LtiScore, error: str) -> None:
    """Record that the platform holds a newer score than ``score`` (its 409 for an earlier
    timestamp): not retried. Committed."""
    _settle(db, score, {"status": SUPERSEDED, "last_error": error[:1000], "tries": score.tries + 1})


def mark_failed(db: Session, score: LtiScore, error: str, refused: bool = False) -> None:
    """Record a failed try: retried after 2^tries seconds (at most an hour). A refusal (a 4xx
    the platform would give again) stops at the :data:`MAX_REFUSALS`-th try: ``failed``, shown
    on the instructor's panel with ``error``, the platform's message. Committed."""
    tries = score.tries + 1
    wait = min(timedelta(seconds=2**tries), MAX_BACKOFF)
    status = FAILED if refused and tries >= MAX_REFUSALS else PENDING
    failed = {
        "status": status,
        "last_error": error[:1000],
        "tries": tries,
        "next_try_at": utcnow() + wait,
    }
    _settle(db, score, failed)


def next_due(db: Session) -> datetime | None:
    """When the next unsent score is due, or ``None``."""
    due = db.exec(
        select(func.min(LtiScore.next_try_at)).where(col(LtiScore.status) == PENDING)
    ).one()
    db.rollback()
    return due


@dataclass(frozen=True)
class PassbackRow:
    """The grade passback of one class, as the dashboard shows it.

    Attributes:
        sent / pending / superseded / failed: scores (one per learner and column) in each
            state; ``failed``: refused by the platform, not retried.
        last_error: the platform's latest message about a failed or retried score.
    """

    class_id: int | None
    class_name: str
    sent: int
    pending: int
    superseded: int
    failed: int
    last_error: str


def passback_state(db: Session, class_id: int | None = None) -> list[PassbackRow]:
    """Scores sent, pending, superseded and failed per class (one class with ``class_id``),
    with the platform's latest message about a score not sent."""
    query = select(LtiScore)
    if class_id is not None:
        query = query.where(LtiScore.class_id == class_id)
    rows: dict[int | None, list[LtiScore]] = {}
    for score in db.exec(query.order_by(col(LtiScore.next_try_at), col(LtiScore.id))).all():
        rows.setdefault(score.class_id, []).append(score)
    found = []
    for key, scores in rows.items():
        errors = [s.last_error for s in scores if s.status in (FAILED, PENDING) and s.last_error]
        classroom = db.get(Classroom, key) if key is not None else None
        found.append(
            PassbackRow(
                key,
                classroom.name if classroom else "",
                sum(s.status == SENT for s in scores),
                sum(s.status == PENDING for s in scores),
                sum(s.status == SUPERSEDED for s in scores),
                sum(s.status == FAILED for s in scores),
                errors[-1] if errors else "",
            )
        )
    return found


def score_orders(
    launches: Sequence[GradedLaunch], course: Course, lesson: Lesson
) -> tuple[ScoreOrder, ...]:
    """The scores an answer in ``lesson`` queues: one per launch of that lesson."""
    return tuple(
        score_order(launch, course, lesson)
        for launch in launches
        if launch.lesson_slug == lesson.slug
    )
