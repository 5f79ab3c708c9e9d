"""Which questions of a pool each learner sees: the draws (pure functions, no storage).

- **Seed**: a learner's draw number ``n`` of a pool is seeded by an HMAC-SHA-256 of the
  server's secret over the learner, the lesson, the pool and ``n`` (:func:`draw_seed`): the
  same on every reload and every device, different between learners, and nobody can work
  out another learner's draw without the secret. A visitor (no learner yet) gets the page's
  draw (:func:`page_seed`), the same for every visitor, so the page stays cacheable.
- **Order**: the questions the learner never answered come first, then those whose last
  answer was wrong (the longest ago first), then those whose last answer was right (the
  longest ago first); ties go by the seed (:func:`draw`).
- **First draw**: draw 1 takes no history into account, so it is a function of its seed
  alone and does not move while the learner answers it; it is stored with the learner's
  first answer in the pool (:func:`first_draw`).
- **Next draws**: "Outras perguntas", once every question of the current draw was answered,
  stores draw ``n + 1``, ranked by the learner's attempts at that moment (:func:`next_draw`).
  A stored draw keeps its seed and its questions, so it can be checked again: the same
  seed and the attempts stored before it give the same questions.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from app.content.lessons import Lesson
from app.content.pools import Pool
from app.learning.state import AttemptRow, DrawRow, LearnerState


def draw_seed(secret: bytes, learner_id: str, slug: str, pool_id: str, number: int) -> str:
    """The seed of a learner's draw ``number`` of a pool: 32 hex digits of an HMAC-SHA-256."""
    message = f"{learner_id}\x00{slug}\x00{pool_id}\x00{number}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def page_seed(slug: str, pool: Pool) -> str:
    """The seed of the visitors' draw: the lesson, the pool and its candidates (no learner,
    no secret): every visitor's page is the same, and it changes when the pool does."""
    text = f"page\x00{slug}\x00{pool.id}\x00{','.join(pool.candidates)}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Seen:
    """A learner's record of one question, for ranking: the last answer and when."""

    right: bool
    at: datetime


def seen_of(
    attempts: Iterable[AttemptRow], slug: str, before: datetime | None = None
) -> dict[str, Seen]:
    """The last answer to each question of lesson ``slug``, from attempts oldest first,
    counting only those stored before ``before`` when given."""
    seen: dict[str, Seen] = {}
    for attempt in attempts:
        if attempt.lesson_slug != slug:
            continue
        if before is not None and _naive(attempt.created_at) >= _naive(before):
            continue
        seen[attempt.question_id] = Seen(attempt.correct, attempt.created_at)
    return seen


def _naive(moment: datetime) -> datetime:
    return moment.replace(tzinfo=None)


def draw(seed: str, pool: Pool, seen: Mapping[str, Seen]) -> tuple[str, ...]:
    """The ``pool.draw`` questions a draw with ``seed`` gives, in the order they are shown.

    Args:
        seen: the learner's last answer to each question (empty: order by seed alone).
    """

    def rank(qid: str) -> tuple[int, datetime | None, str]:
        tie = hashlib.sha256(f"{seed}\x00{qid}".encode()).hexdigest()
        record = seen.get(qid)
        if record is None:
            return (0, None, tie)
        return (2 if record.right else 1, _naive(record.at), tie)

    unseen = sorted((q for q in pool.candidates if q not in seen), key=rank)
    known = sorted((q for q in pool.candidates if q in seen), key=rank)
    chosen = (unseen + known)[: pool.draw]
    # shown in the pool's own order, which the author chose
    return tuple(q for q in pool.candidates if q in chosen)


@dataclass(frozen=True)
class PoolDraw:
    """The draw a learner (or a visitor) sees in one pool.

    Attributes:
        number: which draw, from 1 (0 for a visitor's).
        seed: the seed it was drawn with.
        question_ids: the questions shown, in the pool's order.
        stored: it is kept in the database (else it is draw 1, computed from its seed).
        pending: its questions with no answer since it started (draw 1: never answered),
            which show as forms even when answered in an earlier draw.
    """

    pool: Pool
    number: int
    seed: str
    question_ids: tuple[str, ...]
    stored: bool = False
    pending: tuple[str, ...] = ()

    @property
    def answered(self) -> bool:
        """Every question of it has an answer since it started: "Outras perguntas" may start
        the next one."""
        return bool(self.question_ids) and not self.pending


