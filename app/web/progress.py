"""Where the learner stands: the progress page, ``/api/progresso`` and the place to resume."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from babel.numbers import format_decimal
from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import HTMLResponse
from sqlmodel import Session

from app import mastery, review
from app.content.course import Course
from app.content.lessons import Lesson
from app.deps import CourseDep, ExistingLearnerIdDep, LearnerIdDep, SessionDep, read_session
from app.grading import LessonProgress, course_percent, lesson_progress, question_records
from app.headers import PERSONAL
from app.i18n import N_, gettext
from app.models import LessonProgressPublic, PlacePublic, ProgressPublic, Walk, WalkPublic
from app.store import Place, learner_walks, save_place, stored_place
from app.web.templating import render

router = APIRouter()
PLACE_KEY = "place"
BAD_PLACE = N_("Unknown place in this lesson.")


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
        """Return the progress of the lesson ``slug``."""
        return next((progress for lesson, progress in self.rows if lesson.slug == slug), None)


@dataclass(frozen=True)
class Resume:
    """A place the learner can go back to.

    Attributes:
        lesson: the lesson.
        section: the anchor inside it, or ``None``.
        section_title: what the learner reads for that section.
    """

    lesson: Lesson
    section: str | None
    section_title: str | None

    @property
    def url(self) -> str:
        """The link to the lesson, at the section."""
        return f"/licoes/{self.lesson.slug}" + (f"#{self.section}" if self.section else "")


def course_progress(
    request: Request, course: Course, db: Session, learner_id: str, place: Place | None = None
) -> CourseProgress:
    """Count the learner's progress in every current lesson and find where to resume.

    Args:
        request: the request (its session may hold an anonymous learner's place).
        course: the course as it is now.
        db: a database session.
        learner_id: the learner.
        place: the learner's place when the caller already read it (saves a query).

    Returns:
        The progress; attempts on removed lessons or questions are not counted.
    """
    # review (app/review.py): the count due rides on the attempts' statement, no extra query
    facts, due = review.facts_and_due(db, learner_id, course, review.now())
    records = question_records(facts)
    rows = tuple(
        (lesson, lesson_progress(lesson.slug, lesson.questions, records))
        for lesson in course.lessons
    )
    place = place or current_place(request, db, learner_id)
    return CourseProgress(
        rows, course_percent([p for _, p in rows]), resume_at(course, place), due
    )


def section_titles(lesson: Lesson) -> dict[str, str]:
    """Return every place a learner can be in ``lesson``: anchor → what the learner reads."""
    titles = {heading.anchor: heading.text for heading in lesson.headings}
    if lesson.questions:
        titles["quiz"] = gettext("Quiz")
    for number, qid in enumerate(lesson.questions, start=1):
        titles[f"pergunta-{qid}"] = gettext("Quiz, question %(num)s") % {"num": number}
    return titles


def resume_at(course: Course, place: Place | None) -> Resume | None:
    """Turn a stored place into a link, dropping a lesson or section that no longer exists."""
    lesson = course.get(place.lesson_slug) if place else None
    if lesson is None or place is None:
        return None
    titles = section_titles(lesson)
    section = place.section if place.section in titles else None
    return Resume(lesson, section, titles.get(section) if section else None)


def current_place(request: Request, db: Session, learner_id: str) -> Place | None:
    """Return the learner's place: on their row when they have one, else in the session."""
    place = stored_place(db, learner_id)
    if place is not None:
        return place
    saved = request.session.get(PLACE_KEY)
    if isinstance(saved, list) and len(saved) == 2 and isinstance(saved[0], str):
        return Place(saved[0], saved[1] if isinstance(saved[1], str) else None)
    return None


def remember_place(request: Request, db: Session, learner_id: str, place: Place) -> None:
    """Keep the learner's place on their row, or in the session until they have a row."""
    if not save_place(db, learner_id, place):
        request.session[PLACE_KEY] = [place.lesson_slug, place.section]


def progress_public(progress: CourseProgress, walks: list[Walk]) -> ProgressPublic:
    """Build the JSON shape of a learner's progress."""
    lessons = [
        LessonProgressPublic(
            slug=p.slug,
            title=lesson.meta.title_text,
            status=p.status.value,
            right=p.right,
            total=p.total,
            first_try_right=p.first_try_right,
            attempts=p.attempts,
        )
        for lesson, p in progress.rows
    ]
    resume = progress.resume
    return ProgressPublic(
        percent=progress.percent,
        lessons=lessons,
        walks=[WalkPublic.from_walk(walk) for walk in walks],
        resume=PlacePublic(lesson_slug=resume.lesson.slug, section=resume.section, url=resume.url)
        if resume
        else None,
    )


@router.get("/progresso", response_class=HTMLResponse, name="progress", include_in_schema=False)
async def progress_page(request: Request, course: CourseDep, learner_id: LearnerIdDep):
    """Per lesson: status, right out of total, first-try score, attempts; mastery per concept
    (``app/mastery.py``); then finished walks."""
    with read_session(request) as db:
        progress = course_progress(request, course, db, learner_id)
        walks = learner_walks(db, learner_id)
        concepts = mastery.learner_mastery(db, course, learner_id)  # mastery per concept
    context = {
        "progress": progress, "walks": walks, "mastery": concepts,
        "mastery_last": mastery.LAST_N, "mastery_decay": format_decimal(mastery.DECAY, locale="pt_BR"),
    }
    return render(request, "progress.html", context)


@router.get("/api/progresso", response_model=ProgressPublic, tags=["progresso"])
async def progress_api(
    request: Request, response: Response, course: CourseDep, learner_id: LearnerIdDep
) -> ProgressPublic:
    """The current learner's progress: each lesson's status and counts, and the finished walks.

    Only the learner of the session cookie is ever read; no parameter names another learner.
    """
    response.headers["Cache-Control"] = PERSONAL
    with read_session(request) as db:
        return progress_public(
            course_progress(request, course, db, learner_id), learner_walks(db, learner_id)
        )


@router.post("/progresso/lugar", status_code=204, response_class=Response, include_in_schema=False)
def save_place_route(
    request: Request,
    course: CourseDep,
    db: SessionDep,
    learner_id: ExistingLearnerIdDep,
    licao: Annotated[str, Form(max_length=100)],
    secao: Annotated[str, Form(max_length=200)] = "",
):
    """Remember the section the learner is reading (sent by ``app.js`` as they scroll).

    Returns 204; an unknown lesson or section gives 422 with a message in Portuguese.
    """
    lesson = course.get(licao)
    if lesson is None or (secao and secao not in section_titles(lesson)):
        return Response(gettext(BAD_PLACE), status_code=422, media_type="text/plain; charset=utf-8")
    remember_place(request, db, learner_id, Place(lesson.slug, secao or None))
    return Response(status_code=204)
