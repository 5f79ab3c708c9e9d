"""One use-case per learner action: open a lesson, answer a question, read progress.

Each reads the learner's state once (:meth:`LearnerStore.read_state`, one statement) and
builds everything the page shows from it: the question views and the course progress. The
grade shown after an answer is the grade stored. Routers parse the request, call one of
these and render; storage comes in through :class:`LearnerStore`, so this floor imports
neither HTTP nor SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from app.content.calculators import calculator_results
from app.content.course import Course
from app.content.lessons import Lesson
from app.content.numbers import AnswerError
from app.content.quiz import Question
from app.learning.answers import graded_answer
from app.learning.grading import Grade
from app.learning.progress import CourseProgress, course_progress, due_in, review_clock
from app.learning.state import AttemptRow, LearnerState, Place
from app.learning.trees import TreeView, tree_view
from app.learning.views import QuestionView, question_view


class LearnerStore(Protocol):
    """What the use-cases need from storage.

    :class:`app.learning.store.SqlLearnerStore` implements it.
    """

    def read_state(self, learner_id: str | None) -> LearnerState:
        """The learner's state in one read; empty for ``None``."""

    def save_place(self, learner_id: str, place: Place) -> bool:
        """Keep ``place`` on the learner row; False when the learner has no row."""

    def claim_learner(self, learner_id: str, key: str) -> str:
        """Make a visitor's learner with their first answer's form ``key``; the learner id
        the answer belongs to (another one when the same form was sent twice at once)."""

    def record_answer(
        self,
        learner_id: str,
        lesson_slug: str,
        question: Question,
        chosen: str,
        grade: Grade,
        key: str,
    ) -> tuple[AttemptRow, bool]:
        """Store one graded answer once per ``key``; the stored row and whether it is new.

        Raises ``DuplicateKeyError`` when ``key`` was used for another question.
        """


@dataclass(frozen=True)
class LessonPage:
    """Everything a lesson page shows for one learner.

    Attributes:
        lesson: the lesson.
        views: a :class:`QuestionView` per question id.
        tree_views: a :class:`TreeView` per tree id.
        previous: the lesson before, or ``None``.
        following: the lesson after, or ``None``.
        position: the lesson's number in the course, from 1.
        total: how many lessons the course has.
        progress: the learner's progress over the course.
        keep_in_session: a place to keep in the visitor's session (a learner id without a row
            yet), or ``None``.
        version: changes whenever what the page shows from the learner's state changes.
    """

    lesson: Lesson
    views: dict[str, QuestionView]
    tree_views: dict[str, TreeView]
    previous: Lesson | None
    following: Lesson | None
    position: int
    total: int
    progress: CourseProgress
    keep_in_session: Place | None = None
    version: tuple[object, ...] = ()
    calc_results: object = None

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
            # calculadora blocks: results from the query string (app/content/calculators.py)
            "calc_results": self.calc_results,
        }


@dataclass(frozen=True)
class LessonRequest:
    """What the learner asked for on a lesson page, besides the lesson.

    Attributes:
        retry: a question id to show as a form again (``?refazer=``).
        errors: messages by question id (a refused answer, carried by the session).
        typed: a refused ``numeric`` answer by question id.
        query: the page's query string; ``arvore`` and ``c`` show that tree at that step.
    """

    retry: str | None = None
    errors: dict[str, str] = field(default_factory=dict)
    typed: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LessonVisit:
    """A learner opening a lesson, before the page is built.

    Attributes:
        state: the learner's state, read once.
        place: where the learner now is (the lesson opened).
        keep_in_session: a place to keep in the session (a learner without a row), or ``None``.
    """

    state: LearnerState
    place: Place | None
    keep_in_session: Place | None

    def version(self, course: Course) -> tuple[object, ...]:
        """Changes whenever the page built from this visit would change (not the lesson's own
        version, which the caller's cache keys by course)."""
        progress_due = due_in(self.state.cards, course, review_clock())
        return (self.state.learner_id, self.state.version, self.place, progress_due)


def visit_lesson(
    store: LearnerStore,
    lesson: Lesson,
    learner_id: str | None,
    session_place: Place | None,
    move_place: bool = True,
) -> LessonVisit:
    """Read the learner's state once and move their place to ``lesson`` (stored where they
    have a row; otherwise the caller keeps it in the session).

    Args:
        store: storage.
        lesson: the lesson opened.
        learner_id: the learner, or ``None`` for a visitor (nothing is stored).
        session_place: the place kept in the session of a learner without a row.
        move_place: False when the browser only fetches the page ahead (a prefetch of the
            next lesson): the learner has not opened it, so "Continuar de onde parei" stays.
    """
    state = store.read_state(learner_id)
    place = state.place or session_place
    keep = None
    if not move_place:
        return LessonVisit(state, place, keep)
    if learner_id is not None and (place is None or place.lesson_slug != lesson.slug):
        place = Place(lesson.slug)
        if not (state.stored and store.save_place(learner_id, place)):
            keep = place
    return LessonVisit(state, place, keep)