def stored_draws(state: LearnerState, slug: str, pool_id: str) -> list[DrawRow]:
    """The learner's stored draws of a pool, by number."""
    rows = [d for d in state.draws if (d.lesson_slug, d.pool_id) == (slug, pool_id)]
    return sorted(rows, key=lambda d: d.number)


def current_draw(secret: bytes, lesson: Lesson, pool: Pool, state: LearnerState) -> PoolDraw:
    """The draw a learner sees now in ``pool``: their newest stored one, else their draw 1
    (computed from its seed); a visitor's is the page's."""
    if state.learner_id is None:
        seed = page_seed(lesson.slug, pool)
        ids = draw(seed, pool, {})
        return PoolDraw(pool, 0, seed, ids, pending=ids)
    rows = stored_draws(state, lesson.slug, pool.id)
    if rows:
        row = rows[-1]
        ids = _kept(row, pool, state, lesson.slug)
        since: datetime | None = row.created_at if row.number > 1 else None
        return PoolDraw(pool, row.number, row.seed, ids, True, _pending(state, lesson, ids, since))
    seed = draw_seed(secret, state.learner_id, lesson.slug, pool.id, 1)
    ids = draw(seed, pool, {})
    return PoolDraw(pool, 1, seed, ids, False, _pending(state, lesson, ids, None))


def _kept(row: DrawRow, pool: Pool, state: LearnerState, slug: str) -> tuple[str, ...]:
    """A stored draw's questions that are still in the pool, topped up by its seed when the
    author removed some (or lowered nothing: a draw never grows past ``pool.draw``)."""
    kept = [qid for qid in row.question_ids if qid in pool.candidates][: pool.draw]
    if len(kept) == pool.draw:
        return tuple(q for q in pool.candidates if q in kept)
    seen = seen_of(state.attempts, slug, row.created_at if row.number > 1 else None)
    rest = Pool(
        pool.id, pool.draw - len(kept), tuple(q for q in pool.candidates if q not in kept), 0
    )
    extra = draw(row.seed, rest, seen)
    return tuple(q for q in pool.candidates if q in kept or q in extra)


def _pending(
    state: LearnerState, lesson: Lesson, ids: Sequence[str], since: datetime | None
) -> tuple[str, ...]:
    done = {
        a.question_id
        for a in state.attempts
        if a.lesson_slug == lesson.slug and (since is None or _naive(a.created_at) >= _naive(since))
    }
    return tuple(qid for qid in ids if qid not in done)


def lesson_draws(secret: bytes, lesson: Lesson, state: LearnerState) -> dict[str, PoolDraw]:
    """The current draw of every pool of the lesson, by pool id."""
    return {pid: current_draw(secret, lesson, pool, state) for pid, pool in lesson.pools.items()}


def pool_of(lesson: Lesson, question_id: str) -> Pool | None:
    """The first pool that may draw ``question_id``, or ``None`` (a quiz block's question)."""
    return next((p for p in lesson.pools.values() if question_id in p.candidates), None)


def first_draw(
    secret: bytes, learner_id: str, slug: str, pool: Pool
) -> tuple[str, tuple[str, ...]]:
    """The seed and questions of a learner's draw 1 (no history: see the module's notes)."""
    seed = draw_seed(secret, learner_id, slug, pool.id, 1)
    return seed, draw(seed, pool, {})


def next_draw(
    secret: bytes,
    learner_id: str,
    slug: str,
    pool: Pool,
    number: int,
    attempts: Sequence[AttemptRow],
) -> tuple[str, tuple[str, ...]]:
    """The seed and questions of draw ``number`` (2 and up), ranked by ``attempts``."""
    seed = draw_seed(secret, learner_id, slug, pool.id, number)
    return seed, draw(seed, pool, seen_of(attempts, slug))
