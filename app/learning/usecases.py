"""One use-case per learner action: open a lesson, answer a question, read progress.

Each reads the learner's state once (:meth:`LearnerStore.read_state`: one statement, only
the rows newer than those the process keeps) and builds everything the page shows from it:
the question views and the course progress. The grade shown after an answer is the grade
stored. Routers parse the request, call one of
these and render; storage comes in through :class:`LearnerStore`, so this floor imports
neither HTTP nor SQL.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from itsdangerous import BadData, TimestampSigner

from app.content.calculators import calculator_results
from app.content.course import Course
from app.content.lessons import Lesson
from app.content.numbers import AnswerError
from app.content.page_ids import question_anchor
from app.content.quiz import Hint, Question
from app.content.variants import instance
from app.learning.draws import (
    PoolDraw,
    current_draw,
    first_draw,
    lesson_draws,
    next_draw,
    pool_of,
    stored_draws,
)
from app.learning.grading import grade_form
from app.learning.progress import CourseProgress, course_progress, due_in, review_clock
from app.learning.rules import help_of
from app.learning.state import (
    DrawRow,
    DuplicateKeyError,
    LearnerState,
    NewAnswer,
    Place,
    RevealRow,
    Written,
)
from app.learning.trees import TreeView, tree_view
from app.learning.variants import PAGE_OWNER, read_token
from app.learning.views import KEY_RE, Draft, QuestionView, question_view

if TYPE_CHECKING:
    from app.learning.classes import LessonDue


class LearnerStore(Protocol):
    """What the use-cases need from storage.

    :class:`app.learning.store.SqlLearnerStore` implements it; the tests' in-memory store too.
    """

    def read_state(self, learner_id: str | None) -> LearnerState:
        """The learner's state in one read; empty for ``None``."""

    def move_place(self, learner_id: str, place: Place) -> None:
        """Keep ``place`` on the learner row, soon (the caller does not wait)."""

    async def store_answer(self, answer: NewAnswer) -> Written:
        """Store one graded answer once per key; return once it is durable (awaited: no
        thread waits for the commit).

        Raises ``DuplicateKeyError`` when the key was used for another question.
        """

    def store_reveals(
        self, learner_id: str, slug: str, question: Question, hints: Sequence[Hint]
    ) -> tuple[RevealRow, ...]:
        """Store hints opened on ``question`` as it is now, before returning them as stored."""

    def store_draw(self, learner_id: str, slug: str, draw: PoolDraw) -> DrawRow | None:
        """Store a pool draw; ``None`` when that number was stored already."""


@dataclass(frozen=True)
class LessonPage:
    """Everything a lesson page shows for one learner.

    Attributes:
        views: a :class:`QuestionView` per question id.
        tree_views: a :class:`TreeView` per tree id.
        previous: the lesson before, or ``None``.
        following: the lesson after, or ``None``.
        position: the lesson's number in the course, from 1.
        total: how many lessons the course has.
        progress: the learner's progress over the course.
        due: the lesson's due date in the learner's classes, or ``None``.
        overdue: the due date has passed.
        draws: the draw the learner sees in each pool of the lesson, by pool id.
    """

    lesson: Lesson
    views: dict[str, QuestionView]
    tree_views: dict[str, TreeView]
    previous: Lesson | None
    following: Lesson | None
    position: int
    total: int
    progress: CourseProgress
    calc_results: object = None
    due: LessonDue | None = None
    overdue: bool = False
    draws: dict[str, PoolDraw] = field(default_factory=dict)

    def context(self) -> dict[str, object]:
        """The template context of ``lesson.html``."""
        return {
            "lesson": self.lesson,
            "views": self.views,
            "tree_views": self.tree_views,
            "previous": self.previous,
            "following": self.following,
            "position": self.position,
            "total": self.total,
            "progress": self.progress,
            # calculadora blocks' results, from the query string
            "calc_results": self.calc_results,
            "lesson_due": self.due,
            "overdue": self.overdue,
            "draws": self.draws,
        }


