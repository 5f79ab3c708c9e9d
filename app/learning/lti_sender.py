"""Sends the queued scores (``lti_score``) to the LMS gradebooks (LTI AGS).

:func:`send_due` sends what is due, in one pass (``curso lti enviar`` runs it once);
:class:`ScoreSender` runs it in a background thread of the app, woken after each queued score
and at the next retry. Posting a score is blocking HTTP (the token endpoint, then the score),
and the platform's token endpoint fetches this tool's JWKS while it answers, so it never runs
on the event loop. A failed try (the platform down, an error, a 401 after a fresh token) is
retried with exponential backoff; nothing is deleted, so no score is lost.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime, timedelta
from typing import cast

from pylti1p3.assignments_grades import AssignmentsGradesService, TAssignmentsGradersData
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem, TLineItem
from requests import RequestException
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from app.learning import lti
from app.learning.lti_tool import connector, registration_of
from app.platform.models import LtiPlatform, LtiScore, utcnow

log = logging.getLogger("curso.lti")
IDLE_WAIT_S = 60.0
SCORE_SCOPES = [lti.SCORE_SCOPE, lti.LINEITEM_SCOPE]


def send_due(engine: Engine, everything: bool = False) -> tuple[int, int]:
    """Send every due score (with ``everything``, every unsent one); (sent, failed)."""
    sent = failed = 0
    with Session(engine) as db:
        for score_id in lti.due_scores(db, utcnow(), everything):
            score = lti.claim_score(db, score_id, everything)
            if score is None:
                continue
            error = send_one(engine, db, score)
            if error is None:
                sent += 1
            else:
                lti.mark_failed(db, score, error)
                failed += 1
    return sent, failed


def send_one(engine: Engine, db: Session, score: LtiScore) -> str | None:
    """Post one score; ``None`` when it arrived (marked sent), else the error to record."""
    platform = db.get(LtiPlatform, score.platform_id)
    if platform is None:
        return "platform removed"
    key = lti.signing_key(db)
    registration = registration_of(platform, key.private_pem, json.loads(key.public_jwk))
    db.rollback()  # no transaction stays open during the HTTP calls
    service = connector(engine, registration)
    endpoint = cast(TAssignmentsGradersData, {"scope": list(SCORE_SCOPES)})
    if score.lineitem_url:
        endpoint["lineitem"] = score.lineitem_url
    if score.lineitems_url:
        endpoint["lineitems"] = score.lineitems_url
    grades = AssignmentsGradesService(service, endpoint)
    grade = (
        Grade()
        .set_score_given(score.score_given)
        .set_score_maximum(score.score_maximum)
        .set_activity_progress(score.activity_progress)
        .set_grading_progress(score.grading_progress)
        .set_comment(score.comment)
        .set_user_id(score.user_sub)
        .set_timestamp(score.created_at.strftime("%Y-%m-%dT%H:%M:%S.%f") + "+00:00")
    )
    for attempt in range(2):
        try:
            lineitem = score.lineitem_url or _lineitem_url(grades, score)
            grades.put_grade(grade, LineItem({"id": lineitem}))
        except LtiServiceException as exc:
            status = getattr(exc.response, "status_code", 0)
            if status == 401 and attempt == 0:
                service.forget_tokens(SCORE_SCOPES)  # an expired or revoked token: a new one
                continue
            return _message(exc)
        except (LtiException, RequestException, LookupError, ValueError) as exc:
            return str(exc) or exc.__class__.__name__
        lti.mark_sent(db, score, lineitem)
        return None
    return "401"


def _lineitem_url(grades: AssignmentsGradesService, score: LtiScore) -> str:
    """The gradebook column of the score's LMS link and lesson (made when missing)."""
    wanted = (
        LineItem()
        .set_label(score.lesson_title or score.lesson_slug)
        .set_score_maximum(score.score_maximum)
        .set_resource_id(score.lesson_slug)
        .set_tag(score.lesson_slug)
    )
    if score.resource_link_id:
        wanted.set_resource_link_id(score.resource_link_id)

    def same(item: TLineItem) -> bool:
        return item.get("resourceId") == score.lesson_slug and (
            (item.get("resourceLinkId") or "") == score.resource_link_id
        )

    found = grades.find_or_create_lineitem(wanted, condition=same)
    lineitem = found.get_id()
    if not lineitem:
        raise LookupError("no line item id")
    return str(lineitem)


def _message(exc: LtiServiceException) -> str:
    response = exc.response
    if response is None:
        return str(exc)
    body = (getattr(response, "text", "") or "").strip()
    return f"{response.status_code} {body}"[:1000]


class ScoreSender:
    """A daemon thread that sends due scores: woken by :meth:`wake`, or at the next retry."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def wake(self) -> None:
        """Send soon (starts the thread on first use)."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="curso-lti-sender", daemon=True
                )
                self._thread.start()
        self._wake.set()

    def wake_if_pending(self) -> None:
        """Start sending at once when scores are waiting (the app was restarted with a queue)."""
        try:
            with Session(self.engine) as db:
                waiting = lti.next_due(db) is not None
        except SQLAlchemyError:  # no database yet (not migrated): nothing is waiting
            return
        if waiting:
            self.wake()

    def stop(self) -> None:
        """End the thread after its current pass."""
        self._stop.set()
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                send_due(self.engine)
                with Session(self.engine) as db:
                    due = lti.next_due(db)
            except Exception:  # the thread must outlive a database hiccup; it is logged
                log.exception("lti score sender")
                due = None
            self._wake.wait(_seconds_until(due))


def _seconds_until(due: datetime | None) -> float:
    if due is None:
        return IDLE_WAIT_S
    if due.tzinfo is None:
        due = due.replace(tzinfo=utcnow().tzinfo)
    wait = (due - utcnow()) / timedelta(seconds=1)
    return min(max(wait, 0.5), IDLE_WAIT_S)
