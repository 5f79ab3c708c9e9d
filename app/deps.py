"""Shared FastAPI dependencies, as ``Annotated`` aliases."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlmodel import Session

from app.content.course import Course
from app.db import session_scope
from app.i18n import N_, gettext
from app.search import SearchIndex

SESSION_KEY = "learner"
EXPIRED_MESSAGE = N_("Session expired, reload the page.")


def get_session(request: Request) -> Iterator[Session]:
    """Yield a database session bound to the app's engine."""
    yield from session_scope(request.app.state.engine)


def get_course(request: Request) -> Course:
    """Return the course loaded by the app."""
    return request.app.state.course


def get_search_index(request: Request) -> SearchIndex:
    """Return the app's lesson search index (rebuilt when the lesson files change)."""
    return request.app.state.search


def current_learner_id(request: Request) -> str:
    """Return the learner id from the signed session cookie, assigning a new one on a first visit.

    The learner row itself is stored on the first answer, so browsing writes nothing.
    """
    learner_id = request.session.get(SESSION_KEY)
    if not isinstance(learner_id, str) or len(learner_id) != 32:
        learner_id = secrets.token_hex(16)
        request.session[SESSION_KEY] = learner_id
    return learner_id


def existing_learner_id(request: Request) -> str:
    """Return the learner id of a request that must already have a session (every POST).

    Raises:
        HTTPException: 403 with :data:`EXPIRED_MESSAGE` (in Portuguese) when the session cookie is missing.
    """
    learner_id = request.session.get(SESSION_KEY)
    if not isinstance(learner_id, str) or len(learner_id) != 32:
        raise HTTPException(status_code=403, detail=gettext(EXPIRED_MESSAGE))
    return learner_id


SessionDep = Annotated[Session, Depends(get_session)]
CourseDep = Annotated[Course, Depends(get_course)]
SearchDep = Annotated[SearchIndex, Depends(get_search_index)]
LearnerIdDep = Annotated[str, Depends(current_learner_id)]
ExistingLearnerIdDep = Annotated[str, Depends(existing_learner_id)]