@dataclass(frozen=True)
class LessonRequest:
    """What the learner asked for on a lesson page, besides the lesson.

    Attributes:
        retry: a question id to show as a form again (``?refazer=``).
        errors: messages by question id (a refused answer, carried by the session).
        typed: a refused ``numeric`` answer by question id (or one kept after a hint).
        drafts: the choices kept in a form by question id (a hint opened without JavaScript).
        query: the page's query string; ``arvore`` and ``c`` show that tree at that step.
    """

    retry: str | None = None
    errors: dict[str, str] = field(default_factory=dict)
    typed: dict[str, str] = field(default_factory=dict)
    drafts: dict[str, Draft] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class OpenedLesson:
    """A lesson opened by a learner (or a visitor): their state, read once, and where they are.

    The page is built only when asked for (:meth:`page`): a page cached under :attr:`stamp`
    costs no building.

    Attributes:
        state: the learner's state (empty for a visitor).
        place: where the learner now is (the lesson opened, unless only prefetched).
        keep_in_session: a place to keep in the session (a learner without a row), or ``None``.
        now: when it was opened (a class due date passed or not).
        draw_key: the server's secret, which seeds the learner's draws of the lesson's pools
            (:mod:`app.learning.draws`).
    """

    course: Course
    lesson: Lesson
    asked: LessonRequest
    state: LearnerState
    place: Place | None = None
    keep_in_session: Place | None = None
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    draw_key: bytes = field(default=b"", repr=False)

    @property
    def stamp(self) -> tuple[object, ...]:
        """Changes whenever the page would change, but for the lesson's own version (a cache
        keys that by course)."""
        due = self.state.due_for(self.lesson.slug)
        return (
            self.state.learner_id,
            self.state.version,
            self.place,
            due_in(self.state.cards, self.course, review_clock()),
            due and (due.class_name, due.due_at, due.zone, due.is_late(self.now)),
        )

    def page(self) -> LessonPage:
        """The page, built from the state already read (no storage)."""
        return lesson_page(
            self.course, self.lesson, self.state, self.place, self.asked, self.now, self.draw_key
        )

    def context(self) -> dict[str, object]:
        """The template context of ``lesson.html``, the page built now."""
        return self.page().context()


def open_lesson(
    store: LearnerStore,
    course: Course,
    lesson: Lesson,
    learner_id: str | None,
    session_place: Place | None,
    asked: LessonRequest,
    move_place: bool = True,
    draw_key: bytes = b"",
) -> OpenedLesson:
    """Read the learner's state once and move their place to ``lesson`` (stored where they
    have a row; otherwise :attr:`OpenedLesson.keep_in_session` asks the caller to keep it).

    Args:
        learner_id: the learner, or ``None`` for a visitor (nothing is stored).
        session_place: the place kept in the session of a learner without a row.
        move_place: False when the browser only fetches the page ahead (a prefetch of the
            next lesson): the learner has not opened it, so "Continuar de onde parei" stays.
    """
    state = store.read_state(learner_id)
    place = state.place or session_place
    keep = None
    moved = place is None or place.lesson_slug != lesson.slug
    if move_place and learner_id is not None and moved:
        place = Place(lesson.slug)
        if state.stored:
            store.move_place(learner_id, place)
        else:
            keep = place
    return OpenedLesson(course, lesson, asked, state, place, keep, draw_key=draw_key)


def visitor_lesson(course: Course, lesson: Lesson, draw_key: bytes = b"") -> OpenedLesson:
    """A lesson as every visitor without a query string sees it (nothing to read);
    ``draw_key``, the server's secret, signs the variants its forms show."""
    return OpenedLesson(course, lesson, LessonRequest(), LearnerState(None), draw_key=draw_key)


def lesson_page(
    course: Course,
    lesson: Lesson,
    state: LearnerState,
    place: Place | None,
    asked: LessonRequest,
    now: datetime,
    draw_key: bytes = b"",
) -> LessonPage:
    """Build a lesson page from a state already read (no storage). A drawn question not
    answered since its draw started shows as a form, also when an earlier draw had it."""
    grouped = state.in_lesson(lesson.slug)
    draws = lesson_draws(draw_key, lesson, state)
    fresh = {qid for drawn in draws.values() for qid in drawn.pending}
    views = {
        qid: question_view(
            lesson.slug,
            question,
            state.learner_id,
            grouped.get(qid, []),
            qid == asked.retry or qid in fresh,
            asked.errors.get(qid),
            asked.typed.get(qid, ""),
            opened(state, lesson.slug, question),
            draw_key,
            asked.drafts.get(qid),
        )
        for qid, question in lesson.questions.items()
    }
    query = asked.query
    tree_views = {
        tid: tree_view(
            tree,
            query.get("c") if query.get("arvore") == tid else None,
            lesson.slug,
            notice=query.get("aviso") if query.get("arvore") == tid else None,
        )
        for tid, tree in lesson.trees.items()
    }
    previous, following = course.neighbours(lesson.slug)
    due = state.due_for(lesson.slug)
    progress = course_progress(course, state, place)
    return LessonPage(
        lesson,
        views,
        tree_views,
        previous,
        following,
        course.lessons.index(lesson) + 1,
        len(course.lessons),
        progress,
        calculator_results(lesson.calculators, query),
        due,
        due is not None and due.is_late(now),
        draws,
    )


