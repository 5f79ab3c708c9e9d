"""The course as an LTI 1.3 tool: registered platforms, the tool's keys, the library's state,
who a launch signs in, the class of each LMS course, and the queue of scores (no HTTP here).

The LTI library (``pylti1p3``) is wired to these tables in :mod:`app.lti.library`; the
routes are in :mod:`app.web.routes.lti`; the scores are sent by :mod:`app.lti.sender`.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from textwrap import shorten
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from itsdangerous import BadData, URLSafeTimedSerializer
from pylti1p3.registration import Registration
from sqlalchemy import Connection, Engine, Integer, and_, case, cast, delete, func, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from app.content.course import Course
from app.content.lessons import Lesson
from app.i18n import gettext, ngettext
from app.learning.learners import merge_learner
from app.learning.rules import NO_HELP, counted, counted_total
from app.platform.db import begin_write, tuple_in
from app.platform.models import (
    ATTEMPT,
    LTI_SCORE,
    LTI_STATE,
    Account,
    ClassMember,
    Classroom,
    ClassStaff,
    Learner,
    LtiContext,
    LtiDeployment,
    LtiKey,
    LtiPlatform,
    LtiScore,
    LtiState,
    LtiUser,
    utcnow,
)

# A retired key stays in the JWKS this long, so platforms that cached it still verify.
ROTATION_WINDOW = timedelta(days=2)
KEY_BITS = 2048
INSTRUCTOR_ROLES = (
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor",
)
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
PENDING, SENT, SUPERSEDED, FAILED = "pending", "sent", "superseded", "failed"
MAX_REFUSALS = 3  # tries of a score the platform refuses (a 4xx) before it is left failed
MAX_BACKOFF = timedelta(hours=1)
TOKEN_STATE_PREFIX = "lti1p3-token-"
USED = json.dumps("used")  # the value of a nonce whose launch was accepted
QUESTION_LABEL_CHARS = 60  # a question without concepts is named by its sentence, this long
LEASE = timedelta(minutes=2)  # how long a sender holds a score it is sending


# --- platforms and keys -------------------------------------------------------------------


def register_platform(
    db: Session,
    issuer: str,
    client_id: str,
    deployment_ids: list[str],
    auth_url: str,
    token_url: str,
    jwks_url: str,
    confirmed: bool = False,
) -> tuple[LtiPlatform, bool]:
    """Register a platform, or update its URLs and add deployments; committed.

    A new platform waits for a site admin's confirmation (:func:`confirm_platform`) unless
    ``confirmed`` (the command line, run by whoever runs the server); an update that moves its
    authentication URL to another origin waits again.

    Returns:
        The platform and whether it is new.
    """
    platform = db.exec(
        select(LtiPlatform).where(LtiPlatform.issuer == issuer, LtiPlatform.client_id == client_id)
    ).first()
    new = platform is None
    if platform is None:
        platform = LtiPlatform(
            issuer=issuer,
            client_id=client_id,
            auth_url=auth_url,
            token_url=token_url,
            jwks_url=jwks_url,
        )
    if origin_of(platform.auth_url) != origin_of(auth_url):
        platform.confirmed_at = None
    platform.auth_url, platform.token_url, platform.jwks_url = auth_url, token_url, jwks_url
    if confirmed and platform.confirmed_at is None:
        platform.confirmed_at = utcnow()
    db.add(platform)
    db.flush()
    assert platform.id is not None  # flushed
    for deployment_id in deployment_ids:
        if db.get(LtiDeployment, (platform.id, deployment_id)) is None:
            db.add(LtiDeployment(platform_id=platform.id, deployment_id=deployment_id))
    db.commit()
    db.refresh(platform)
    if not db.exec(select(LtiKey)).first():
        rotate_key(db)
        db.refresh(platform)
    return platform, new


def confirm_platform(db: Session, platform_id: int) -> LtiPlatform | None:
    """A site admin's confirmation: from now on the platform launches the course and its
    origin enters the CSP. ``None`` for an unknown id. Committed."""
    platform = db.get(LtiPlatform, platform_id)
    if platform is None:
        return None
    if platform.confirmed_at is None:
        platform.confirmed_at = utcnow()
        db.add(platform)
        db.commit()
        db.refresh(platform)
    return platform


def platforms(db: Session) -> list[tuple[LtiPlatform, list[str]]]:
    """Every registered platform with its deployment ids, oldest first."""
    rows = db.exec(select(LtiPlatform).order_by(col(LtiPlatform.id))).all()
    deployments = db.exec(select(LtiDeployment)).all()
    return [
        (p, sorted(d.deployment_id for d in deployments if d.platform_id == p.id)) for p in rows
    ]


def find_platform(db: Session, issuer: str, client_id: str | None) -> LtiPlatform | None:
    """The confirmed platform registered with ``issuer`` (and ``client_id`` when given); one
    that no admin confirmed yet launches nothing."""
    query = select(LtiPlatform).where(
        LtiPlatform.issuer == issuer, col(LtiPlatform.confirmed_at).is_not(None)
    )
    if client_id:
        query = query.where(LtiPlatform.client_id == client_id)
    return db.exec(query.order_by(col(LtiPlatform.id))).first()


def has_deployment(db: Session, platform: LtiPlatform, deployment_id: str) -> bool:
    """True when ``deployment_id`` is registered for ``platform``."""
    return db.get(LtiDeployment, (platform.id, deployment_id)) is not None


def rotate_key(db: Session) -> LtiKey:
    """Make a new RSA key pair that signs from now on; the previous keys are retired (they stay
    in the JWKS for :data:`ROTATION_WINDOW`). Committed."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    private_pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public_pem = (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    jwk = dict(Registration.get_jwk(public_pem))
    now = utcnow()
    for old in db.exec(select(LtiKey).where(col(LtiKey.retired_at).is_(None))).all():
        old.retired_at = now
        db.add(old)
    key = LtiKey(kid=str(jwk["kid"]), private_pem=private_pem, public_jwk=json.dumps(jwk))
    db.add(key)
    # Access tokens were asked for with the old key: the next grade asks with the new one.
    db.exec(delete(LtiState).where(col(LtiState.key).startswith(TOKEN_STATE_PREFIX)))
    db.commit()
    db.refresh(key)
    return key


