"""The instructor dashboard's figures, computed at most once per period and kept in the database.

Every figure on the dashboard aggregates every attempt, so with a million attempts they
take seconds to compute. Moodle's quiz statistics report works the same way: it keeps
its figures for a while, says when they were computed, and offers "Recalcular agora".
The copy lives in the database (table ``report_cache``), so every worker serves the
same one. The dashboard is split in tabs, and each tab computes and keeps only its own
part (:data:`ACTIVITY`, :data:`FUNNEL`, :data:`ITEMS`, :data:`WALKS`), one row each. A
row's key holds the part's name and the version of every current question: editing a
question makes the next visit of each tab compute its part again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any, Generic, TypeVar

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
    tree_walks,
)
from app.analytics.item_analysis import ItemStats, OptionCounts, VariantFacility
from app.content.course import Course
from app.platform.db import begin_write
from app.platform.models import ReportCache

KEY_PREFIX = "painel:"
T = TypeVar("T")


@dataclass(frozen=True)
class Part(Generic[T]):
    """One part of the dashboard's figures, computed, stored and read back on its own.

    Attributes:
        name: its name in the stored row's key (``painel:<name>:<digest>``).
        compute: the figures now, for every learner or for one class (``class_id``).
        dump: the figures as JSON-ready data; ``load`` reads that data back.
    """

    name: str
    compute: Callable[[Session, Course, datetime, int | None], T]
    dump: Callable[[T], Any]
    load: Callable[[Any], T]


@dataclass(frozen=True)
class Kept(Generic[T]):
    """A part's figures and when they were computed (UTC)."""

    value: T
    computed_at: datetime


def _load_items(data: Any) -> dict[tuple[str, str], ItemStats]:
    return {
        (slug, qid): ItemStats(
            **{
                **stats,
                "options": tuple(OptionCounts(**o) for o in stats["options"]),
                "variants": tuple(
                    VariantFacility(tuple(map(tuple, v["params"])), v["attempts"], v["right"])
                    for v in stats.get("variants", ())
                ),
            }
        )
        for slug, qid, stats in data
    }


def _dump_stats(stats: ItemStats) -> dict[str, Any]:
    """The JSON of ``asdict(stats)`` (the stored format), without its deep copy of every field
    (28 ms for the course's 38 questions, on each computation of the tab); :func:`_load_items`
    reads it back."""
    out: dict[str, Any] = {name: getattr(stats, name) for name in _STATS_FIELDS}
    out["options"] = [{name: getattr(o, name) for name in _OPTION_FIELDS} for o in stats.options]
    out["variants"] = [
        {"params": v.params, "attempts": v.attempts, "right": v.right} for v in stats.variants
    ]
    return out


_STATS_FIELDS = tuple(f.name for f in fields(ItemStats))
_OPTION_FIELDS = tuple(f.name for f in fields(OptionCounts))


# Learners active overall, in 7 and in 30 days.
ACTIVITY: Part[Activity] = Part(
    "alunos",
    lambda db, _course, now, class_id: activity(db, now, class_id),
    asdict,
    lambda data: Activity(**data),
)
# Per lesson, learners who started and who completed it.
FUNNEL: Part[tuple[FunnelStep, ...]] = Part(
    "funil",
    lambda db, course, _now, class_id: tuple(funnel(db, course, class_id)),
    lambda steps: [asdict(step) for step in steps],
    lambda data: tuple(FunnelStep(**step) for step in data),
)
# Item analysis by ``(lesson slug, question id)``.
ITEMS: Part[dict[tuple[str, str], ItemStats]] = Part(
    "perguntas",
    lambda db, course, _now, class_id: item_stats(db, course, class_id),
    lambda items: [[slug, qid, _dump_stats(stats)] for (slug, qid), stats in items.items()],
    _load_items,
)
# Finished walks, tree id → result id → count.
WALKS: Part[dict[str, dict[str, int]]] = Part(
    "arvores",
    lambda db, _course, _now, class_id: tree_walks(db, class_id),
    lambda walks: walks,
    lambda data: data,
)


def compute(
    db: Session, course: Course, part: Part[T], now: datetime, class_id: int | None = None
) -> Kept[T]:
    """Compute one part now from the kept tallies (see ``app/analytics/dashboard.py``).

    ``class_id``: only that class's learners. Class figures are not stored: a class is a
    small part of the learners, and its figures change as soon as someone joins or leaves.
    May commit ``db`` (when the course's question versions changed, see
    :func:`app.analytics.dashboard.sync_tally_basis`).
    """
    return Kept(part.compute(db, course, now, class_id), now)


def figures(
    db: Session,
    course: Course,
    part: Part[T],
    now: datetime,
    max_age_s: int,
    refresh: bool = False,
) -> Kept[T]:
    """Return one part's figures for every learner, computing and storing them when the
    stored copy is too old.

    Args:
        db: an open session; this function commits it when it stores figures.
        course: the course as it is now (its question versions are part of the key).
        part: which figures.
        now: the current time, UTC.
        max_age_s: a stored copy younger than this many seconds is reused.
        refresh: compute them again whatever their age ("Recalcular agora").
    """
    key = cache_key(course, part)
    stored = db.get(ReportCache, key)
    if (
        stored is not None
        and not refresh
        and (now - stored.computed_at).total_seconds() < max_age_s
    ):
        return Kept(part.load(json.loads(stored.payload)), stored.computed_at)
    fresh = compute(db, course, part, now)
    _store(db, part, key, fresh)
    return fresh


def forget(db: Session) -> None:
    """Drop every stored part ("Recalcular agora"): each tab computes its part on its next
    visit. Commits ``db``."""
    begin_write(db)
    db.exec(delete(ReportCache).where(col(ReportCache.key).startswith(KEY_PREFIX)))
    db.commit()


def cache_key(course: Course, part: Part[Any]) -> str:
    """``painel:<part>:`` and a digest of every current question's version."""
    versions = json.dumps(current_versions(course), separators=(",", ":"))
    return f"{KEY_PREFIX}{part.name}:" + hashlib.sha256(versions.encode()).hexdigest()[:40]


def _store(db: Session, part: Part[T], key: str, fresh: Kept[T]) -> None:
    prefix = f"{KEY_PREFIX}{part.name}:"
    try:
        begin_write(db)
        db.exec(delete(ReportCache).where(col(ReportCache.key).startswith(prefix)))
        payload = json.dumps(part.dump(fresh.value))
        db.add(ReportCache(key=key, computed_at=fresh.computed_at, payload=payload))
        db.commit()
    except IntegrityError:
        db.rollback()  # another worker stored the same figures at the same moment