@dataclass(frozen=True)
class QuestionPage:
    """One question for one learner, and the course progress after an answer.

    Attributes:
        view: how the question shows.
        progress: the course progress (after an answer), else ``None``.
        error: the message of a refused answer, else ``None``.
        stored: True when an answer was stored by this request.
        learner_id: the learner the answer was stored for (see :class:`AnswerPlace`),
            else ``None``.
        state: the learner's state the page was built from (after the answer, if any).
        draw: after an answer to a question of a pool, that pool's draw as the lesson now
            shows it (its foot offers "Outras perguntas" once it is all answered); else
            ``None``.
    """

    view: QuestionView
    progress: CourseProgress | None = None
    error: str | None = None
    stored: bool = False
    learner_id: str | None = None
    state: LearnerState | None = None
    draw: PoolDraw | None = None


def show_question(
    store: LearnerStore,
    lesson: Lesson,
    question: Question,
    learner_id: str | None,
    retry: bool = False,
    error: str | None = None,
    typed: str = "",
    secret: bytes = b"",
) -> QuestionPage:
    """One question as the learner sees it now (their latest graded answer, or the form);
    ``secret`` picks a numeric question's variant (:mod:`app.learning.variants`)."""
    state = store.read_state(learner_id)
    attempts = state.in_lesson(lesson.slug).get(question.id, [])
    view = question_view(
        lesson.slug,
        question,
        state.learner_id,
        attempts,
        retry,
        error,
        typed,
        opened(state, lesson.slug, question),
        secret,
    )
    return QuestionPage(view, error=error, state=state)


def opened(state: LearnerState, slug: str, question: Question) -> list[int]:
    """The numbers of the hints the learner opened on ``question`` since their last answer."""
    return [r.hint for r in state.revealed(slug, question.id, question.content_hash)]


class HintNotFound(LookupError):
    """The hint asked for is not one of the question's."""


def reveal_hint(
    store: LearnerStore,
    lesson: Lesson,
    question: Question,
    learner_id: str,
    number: int,
    version: str | None,
    secret: bytes = b"",
) -> QuestionPage:
    """Open the question's hints up to ``number`` (those not open yet are stored, one event
    each, waiting for the learner's next answer, which then counts as helped) and show the
    question's form with them.

    Raises:
        FormRefused: the form showed another version of the question (``QUESTION_CHANGED``).
        HintNotFound: ``number`` is not between 1 and the question's count of hints.
    """
    if version != question.content_hash:
        raise FormRefused(QUESTION_CHANGED)
    if not 1 <= number <= len(question.hints):
        raise HintNotFound(number)
    state = store.read_state(learner_id)
    already = set(opened(state, lesson.slug, question))
    new = [h for h in question.hints[:number] if h.number not in already]
    if new:
        rows = store.store_reveals(learner_id, lesson.slug, question, new)
        state = state.with_reveals(rows)
    attempts = state.in_lesson(lesson.slug).get(question.id, [])
    view = question_view(
        lesson.slug,
        question,
        learner_id,
        attempts,
        retry=True,
        revealed=opened(state, lesson.slug, question),
        secret=secret,
    )
    return QuestionPage(view, stored=bool(new), learner_id=learner_id, state=state)


@dataclass(frozen=True)
class Answer:
    """One answer as the form sent it.

    Attributes:
        key: the form's idempotency key (``chave``).
        version: the question version the form showed (``versao``).
        options: ``opcao`` (option ids).
        value: ``valor`` (a ``numeric`` answer as typed).
        positions: ``posicao`` (an ``ordering`` answer's ``<item>=<position>`` pairs).
        confirmed: ``confirmado`` (a ``numeric`` answer confirmed as typed: "3.438" is 3438).
        variant: ``variante`` (the signed variant a numeric question with ``params`` showed).
        given_at: ``dada_em``, when an answer kept offline was given (clamped by
            :func:`given_time`); ``None``: now.
        issued: ``emitida``, the time the server sent the form's page, signed with the
            lesson's slug (:func:`issued_token`): ``given_at`` is never before it.
    """

    key: str
    version: str | None
    options: list[str] = field(default_factory=list)
    value: str | None = None
    positions: list[str] = field(default_factory=list)
    confirmed: str | None = None
    variant: str | None = None
    given_at: datetime | None = None
    issued: str | None = None


