"""Shared FastAPI dependencies, as ``Annotated`` aliases."""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from pydantic import BeforeValidator
from sqlalchemy import Engine
from sqlmodel import Session

from app.content.course import Course
from app.content.lessons import Lesson
from app.content.search import SearchIndex
from app.i18n import N_, gettext
from app.learning.instructors import admin_account, instructor_account, staff_account
from app.learning.store import SqlLearnerStore
from app.learning.usecases import AnswerPlace
from app.platform.auth import KnownDevices, Passwords, SignInLimiter
from app.platform.models import Account
from app.platform.sessions import LEARNER_KEY, VISIT_COOKIE, session_account
from app.web.cookies import CSRF_COOKIE as CSRF_COOKIE  # the routes that forget it
from app.web.launches import answer_scores
from app.web.urls import urls_of

# A row id in a path, query or form: ASCII digits only (``str.isdigit()`` and pydantic's lax int
# also take "²", "٣", "+5" or "1_000"), and few enough of them for the databases' 32-bit integer.
ROW_ID_DIGITS = 9
ROW_ID_RE = re.compile(f"[0-9]{{1,{ROW_ID_DIGITS}}}")
SESSION_KEY = LEARNER_KEY
SIGN_IN_FIRST = N_("Sign in with an instructor account to see this page.")
INSTRUCTORS_ONLY = N_("This page is for instructors only. Ask whoever runs the course for access.")
SITE_INSTRUCTORS_ONLY = N_(
    "This page is for the course's own instructors, not for those of a class or an LMS course."
)
ADMINS_ONLY = N_("Only a site admin registers and confirms LMSs.")


def is_row_id(text: str) -> bool:
    """True when ``text`` is a row id as :data:`RowId` reads it."""
    return ROW_ID_RE.fullmatch(text) is not None


def _row_id(value: object) -> object:
    if isinstance(value, str) and not is_row_id(value):
        raise ValueError("not a row id")
    return value


# An ``int`` route parameter (path, query or form) given as ROW_ID_RE digits; anything else is
# the 422 page "Dados inválidos" (app/web/errors.py).
RowId = Annotated[int, BeforeValidator(_row_id)]


async def get_session(request: Request) -> AsyncIterator[Session]:
    """Yield a database session bound to the app's engine.

    The dependencies here are ``async``: they do no blocking work (creating a session does not
    connect), and FastAPI would otherwise run each one on the threadpool, one hop per dependency.
    """
    with Session(request.app.state.engine) as session:
        yield session


@contextmanager
def read_session(request: Request) -> Iterator[Session]:
    """Open a session for reads made on the event loop, inside an ``async`` route.

    It uses the worker's one loop connection (:func:`app.platform.db.make_loop_engine`), so the
    route skips the threadpool. Never ``await`` inside the ``with`` block, and never write
    there: a write may wait for SQLite's lock, and belongs on the threadpool with
    :data:`SessionDep` (or in the answer writer's queue).

    Yields:
        A SQLModel session, closed when the block ends.
    """
    with Session(request.app.state.loop_engine) as session:
        yield session


def learner_store(request: Request, db: Session | None = None) -> SqlLearnerStore:
    """The use-cases' storage for this request: the learner's state from the process's
    :class:`app.learning.store.LearnerStates` (checked against the database on each read),
    writes through the process's one writer (:class:`app.learning.writer.AnswerWriter`).

    Args:
        db: a session whose engine reads (a route on the threadpool); ``None``: the event
            loop's one connection (:func:`read_session`), taken only while a read runs, so the
            route may ``await`` between reads.
    """
    state = request.app.state
    engine = db.get_bind() if db is not None else state.loop_engine
    # The request's sessions are bound to an engine (make_engine), never to a connection.
    assert isinstance(engine, Engine), engine
    return SqlLearnerStore(engine, state.answer_writer, state.learner_states)


async def get_course(request: Request) -> Course:
    """Return the course as it is now (lesson files that changed are reloaded first)."""
    return request.app.state.live_course.current()


async def get_reader_course(request: Request) -> Course:
    """The course as the reader may see it: with its drafts for a signed-in instructor
    (:attr:`Course.with_drafts`), without them for everyone else. Only a signed-in reader of a
    course that has drafts costs a database read."""
    course = request.app.state.live_course.current()
    username = session_account(request)
    if not course.drafts or username is None:
        return course
    with read_session(request) as db:
        is_instructor = instructor_account(db, username) is not None
    return course.with_drafts if is_instructor else course


async def get_search_index(request: Request) -> SearchIndex:
    """Return the app's lesson search index (rebuilt when the lesson files change)."""
    return request.app.state.search


async def current_learner_id(request: Request) -> str | None:
    """Return the learner id from the server-side session, or ``None`` for a visitor.

    Reading writes nothing: a visitor without a session stays without one (their pages come
    from the cache and cost no database work). The learner is born on their first POST
    (:func:`learner_for_write`).
    """
    learner_id = request.session.get(SESSION_KEY)
    return learner_id if isinstance(learner_id, str) and len(learner_id) == 32 else None


