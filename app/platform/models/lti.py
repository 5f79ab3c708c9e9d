"""LTI 1.3: the platforms (LMSs), their deployments, users and courses, the tool's keys and
state, and the scores waiting to be sent."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, Index, SQLModel, UniqueConstraint

from app.platform.models.base import table, utcnow


class LtiPlatform(SQLModel, table=True):
    """An LMS registered as an LTI 1.3 platform (``curso lti registrar``, ``/instrutor/lti``).

    Attributes:
        issuer / client_id: who signs launches (``iss``) and the tool's id there (``aud``).
        auth_url: the platform's OIDC authorization endpoint.
        token_url: its OAuth 2 token endpoint (grades are posted with its tokens).
        jwks_url: its public keys (launches are verified against them).
        confirmed_at: when a site admin confirmed it (UTC), ``None`` until then. Only a
            confirmed platform launches the course, frames its pages and receives its forms
            (its origin enters the CSP); registering it from the command line confirms it.
    """

    __tablename__ = "lti_platform"
    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platform"),)

    id: int | None = Field(default=None, primary_key=True)
    issuer: str = Field(max_length=255)
    client_id: str = Field(max_length=255)
    auth_url: str = Field(max_length=1000)
    token_url: str = Field(max_length=1000)
    jwks_url: str = Field(max_length=1000)
    created_at: datetime = Field(default_factory=utcnow)
    confirmed_at: datetime | None = None


class LtiDeployment(SQLModel, table=True):
    """A deployment of the tool on a platform (a platform can have several)."""

    __tablename__ = "lti_deployment"

    platform_id: int = Field(foreign_key="lti_platform.id", ondelete="CASCADE", primary_key=True)
    deployment_id: str = Field(max_length=255, primary_key=True)


class LtiKey(SQLModel, table=True):
    """The tool's RSA key pair (``curso lti chaves`` makes a new one).

    Attributes:
        kid: the key id published in ``/lti/jwks.json``.
        private_pem: the private key, PEM.
        public_jwk: the public key as a JWK (JSON).
        created_at: UTC; the newest key signs.
        retired_at: when a newer key replaced it, UTC; it stays in the JWKS for the rotation
            window, then leaves it.
    """

    __tablename__ = "lti_key"

    kid: str = Field(primary_key=True, max_length=64)
    private_pem: str = Field(sa_type=sa.Text)
    public_jwk: str = Field(sa_type=sa.Text)
    created_at: datetime = Field(default_factory=utcnow)
    retired_at: datetime | None = None


class LtiState(SQLModel, table=True):
    """What the LTI library keeps between requests (OIDC state, nonces, launches, tokens).

    Kept in the database, not in a cookie's session: the launch arrives as a POST from the
    LMS, where the course's ``SameSite=Lax`` cookies are not sent. A login's nonce lives
    10 minutes; when its launch is accepted it is marked used (value ``"used"``) and kept
    until the token's ``exp``, so an id_token is accepted once. Also the platforms' key sets
    (``key-set-url-*``, as long as their ``Cache-Control`` says) and the minute between two
    fetches of one on an unknown ``kid`` (``key-set-fetched-*``).
    """

    __tablename__ = "lti_state"

    key: str = Field(primary_key=True, max_length=255)
    value: str = Field(sa_type=sa.Text)
    expires_at: datetime = Field(index=True)


class LtiUser(SQLModel, table=True):
    """A person of a platform (``iss`` + ``sub``) and the course learner and account they are."""

    __tablename__ = "lti_user"

    platform_id: int = Field(foreign_key="lti_platform.id", ondelete="CASCADE", primary_key=True)
    sub: str = Field(max_length=255, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE")
    name: str = Field(default="", max_length=255)
    created_at: datetime = Field(default_factory=utcnow)


class LtiContext(SQLModel, table=True):
    """An LMS course (context) and the class (turma) made for it on its first launch."""

    __tablename__ = "lti_context"

    platform_id: int = Field(foreign_key="lti_platform.id", ondelete="CASCADE", primary_key=True)
    context_id: str = Field(max_length=255, primary_key=True)
    class_id: int = Field(foreign_key="classroom.id", ondelete="CASCADE")


class LtiScore(SQLModel, table=True):
    """The newest score of one learner in one gradebook column (LTI AGS): waiting to be sent,
    or sent. One row per column and LMS user (``target``, ``user_sub``); a newer answer
    overwrites it (an older one never does), so the gradebook only ever gets newer scores.

    Attributes:
        target: the column: a hash of the platform, ``lineitem_url`` (or ``lineitems_url``,
            ``resource_link_id`` and ``lesson_slug`` when the launch named no line item), as
            the launch gave them (:func:`app.lti.launch.score_target`).
        platform_id / class_id: where it goes, and the class of the LMS course.
        learner_id / user_sub: whose score, in the course and on the platform.
        lineitem_url: the gradebook column, when the launch named it (or once it was found);
            else it is found or made under ``lineitems_url`` by ``resource_link_id`` and
            ``lesson_slug``.
        score_given / score_maximum / comment / activity_progress / grading_progress: the
            AGS score.
        answered_at: when the answer that produced this score was given: the AGS timestamp.
        status: ``pending`` (to send; ``last_error`` says why the last try failed), ``sent``,
            ``superseded`` (the platform holds a newer score: its 409) or ``failed`` (refused
            by the platform :data:`app.lti.scores.MAX_REFUSALS` times; not retried until a
            newer answer).
        tries / next_try_at: tries of this score, retried with exponential backoff.
        claim / claimed_until: the sender that took the row to send it, and until when
            (another sender skips it meanwhile); ``""`` when free.
    """

    __tablename__ = "lti_score"
    __table_args__ = (
        Index("ix_lti_score_status_next", "status", "next_try_at"),
        UniqueConstraint("target", "user_sub", name="uq_lti_score_column"),
    )

    id: int | None = Field(default=None, primary_key=True)
    target: str = Field(max_length=64)
    platform_id: int = Field(foreign_key="lti_platform.id", ondelete="CASCADE")
    class_id: int | None = Field(default=None, foreign_key="classroom.id", ondelete="SET NULL")
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32)
    user_sub: str = Field(max_length=255)
    lineitem_url: str = Field(default="", max_length=1000)
    lineitems_url: str = Field(default="", max_length=1000)
    resource_link_id: str = Field(default="", max_length=255)
    lesson_slug: str = Field(max_length=100)
    lesson_title: str = Field(default="", max_length=255)
    score_given: float
    score_maximum: float
    comment: str = Field(default="", max_length=1000)
    activity_progress: str = Field(max_length=20)
    grading_progress: str = Field(max_length=20)
    created_at: datetime = Field(default_factory=utcnow)
    answered_at: datetime = Field(default_factory=utcnow)
    status: str = Field(default="pending", max_length=10)
    tries: int = 0
    next_try_at: datetime = Field(default_factory=utcnow)
    last_error: str = Field(default="", max_length=1000)
    sent_at: datetime | None = None
    claim: str = Field(default="", max_length=32)
    claimed_until: datetime | None = None


# The Core tables, for SQLAlchemy Core statements (the score queue's upsert in app/lti/scores.py,
# the state's claim in app/lti/tool.py).
LTI_SCORE = table(LtiScore)
LTI_STATE = table(LtiState)
