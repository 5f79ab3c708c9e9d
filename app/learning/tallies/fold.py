"""The tallies' pure model: a learner's state, folding attempts into it, and what it
contributes to every counter. No database here."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol, TypeVar

from app.learning.rules import Shape, counted, counted_total, first_try_key, is_done
from app.learning.tallies.codec import encode_answers

VersionKey = tuple[str, str, str]  # lesson slug, question id, question version
PoolKey = tuple[str, str, str, int]  # lesson slug, question id, pool id, the pool's draw
CounterKey = TypeVar("CounterKey")  # a counter's key (a version, a lesson slug...)


@dataclass(frozen=True)
class QuestionHistory:
    """A learner's history on one question version (a ``first_try`` row).

    Attributes:
        attempt_id / created_at / chosen / correct: the first attempt's (times UTC, aware).
        attempts: attempts at this version.
        rights: right attempts at this version.
        last_at: the latest attempt's time (UTC, aware).
    """

    attempt_id: int
    created_at: datetime
    chosen: str
    correct: bool
    attempts: int
    rights: int
    last_at: datetime


State = dict[VersionKey, QuestionHistory]


class AttemptLike(Protocol):
    """What :func:`fold` reads of an attempt: an ``Attempt`` or a row of the ``attempt`` table."""

    @property
    def id(self) -> int | None: ...
    @property
    def lesson_slug(self) -> str: ...
    @property
    def question_id(self) -> str: ...
    @property
    def question_hash(self) -> str: ...
    @property
    def chosen(self) -> str: ...
    @property
    def correct(self) -> bool: ...
    @property
    def created_at(self) -> datetime: ...


class LearnerAnswer(AttemptLike, Protocol):
    """A stored attempt with its learner: what every follow-up of an answer batch reads (the
    tallies, :func:`app.learning.review.schedule_batch`,
    :func:`app.learning.mastery.record_in_mastery`)."""

    @property
    def learner_id(self) -> str: ...


@dataclass(frozen=True)
class Basis:
    """The question versions counted as current.

    Attributes:
        versions: ``(lesson slug, question id, version)`` of every current question.
        pools: ``(lesson slug, question id, pool id, draw)`` of every pool's question: a pool
            counts as its draw (:func:`app.learning.rules.counted`).
    """

    versions: frozenset[VersionKey]
    pools: frozenset[PoolKey] = frozenset()

    def shape(self, slug: str, ids: frozenset[str]) -> Shape:
        """Lesson ``slug``'s questions as :func:`app.learning.rules.counted` counts them:
        its quiz questions, and per pool its draw and its questions."""
        drawn: dict[tuple[str, int], set[str]] = defaultdict(set)
        for lesson, qid, pool_id, draw in self.pools:
            if lesson == slug and qid in ids:
                drawn[(pool_id, draw)].add(qid)
        pooled = {qid for found in drawn.values() for qid in found}
        return ids - pooled, [(draw, frozenset(found)) for (_, draw), found in drawn.items()]

    @property
    def questions(self) -> dict[str, frozenset[str]]:
        """Lesson slug → its current question ids."""
        out: dict[str, set[str]] = defaultdict(set)
        for slug, qid, _ in self.versions:
            out[slug].add(qid)
        return {slug: frozenset(ids) for slug, ids in out.items()}


@dataclass
class Contribution:
    """What one learner adds to each counter.

    Attributes:
        questions: version → ``(attempts, learners, first_right)``.
        lessons: lesson slug → ``(started, completed)``.
        scores: ``(slug, question id, score, chosen)`` → ``(learners, rights)``.
        learner: ``(last_at, score, answers)``, or ``None`` for a learner with no attempt.
    """

    questions: dict[VersionKey, tuple[int, ...]]
    lessons: dict[str, tuple[int, ...]]
    scores: dict[tuple[str, str, int, str], tuple[int, ...]]
    learner: tuple[datetime, int, str] | None


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC time (a naive one is taken as UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def fold(state: Mapping[VersionKey, QuestionHistory], attempts: Iterable[AttemptLike]) -> State:
    """Fold stored attempts (``id`` set) into a learner's state, in any order.

    Returns:
        A new state (``state`` is left unchanged): the first try is the oldest by
        :func:`app.learning.rules.first_try_key`.
    """
    out = dict(state)
    for a in attempts:
        assert a.id is not None  # a stored attempt
        key = (a.lesson_slug, a.question_id, a.question_hash)
        when = utc(a.created_at)
        before = out.get(key)
        right = bool(a.correct)
        if before is None:
            out[key] = QuestionHistory(a.id, when, a.chosen, right, 1, int(right), when)
            continue
        now = replace(
            before,
            attempts=before.attempts + 1,
            rights=before.rights + int(right),
            last_at=max(before.last_at, when),
        )
        if first_try_key(when, a.id) < first_try_key(before.created_at, before.attempt_id):
            now = replace(now, attempt_id=a.id, created_at=when, chosen=a.chosen, correct=right)
        out[key] = now
    return out


def course_score(state: Mapping[VersionKey, QuestionHistory], basis: Basis) -> int:
    """The learner's course score: current versions whose first try was right."""
    return sum(1 for key, t in state.items() if key in basis.versions and t.correct)


def contributions(state: Mapping[VersionKey, QuestionHistory], basis: Basis) -> Contribution:
    """What one learner's state adds to ``question_tally``, ``lesson_tally``, ``score_tally``,
    and their ``learner_tally`` row."""
    questions: dict[VersionKey, tuple[int, ...]] = {
        key: (t.attempts, 1, int(t.correct)) for key, t in state.items()
    }
    answered: dict[str, set[str]] = defaultdict(set)
    right: dict[str, set[str]] = defaultdict(set)
    for (slug, qid, _), t in state.items():
        answered[slug].add(qid)
        if t.rights:
            right[slug].add(qid)
    lessons: dict[str, tuple[int, ...]] = {}
    for slug, ids in basis.questions.items():
        if answered[slug] & ids:
            shape = basis.shape(slug, ids)
            total = counted_total(len(shape[0]), (draw for draw, _ in shape[1]))
            lessons[slug] = (1, int(is_done(counted(shape, right[slug]), total)))
    score = course_score(state, basis)
    scores: dict[tuple[str, str, int, str], tuple[int, ...]] = {}
    answers = []
    for (slug, qid, version), t in state.items():
        if (slug, qid, version) in basis.versions:
            scores[(slug, qid, score, t.chosen)] = (1, int(t.correct))
            answers.append((slug, qid, t.chosen, t.correct))
    learner = (
        (max(t.last_at for t in state.values()), score, encode_answers(answers)) if state else None
    )
    return Contribution(questions, lessons, scores, learner)


def add_difference(
    new: Mapping[CounterKey, tuple[int, ...]],
    old: Mapping[CounterKey, tuple[int, ...]],
    into: dict[CounterKey, tuple[int, ...]],
) -> None:
    """Add ``new - old`` (tuples, cell by cell; a missing key counts as zeros) to ``into``."""
    for key in new.keys() | old.keys():
        a, b = new.get(key), old.get(key)
        width = len(a or b or ())
        a, b = a or (0,) * width, b or (0,) * width
        into[key] = tuple(
            x + y - z for x, y, z in zip(into.get(key, (0,) * width), a, b, strict=True)
        )