def signing_key(db: Session) -> LtiKey:
    """The key that signs (the newest); made on first use."""
    key = db.exec(select(LtiKey).order_by(col(LtiKey.created_at).desc())).first()
    return key if key is not None else rotate_key(db)


def public_keys(db: Session) -> list[dict[str, Any]]:
    """The JWKS's keys: the signing key and those retired within :data:`ROTATION_WINDOW`."""
    since = utcnow() - ROTATION_WINDOW
    rows = db.exec(
        select(LtiKey)
        .where(col(LtiKey.retired_at).is_(None) | (col(LtiKey.retired_at) > since))
        .order_by(col(LtiKey.created_at).desc())
    ).all()
    return [json.loads(row.public_jwk) for row in rows]


# --- the library's state -------------------------------------------------------------------


def state_get(db: Session, key: str) -> Any:
    """The value kept under ``key``, or ``None`` (unknown or expired)."""
    row = db.get(LtiState, key)
    if row is None or row.expires_at <= utcnow():
        return None
    return json.loads(row.value)


def state_set(db: Session, key: str, value: Any, lifetime_s: int) -> None:
    """Keep ``value`` (JSON) under ``key`` for ``lifetime_s`` seconds; committed."""
    begin_write(db)
    row = db.get(LtiState, key) or LtiState(key=key, value="", expires_at=utcnow())
    row.value = json.dumps(value)
    row.expires_at = utcnow() + timedelta(seconds=lifetime_s)
    db.add(row)
    db.exec(delete(LtiState).where(col(LtiState.expires_at) <= utcnow()))
    db.commit()


def state_claim(db: Session, key: str, lifetime_s: int) -> bool:
    """Keep ``key`` for ``lifetime_s`` seconds unless it is kept already; True when this call
    took it (at most one caller per lifetime, across workers: one atomic upsert). Committed."""
    now = utcnow()
    insert = postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = insert(LTI_STATE).values(
        key=key, value=json.dumps(True), expires_at=now + timedelta(seconds=lifetime_s)
    )
    # Core, not the ORM's bulk insert (whose row count said 1 on PostgreSQL for a row the
    # WHERE left alone); RETURNING names the row only when it was inserted or updated.
    claim = statement.on_conflict_do_update(
        index_elements=["key"],
        set_={"value": statement.excluded.value, "expires_at": statement.excluded.expires_at},
        where=LTI_STATE.c.expires_at <= now,
    ).returning(LTI_STATE.c.key)
    begin_write(db)
    taken = db.execute(claim).first() is not None
    db.commit()
    return taken


