"""Finding a lesson or a tree named in a URL, or answering 404/503 in Portuguese; and the
place of a learner who has no row yet, kept in their session.

Shared by the routers, so that no router imports another.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fastapi import HTTPException, Request
from starlette.requests import HTTPConnection
from starlette.routing import Route

from app.content.course import Course
from app.content.errors import ContentError
from app.content.lessons import Lesson
from app.content.quiz import Question
from app.content.trees import Tree
from app.i18n import N_, gettext
from app.learning import classes
from app.learning import trees as learning_trees
from app.learning.renames import moved_to
from app.learning.state import Place
from app.learning.trees import TREE_NOT_FOUND
from app.platform.sessions import PLACE_KEY
from app.web.deps import read_session

LESSON_NOT_FOUND = N_(
    "Lesson not found. Its address may have changed: go back to the start of the course."
)
QUESTION_NOT_FOUND = N_("Question not found in this lesson. Reload the page.")
UNAVAILABLE = N_(
    "This lesson is unavailable right now. Continue with the other lessons and come back later."
)


@dataclass(frozen=True)
class CheckPanel:
    """What ``curso check`` says about one lesson file (``templates/_content_problems.html``).

    Attributes:
        stale: learners see the last good version, because the file has errors.
        lesson: the lesson served, or ``None`` when it never loaded without errors.
        preview: shown on the preview with the key itself (no link to it, then).
    """

    path: Path
    problems: tuple[ContentError, ...]
    stale: bool
    lesson: Lesson | None
    preview: bool = False

    @property
    def errors(self) -> tuple[ContentError, ...]:
        """The problems of level ``error``."""
        return tuple(problem for problem in self.problems if problem.is_error)


def check_panel(course: Course, slug: str, preview: bool = False) -> CheckPanel | None:
    """The check of the file behind ``slug`` (served, a draft, or never loaded), or ``None`` for
    no file."""
    path = course.path_of(slug)
    if path is None:
        return None
    lesson = course.with_drafts.get(slug)
    return CheckPanel(path, course.problems_of(path), path in course.stale, lesson, preview)


def find_lesson(course: Course, slug: str) -> Lesson:
    """Return the lesson.

    Raises:
        HTTPException: 503 for a lesson whose file has errors, 404 for anything else.
    """
    lesson = course.get(slug)
    if lesson is None and slug in course.unavailable:
        raise HTTPException(status_code=503, detail=gettext(UNAVAILABLE))
    if lesson is None:
        raise HTTPException(status_code=404, detail=gettext(LESSON_NOT_FOUND))
    return lesson


def find_question(course: Course, slug: str, question_id: str) -> tuple[Lesson, Question]:
    """Return the lesson and one of its questions.

    Raises:
        HTTPException: as :func:`find_lesson`; 404 for a question the lesson does not have.
    """
    lesson = find_lesson(course, slug)
    question = lesson.questions.get(question_id)
    if question is None:
        raise HTTPException(status_code=404, detail=gettext(QUESTION_NOT_FOUND))
    return lesson, question


def find_tree(course: Course, tree_id: str) -> Tree:
    """Return the tree.

    Raises:
        HTTPException: 404 with a message in Portuguese when the course has no such tree.
    """
    try:
        return learning_trees.find_tree(course, tree_id)
    except learning_trees.TreeNotFound:
        raise HTTPException(status_code=404, detail=gettext(TREE_NOT_FOUND)) from None


@dataclass(frozen=True)
class JoinContext:
    """The class a join link leads to, as the sign-in page names it before the learner signs in.

    Attributes:
        staff: usernames of its instructors, sorted.
    """

    name: str
    staff: tuple[str, ...]


def join_context(db, join_prefix: str, next_page: str) -> JoinContext | None:
    """The class of ``next_page`` when it is a join link (``join_prefix`` + code), else ``None``
    (another page, or a code no class has)."""
    if not next_page.startswith(join_prefix):
        return None
    code = next_page[len(join_prefix) :]
    classroom = classes.by_code(db, code) if 0 < len(code) <= 64 else None
    if classroom is None:
        return None
    return JoinContext(classroom.name, tuple(classes.staff_of(db, classroom)))


def moved_lesson_url(request: Request) -> str | None:
    """Where an address under a renamed lesson leads now, or ``None``.

    Any route with a ``{slug}`` parameter counts (the lesson, its questions, the review of
    one of its questions, the instructor's preview and editor): when the route answered 404
    because the slug is no lesson of the course now, and that slug was renamed in the editor
    (``lesson_rename``, followed through every later rename), the answer is the same route
    with the live slug, the query string kept. Only called for a 404, so pages that exist
    read nothing more.
    """
    route = request.scope.get("route") or _route_of(request)
    slug = request.path_params.get("slug")
    if not isinstance(route, Route) or not isinstance(slug, str):
        return None
    course = request.app.state.live_course.current()
    if course.get(slug) is not None or slug in course.unavailable:
        return None
    with read_session(request) as db:
        target = moved_to(db, slug, lambda s: course.get(s) is not None)
    if target is None:
        return None
    path = request.app.url_path_for(route.name, **{**request.path_params, "slug": target})
    query = request.url.query
    return str(path) + (f"?{query}" if query else "")


def _route_of(request: Request) -> Route | None:
    """The route that matched, for a plain Starlette route (only FastAPI's put it in the
    scope; Starlette's leaves its ``endpoint``)."""
    endpoint = request.scope.get("endpoint")
    routes = request.app.router.routes
    return next((r for r in routes if isinstance(r, Route) and r.endpoint is endpoint), None)


def session_place(request: HTTPConnection) -> Place | None:
    """The place kept in the session, or ``None`` (none kept, or no session loaded)."""
    if "session" not in request.scope:
        return None
    saved = request.session.get(PLACE_KEY)
    if isinstance(saved, list) and len(saved) == 2 and isinstance(saved[0], str):
        return Place(saved[0], saved[1] if isinstance(saved[1], str) else None)
    return None


def keep_in_session(request: HTTPConnection, place: Place) -> None:
    """Keep ``place`` in the session of a learner who has no row yet."""
    request.session[PLACE_KEY] = [place.lesson_slug, place.section]