# How far back an answer kept on a device offline may say it was given (issue 40).
OFFLINE_WINDOW = timedelta(days=14)
ISSUED_SALT = "curso-emitida"


class _IssuedSigner(TimestampSigner):
    """itsdangerous' timestamp signer for one lesson's forms (the salt is :data:`ISSUED_SALT`
    and the lesson's slug, so a token signed for one lesson is not valid for another), at a
    given time (whole seconds since the epoch)."""

    def __init__(self, secret: bytes, slug: str, at: int | None = None) -> None:
        super().__init__(secret, salt=f"{ISSUED_SALT}/{slug}")
        self.at = at

    def get_timestamp(self) -> int:
        return super().get_timestamp() if self.at is None else self.at


# What the token's signed value says: nothing beyond the time and the lesson, which the
# signature covers through the salt (the slug itself would add up to 100 bytes per form).
_ISSUED_VALUE = "p"


def issued_token(secret: bytes, slug: str, at: datetime | None = None) -> str:
    """What an answer form of the lesson ``slug`` carries as ``emitida``: the time its page
    was sent (``at``, default now, to the second) and the lesson, signed with the server's
    secret (itsdangerous ``TimestampSigner``, salt :data:`ISSUED_SALT` plus the slug)."""
    stamp = int(time.time() if at is None else at.timestamp())
    return _signed_at(secret, stamp, slug)


@lru_cache(maxsize=256)
def _signed_at(secret: bytes, stamp: int, slug: str) -> str:
    # One signature per second and lesson serves every page of it sent in that second
    # (signing costs ~35 µs).
    return _IssuedSigner(secret, slug, stamp).sign(_ISSUED_VALUE).decode()


def issued_time(secret: bytes, token: str | None, slug: str) -> datetime | None:
    """The time :func:`issued_token` signed in ``token`` for the lesson ``slug`` (UTC), or
    ``None`` when there is no token, no secret, or the signature is not the server's for this
    lesson (a token of another lesson's page says nothing of when this one was sent)."""
    if not token or not secret:
        return None
    try:
        value, at = _IssuedSigner(secret, slug).unsign(token, return_timestamp=True)
    except BadData:
        return None
    return at.astimezone(UTC) if value == _ISSUED_VALUE.encode() else None


def given_time(
    given_at: datetime | None, now: datetime, issued_at: datetime | None = None
) -> datetime | None:
    """When an answer counts as given: ``given_at`` clamped to between the time the form's
    page was sent (``issued_at``; never more than :data:`OFFLINE_WINDOW` before ``now``) and
    ``now``, so that an answer kept offline cannot say it was given before the learner had
    the question (and so escape a due date). ``None``, the time its batch commits, for an
    answer sent when given (no ``given_at``) and for one whose page's time is unknown (no
    valid ``issued_at``): it counts when it arrives."""
    if given_at is None or issued_at is None:
        return None
    return min(max(given_at.astimezone(UTC), issued_at, now - OFFLINE_WINDOW), now)