async def learner_for_write(request: Request) -> str:
    """Return the learner id of a POST, giving the visitor one on their first POST.

    Identity lives only in the server-side session: a new id is random (``secrets``) and
    derives from nothing the request carries; the CSRF cookie in particular proves intent and
    nothing else. The session (and its HttpOnly cookie) is stored with the response; the
    learner row with the first thing stored for them. A double submit of a visitor's first
    answer makes one learner through the form's key (:func:`app.learning.writer._claim`).
    """
    learner_id = await current_learner_id(request)
    if learner_id is None:
        learner_id = secrets.token_hex(16)
        request.session[SESSION_KEY] = learner_id
        request.state.learner_born = True
    return learner_id


def born_in_this_request(request: Request) -> bool:
    """True when :func:`learner_for_write` gave the visitor their learner id in this request."""
    return getattr(request.state, "learner_born", False)


def answer_place(
    request: Request,
    learner_id: str,
    course: Course,
    lesson: Lesson,
    launch: str | None = None,
    *,
    review: bool = False,
    visitor_order: str | None = None,
) -> AnswerPlace:
    """Where an answer comes from, read off its request: a visitor's first answer (its learner
    born in this request), the browser's visit cookie, the LMS scores it queues (for
    ``launch``, the form's ``lancamento``, else the session's launches of ``lesson``),
    whether the learner has an account, and the server's secret.

    Args:
        review: sent from ``/revisar``.
        visitor_order: the option order a visitor's first answer was shown, when it is not
            their own (the lesson page's visitors' order).
    """
    born = born_in_this_request(request)
    return AnswerPlace(
        review=review,
        order_of=visitor_order if born else None,
        born=born,
        visit=request.cookies.get(VISIT_COOKIE, ""),
        outbox=answer_scores(request, learner_id, launch, course, lesson),
        anonymous=session_account(request) is None,
        draw_key=request.app.state.secret.encode(),
    )


async def signed_in_as(request: Request) -> str | None:
    """Return the signed-in username, or ``None`` for an anonymous learner."""
    return session_account(request)


async def get_passwords(request: Request) -> Passwords:
    return request.app.state.passwords


async def get_sign_in_limiter(request: Request) -> SignInLimiter:
    return request.app.state.sign_in_limiter


async def get_known_devices(request: Request) -> KnownDevices:
    return request.app.state.known_devices


# "function" scope: the connection goes back to the pool before the response is sent, so the
# session middleware writing afterwards never waits on connections held by finished requests.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]
# The same session, closed only after the response is sent: a streamed response (the CSV
# exports) reads through it until its last row.
StreamedSessionDep = Annotated[Session, Depends(get_session, scope="request")]
CourseDep = Annotated[Course, Depends(get_course)]
ReaderCourseDep = Annotated[Course, Depends(get_reader_course)]
SearchDep = Annotated[SearchIndex, Depends(get_search_index)]
LearnerIdDep = Annotated[str | None, Depends(current_learner_id)]
LearnerForWriteDep = Annotated[str, Depends(learner_for_write)]
AccountNameDep = Annotated[str | None, Depends(signed_in_as)]
PasswordsDep = Annotated[Passwords, Depends(get_passwords)]
SignInLimiterDep = Annotated[SignInLimiter, Depends(get_sign_in_limiter)]
KnownDevicesDep = Annotated[KnownDevices, Depends(get_known_devices)]


def _signed_in(request: Request) -> str:
    """The signed-in username.

    Raises:
        HTTPException: 303 to the sign-in page (coming back here after) for an anonymous
            visitor.
    """
    username = session_account(request)
    if username is None:
        here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        location = urls_of(request).with_query("account", {"proximo": here})
        raise HTTPException(
            status_code=303, detail=gettext(SIGN_IN_FIRST), headers={"Location": location}
        )
    return username


def current_staff(request: Request, db: SessionDep) -> Account:
    """Return the account of a site instructor or of an instructor of some class (an LMS
    course's class included); each class route then checks that class.

    Raises:
        HTTPException: 303 to the sign-in page for an anonymous visitor; 403 for an account
            that teaches nothing.
    """
    account = staff_account(db, _signed_in(request))
    if account is None:
        raise HTTPException(status_code=403, detail=gettext(INSTRUCTORS_ONLY))
    return account


StaffDep = Annotated[Account, Depends(current_staff)]


def current_instructor(staff: StaffDep) -> Account:
    """Return the signed-in site instructor's account (:mod:`app.learning.instructors`), from
    the same lookup as :data:`StaffDep` (a route with both reads the account once).

    Raises:
        HTTPException: 303 to the sign-in page for an anonymous visitor; 403 for an account
            without the site role (a class's or an LMS course's instructor included).
    """
    if not staff.is_instructor:
        raise HTTPException(status_code=403, detail=gettext(SITE_INSTRUCTORS_ONLY))
    return staff


def current_admin(request: Request, db: SessionDep) -> Account:
    """Return the signed-in site admin's account.

    Raises:
        HTTPException: 303 to the sign-in page for an anonymous visitor; 403 for anyone else.
    """
    account = admin_account(db, _signed_in(request))
    if account is None:
        raise HTTPException(status_code=403, detail=gettext(ADMINS_ONLY))
    return account


InstructorDep = Annotated[Account, Depends(current_instructor)]
AdminDep = Annotated[Account, Depends(current_admin)]
