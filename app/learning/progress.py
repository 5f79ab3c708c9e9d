"""Where a learner stands in the course: progress per lesson, overall share, place to resume."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from app.content.course import Course
from app.content.lessons import Lesson
from app.content.page_ids import QUIZ_ANCHOR, question_anchor
from app.i18n import gettext
from app.learning.grading import LessonProgress, course_percent, lesson_progress, question_records
from app.learning.rules import counted_total
from app.learning.state import CardRow, LearnerState, Place


@dataclass(frozen=True)
class Resume:
    """A place the learner can go back to.

    Attributes:
        section: the anchor inside it, or ``None``.
        section_title: what the learner reads for that section.
    """

    lesson: Lesson
    section: str | None
    section_title: str | None


@dataclass(frozen=True)
class CourseProgress:
    """A learner's progress over the whole course.

    Attributes:
        rows: every lesson with its progress, in course order.
        percent: questions answered right at least once, as a share of all, 0 to 100.
        resume: where to continue, or ``None`` when the learner has no place yet.
        due: questions due for spaced review now (``/revisar``).
    """

    rows: tuple[tuple[Lesson, LessonProgress], ...]
    percent: int
    resume: Resume | None
    due: int = 0

    def of(self, slug: str) -> LessonProgress | None:
        return next((progress for lesson, progress in self.rows if lesson.slug == slug), None)


def due_in(cards: tuple[CardRow, ...], course: Course, at: datetime) -> int:
    """How many of the course's current questions are due for review at ``at``.

    A card is due when its date has come, or at once when its question was edited since it
    was last answered; cards of removed questions do not count. The same rule as
    :func:`app.learning.review.due_of`, which lists them for ``/revisar``.
    """
    current = {
        (lesson.slug, qid): question.content_hash
        for lesson in course.lessons
        for qid, question in lesson.questions.items()
    }
    moment = at.astimezone(UTC).replace(tzinfo=None) if at.tzinfo else at
    count = 0
    for card in cards:
        version = current.get((card.lesson_slug, card.question_id))
        if version is None:
            continue
        due = card.due.astimezone(UTC).replace(tzinfo=None) if card.due.tzinfo else card.due
        if due <= moment or card.question_hash != version:
            count += 1
    return count


def course_progress(
    course: Course, state: LearnerState, place: Place | None = None
) -> CourseProgress:
    """Count the learner's progress in every current lesson and find where to resume.

    Args:
        state: the learner's stored state (attempts oldest first).
        place: where to resume; the state's own place when ``None``.

    Returns:
        The progress; attempts on removed lessons or questions are not counted.
    """
    records = question_records(state.facts())
    rows = []
    for lesson in course.lessons:
        fixed, pools = lesson_shape(lesson)
        rows.append((lesson, lesson_progress(lesson.slug, fixed, records, pools)))
    return CourseProgress(
        tuple(rows),
        course_percent([p for _, p in rows]),
        resume_at(course, place or state.place),
        due_in(state.cards, course, review_clock()),
    )


def lesson_shape(lesson: Lesson) -> tuple[list[str], list[tuple[int, tuple[str, ...]]]]:
    """The lesson's questions as :func:`app.learning.rules.counted` counts them: the quiz
    questions' ids, and each pool's draw and candidates."""
    pooled = lesson.pooled
    fixed = [qid for qid in lesson.questions if qid not in pooled]
    return fixed, [(pool.draw, pool.candidates) for pool in lesson.pools.values()]


def lesson_shape_total(lesson: Lesson) -> int:
    """How many questions the lesson counts (:func:`app.learning.rules.counted_total`), also
    as the maximum of a grade sent elsewhere."""
    fixed, pools = lesson_shape(lesson)
    return counted_total(len(fixed), (draw for draw, _ in pools))


def review_clock() -> datetime:
    """The spaced review's clock (:func:`app.learning.review.now`, which tests freeze)."""
    from app.learning.review import now

    return now()


def section_titles(lesson: Lesson) -> dict[str, str]:
    """Return every place a learner can be in ``lesson``: anchor → what the learner reads."""
    titles = {heading.anchor: heading.text for heading in lesson.headings}
    if lesson.questions:
        titles[QUIZ_ANCHOR] = gettext("Quiz")
    for number, qid in enumerate(lesson.questions, start=1):
        titles[question_anchor(qid)] = gettext("Quiz, question %(num)s") % {"num": number}
    return titles


def resume_at(course: Course, place: Place | None) -> Resume | None:
    """Turn a stored place into a link, dropping a lesson or section that no longer exists."""
    lesson = course.get(place.lesson_slug) if place else None
    if lesson is None or place is None:
        return None
    titles = section_titles(lesson)
    section = place.section if place.section in titles else None
    return Resume(lesson, section, titles.get(section) if section else None)
