"""The course as an LTI 1.3 tool: the registered platforms (LMSs) and their confirmation, the
tool's keys, the LTI library's state, and the LMS origins that may frame the pages (no HTTP
here).

The LTI library (``pylti1p3``) is wired to these tables in :mod:`app.lti.library`; who a launch
signs in is :mod:`app.lti.launch`; the grades, :mod:`app.lti.scores` and :mod:`app.lti.sender`;
the routes are in :mod:`app.web.routes.lti`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pylti1p3.registration import Registration
from sqlalchemy import ColumnElement, Engine, delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from app.i18n import N_, gettext
from app.platform.db import begin_write
from app.platform.models import (
    LTI_STATE,
    LtiDeployment,
    LtiKey,
    LtiPlatform,
    LtiState,
    table,
    utcnow,
)

# A retired key stays in the JWKS this long, so platforms that cached it still verify.
ROTATION_WINDOW = timedelta(days=2)
KEY_BITS = 2048
TOKEN_STATE_PREFIX = "lti1p3-token-"
USED = json.dumps("used")  # the value of a nonce whose launch was accepted


# --- platforms and keys -------------------------------------------------------------------

BAD_URL = N_("Write a full address starting with https:// or http://.")
MISSING_FIELD = N_("Fill in every field.")


def _length(column: ColumnElement[str]) -> int:
    """A string column's length, in characters, as the model declares it."""
    length = getattr(column.type, "length", None)  # String's, and SQLModel's AutoString's
    if not isinstance(length, int):
        raise TypeError(f"{column} has no length")
    return length


# The length of the issuer's, the client id's and a deployment id's columns.
ID_MAX = min(
    _length(column)
    for column in (
        table(LtiPlatform).c.issuer,
        table(LtiPlatform).c.client_id,
        table(LtiDeployment).c.deployment_id,
    )
)
LONG_ID = N_(
    "The platform ID, the client ID and each deployment ID have at most %(max)s characters."
)


class PlatformRefused(ValueError):
    """A registration the course refuses; ``str(exc)`` is the message in Portuguese.

    Attributes:
        field: the first field to fix (``issuer``, ``client_id``, ``deployment_id``,
            ``auth_url``, ``token_url`` or ``jwks_url``).
    """

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


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
    """Register a platform, or update its URLs and add deployments; committed. The web form
    and ``curso lti registrar`` both come here, so both refuse the same things.

    A new platform waits for a site admin's confirmation (:func:`confirm_platform`) unless
    ``confirmed`` (the command line, run by whoever runs the server); an update that moves its
    authentication URL to another origin waits again. Every value is trimmed first.

    Args:
        deployment_ids: each one or more comma-separated ids (a form field, or a repeated
            command option).

    Returns:
        The platform and whether it is new.

    Raises:
        PlatformRefused: a field is empty (deployment ids of only commas and spaces too), a URL
            is not a web address (:func:`is_web_address`, which keeps the CSP header whole), or
            an id is longer than its column (:data:`ID_MAX`). Nothing is stored.
    """
    fields = {
        "issuer": issuer.strip(),
        "client_id": client_id.strip(),
        "deployment_id": ",".join(deployment_ids),
        "auth_url": auth_url.strip(),
        "token_url": token_url.strip(),
        "jwks_url": jwks_url.strip(),
    }
    deployments = [d.strip() for d in fields["deployment_id"].split(",") if d.strip()]
    fields["deployment_id"] = ",".join(deployments)
    for name, value in fields.items():
        if not value:
            raise PlatformRefused(gettext(MISSING_FIELD), name)
    for name in ("auth_url", "token_url", "jwks_url"):
        if not is_web_address(fields[name]):
            raise PlatformRefused(gettext(BAD_URL), name)
    for name, values in (
        ("issuer", [fields["issuer"]]),
        ("client_id", [fields["client_id"]]),
        ("deployment_id", deployments),
    ):
        if max(map(len, values)) > ID_MAX:
            raise PlatformRefused(gettext(LONG_ID) % {"max": ID_MAX}, name)
    issuer, client_id = fields["issuer"], fields["client_id"]
    auth_url, token_url, jwks_url = fields["auth_url"], fields["token_url"], fields["jwks_url"]
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
    for deployment_id in deployments:
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
