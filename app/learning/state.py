"""A learner's stored state, as one request reads it: place, attempts and finished walks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from app.learning.classes import LessonDue
from app.learning.grading import AttemptFact


@dataclass(frozen=True)
class Place:
    """Where a learner was: a lesson and, optionally, a section anchor inside it."""

    lesson_slug: str
    section: str | None = None


@dataclass(frozen=True, slots=True)
class GradedAnswer:
    """What grading decided about one answer: the question version answered, what was
    chosen, and the grade. An attempt stores these as they are (:class:`NewAnswer` to store,
    :class:`AttemptRow` stored).

    Attributes:
        question_hash: the question's ``content_hash`` when it was answered.
        chosen: option ids, a number or an order, comma-joined.
        credit: ``ordering``: the share of items in place (0 to 1), else ``None``.
    """

    lesson_slug: str
    question_id: str
    question_hash: str
    chosen: str
    correct: bool
    credit: float | None

    @property
    def graded(self) -> tuple[str, str, str, str, bool, float | None]:
        """The six fields, in their order: lesson, question, version, what was chosen, right
        or not, credit."""
        return (
            self.lesson_slug,
            self.question_id,
            self.question_hash,
            self.chosen,
            self.correct,
            self.credit,
        )


@dataclass(frozen=True, slots=True)
class AttemptRow(GradedAnswer):
    """One stored answer, as the pages need it (the ``attempt`` table's columns): the
    :class:`GradedAnswer`, then these.

    Attributes:
        created_at: when it was stored (UTC).
        id: the row id (orders attempts stored in the same instant).
        help: what the learner opened before answering (:data:`app.learning.rules.NO_HELP`,
            ``HINTED``, ``WORKED``).
        variant: a numeric question's variant answered: its parameters (JSON), or ``""``.
    """

    created_at: datetime
    id: int
    help: int = 0
    variant: str = ""


@dataclass(frozen=True, slots=True)
class RevealRow:
    """A hint the learner opened and has not answered after yet (``hint_reveal``).

    Attributes:
        question_hash: the question version it was opened on.
        hint: which hint, from 1.
        worked: it was the worked answer.
    """

    lesson_slug: str
    question_id: str
    question_hash: str
    hint: int
    worked: bool
    id: int


@dataclass(frozen=True, slots=True)
class DrawRow:
    """A stored draw of a question pool (``pool_draw``; :mod:`app.learning.draws`).

    Attributes:
        number: the learner's draw of this pool, from 1.
        seed: the seed it was drawn with.
        question_ids: the questions drawn, in the pool's order.
        created_at: when it started (UTC).
    """

    lesson_slug: str
    pool_id: str
    number: int
    seed: str
    question_ids: tuple[str, ...]
    created_at: datetime
    id: int


@dataclass(frozen=True, slots=True)
class WalkRow:
    """A finished decision-tree walk (the ``walk`` table's columns a learner sees).

    Attributes:
        path: the option values chosen, comma-joined.
        created_at: when it was finished (UTC).
    """

    tree_id: str
    path: str
    result_id: str
    created_at: datetime
    id: int

    @property
    def values(self) -> tuple[str, ...]:
        """The option values chosen, in order (``path`` split at its commas)."""
        return tuple(value for value in self.path.split(",") if value)


@dataclass(frozen=True, slots=True)
class CardRow:
    """A spaced-review card as the pages need it: which question, which version, when due.

    Attributes:
        question_hash: the version last answered (an edited question is due at once).
        due: when it falls due (UTC).
    """

    lesson_slug: str
    question_id: str
    question_hash: str
    due: datetime


@dataclass(frozen=True)
class LearnerState:
    """Everything stored about one learner that their pages show, read in one statement.

    Attributes:
        learner_id: the learner, or ``None`` for a visitor who has stored nothing yet.
        stored: a learner row exists (they answered, walked a tree or signed up).
        place: the place kept on the learner row, or ``None``.
        attempts: every attempt, oldest first.
        walks: every finished walk, newest first.
        cards: the spaced-review cards (``app/learning/review.py``).
        dues: the due dates of the learner's classes, soonest first.
        reveals: the hints opened and not yet followed by an answer, oldest first.
        draws: the learner's stored draws of question pools, oldest first.
    """

    learner_id: str | None
    stored: bool = False
    place: Place | None = None
    attempts: tuple[AttemptRow, ...] = ()
    walks: tuple[WalkRow, ...] = field(default=())
    cards: tuple[CardRow, ...] = field(default=())
    dues: tuple[LessonDue, ...] = field(default=())
    reveals: tuple[RevealRow, ...] = field(default=())
    draws: tuple[DrawRow, ...] = field(default=())

    @property
    def version(self) -> tuple[object, ...]:
        """What changes whenever anything shown from this state changes: counts and last ids."""
        last_attempt = self.attempts[-1].id if self.attempts else 0
        last_walk = self.walks[0].id if self.walks else 0
        cards = tuple((c.lesson_slug, c.question_id, c.question_hash, c.due) for c in self.cards)
        return (
            self.stored,
            self.place,
            len(self.attempts),
            last_attempt,
            len(self.walks),
            last_walk,
            hash(cards),
            len(self.reveals),
            self.reveals[-1].id if self.reveals else 0,
            len(self.draws),
            self.draws[-1].id if self.draws else 0,
        )

    def revealed(self, slug: str, question_id: str, question_hash: str) -> tuple[RevealRow, ...]:
        """The hints opened on this version of the question since the learner's last answer
        to it, by hint number (a hint opened twice counts once)."""
        found = {
            r.hint: r
            for r in self.reveals
            if (r.lesson_slug, r.question_id, r.question_hash) == (slug, question_id, question_hash)
        }
        return tuple(found[n] for n in sorted(found))

    def due_for(self, slug: str) -> LessonDue | None:
        """The lesson's due date in the learner's classes (the soonest of them), or ``None``."""
        return next((due for due in self.dues if due.lesson_slug == slug), None)

    def in_lesson(self, slug: str) -> dict[str, list[AttemptRow]]:
        """The attempts in lesson ``slug``, oldest first, grouped by question id."""
        grouped: dict[str, list[AttemptRow]] = {}
        for attempt in self.attempts:
            if attempt.lesson_slug == slug:
                grouped.setdefault(attempt.question_id, []).append(attempt)
        return grouped

    def facts(self) -> list[AttemptFact]:
        """What progress needs from every attempt, oldest first."""
        return facts_of(self.attempts)

    def with_attempt(
        self, attempt: AttemptRow, place: Place, card: CardRow | None = None
    ) -> LearnerState:
        """This state after ``attempt`` was stored (if it is not in it already), the place
        moved to ``place`` and, when given, the question's review card replaced by ``card``."""
        attempts = self.attempts
        if all(a.id != attempt.id for a in attempts):
            attempts = (*attempts, attempt)
        cards = self.cards
        if card is not None:
            same = (card.lesson_slug, card.question_id)
            cards = (*(c for c in cards if (c.lesson_slug, c.question_id) != same), card)
        reveals = tuple(
            r
            for r in self.reveals
            if (r.lesson_slug, r.question_id) != (attempt.lesson_slug, attempt.question_id)
        )
        return LearnerState(
            self.learner_id,
            True,
            place,
            attempts,
            self.walks,
            cards,
            self.dues,
            reveals,
            self.draws,
        )

    def with_reveals(self, reveals: tuple[RevealRow, ...]) -> LearnerState:
        """This state after ``reveals`` were stored (the learner row exists from then on)."""
        known = {r.id for r in self.reveals}
        added = tuple(r for r in reveals if r.id not in known)
        return LearnerState(
            self.learner_id,
            True,
            self.place,
            self.attempts,
            self.walks,
            self.cards,
            self.dues,
            self.reveals + added,
            self.draws,
        )

    def with_draw(self, draw: DrawRow) -> LearnerState:
        """This state after ``draw`` was stored (the learner row exists from then on)."""
        if any(d.id == draw.id for d in self.draws):
            return self
        return replace(self, stored=True, draws=(*self.draws, draw))


def facts_of(attempts: Iterable[AttemptRow]) -> list[AttemptFact]:
    """The :class:`AttemptFact` of each attempt, in the same order."""
    return [AttemptFact(a.lesson_slug, a.question_id, a.question_hash, a.correct) for a in attempts]


class DuplicateKeyError(ValueError):
    """An idempotency key already used by this learner for another question."""


@dataclass(frozen=True, kw_only=True)
class NewAnswer(GradedAnswer):
    """A graded answer to store: the :class:`GradedAnswer` (positional), then these (by
    keyword).

    Attributes:
        learner_id: the learner (for a visitor's first answer, the id their new session got).
        key: the form's idempotency key.
        review: answered on ``/revisar``.
        help: what the learner opened before answering (:func:`app.learning.rules.help_of`).
        at: when it was answered (UTC); ``None``: when the batch commits (imports and tests
            give it).
        birth_key: a visitor's first answer: the learner is made with this form key, and a
            double submit of the same form joins the learner the first request made (within
            :data:`app.learning.writer.BIRTH_WINDOW`, and while that learner has no account).
        outbox: what another floor stores with the answer, in the same transaction (the
            writer's ``outbox``, :data:`app.learning.writer.Outbox`; also when the key was
            stored before: a form sent again). Opaque here.
        variant: a numeric question's variant answered: its parameters (JSON), or ``""``.
        draw: the learner's first answer in a pool: the draw they were shown, stored with the
            attempt (``(pool id, number, seed, question ids comma-joined)``), else ``None``.
    """

    learner_id: str
    key: str
    review: bool = False
    help: int = 0
    birth_key: str | None = None
    at: datetime | None = None
    outbox: tuple[Any, ...] = ()
    variant: str = ""
    draw: tuple[str, int, str, str] | None = None


@dataclass(frozen=True)
class Written:
    """What storing an answer gave.

    Attributes:
        row: the stored attempt (the first one stored with this key, for a form sent again).
        new: True when this request stored it.
        learner_id: the learner it belongs to (another one than asked for a visitor's double
            submit: see :attr:`NewAnswer.birth_key`).
        card: the question's review card as this answer left it, or ``None`` when the answer
            did not change it.
    """

    row: AttemptRow
    new: bool
    learner_id: str
    card: CardRow | None = None