def state_use(db: Session, key: str, until: datetime) -> bool:
    """Mark the value under ``key`` as used and keep it until ``until``; True when this call
    marked it (a second call, even at the same time from another worker, gets False; so does
    a key never kept, or expired). Committed."""
    begin_write(db)
    result = db.exec(
        update(LtiState)
        .where(
            col(LtiState.key) == key,
            col(LtiState.expires_at) > utcnow(),
            col(LtiState.value) != USED,
        )
        .values(value=USED, expires_at=until)
    )
    db.commit()
    return bool(result.rowcount)


def state_consume(db: Session, key: str) -> bool:
    """Delete ``key``; True when this call deleted it (a second call, even at the same time
    from another worker, gets False). Committed."""
    begin_write(db)
    result = db.exec(
        delete(LtiState).where(col(LtiState.key) == key, col(LtiState.expires_at) > utcnow())
    )
    db.commit()
    return bool(result.rowcount)


# --- who a launch signs in ---------------------------------------------------------------


def lms_name(claims: dict[str, Any]) -> str:
    """The person's name as the LMS gave it (``name``, else ``given_name``), or ""."""
    return str(claims.get("name") or claims.get("given_name") or "").strip()[:255]


def lms_names(db: Session, learner_ids: Collection[str]) -> dict[str, str]:
    """The name the LMS gave each of these learners' accounts (``lti_user.name``), for those
    an LMS launch made or linked; an account linked from several LMSs has a name from each,
    and one of them is given."""
    if not learner_ids:
        return {}
    rows = db.exec(
        select(Account.learner_id, func.max(LtiUser.name))
        .join(LtiUser, col(LtiUser.account_id) == col(Account.id))
        .where(col(Account.learner_id).in_(sorted(learner_ids)))
        .group_by(col(Account.learner_id))
    ).all()
    return {learner: name for learner, name in rows if name}


@dataclass(frozen=True)
class LaunchPerson:
    """Who a launch signs in, and the class of the LMS course.

    Attributes:
        learner_id / username: the course learner and account (made on the first launch).
        instructor: an instructor or administrator in the LMS course.
        class_id: the class made for the LMS course, or ``None`` when the launch has no context.
    """

    learner_id: str
    username: str
    instructor: bool
    class_id: int | None


def is_instructor(roles: list[str]) -> bool:
    """True for the LMS's instructor and administrator roles."""
    return any(role in INSTRUCTOR_ROLES for role in roles)


def launch_person(
    db: Session, platform: LtiPlatform, claims: dict[str, Any], password_hash: str
) -> LaunchPerson:
    """The learner and account of the launch's ``sub`` (made on the first launch, with an
    unusable random password hashed as ``password_hash``), in the class of its context.

    An LMS instructor teaches that class (class staff) and nothing else: the site-wide
    instructor role comes only from ``curso instrutor adicionar``. A learner joins the class.
    Committed.
    """
    assert platform.id is not None  # a stored platform
    sub = str(claims["sub"])
    instructor = is_instructor(list(claims.get(CLAIM + "roles") or []))
    user = db.get(LtiUser, (platform.id, sub))
    if user is None:
        learner = Learner(id=secrets.token_hex(16))
        db.add(learner)
        db.flush()
        made = Account(
            learner_id=learner.id,
            username=f"lti-{secrets.token_hex(8)}",
            password_hash=password_hash,
        )
        db.add(made)
        db.flush()
        assert made.id is not None  # flushed
        name = lms_name(claims)
        user = LtiUser(
            platform_id=platform.id,
            sub=sub,
            learner_id=learner.id,
            account_id=made.id,
            name=name,
        )
        db.add(user)
        db.flush()
    account = db.get(Account, user.account_id)
    assert account is not None and account.id is not None  # lti_user keeps it (cascade)
    class_id = _context_class(db, platform, claims.get(CLAIM + "context"))
    if class_id is not None:
        link: ClassStaff | ClassMember | None
        if instructor:
            link = db.get(ClassStaff, (class_id, account.id))
            if link is None:
                db.add(ClassStaff(class_id=class_id, account_id=account.id))
        else:
            link = db.get(ClassMember, (class_id, user.learner_id))
            if link is None:
                db.add(ClassMember(class_id=class_id, learner_id=user.learner_id))
    db.commit()
    return LaunchPerson(user.learner_id, account.username, instructor, class_id)


