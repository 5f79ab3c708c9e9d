"""The place of a learner who has no row yet, kept in their session (not a router)."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from app.learning.state import Place

PLACE_KEY = "place"


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
