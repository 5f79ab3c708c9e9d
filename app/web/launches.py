"""Which LTI launch a page belongs to, so each tab grades for its own launch.

A resource launch opens its lesson with the launch signed in the address (``?lancamento=``,
:func:`app.lti.launch.launch_token`, bound to the learner). That page is rendered for this
request alone (a query string bypasses the page caches), and its quiz forms carry the token
in a hidden field, its "answer again" links in their address: the answer is graded for the
launch its page came from, whatever was launched in another tab since. An answer whose form
carries no launch (a lesson opened inside the course, ``/revisar``) is graded for every launch
of its lesson this session made (:data:`app.lti.launch.LAUNCHES_KEY`).
"""

from __future__ import annotations

from starlette.requests import HTTPConnection

from app.content.course import Course
from app.content.lessons import Lesson
from app.lti.launch import LAUNCHES_KEY, GradedLaunch, launch_from_token, session_launches
from app.lti.scores import ScoreOrder, score_orders

LAUNCH_FIELD = "lancamento"  # the form field and query parameter that carry the launch


def tab_launch(
    request: HTTPConnection, learner_id: str | None, token: str | None
) -> GradedLaunch | None:
    """The launch ``token`` names, when it is genuine and signed for ``learner_id``; its
    page's forms and links carry it on (:func:`launch_token_of`)."""
    launch = launch_from_token(request.app.state.secret, token or "", learner_id)
    if launch is not None:
        request.state.lti_launch = token
    return launch


def launch_token_of(request: HTTPConnection) -> str:
    """The checked launch token of the page being rendered; "" when it has none."""
    return str(getattr(request.state, "lti_launch", "") or "")


def launch_query(request: HTTPConnection) -> dict[str, str]:
    """``{"lancamento": token}`` for an address that stays in the page's launch, or ``{}``."""
    token = launch_token_of(request)
    return {LAUNCH_FIELD: token} if token else {}


def answer_scores(
    request: HTTPConnection,
    learner_id: str | None,
    token: str | None,
    course: Course,
    lesson: Lesson,
) -> tuple[ScoreOrder, ...]:
    """The LMS scores an answer in ``lesson`` queues: for the launch its form carries, else
    for each launch of the lesson kept in the session; none outside a launched lesson."""
    launch = tab_launch(request, learner_id, token)
    launches = (
        [launch] if launch is not None else session_launches(request.session.get(LAUNCHES_KEY))
    )
    return score_orders(launches, course, lesson)
