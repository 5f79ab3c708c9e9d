"""Opening a lesson, without HTTP: one state read, where the place goes, and the page's stamp."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.learning.state import LearnerState, Place
from app.learning.usecases import LessonRequest, open_lesson, visitor_lesson
from tests.support.learning import COURSE, KERNELS

LEARNER = "a" * 32
OTHER = COURSE.lessons[1]


@dataclass
class MemoryStore:
    """A :class:`app.learning.usecases.LearnerStore` holding one learner's state."""

    state: LearnerState
    reads: int = 0
    moves: list[Place] = field(default_factory=list)

    def read_state(self, learner_id):
        self.reads += 1
        return self.state if learner_id == self.state.learner_id else LearnerState(learner_id)

    def move_place(self, learner_id, place):
        self.moves.append(place)

    async def store_answer(self, answer):
        raise AssertionError("opening a lesson stores no answer")


def test_a_learner_with_a_row_moves_their_place_with_one_read():
    store = MemoryStore(LearnerState(LEARNER, stored=True, place=Place(OTHER.slug)))
    opened = open_lesson(store, COURSE, KERNELS, LEARNER, None, LessonRequest())
    assert store.reads == 1 and store.moves == [Place(KERNELS.slug)]
    assert opened.place == Place(KERNELS.slug) and opened.keep_in_session is None


def test_a_learner_without_a_row_keeps_the_place_in_the_session():
    store = MemoryStore(LearnerState(LEARNER))
    opened = open_lesson(store, COURSE, KERNELS, LEARNER, Place(OTHER.slug), LessonRequest())
    assert store.moves == [] and opened.keep_in_session == Place(KERNELS.slug)


def test_a_prefetch_leaves_the_place_where_it_was():
    store = MemoryStore(LearnerState(LEARNER, stored=True, place=Place(OTHER.slug)))
    opened = open_lesson(store, COURSE, KERNELS, LEARNER, None, LessonRequest(), move_place=False)
    assert store.moves == [] and opened.place == Place(OTHER.slug)


def test_the_stamp_moves_with_what_the_page_shows_and_only_then():
    here = LearnerState(LEARNER, stored=True, place=Place(KERNELS.slug))
    first = open_lesson(MemoryStore(here), COURSE, KERNELS, LEARNER, None, LessonRequest())
    again = open_lesson(MemoryStore(here), COURSE, KERNELS, LEARNER, None, LessonRequest())
    assert first.stamp == again.stamp
    elsewhere = LearnerState(LEARNER, stored=True, place=Place(KERNELS.slug, "fusao"))
    moved = open_lesson(MemoryStore(elsewhere), COURSE, KERNELS, LEARNER, None, LessonRequest())
    assert moved.stamp != first.stamp


def test_a_visitors_page_is_the_lesson_with_every_question_open():
    page = visitor_lesson(COURSE, KERNELS).page()
    assert page.lesson is KERNELS and set(page.views) == set(KERNELS.questions)
    assert page.due is None and not page.overdue
    assert page.progress.percent == 0
