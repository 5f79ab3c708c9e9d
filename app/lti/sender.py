"""Sends the queued scores (``lti_score``) to the LMS gradebooks (LTI AGS).

:func:`send_due` sends what is due, in one pass (``curso lti enviar`` runs it once);
:class:`ScoreSender` runs it in a background thread of the app, woken after each queued score
and at the next retry. Posting a score is blocking HTTP (the token endpoint, then the score),
and the platform's token endpoint fetches this tool's JWKS while it answers, so it never runs
on the event loop.

Each score is taken by one sender (concurrent senders, in threads or processes, skip it), and
its row holds the newest score of its learner and column, so the gradebook gets scores in the
order of their answers, each once. A failed try (the platform down, a 5xx, a 401 after a fresh
token) is retried with exponential backoff; a 409 (the platform already holds a newer score)
ends the score as superseded; another 4xx is tried :data:`app.lti.scores.MAX_REFUSALS`
times, then left failed with the platform's message for the instructor's panel.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from dataclasses import dataclass
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

from app.lti.launch import LINEITEM_SCOPE, SCORE_SCOPE
from app.lti.library import connector, registration_of
from app.lti.scores import claim_next, mark_failed, mark_sent, mark_superseded, next_due
from app.lti.tool import signing_key
from app.platform.models import LtiPlatform, LtiScore, utcnow

log = logging.getLogger("curso.lti")
IDLE_WAIT_S = 60.0
SCORE_SCOPES = [SCORE_SCOPE, LINEITEM_SCOPE]
RETRIED_4XX = (401, 408, 425, 429)  # client errors that a later try may not get


@dataclass(frozen=True)
class Failure:
    """Why a score did not arrive.

    Attributes:
        message: the platform's status and message (or the network's error), for the panel.
        status: the platform's HTTP status; 0 when it gave none.
    """

    message: str
    status: int = 0

    @property
    def superseded(self) -> bool:
        """The platform holds a newer score (AGS, Moodle: 409 for an earlier timestamp)."""
        return self.status == 409

    @property
    def refused(self) -> bool:
        """A refusal the platform would give again (a 4xx other than a timeout or a limit)."""
        return 400 <= self.status < 500 and self.status not in RETRIED_4XX


def send_due(db: Session, everything: bool = False) -> tuple[int, int]:
    """Send every due score (with ``everything``, every unsent one, backoff or not), each
    taken by this sender alone (:func:`app.lti.scores.claim_next`), at most once per call;
    (sent, not sent). A score the platform answers with 409 is superseded: neither."""
    sent = failed = 0
    claim = secrets.token_hex(16)
    tried: set[int] = set()
    while (score := claim_next(db, claim, everything, tried)) is not None:
        assert score.id is not None  # a stored score
        tried.add(score.id)
        failure = send_one(db, score)
        if failure is None:
            sent += 1
        elif failure.superseded:
            mark_superseded(db, score, failure.message)
        else:
            mark_failed(db, score, failure.message, refused=failure.refused)
            failed += 1
    return sent, failed


def send_one(db: Session, score: LtiScore) -> Failure | None:
    """Post one score, with the time of its answer as the AGS timestamp; ``None`` when it
    arrived (marked sent), else why not."""
    platform = db.get(LtiPlatform, score.platform_id)
    if platform is None:
        return Failure("platform removed")
    key = signing_key(db)
    registration = registration_of(platform, key.private_pem, json.loads(key.public_jwk))
    db.rollback()  # no transaction stays open during the HTTP calls
    service = connector(db, registration)
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
        .set_timestamp(score.answered_at.strftime("%Y-%m-%dT%H:%M:%S.%f") + "+00:00")
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
            return Failure(_message(exc), status)
        except (LtiException, RequestException, LookupError, ValueError) as exc:
            return Failure(str(exc) or exc.__class__.__name__)
        mark_sent(db, score, lineitem)
        return None
    return Failure("401", 401)


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
    """A daemon thread that sends due scores: woken by :meth:`wake`, or at the next retry.

    No request owns it, so it opens its own session on ``engine``, one per pass (as the LMS
    origins' refresh does, :class:`app.lti.tool.LmsOrigins`; ``ARCHITECTURE.md``).
    """

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
                waiting = next_due(db) is not None
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
                with Session(self.engine) as db:
                    send_due(db)
                    due = next_due(db)
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