def person_for_launch(
    db: Session, issuer: str, client_id: str | None, claims: dict[str, Any], password_hash: str
) -> tuple[LaunchPerson, int] | None:
    """The launch's person (:func:`launch_person`) and its platform's id; ``None`` when the
    issuer is not registered. Committed."""
    platform = find_platform(db, issuer, client_id)
    if platform is None or platform.id is None:
        return None
    return launch_person(db, platform, claims, password_hash), platform.id


def _context_class(db: Session, platform: LtiPlatform, context: Any) -> int | None:
    """The class of an LMS course (made on its first launch), or ``None`` without a context."""
    if not isinstance(context, dict) or not context.get("id"):
        return None
    assert platform.id is not None  # a stored platform
    context_id = str(context["id"])[:255]
    row = db.get(LtiContext, (platform.id, context_id))
    if row is not None:
        return row.class_id
    title = str(context.get("title") or context.get("label") or context_id)
    name = (gettext("%(course)s (Moodle)") % {"course": title})[:120]
    classroom = Classroom(name=name, join_code=secrets.token_urlsafe(24))
    db.add(classroom)
    db.flush()
    assert classroom.id is not None  # flushed
    db.add(LtiContext(platform_id=platform.id, context_id=context_id, class_id=classroom.id))
    db.flush()
    return classroom.id


# --- the scores -----------------------------------------------------------------------------


@dataclass(frozen=True)
class GradedLaunch:
    """Where a resource launch's scores go.

    Attributes:
        platform_id / class_id: the platform, and the class of the LMS course.
        sub: the learner on the platform.
        lesson_slug: the lesson the launch opened; only its answers are sent.
        lineitem / lineitems: the AGS endpoints of the launch ("" when absent).
        resource_link_id: the LMS link, to find or make the gradebook column.
    """

    platform_id: int
    class_id: int | None
    sub: str
    lesson_slug: str
    lineitem: str
    lineitems: str
    resource_link_id: str

    def to_session(self) -> dict[str, Any]:
        """A JSON-friendly dict for the session."""
        return dict(self.__dict__)

    @classmethod
    def from_session(cls, data: Any) -> GradedLaunch | None:
        """Rebuild from :meth:`to_session`'s dict; ``None`` for anything else."""
        if not isinstance(data, dict):
            return None
        try:
            return cls(**data)
        except TypeError:
            return None

    @property
    def target(self) -> str:
        """The gradebook column its scores go to (:func:`score_target`)."""
        return score_target(
            self.platform_id, self.lineitem, self.lineitems, self.resource_link_id, self.lesson_slug
        )


def score_target(
    platform_id: int, lineitem: str, lineitems: str, resource_link_id: str, lesson_slug: str
) -> str:
    """The key of a gradebook column (``lti_score.target``, 64 hex digits): the platform and the
    line item the launch named, else the line items URL with the LMS link and the lesson (the
    column the sender finds or makes there)."""
    where = lineitem or "\n".join((lineitems, resource_link_id, lesson_slug))
    return hashlib.sha256(f"{platform_id}\n{where}".encode()).hexdigest()


def graded_launch(
    platform_id: int, class_id: int | None, claims: dict[str, Any], lesson_slug: str
) -> GradedLaunch | None:
    """Where a resource launch's scores go, or ``None`` when the platform offers no AGS."""
    endpoint = claims.get(AGS_CLAIM)
    if not isinstance(endpoint, dict):
        return None
    scopes = endpoint.get("scope") or []
    lineitem = str(endpoint.get("lineitem") or "")
    lineitems = str(endpoint.get("lineitems") or "")
    if SCORE_SCOPE not in scopes or not (lineitem or lineitems):
        return None
    link = claims.get(CLAIM + "resource_link") or {}
    return GradedLaunch(
        platform_id=platform_id,
        class_id=class_id,
        sub=str(claims["sub"]),
        lesson_slug=lesson_slug,
        lineitem=lineitem,
        lineitems=lineitems,
        resource_link_id=str(link.get("id") or ""),
    )


def score_comment(
    right: int, total: int, wrong: list[str], unanswered: int, hinted: Sequence[str] = ()
) -> str:
    """The pt-BR summary sent with a score: "Acertou 2 de 18, com dica: KV cache. Errou: Mac e
    Ollama. 15 sem resposta." (``wrong``: what names each question answered but never right;
    ``hinted``: each question answered right only after opening a hint)."""
    counts = {"right": right, "total": total}
    text = gettext("Got %(right)s of %(total)s right.") % counts
    if hinted:
        text = gettext("Got %(right)s of %(total)s right, with a hint: %(questions)s.") % {
            **counts,
            "questions": "; ".join(dict.fromkeys(hinted)),
        }
    if wrong:
        named = "; ".join(dict.fromkeys(wrong))
        text += " " + gettext("Wrong: %(questions)s.") % {"questions": named}
    if unanswered:
        text += " " + ngettext("%(count)s unanswered.", "%(count)s unanswered.", unanswered) % {
            "count": unanswered
        }
    return text


