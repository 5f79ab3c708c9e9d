"""A learner and what they stored: attempts, finished decision-tree walks, review cards."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, Index, SQLModel, UniqueConstraint

from app.platform.models.base import table, utcnow


class Learner(SQLModel, table=True):
    """A person taking the course; anonymous until they sign up.

    Attributes:
        id: random hex id (32 characters), also held in the server-side session.
        created_at: first visit that stored anything, UTC.
        place_lesson: slug of the lesson the learner was last in (for "Continuar de onde parei").
        place_section: anchor of the section inside that lesson, or ``None`` for its top.
        place_at: when the place was recorded, UTC.
        birth_key: the idempotency key of the answer form whose first answer made this learner
            (a visitor's), unique; a double submit of that form finds the learner by it for
            :data:`app.learning.store.BIRTH_WINDOW` after ``created_at``, never later.
    """

    __tablename__ = "learner"  # spelled out: the dashboard reads the table by this name
    __table_args__ = (UniqueConstraint("birth_key", name="uq_learner_birth_key"),)

    id: str = Field(primary_key=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)
    place_lesson: str | None = Field(default=None, max_length=100)
    place_section: str | None = Field(default=None, max_length=200)
    place_at: datetime | None = None
    birth_key: str | None = Field(default=None, max_length=64)


class AttemptBase(SQLModel):
    """Fields shared by stored and public attempts.

    Attributes:
        question_id: the question's ``id`` inside that lesson.
        question_hash: content hash of the question version answered ("" before versions existed).
        chosen: chosen option ids, sorted, comma-separated (ids never hold commas); for a
            ``numeric`` question the number ("4.41"), for ``ordering`` the item ids in the
            learner's order.
        correct: the grade given when the answer was submitted; never recomputed.
        created_at: submission time, UTC.
        credit: ``ordering``: the share of items in their right position, 0 to 1 ("right"
            still means fully right); ``None`` for other kinds.
        review: the answer was given on the spaced review page (``/revisar``), not in the
            lesson.
        help: what the learner opened before answering: 0 nothing, 1 a hint, 2 the worked
            answer (:data:`app.learning.rules.NO_HELP`, ``HINTED``, ``WORKED``).
    """

    lesson_slug: str = Field(max_length=100)
    question_id: str = Field(max_length=100)
    question_hash: str = Field(default="", max_length=64)
    chosen: str = Field(max_length=1000)
    correct: bool
    created_at: datetime = Field(default_factory=utcnow)
    credit: float | None = None
    review: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    help: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class Attempt(AttemptBase, table=True):
    """One submitted answer to one quiz question by one learner.

    ``idempotency_key`` comes from the form: the same form sent twice stores one attempt
    (unique per learner).
    """

    __tablename__ = "attempt"  # spelled out: the dashboard reads the table by this name

    __table_args__ = (
        Index("ix_attempt_learner_lesson", "learner_id", "lesson_slug"),
        UniqueConstraint("learner_id", "idempotency_key", name="uq_attempt_learner_key"),
        # only the attempts given after a hint: the dashboard's "Com dica" counts them
        Index(
            "ix_attempt_helped",
            "lesson_slug",
            "question_id",
            "question_hash",
            sqlite_where=sa.text("help != 0"),
            postgresql_where=sa.text("help != 0"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32)
    idempotency_key: str | None = Field(default=None, max_length=64)
    # a numeric question's variant: its parameters as JSON (app/content/variants.py), or ""
    variant: str = Field(default="", max_length=500, sa_column_kwargs={"server_default": ""})


class HintReveal(SQLModel, table=True):
    """One hint a learner opened on a question (table ``hint_reveal``).

    A reveal waits for the learner's next answer to that question, then belongs to it.

    Attributes:
        question_hash: the question version the hint was opened on.
        hint: which hint, from 1.
        worked: the hint was the worked answer.
        created_at: when it was opened, UTC.
        attempt_id: the answer given after it, or ``None`` until then.
    """

    __tablename__ = "hint_reveal"
    __table_args__ = (Index("ix_hint_reveal_learner", "learner_id", "lesson_slug", "question_id"),)

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32)
    lesson_slug: str = Field(max_length=100)
    question_id: str = Field(max_length=100)
    question_hash: str = Field(default="", max_length=64)
    hint: int
    worked: bool = False
    created_at: datetime = Field(default_factory=utcnow)
    attempt_id: int | None = Field(
        default=None, foreign_key="attempt.id", ondelete="CASCADE", index=True
    )


class PoolDrawRecord(SQLModel, table=True):
    """One draw of a question pool for a learner (table ``pool_draw``): the pool's attempt
    number ``number``, its seed and the questions it gave (:mod:`app.learning.draws`).

    Attributes:
        number: the learner's draw of this pool, from 1 ("Outras perguntas" adds the next).
        seed: the HMAC seed it was drawn with (32 hex digits).
        question_ids: the questions drawn, comma-joined, in the pool's order.
        created_at: when it started, UTC (draw 2 and up are ranked by the attempts before).
    """

    __tablename__ = "pool_draw"
    __table_args__ = (
        UniqueConstraint(
            "learner_id", "lesson_slug", "pool_id", "number", name="uq_pool_draw_number"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32)
    lesson_slug: str = Field(max_length=100)
    pool_id: str = Field(max_length=100)
    number: int
    seed: str = Field(max_length=64)
    question_ids: str = Field(max_length=2000)
    created_at: datetime = Field(default_factory=utcnow)


class WalkRecord(SQLModel, table=True):
    """A decision-tree walk the learner finished, as stored (table ``walk``).

    Not to be confused with :class:`app.content.walk.Walk`, a walk in progress through a tree.

    Attributes:
        path: the chosen option values, joined by ``,``.
        created_at: when it was finished, UTC.
        idempotency_key: a walk finished offline carries the key its device gave it
            (``static/js/tree-walk.js``): sent twice, it is stored once (unique per learner);
            ``None`` for a walk finished online.
    """

    __tablename__ = "walk"

    __table_args__ = (
        UniqueConstraint("learner_id", "idempotency_key", name="uq_walk_learner_key"),
    )

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32, index=True)
    tree_id: str = Field(max_length=100)
    path: str = Field(max_length=1000)
    result_id: str = Field(max_length=100)
    created_at: datetime = Field(default_factory=utcnow)
    idempotency_key: str | None = Field(default=None, max_length=64)


class ReviewCard(SQLModel, table=True):
    """The spaced review state of one question for one learner (an FSRS card).

    The columns are those of ``fsrs.Card``; :mod:`app.learning.review` turns rows into cards
    and back.

    Attributes:
        learner_id / lesson_slug / question_id: whose card, for which question.
        question_hash: the question version last answered; a card whose version is not the
            live one counts as new (due at once) and starts over on its next answer.
        state: FSRS state (1 learning, 2 review, 3 relearning).
        step: the learning step, or ``None`` in the review state.
        stability / difficulty: FSRS memory figures, ``None`` before the first rating.
        due: when the question is due for review, UTC.
        last_review: when it was last answered, UTC.
    """

    __tablename__ = "review_card"

    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    lesson_slug: str = Field(max_length=100, primary_key=True)
    question_id: str = Field(max_length=100, primary_key=True)
    question_hash: str = Field(default="", max_length=64)
    state: int
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime
    last_review: datetime | None = None


# The Core tables, for SQLAlchemy Core statements (inserts, upserts, joins).
LEARNER = table(Learner)
ATTEMPT = table(Attempt)
WALK = table(WalkRecord)
REVIEW_CARD = table(ReviewCard)
HINT_REVEAL = table(HintReveal)