class FormRefused(Exception):
    """An answer form refused before grading; nothing was stored.

    Attributes:
        reason: :data:`STALE_FORM` (a malformed key), :data:`QUESTION_CHANGED` (the form showed
            another version of the question) or :data:`REUSED_KEY` (the learner's key was used
            for another question).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


STALE_FORM = "stale"
QUESTION_CHANGED = "changed"
REUSED_KEY = "reused"


@dataclass(frozen=True)
class AnswerPlace:
    """Where an answer is given: the lesson page, or ``/revisar``.

    Attributes:
        review: on ``/revisar`` (the attempt is marked ``review``).
        order_of: the shuffle seed the learner saw the options in, when it is not their own
            (a visitor who became a learner with this answer saw the visitors' order).
        born: the learner id is new in this request (a visitor's first answer): the learner
            is made with the form's key, and a double submit of that form stores for the
            learner the first request made (:attr:`app.learning.state.NewAnswer.birth_key`).
        visit: the sending browser's visit cookie (``curso_visita``, HttpOnly, never printed
            in a page): part of the birth key, so only the browser that showed the form can
            join the learner its first request made, not whoever else saw the form's key.
        outbox: what is stored with the answer, in its transaction
            (:attr:`app.learning.state.NewAnswer.outbox`).
        anonymous: the learner has no account: until they answer anything, they may answer
            the visitors' variant their page still shows (:mod:`app.learning.variants`).
        draw_key: the server's secret: an answer to a pool's question stores the learner's
            draw 1 of that pool when none is stored yet (:mod:`app.learning.draws`), and the
            form's issued time (``emitida``, :func:`issued_time`) is checked with it.
    """

    review: bool = False
    order_of: str | None = None
    born: bool = False
    visit: str = ""
    outbox: tuple[Any, ...] = ()
    anonymous: bool = False
    draw_key: bytes = field(default=b"", repr=False)


async def answer_question(
    store: LearnerStore,
    course: Course,
    lesson: Lesson,
    question: Question,
    learner_id: str,
    answer: Answer,
    where: AnswerPlace = AnswerPlace(),
) -> QuestionPage:
    """Check the form, grade the answer, store it once per key and show the stored grade
    with the progress: the one path of every route that takes an answer.

    The page is built from the state read before the answer plus the stored attempt and
    its review card: one read, one write awaited on the event loop, no read-back.

    Returns:
        The graded question, the progress after the answer and the state it was built from,
        with the learner id the answer was stored for (the caller keeps it in the session).

    Raises:
        FormRefused: a malformed key, a form of another version of the question, or a key
            the learner used for another question.
        AnswerError: the answer is not valid for the question (message in Portuguese).
    """
    if not KEY_RE.match(answer.key):
        raise FormRefused(STALE_FORM)
    if answer.version != question.content_hash:
        raise FormRefused(QUESTION_CHANGED)
    before = LearnerState(learner_id) if where.born else store.read_state(learner_id)
    asked = question
    if question.variants is not None:  # graded against the variant the form showed
        # The visitors' variant, from a page shown before the learner had an id: born with
        # this answer, or earlier by the reading place's POST (which stores nothing) or by a
        # hint opened (an anonymous learner with no answer yet).
        page = where.born or not before.stored or (where.anonymous and not before.attempts)
        owners = [learner_id] + ([PAGE_OWNER] if page else [])
        index = read_token(where.draw_key, answer.variant, owners, lesson.slug, question)
        if index is None:
            raise FormRefused(STALE_FORM)
        asked = instance(question, question.variants.point(index))
    grade, chosen = grade_form(
        asked, answer.options, answer.value, answer.positions, answer.confirmed
    )
    now = datetime.now(UTC)
    hints = before.revealed(lesson.slug, question.id, question.content_hash)
    kept_draw = first_draw_of(lesson, question, before, where.draw_key, where.born)
    # The page's signed time matters only for an answer that says when it was given.
    issued = None
    if answer.given_at is not None:
        issued = issued_time(where.draw_key, answer.issued, lesson.slug)
    try:
        written = await store.store_answer(
            NewAnswer(
                lesson.slug,
                question.id,
                question.content_hash,
                chosen,
                grade.correct,
                grade.credit,
                learner_id=learner_id,
                key=answer.key,
                review=where.review,
                help=help_of([r.worked for r in hints]),
                birth_key=birth_key(answer.key, where.visit) if where.born else None,
                outbox=where.outbox,
                at=given_time(answer.given_at, now, issued),
                variant=asked.variant,
                draw=kept_draw,
            )
        )
    except DuplicateKeyError as exc:
        raise FormRefused(REUSED_KEY) from exc
    if written.learner_id != learner_id:  # a double submit joined the first request's learner
        before = LearnerState(written.learner_id)
    place = Place(lesson.slug, question_anchor(question.id))
    state = before.with_attempt(written.row, place, written.card)
    if kept_draw is not None and written.new:  # stored with the attempt, never read back
        pool_id, number, seed, ids = kept_draw
        row = DrawRow(lesson.slug, pool_id, number, seed, tuple(ids.split(",")), _NOW, 0)
        state = state.with_draw(row)
    attempts = state.in_lesson(lesson.slug).get(question.id, [])
    view = question_view(
        lesson.slug, question, where.order_of or written.learner_id, attempts, secret=where.draw_key
    )
    pool = pool_of(lesson, question.id) if where.draw_key else None
    return QuestionPage(
        view,
        course_progress(course, state),
        stored=written.new,
        learner_id=written.learner_id,
        state=state,
        draw=current_draw(where.draw_key, lesson, pool, state) if pool is not None else None,
    )


# The start of a draw 1 built after an answer stored it (its row is not read back): a draw
# 1 counts every answer, whenever it started (app.learning.draws.current_draw).
_NOW = datetime.min.replace(tzinfo=UTC)


def first_draw_of(
    lesson: Lesson, question: Question, state: LearnerState, secret: bytes, born: bool = False
) -> tuple[str, int, str, str] | None:
    """The draw 1 to store with an answer to ``question`` (the writer keeps it in the
    attempt's transaction), when it is the learner's first answer in that pool (no draw of it
    stored yet); else ``None``.

    It is the draw the page showed: the visitors' (:func:`~app.learning.draws.page_seed`)
    when the learner is born with this answer (``born``), or when ``question`` is in the
    visitors' draw and not in the learner's own (a page opened before they had a row);
    otherwise the learner's own draw 1.
    """
    pool = pool_of(lesson, question.id)
    if pool is None or not secret or state.learner_id is None:
        return None
    if stored_draws(state, lesson.slug, pool.id):
        return None
    seed, ids = first_draw(secret, state.learner_id, lesson.slug, pool)
    if born or question.id not in ids:
        shown = current_draw(secret, lesson, pool, LearnerState(None))  # the visitors' page
        if question.id in shown.question_ids:
            seed, ids = shown.seed, shown.question_ids
    return (pool.id, 1, seed, ",".join(ids))


@dataclass(frozen=True)
class PoolPage:
    """A pool as the learner sees it: the draw, and a :class:`QuestionView` per question
    drawn."""

    draw: PoolDraw
    views: dict[str, QuestionView]


class NoNextDraw(LookupError):
    """ "Outras perguntas" asked before every question of the current draw was answered (a
    form of a draw already changed in another tab, or a forged post); ``current``: the draw
    the learner now has, to show instead."""

    def __init__(self, pool_id: str, current: PoolPage) -> None:
        super().__init__(pool_id)
        self.current = current


def pool_page(
    lesson: Lesson, drawn: PoolDraw, state: LearnerState, learner_id: str, secret: bytes
) -> PoolPage:
    """The pool's block for ``drawn``, as the lesson page shows it (a question not answered
    since the draw started is a form)."""
    grouped = state.in_lesson(lesson.slug)
    views = {
        qid: question_view(
            lesson.slug,
            lesson.questions[qid],
            learner_id,
            grouped.get(qid, []),
            retry=qid in drawn.pending,
            revealed=opened(state, lesson.slug, lesson.questions[qid]),
            secret=secret,
        )
        for qid in drawn.question_ids
    }
    return PoolPage(drawn, views)


def redraw_pool(
    store: LearnerStore, lesson: Lesson, pool_id: str, learner_id: str, secret: bytes
) -> PoolPage:
    """Start the learner's next draw of a pool ("Outras perguntas"), ranked by their attempts
    now, and show it; the draw they were shown is stored first when it was not yet.

    Raises:
        KeyError: the lesson has no pool ``pool_id``.
        NoNextDraw: a question of the current draw has no answer yet (it carries that draw).
    """
    pool = lesson.pools[pool_id]
    state = store.read_state(learner_id)
    now = current_draw(secret, lesson, pool, state)
    if not now.answered:
        raise NoNextDraw(pool_id, pool_page(lesson, now, state, learner_id, secret))
    if not now.stored:
        store.store_draw(learner_id, lesson.slug, now)
    number = now.number + 1
    seed, ids = next_draw(secret, learner_id, lesson.slug, pool, number, state.attempts)
    row = store.store_draw(learner_id, lesson.slug, PoolDraw(pool, number, seed, ids))
    if row is not None:
        state = state.with_draw(row)
    return pool_page(lesson, current_draw(secret, lesson, pool, state), state, learner_id, secret)


def birth_key(form_key: str, visit: str) -> str:
    """The birth key of a visitor's first answer: SHA-256 (64 hex digits) of the form's key and
    the browser's visit cookie, so a request joins the first one only with both."""
    return hashlib.sha256(f"{form_key}\x00{visit}".encode()).hexdigest()


__all__ = [
    "AnswerError",
    "AnswerPlace",
    "FormRefused",
    "LessonRequest",
    "OpenedLesson",
    "HintNotFound",
    "NoNextDraw",
    "PoolPage",
    "redraw_pool",
    "answer_question",
    "open_lesson",
    "reveal_hint",
    "visitor_lesson",
    "show_question",
]
