"""A lesson's slug changed: its learners' progress follows it, and its old addresses lead to it.

Every row that names a lesson by its slug moves to the new slug, in the caller's transaction
(the editor's publication, so the file and the rows change together or not at all):
attempts, review cards, class due dates, learners' places, and the dashboard's aggregates
(recounted from the moved attempts by :func:`app.learning.tallies.rebuild.rebuild`, the same
code the migration that made them runs). Kept mastery per concept does not name lessons:
its tags move to the new slug, and only learners who had attempts under the new slug
already are recounted (:func:`app.learning.mastery.recount_mastery`). The change is
recorded in ``lesson_rename``, from which :func:`moved_to` finds where an old slug leads now.

Rows already stored under the new slug belong to a lesson that no longer exists (a slug is
unique in the course): the moved attempts join them, and a moved review card or due date
replaces the old one of the same question or class.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Table, and_, delete, exists, func, select, update
from sqlmodel import Session, col

from app.learning.mastery import recount_mastery
from app.learning.tallies.rebuild import rebuild
from app.platform.models import (
    ATTEMPT,
    CLASS_DUE,
    HINT_REVEAL,
    LEARNER,
    MASTERY_TAG,
    REVIEW_CARD,
    TALLY_BASIS,
    LessonRename,
)

MAX_HOPS = 50  # a chain of renames longer than this is not followed


def learners_with_progress(db: Session, slug: str) -> int:
    """How many learners answered at least one question of the lesson ``slug``."""
    query = select(func.count(func.distinct(ATTEMPT.c.learner_id))).where(
        ATTEMPT.c.lesson_slug == slug
    )
    count: int = db.execute(query).scalar_one()
    return count


def carry_progress(
    db: Session, old: str, new: str, file_name: str, revision_id: int | None
) -> LessonRename:
    """Move every row of the lesson ``old`` to ``new`` and record the rename.

    Call it inside a write transaction (:func:`app.platform.db.begin_write`); the caller
    commits. The aggregates are recounted from every attempt, once per rename.

    Returns:
        The rename recorded, with the number of learners whose progress moved.
    """
    learners = learners_with_progress(db, old)
    # attempts kept under the new slug (a lesson since removed) count again once it is live
    joining = db.execute(
        select(ATTEMPT.c.learner_id).where(ATTEMPT.c.lesson_slug == new).distinct()
    ).scalars()
    recount = list(joining)
    db.execute(update(ATTEMPT).where(ATTEMPT.c.lesson_slug == old).values(lesson_slug=new))
    db.execute(update(HINT_REVEAL).where(HINT_REVEAL.c.lesson_slug == old).values(lesson_slug=new))
    _move_keyed(db, REVIEW_CARD, ("learner_id", "question_id"), old, new)
    _move_keyed(db, CLASS_DUE, ("class_id",), old, new)
    _move_keyed(db, TALLY_BASIS, ("question_id",), old, new)
    _move_keyed(db, MASTERY_TAG, ("question_id", "concept"), old, new)
    db.execute(update(LEARNER).where(LEARNER.c.place_lesson == old).values(place_lesson=new))
    rebuild(db)
    recount_mastery(db, recount)
    rename = LessonRename(
        old_slug=old,
        new_slug=new,
        file_name=file_name,
        revision_id=revision_id,
        learners=learners,
    )
    db.add(rename)
    db.flush()
    return rename


def _move_keyed(db: Session, table: Table, key: tuple[str, ...], old: str, new: str) -> None:
    """Rename ``old`` to ``new`` in a table keyed by the slug and ``key``, replacing the rows
    of ``new`` that the moved ones would collide with."""
    moving = table.alias("moving")
    same_key = and_(*(moving.c[name] == table.c[name] for name in key))
    collides = exists().where(moving.c.lesson_slug == old, same_key)
    db.execute(delete(table).where(table.c.lesson_slug == new, collides))
    db.execute(update(table).where(table.c.lesson_slug == old).values(lesson_slug=new))


def moved_to(db: Session, slug: str, is_live: Callable[[str], bool]) -> str | None:
    """Where the lesson once called ``slug`` lives now, following renames to a live lesson.

    Args:
        db: a session (only read).
        slug: a slug from an old address.
        is_live: whether the course serves a lesson with a slug now.

    Returns:
        The live slug it was renamed to (through any number of renames), or ``None`` when
        ``slug`` was never renamed or its chain ends nowhere (a loop, a removed lesson).
    """
    seen = {slug}
    current = slug
    for _ in range(MAX_HOPS):
        query = (
            select(col(LessonRename.new_slug))
            .where(col(LessonRename.old_slug) == current)
            .order_by(col(LessonRename.id).desc())
            .limit(1)
        )
        target: str | None = db.execute(query).scalar_one_or_none()
        if target is None or target in seen:
            return None
        if is_live(target):
            return target
        seen.add(target)
        current = target
    return None