@dataclass(frozen=True)
class ScoreOrder:
    """A score to queue with an answer, in the writer's transaction (the outbox): where it
    goes, and what the writer needs to count the lesson from the stored attempts.

    Attributes:
        questions: per question of the lesson, its id and how the comment names it when the
            learner got it wrong (its concepts, else the start of its sentence).
        pools: per pool of the lesson, its draw and the ids it draws from: a pool counts as
            its draw (:func:`app.learning.rules.counted`).
    """

    launch: GradedLaunch
    lesson_title: str
    questions: tuple[tuple[str, str], ...]
    pools: tuple[tuple[int, tuple[str, ...]], ...] = ()


def score_order(launch: GradedLaunch, course: Course, lesson: Lesson) -> ScoreOrder:
    """The score to queue after an answer in ``lesson`` for ``launch``."""
    named = []
    for question in lesson.questions.values():
        terms = [course.glossary.get(slug) for slug in question.concepts]
        label = ", ".join(term.term for term in terms if term is not None)
        if not label:
            sentence = shorten(question.legend_text, QUESTION_LABEL_CHARS, placeholder="…")
            label = f"“{sentence}”"
        named.append((question.id, label))
    pools = tuple((pool.draw, pool.candidates) for pool in lesson.pools.values())
    return ScoreOrder(launch, lesson.meta.title_text[:255], tuple(named), pools)


def queue_scores(
    connection: Connection, orders: Sequence[tuple[ScoreOrder, str, datetime]], now: datetime
) -> None:
    """Upsert the scores of ``orders`` (the order, the learner, when the answer that makes it
    was given), in the caller's transaction: the answer writer's, with the answers' attempts
    (it is the writer's outbox, :data:`app.learning.writer.Outbox`, given in ``app/main.py``).

    Each is counted from the learner's stored attempts in the lesson: ``scoreGiven`` the
    questions answered right at least once (in any version), ``scoreMaximum`` the question
    count. A column keeps one row per learner: a score from a newer answer replaces it and is
    sent again; one from an older answer (or the same, a form sent again) changes nothing, so
    a retry only queues a score that is missing.
    """
    if not orders:
        return
    pairs = sorted({(learner, order.launch.lesson_slug) for order, learner, _ in orders})
    best: dict[tuple[str, str, str], bool] = {}
    alone: set[tuple[str, str, str]] = set()  # right at least once with no hint
    unhelped_right = case((and_(ATTEMPT.c.correct, ATTEMPT.c.help == NO_HELP), 1), else_=0)
    for row in connection.execute(
        sa_select(
            ATTEMPT.c.learner_id,
            ATTEMPT.c.lesson_slug,
            ATTEMPT.c.question_id,
            func.max(cast(ATTEMPT.c.correct, Integer)),
            func.max(unhelped_right),
        )
        .where(tuple_in((ATTEMPT.c.learner_id, ATTEMPT.c.lesson_slug), pairs))
        .group_by(ATTEMPT.c.learner_id, ATTEMPT.c.lesson_slug, ATTEMPT.c.question_id)
    ):
        best[(row[0], row[1], row[2])] = bool(row[3])
        if row[4]:
            alone.add((row[0], row[1], row[2]))
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for order, learner, answered_at in orders:
        launch, slug = order.launch, order.launch.lesson_slug
        hit, wrong, hinted, unanswered = set[str](), list[str](), list[str](), 0
        pooled = {qid for _, ids in order.pools for qid in ids}
        for question_id, label in order.questions:
            got = best.get((learner, slug, question_id))
            if got:
                hit.add(question_id)
                if (learner, slug, question_id) not in alone:
                    hinted.append(label)
            elif question_id in pooled:
                if got is not None:  # a pool's question not drawn is not missing
                    wrong.append(label)
            elif got is None:
                unanswered += 1
            else:
                wrong.append(label)
        for draw, ids in order.pools:  # a pool's draw not yet answered is missing
            answered = sum(1 for qid in ids if (learner, slug, qid) in best)
            unanswered += max(0, draw - answered)
        fixed = [qid for qid, _ in order.questions if qid not in pooled]
        right = counted((fixed, order.pools), hit)
        total = counted_total(len(fixed), (draw for draw, _ in order.pools))
        key = (launch.target, launch.sub)
        if key in rows and rows[key]["answered_at"] >= answered_at:
            continue
        rows[key] = {
            "target": launch.target,
            "platform_id": launch.platform_id,
            "class_id": launch.class_id,
            "learner_id": learner,
            "user_sub": launch.sub,
            "lineitem_url": launch.lineitem,
            "lineitems_url": launch.lineitems,
            "resource_link_id": launch.resource_link_id,
            "lesson_slug": slug,
            "lesson_title": order.lesson_title,
            "score_given": right,
            "score_maximum": total,
            "comment": score_comment(right, total, wrong, unanswered, hinted)[:1000],
            "activity_progress": "Completed" if right == total else "InProgress",
            "grading_progress": "FullyGraded",
            "created_at": now,
            "answered_at": answered_at,
            "status": PENDING,
            "tries": 0,
            "next_try_at": now,
            "last_error": "",
            "claim": "",
        }
    insert = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    upsert = insert(LTI_SCORE)
    newer = {
        name: upsert.excluded[name]
        for name in (
            "class_id",
            "learner_id",
            "score_given",
            "score_maximum",
            "comment",
            "activity_progress",
            "answered_at",
            "status",
            "tries",
            "next_try_at",
            "last_error",
        )
    }
    connection.execute(
        upsert.on_conflict_do_update(
            index_elements=["target", "user_sub"],
            set_=newer,
            where=LTI_SCORE.c.answered_at < upsert.excluded.answered_at,
        ),
        [rows[key] for key in sorted(rows)],
    )


