"""Anonymous learners nobody can reach any more are erased after a retention period (LGPD).

A learner without an account is reached only through a live session of theirs: the browser
that holds its cookie. When none is left (the sessions expired, or were replaced, as when the
same browser is signed in as another person), nobody can see, export or erase that learner's
answers, so the course erases them itself, with the same
:func:`app.learning.learners.delete_learner` that "Meus dados" uses: attempts, walks, review
cards, class places, and their share of the dashboard's counters. What stays is what never
named them: the counters of each question over every other learner.

The period (``CURSO_ANONYMOUS_RETENTION_DAYS``) counts from the learner's last activity (an
answer, a walk, a place, or their creation), so a session that has just ended (a sign-in that
merged the learner, say) never races the sweep.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta

from sqlalchemy import Engine, exists, or_, select
from sqlmodel import Session, col

from app.learning.learners import delete_learner
from app.platform.models import ACCOUNT, ATTEMPT, LEARNER, WALK, WebSession, utcnow

log = logging.getLogger("curso.retention")
SWEEP_EVERY_S = 24 * 3600.0
FIRST_SWEEP_AFTER_S = 60.0  # after start: not on the start's own time
BATCH = 500  # learners erased per transaction, at most


def unreachable_learners(db: Session, now: datetime, days: int) -> list[str]:
    """Ids of the learners with no account and no unexpired session, whose last activity is
    more than ``days`` days before ``now`` (oldest first, :data:`BATCH` at most). Every way of
    signing in, from this site or another, gives the person an account."""
    cutoff = now - timedelta(days=days)
    learner_id = LEARNER.c.id
    query = (
        select(learner_id)
        .where(
            ~exists().where(ACCOUNT.c.learner_id == learner_id),
            ~exists().where(
                col(WebSession.learner_id) == learner_id, col(WebSession.expires_at) > now
            ),
            LEARNER.c.created_at < cutoff,
            or_(LEARNER.c.place_at.is_(None), LEARNER.c.place_at < cutoff),
            ~exists().where(ATTEMPT.c.learner_id == learner_id, ATTEMPT.c.created_at >= cutoff),
            ~exists().where(WALK.c.learner_id == learner_id, WALK.c.created_at >= cutoff),
        )
        .order_by(LEARNER.c.created_at)
        .limit(BATCH)
    )
    return [row[0] for row in db.execute(query)]


def erase_unreachable(db: Session, days: int, now: datetime | None = None) -> int:
    """Erase every unreachable learner (:func:`unreachable_learners`); how many were erased.

    Each learner goes in a transaction of its own (:func:`delete_learner`), so a sweep never
    holds the write lock for long.
    """
    erased = 0
    while ids := unreachable_learners(db, now or utcnow(), days):
        db.rollback()
        for learner_id in ids:
            delete_learner(db, learner_id)
        erased += len(ids)
    return erased


class RetentionSweeper:
    """A thread of the app that runs :func:`erase_unreachable` once a day, in a session of its
    own on ``engine`` (no request owns it).

    Several workers each run theirs; a sweep that finds nothing costs one query.
    """

    def __init__(self, engine: Engine, days: int, first_after_s: float = FIRST_SWEEP_AFTER_S):
        self.engine = engine
        self.days = days
        self.first_after_s = first_after_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="curso-retention", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread at its next wait."""
        self._stop.set()

    def _run(self) -> None:
        wait = self.first_after_s
        while not self._stop.wait(wait):
            try:
                with Session(self.engine) as db:
                    erased = erase_unreachable(db, self.days)
                if erased:
                    log.info("erased %d unreachable anonymous learners", erased)
            except Exception:
                log.exception("retention sweep failed; trying again tomorrow")
            wait = SWEEP_EVERY_S
