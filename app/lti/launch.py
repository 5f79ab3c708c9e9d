"""An LTI launch: who it signs in (learner, account, the class of the LMS course), where its
scores go (a graded launch, kept in the session and signed into a page's forms), and linking
the LMS person to a course account made here (no HTTP here).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from itsdangerous import BadData, URLSafeTimedSerializer
from sqlalchemy import func, update
from sqlmodel import Session, col, select

from app.i18n import gettext
from app.learning.learners import merge_learner
from app.lti.tool import find_platform
from app.platform.auth import LTI_ACCOUNT_PREFIX
from app.platform.db import begin_write
from app.platform.models import (
    Account,
    ClassMember,
    Classroom,
    ClassStaff,
    Learner,
    LtiContext,
    LtiPlatform,
    LtiScore,
    LtiUser,
)

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
LAUNCHES_KEY = "lti"  # the session's resource launches with grades (GradedLaunch dicts)
SESSION_LAUNCHES = 20  # the newest launches a session keeps
LAUNCH_SALT = "curso-lancamento-lti"
LAUNCH_MAX_AGE_S = 7 * 24 * 3600  # a launched page's forms grade for its launch this long


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
            username=f"{LTI_ACCOUNT_PREFIX}{secrets.token_hex(8)}",
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
    """The launches kept in the session's :data:`LAUNCHES_KEY` (oldest first)."""
    found = data if isinstance(data, list) else [data]
    return [launch for item in found if (launch := GradedLaunch.from_session(item)) is not None]


def with_launch(data: Any, launch: GradedLaunch) -> list[dict[str, Any]]:
    """The session's launches with ``launch`` added (one per gradebook column, the newest
    :data:`SESSION_LAUNCHES`): what :data:`LAUNCHES_KEY` keeps next."""
    kept = [old for old in session_launches(data) if old.target != launch.target]
    return [item.to_session() for item in [*kept, launch][-SESSION_LAUNCHES:]]


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