def claim_next(
    db: Session, claim: str, everything: bool = False, skip: Collection[int] = ()
) -> LtiScore | None:
    """Take the oldest score to send (due, or any unsent with ``everything``; none in
    ``skip``) for the sender ``claim``, for :data:`LEASE`: another sender skips it meanwhile,
    so each score is posted once. PostgreSQL locks the candidate ``FOR UPDATE SKIP LOCKED``
    (concurrent senders take different rows without waiting); SQLite's write transaction
    does the same. ``None`` when nothing is left. Committed; the row is detached (read once:
    the HTTP calls run outside any transaction)."""
    now = utcnow()
    db.rollback()
    begin_write(db)
    query = select(LtiScore.id).where(
        col(LtiScore.status) == PENDING,
        col(LtiScore.claimed_until).is_(None) | (col(LtiScore.claimed_until) <= now),
    )
    if not everything:
        query = query.where(col(LtiScore.next_try_at) <= now)
    if skip:
        query = query.where(col(LtiScore.id).not_in(sorted(skip)))
    score_id = db.exec(
        query.order_by(col(LtiScore.id)).limit(1).with_for_update(skip_locked=True)
    ).first()
    if score_id is None:
        db.rollback()
        return None
    db.exec(
        update(LtiScore)
        .where(col(LtiScore.id) == score_id)
        .values(claim=claim, claimed_until=now + LEASE)
    )
    db.commit()
    score = db.get(LtiScore, score_id)
    if score is not None:
        db.expunge(score)
    db.rollback()
    return score


def _settle(
    db: Session, score: LtiScore, values: dict[str, Any], kept: dict[str, Any] | None = None
) -> None:
    """Record how a try of ``score`` went (``values``), when the row still holds that score
    and this sender's claim, and free the row. When a newer answer replaced the score
    meanwhile, only ``kept`` is recorded: the newer score stays pending and goes next.
    Committed."""
    assert score.id is not None  # a stored score
    db.rollback()
    begin_write(db)
    mine = [col(LtiScore.id) == score.id, col(LtiScore.claim) == score.claim]
    freed = {"claim": "", "claimed_until": None, **(kept or {})}
    done = db.exec(
        update(LtiScore)
        .where(*mine, col(LtiScore.answered_at) == score.answered_at)
        .values(**freed, **values)
    )
    if not done.rowcount:
        db.exec(update(LtiScore).where(*mine).values(**freed))
    db.commit()


def mark_sent(db: Session, score: LtiScore, lineitem: str) -> None:
    """Record that ``score`` reached the gradebook, in the column ``lineitem`` (kept, so a
    newer score goes straight there); committed."""
    sent = {"status": SENT, "sent_at": utcnow(), "last_error": "", "tries": 0}
    _settle(db, score, sent, {"lineitem_url": lineitem})


