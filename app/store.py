"""Database reads and writes for learners and attempts (no HTTP here)."""

from __future__ import annotations

from sqlalchemy import Integer, cast, func
from sqlmodel import Session, select

from app.models import Attempt, Learner, Walk


def ensure_learner(session: Session, learner_id: str) -> None:
    """Insert the learner row if it is not there yet (learners are created lazily)."""
    if session.get(Learner, learner_id) is None:
        session.add(Learner(id=learner_id))
        session.flush()


def record_attempt(
    session: Session, learner_id: str, lesson_slug: str, question_id: str,
    chosen: frozenset[str], correct: bool,
) -> Attempt:
    """Store one graded answer in one transaction and return it.

    Args:
        session: an open session; this function commits it.
        learner_id: the learner answering (created if missing).
        lesson_slug: the lesson's slug.
        question_id: the question's id.
        chosen: the chosen option ids.
        correct: the grade.
    """
    ensure_learner(session, learner_id)
    attempt = Attempt(
        learner_id=learner_id, lesson_slug=lesson_slug, question_id=question_id,
        chosen=",".join(sorted(chosen)), correct=correct,
    )
    session.add(attempt)
    session.commit()
    session.refresh(attempt)
    return attempt


def latest_attempts(session: Session, learner_id: str, lesson_slug: str) -> dict[str, Attempt]:
    """Return the learner's latest attempt per question in one lesson (one query)."""
    rows = session.exec(
        select(Attempt)
        .where(Attempt.learner_id == learner_id, Attempt.lesson_slug == lesson_slug)
        .order_by(Attempt.id)
    )
    return {attempt.question_id: attempt for attempt in rows}


def question_summary(session: Session, learner_id: str) -> dict[str, tuple[set[str], set[str]]]:
    """Return, per lesson slug, the question ids attempted and those ever answered right.

    One grouped query over the learner's attempts.
    """
    rows = session.exec(
        select(Attempt.lesson_slug, Attempt.question_id, func.max(cast(Attempt.correct, Integer)))
        .where(Attempt.learner_id == learner_id)
        .group_by(Attempt.lesson_slug, Attempt.question_id)
    )
    summary: dict[str, tuple[set[str], set[str]]] = {}
    for slug, question_id, ever_right in rows:
        answered, right = summary.setdefault(slug, (set(), set()))
        answered.add(question_id)
        if ever_right:
            right.add(question_id)
    return summary


def record_walk(session: Session, learner_id: str, tree_id: str, path: tuple[str, ...], result_id: str) -> Walk:
    """Store a finished decision-tree walk in one transaction and return it."""
    ensure_learner(session, learner_id)
    walk = Walk(learner_id=learner_id, tree_id=tree_id, path=",".join(path), result_id=result_id)
    session.add(walk)
    session.commit()
    session.refresh(walk)
    return walk