def open_lesson(
    store: LearnerStore,
    course: Course,
    lesson: Lesson,
    learner_id: str | None,
    session_place: Place | None,
    asked: LessonRequest | None = None,
) -> LessonPage:
    """Open a lesson: the learner's place moves to it, and the page is built from one read.

    Args:
        store: storage.
        course: the course as it is now.
        lesson: the lesson opened.
        learner_id: the learner, or ``None`` for a visitor (nothing is read or stored).
        session_place: the place kept in the session of a learner without a row.
        asked: retry, errors, typed numbers and the query string.

    Returns:
        The page; its ``keep_in_session`` tells the caller to keep the new place in the session.
    """
    visit = visit_lesson(store, lesson, learner_id, session_place)
    return lesson_page(
        course, lesson, visit.state, visit.place, asked or LessonRequest(), visit.keep_in_session
    )


def lesson_page(
    course: Course,
    lesson: Lesson,
    state: LearnerState,
    place: Place | None,
    asked: LessonRequest,
    keep: Place | None = None,
) -> LessonPage:
    """Build a lesson page from a state already read (no storage)."""
    grouped = state.in_lesson(lesson.slug)
    views = {
        qid: question_view(
            lesson.slug,
            question,
            state.learner_id,
            grouped.get(qid, []),
            qid == asked.retry,
            asked.errors.get(qid),
            asked.typed.get(qid, ""),
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
        keep,
        (state.learner_id, state.version, place, progress.due),
        calculator_results(lesson.calculators, query),
    )


@dataclass(frozen=True)
class QuestionPage:
    """One question for one learner, and the course progress after an answer.

    Attributes:
        view: how the question shows.
        progress: the course progress (after an answer), else ``None``.
        error: the message of a refused answer, else ``None``.
        stored: True when an answer was stored by this request.
        learner_id: the learner the answer was stored for (see ``born`` in
            :func:`answer_question`), else ``None``.
    """

    view: QuestionView
    progress: CourseProgress | None = None
    error: str | None = None
    stored: bool = False
    learner_id: str | None = None


def show_question(
    store: LearnerStore,
    lesson: Lesson,
    question: Question,
    learner_id: str | None,
    retry: bool = False,
    error: str | None = None,
    typed: str = "",
) -> QuestionPage:
    """One question as the learner sees it now (their latest graded answer, or the form)."""
    state = store.read_state(learner_id)
    attempts = state.in_lesson(lesson.slug).get(question.id, [])
    view = question_view(lesson.slug, question, state.learner_id, attempts, retry, error, typed)
    return QuestionPage(view, error=error)


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
    """

    key: str
    version: str | None
    options: list[str] = field(default_factory=list)
    value: str | None = None
    positions: list[str] = field(default_factory=list)
    confirmed: str | None = None


def answer_question(
    store: LearnerStore,
    course: Course,
    lesson: Lesson,
    question: Question,
    learner_id: str,
    answer: Answer,
    order_of: str | None = None,
    born: bool = False,
) -> QuestionPage:
    """Grade an answer, store it once per key and show the stored grade with the progress.

    Args:
        store: storage.
        course: the course as it is now.
        lesson: the lesson.
        question: the question answered (its live version).
        learner_id: the learner.
        answer: what the form sent (already checked: a well-formed key).
        order_of: the shuffle seed the learner saw the options in, when it is not their own
            (a visitor who became a learner with this answer saw the visitors' order).
        born: ``learner_id`` is new in this request (a visitor's first answer): the learner is
            made with the form's key (:meth:`LearnerStore.claim_learner`), and a double submit
            of that form stores for the learner the first request made.

    Returns:
        The graded question and the progress after the answer, with the learner id the
        answer was stored for (the caller keeps it in the session).

    Raises:
        AnswerError: the answer is not valid for the question (message in Portuguese).
        app.learning.store.DuplicateKeyError: the key was already used for another question.
    """
    grade, chosen = graded_answer(
        question, answer.options, answer.value, answer.positions, answer.confirmed
    )
    if born:
        learner_id = store.claim_learner(learner_id, answer.key)
    stored, _new = store.record_answer(learner_id, lesson.slug, question, chosen, grade, answer.key)
    state = store.read_state(learner_id)
    attempts = state.in_lesson(lesson.slug).get(question.id, [])
    view = question_view(lesson.slug, question, order_of or learner_id, attempts)
    return QuestionPage(view, course_progress(course, state), stored=_new, learner_id=learner_id)


__all__ = ["AnswerError", "LessonRequest", "answer_question", "open_lesson", "show_question"]