def mark_superseded(db: Session, score: LtiScore, error: str) -> None:
    """Record that the platform holds a newer score than ``score`` (its 409 for an earlier
    timestamp): not retried. Committed."""
    _settle(db, score, {"status": SUPERSEDED, "last_error": error[:1000], "tries": score.tries + 1})


def mark_failed(db: Session, score: LtiScore, error: str, refused: bool = False) -> None:
    """Record a failed try: retried after 2^tries seconds (at most an hour). A refusal (a 4xx
    the platform would give again) stops at the :data:`MAX_REFUSALS`-th try: ``failed``, shown
    on the instructor's panel with ``error``, the platform's message. Committed."""
    tries = score.tries + 1
    wait = min(timedelta(seconds=2**tries), MAX_BACKOFF)
    status = FAILED if refused and tries >= MAX_REFUSALS else PENDING
    failed = {
        "status": status,
        "last_error": error[:1000],
        "tries": tries,
        "next_try_at": utcnow() + wait,
    }
    _settle(db, score, failed)


def next_due(db: Session) -> datetime | None:
    """When the next unsent score is due, or ``None``."""
    due = db.exec(
        select(func.min(LtiScore.next_try_at)).where(col(LtiScore.status) == PENDING)
    ).one()
    db.rollback()
    return due


@dataclass(frozen=True)
class PassbackRow:
    """The grade passback of one class, as the dashboard shows it.

    Attributes:
        sent / pending / superseded / failed: scores (one per learner and column) in each
            state; ``failed``: refused by the platform, not retried.
        last_error: the platform's latest message about a failed or retried score.
    """

    class_id: int | None
    class_name: str
    sent: int
    pending: int
    superseded: int
    failed: int
    last_error: str


def passback_state(db: Session, class_id: int | None = None) -> list[PassbackRow]:
    """Scores sent, pending, superseded and failed per class (one class with ``class_id``),
    with the platform's latest message about a score not sent."""
    query = select(LtiScore)
    if class_id is not None:
        query = query.where(LtiScore.class_id == class_id)
    rows: dict[int | None, list[LtiScore]] = {}
    for score in db.exec(query.order_by(col(LtiScore.next_try_at), col(LtiScore.id))).all():
        rows.setdefault(score.class_id, []).append(score)
    found = []
    for key, scores in rows.items():
        errors = [s.last_error for s in scores if s.status in (FAILED, PENDING) and s.last_error]
        classroom = db.get(Classroom, key) if key is not None else None
        found.append(
            PassbackRow(
                key,
                classroom.name if classroom else "",
                sum(s.status == SENT for s in scores),
                sum(s.status == PENDING for s in scores),
                sum(s.status == SUPERSEDED for s in scores),
                sum(s.status == FAILED for s in scores),
                errors[-1] if errors else "",
            )
        )
    return found


