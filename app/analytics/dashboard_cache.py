"""The instructor dashboard's figures, computed at most once per period and kept in the database.

Every figure on the dashboard aggregates every attempt, so with a million attempts they
take seconds to compute. Moodle's quiz statistics report works the same way: it keeps
its figures for a while, says when they were computed, and offers "Recalcular agora".
The copy lives in the database (table ``report_cache``), so every worker serves the
same one. Its key holds the version of every current question: editing a question
makes the next visit compute the figures again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import datetime

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from app.analytics.dashboard import (
    Activity,
    FunnelStep,
    activity,
    current_versions,
    funnel,
    item_stats,
    sync_tally_basis,
    tree_walks,
)
from app.analytics.item_analysis import ItemStats, OptionCounts
from app.content.course import Course
from app.platform.db import begin_write
from app.platform.models import ReportCache

KEY_PREFIX = "painel:"


@dataclass(frozen=True)
class Figures:
    """Everything the dashboard shows that comes from the database.

    Attributes:
        activity: learners active overall, in 7 and in 30 days.
        funnel: per lesson, learners who started and who completed it.
        items: item analysis by ``(lesson slug, question id)``.
        walks: finished walks, tree id → result id → count.
        computed_at: when these figures were computed (UTC).
    """

    activity: Activity
    funnel: tuple[FunnelStep, ...]
    items: dict[tuple[str, str], ItemStats]
    walks: dict[str, dict[str, int]]
    computed_at: datetime


def compute(db: Session, course: Course, now: datetime, class_id: int | None = None) -> Figures:
    """Compute every figure now from the kept tallies (see ``app/analytics/dashboard.py``).

    ``class_id``: only that class's learners. Class figures are not stored: a class is a
    small part of the learners, and its figures change as soon as someone joins or leaves.
    May commit ``db`` (when the course's question versions changed, see
    :func:`app.analytics.dashboard.sync_tally_basis`).
    """
    if class_id is None:
        sync_tally_basis(db, course)  # once, before the figures' reads
    return Figures(
        activity(db, now, class_id),
        tuple(funnel(db, course, class_id)),
        item_stats(db, course, class_id),
        tree_walks(db, class_id),
        now,
    )


def figures(
    db: Session, course: Course, now: datetime, max_age_s: int, refresh: bool = False
) -> Figures:
    """Return the figures, computing and storing them when the stored copy is too old.

    Args:
        db: an open session; this function commits it when it stores figures.
        course: the course as it is now (its question versions are part of the key).
        now: the current time, UTC.
        max_age_s: a stored copy younger than this many seconds is reused.
        refresh: compute them again whatever their age ("Recalcular agora").
    """
    key = cache_key(course)
    stored = db.get(ReportCache, key)
    if (
        stored is not None
        and not refresh
        and (now - stored.computed_at).total_seconds() < max_age_s
    ):
        return from_json(stored.payload, stored.computed_at)
    fresh = compute(db, course, now)
    _store(db, key, fresh)
    return fresh


def cache_key(course: Course) -> str:
    """``painel:`` and a digest of every current question's version."""
    versions = json.dumps(current_versions(course), separators=(",", ":"))
    return KEY_PREFIX + hashlib.sha256(versions.encode()).hexdigest()[:40]


def _store(db: Session, key: str, fresh: Figures) -> None:
    try:
        begin_write(db)
        db.exec(delete(ReportCache).where(col(ReportCache.key).startswith(KEY_PREFIX)))
        db.add(ReportCache(key=key, computed_at=fresh.computed_at, payload=to_json(fresh)))
        db.commit()
    except IntegrityError:
        db.rollback()  # another worker stored the same figures at the same moment


def to_json(figures: Figures) -> str:
    """The figures as JSON (``computed_at`` is kept in its own column)."""
    return json.dumps(
        {
            "activity": asdict(figures.activity),
            "funnel": [asdict(step) for step in figures.funnel],
            "items": [[slug, qid, asdict(stats)] for (slug, qid), stats in figures.items.items()],
            "walks": figures.walks,
        }
    )


def from_json(text: str, computed_at: datetime) -> Figures:
    """Rebuild the figures written by :func:`to_json`."""
    data = json.loads(text)
    items = {
        (slug, qid): ItemStats(
            **{**stats, "options": tuple(OptionCounts(**o) for o in stats["options"])}
        )
        for slug, qid, stats in data["items"]
    }
    return Figures(
        Activity(**data["activity"]),
        tuple(FunnelStep(**step) for step in data["funnel"]),
        items,
        data["walks"],
        computed_at,
    )