# A host (name, IPv4 or bracketed IPv6) and an optional port: nothing that could end a CSP
# source expression (spaces, ";", quotes) gets into the header.
_NETLOC = re.compile(r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


def is_web_address(url: str) -> bool:
    """True for an ``http(s)://host[:port]/...`` address whose host is a plain name or IP."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(_NETLOC.fullmatch(parts.netloc))


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a web address."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class LmsOrigins:
    """The origins of the confirmed platforms (``https://moodle.example.org``): the sites that
    may frame the course and receive its forms.

    Read when the app is built, then again in a background thread when a request finds them
    older than ``ttl_s``: a request never waits for the database for them (a visitor's page
    still costs no statement).
    """

    def __init__(self, engine: Engine, ttl_s: float = 10.0) -> None:
        self.engine, self.ttl_s = engine, ttl_s
        self._origins: tuple[str, ...] = ()
        self._read_at = time.monotonic()
        self._refreshing = threading.Lock()
        self.refresh()

    def __call__(self) -> tuple[str, ...]:
        """The origins, sorted; a refresh starts in the background when they are stale."""
        if time.monotonic() - self._read_at > self.ttl_s and self._refreshing.acquire(False):
            self._read_at = time.monotonic()

            def run() -> None:
                try:
                    self.refresh()
                finally:
                    self._refreshing.release()

            threading.Thread(target=run, name="curso-lms-origins", daemon=True).start()
        return self._origins

    def refresh(self) -> None:
        """Read the confirmed platforms' origins now (kept as they were when the database
        cannot be read)."""
        try:
            with Session(self.engine) as db:
                confirmed = col(LtiPlatform.confirmed_at).is_not(None)
                urls = db.exec(select(LtiPlatform.auth_url).where(confirmed)).all()
        except SQLAlchemyError:
            return
        found = {origin_of(url) for url in urls if is_web_address(url)}
        self._origins, self._read_at = tuple(sorted(found)), time.monotonic()


SESSION_KEY = "lti"  # the session's resource launches with grades (GradedLaunch dicts)
SESSION_LAUNCHES = 20  # the newest launches a session keeps
LAUNCH_SALT = "curso-lancamento-lti"
LAUNCH_MAX_AGE_S = 7 * 24 * 3600  # a launched page's forms grade for its launch this long


def launch_token(secret: str, launch: GradedLaunch, learner_id: str) -> str:
    """The launch a page came from, signed for its forms (itsdangerous, with the app's
    secret), bound to the learner: another learner's request, or a changed byte, gets
    nothing from it (:func:`launch_from_token`)."""
    signer = URLSafeTimedSerializer(secret, salt=LAUNCH_SALT)
    return signer.dumps({"launch": launch.to_session(), "learner": learner_id})


def launch_from_token(secret: str, token: str, learner_id: str | None) -> GradedLaunch | None:
    """The launch of :func:`launch_token`'s ``token`` when it is genuine, younger than
    :data:`LAUNCH_MAX_AGE_S` and signed for ``learner_id``; else ``None``."""
    if not token or learner_id is None:
        return None
    try:
        data = URLSafeTimedSerializer(secret, salt=LAUNCH_SALT).loads(
            token, max_age=LAUNCH_MAX_AGE_S
        )
    except BadData:
        return None
    if not isinstance(data, dict) or data.get("learner") != learner_id:
        return None
    return GradedLaunch.from_session(data.get("launch"))


def session_launches(data: Any) -> list[GradedLaunch]:
    """The launches kept in the session's :data:`SESSION_KEY` (oldest first)."""
    found = data if isinstance(data, list) else [data]
    return [launch for item in found if (launch := GradedLaunch.from_session(item)) is not None]


def with_launch(data: Any, launch: GradedLaunch) -> list[dict[str, Any]]:
    """The session's launches with ``launch`` added (one per gradebook column, the newest
    :data:`SESSION_LAUNCHES`): what :data:`SESSION_KEY` keeps next."""
    kept = [old for old in session_launches(data) if old.target != launch.target]
    return [item.to_session() for item in [*kept, launch][-SESSION_LAUNCHES:]]


def score_orders(
    launches: Sequence[GradedLaunch], course: Course, lesson: Lesson
) -> tuple[ScoreOrder, ...]:
    """The scores an answer in ``lesson`` queues: one per launch of that lesson."""
    return tuple(
        score_order(launch, course, lesson)
        for launch in launches
        if launch.lesson_slug == lesson.slug
    )


def link_to_account(db: Session, platform_id: int, sub: str, target: Account) -> None:
    """Make the LMS person ``sub`` the course account ``target`` from now on (the person
    proved it with the account's password): their progress, classes and class staff move
    there, and the account made for them on their first launch goes. Committed.
    """
    user = db.get(LtiUser, (platform_id, sub))
    if user is None or user.account_id == target.id:
        return
    assert target.id is not None  # a stored account
    old_learner, old_account = user.learner_id, db.get(Account, user.account_id)
    begin_write(db)
    for member in db.exec(select(ClassMember).where(ClassMember.learner_id == old_learner)).all():
        if db.get(ClassMember, (member.class_id, target.learner_id)) is None:
            db.add(ClassMember(class_id=member.class_id, learner_id=target.learner_id))
    if old_account is not None:
        staff = db.exec(select(ClassStaff).where(ClassStaff.account_id == old_account.id)).all()
        for row in staff:
            if db.get(ClassStaff, (row.class_id, target.id)) is None:
                db.add(ClassStaff(class_id=row.class_id, account_id=target.id))
    user.learner_id, user.account_id = target.learner_id, target.id
    db.add(user)
    db.exec(
        update(LtiScore)
        .where(col(LtiScore.learner_id) == old_learner)
        .values(learner_id=target.learner_id)
    )
    db.flush()
    if old_account is not None:
        db.delete(old_account)
    db.commit()
    merge_learner(db, old_learner, target.learner_id, None)
