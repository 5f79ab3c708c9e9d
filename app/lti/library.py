"""pylti1p3 (the ``pylti1p3next`` package) wired to the course's tables.

- :class:`ToolConf`: registrations and deployments from ``lti_platform`` / ``lti_deployment``,
  signed with the tool's newest key (``lti_key``); only registered issuers, client ids and
  deployments are accepted.
- :class:`DatabaseStorage`: the library's launch data, OIDC state, nonces and the platforms'
  key sets in ``lti_state`` (the launch POST comes from the LMS, without the course's cookies).
- :class:`OnceSessionService`: a login's nonce is kept for minutes (:data:`LOGIN_LIFETIME_S`)
  and accepted once. The library only checks that a nonce exists, so a replayed id_token +
  state was accepted again until the token expired; :func:`use_nonce` marks it used when a
  launch is accepted, and keeps it so until the token's ``exp``.
- :class:`CourseMessageLaunch`: the id_token is checked as the IMS Security Framework says
  (``exp`` and ``iat`` required; ``exp``, ``iat`` and ``nbf`` with :data:`CLOCK_LEEWAY_S` of
  leeway, for a platform whose clock runs a little ahead or behind), and key fetches are
  bounded: the platform's key set is kept as its ``Cache-Control`` says, fetched again at most
  once a minute on an unknown ``kid``, and never dropped by a bad token.
- :class:`CachingServiceConnector`: access tokens kept in ``lti_state`` until they expire.

Everything here does blocking HTTP (the platform's JWKS and token endpoint): call it from the
threadpool or a thread, never on the event loop. It reads and writes through the session it is
given (a route's, from :data:`app.web.deps.SessionDep`, or the score sender's), and ends the
session's transaction after each step (:func:`_step`), so no connection is held while the
library waits for the platform.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
import requests
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException, LtiKeyException, LtiMessageValidationException
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.registration import Registration
from pylti1p3.request import Request
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.session import SessionService
from pylti1p3.tool_config.abstract import ToolConfAbstract
from requests.utils import parse_dict_header
from sqlmodel import Session

from app.lti.tool import (
    TOKEN_STATE_PREFIX,
    find_platform,
    has_deployment,
    signing_key,
    state_claim,
    state_consume,
    state_get,
    state_set,
    state_use,
)
from app.platform.models import LtiPlatform

NONCE_PREFIX = "lti1p3-nonce-"
TOKEN_PREFIX = TOKEN_STATE_PREFIX
KEYSET_LIFETIME_S = 2 * 3600  # a platform's key set without Cache-Control
KEYSET_MAX_S = 86400  # ...and with the longest Cache-Control honoured
REFETCH_EVERY_S = 60  # at most one fetch per platform this often, for an unknown kid
KEYSET_PREFIX = "key-set-url-"  # + md5 of the URL, the library's own cache key
REFETCH_PREFIX = "key-set-fetched-"
LOGIN_LIFETIME_S = 600  # a login's nonce and parameters, until its launch comes
HTTP_TIMEOUT_S = 10
# The IMS Security Framework allows some leeway for the clocks of platform and tool.
CLOCK_LEEWAY_S = 60
REQUIRED_CLAIMS = ["exp", "iat"]
# A used nonce is kept until its token's exp, and never longer than this.
MAX_NONCE_KEPT = timedelta(days=1)


@contextmanager
def _step(db: Session) -> Iterator[Session]:
    """One step of the library on ``db``: its transaction ends with the step (what ``lti``'s
    functions wrote is committed by them; a read is let go), and the connection goes back to
    the pool before the library's next HTTP call."""
    try:
        yield db
    finally:
        db.rollback()


def registration_of(
    platform: LtiPlatform, private_pem: str, public_jwk: dict[str, Any]
) -> Registration:
    """The library's registration of ``platform``, signing with the given key."""
    registration = KeyedRegistration(public_jwk)
    registration.set_issuer(platform.issuer)
    registration.set_client_id(platform.client_id)
    registration.set_auth_login_url(platform.auth_url)
    registration.set_auth_token_url(platform.token_url)
    registration.set_key_set_url(platform.jwks_url)
    registration.set_tool_private_key(private_pem)
    return registration


class KeyedRegistration(Registration):
    """A registration whose ``kid`` and JWK are the stored key's (no PEM parsing per call)."""

    def __init__(self, public_jwk: dict[str, Any]) -> None:
        super().__init__()
        self._public_jwk = public_jwk

    def get_kid(self) -> str | None:
        """The signing key's id."""
        return str(self._public_jwk["kid"])

    def get_jwks(self) -> list[Mapping[str, Any]]:
        """The signing key's public JWK."""
        return [self._public_jwk]


class ToolConf(ToolConfAbstract[Request]):
    """Registrations and deployments read from the database on each call."""

    def __init__(self, db: Session) -> None:
        super().__init__()
        self.db = db

    def check_iss_has_one_client(self, iss: str) -> bool:
        """Never: an issuer may register several client ids."""
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        """Always (see :meth:`check_iss_has_one_client`)."""
        return True

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration:
        """The issuer's first registration."""
        return self.find_registration_by_params(iss, None)

    def find_registration_by_params(
        self, iss: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Registration:
        """The registration of ``iss`` and ``client_id``; :class:`LtiException` when unknown."""
        with _step(self.db) as db:
            platform = find_platform(db, iss, client_id)
            if platform is None:
                raise LtiException("Unregistered issuer or client id")
            key = signing_key(db)
            return registration_of(platform, key.private_pem, json.loads(key.public_jwk))

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        """The deployment, for any client id of ``iss``."""
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Deployment | None:
        """The deployment when it is registered for that issuer and client id, else ``None``."""
        with _step(self.db) as db:
            platform = find_platform(db, iss, client_id)
            if platform is None or not has_deployment(db, platform, deployment_id):
                return None
        return Deployment().set_deployment_id(deployment_id)


class DatabaseStorage(LaunchDataStorage[Any]):
    """The library's key-value storage in the ``lti_state`` table."""

    def __init__(self, db: Session) -> None:
        super().__init__()
        self.db = db

    def get_session_cookie_name(self) -> None:
        """No cookie of its own: keys are random (state, nonce, launch id)."""
        return None

    def can_set_keys_expiration(self) -> bool:
        """Every key expires."""
        return True

    def get_value(self, key: str) -> Any:
        """The value under ``key``, or ``None``."""
        with _step(self.db) as db:
            return state_get(db, key)

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        """Keep ``value`` for ``exp`` seconds (a day by default)."""
        with _step(self.db) as db:
            state_set(db, key, value, exp or 86400)

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None


class OnceSessionService(SessionService):
    """The library's session service over :class:`DatabaseStorage`; a used nonce (kept until
    its token expires, :func:`use_nonce`) does not pass :meth:`check_nonce`."""

    def __init__(self, request: Request, storage: DatabaseStorage) -> None:
        super().__init__(request)
        self.set_data_storage(storage)

    def save_nonce(self, nonce: str) -> None:
        """Keep a login's nonce for :data:`LOGIN_LIFETIME_S` (the library's default: a day)."""
        self.data_storage.set_value(self._get_key("nonce", nonce), True, exp=LOGIN_LIFETIME_S)

    def check_nonce(self, nonce: str) -> bool:
        """True for a nonce issued by the login and not used yet."""
        return self.data_storage.get_value(self._get_key("nonce", nonce)) is True


def use_nonce(db: Session, nonce: str, exp: Any) -> bool:
    """Use a launch's nonce up, keeping it (as used) until its token's ``exp`` plus the leeway
    (at most :data:`MAX_NONCE_KEPT`); False when it was already used (a replay), never issued
    or expired."""
    now = datetime.now(UTC)
    until = now + MAX_NONCE_KEPT
    if isinstance(exp, int | float) and not isinstance(exp, bool):
        expires = datetime.fromtimestamp(exp, UTC) + timedelta(seconds=CLOCK_LEEWAY_S)
        until = min(until, max(expires, now))
    with _step(db):
        return state_use(db, NONCE_PREFIX + nonce, until)


class CachingServiceConnector(ServiceConnector):
    """Access tokens kept in ``lti_state`` until shortly before they expire."""

    db: Session | None = None  # where tokens are kept; none: not kept

    def _token_key(self, scope_key: str) -> str:
        return TOKEN_PREFIX + scope_key

    def _get_cached_access_token(self, scope_key: str) -> str | None:
        if self.db is None:
            return None
        with _step(self.db) as db:
            token = state_get(db, self._token_key(scope_key))
        return token if isinstance(token, str) else None

    def _cache_access_token(self, scope_key: str, access_token: str, expires_in: float) -> None:
        if self.db is None or expires_in <= 60:
            return
        with _step(self.db) as db:
            state_set(db, self._token_key(scope_key), access_token, int(expires_in) - 60)

    def forget_tokens(self, scopes: list[str]) -> None:
        """Drop the cached token of ``scopes`` (after a 401: the next call asks for a new one)."""
        if self.db is not None:
            with _step(self.db) as db:
                state_consume(db, self._token_key(self._scope_key(sorted(scopes))))


def connector(db: Session, registration: Registration) -> CachingServiceConnector:
    """A service connector for ``registration`` with a timeout on every request, keeping its
    access tokens through ``db``."""
    session = requests.Session()
    # requests has no per-session timeout; the library calls session.request without one, so
    # the bound method is replaced (mypy forbids assigning to a method, hence the ignore).
    session.request = _with_timeout(session.request)  # type: ignore[method-assign]
    found = CachingServiceConnector(registration, requests_session=session)
    found.db = db
    return found


def _with_timeout(send: Any) -> Any:
    def request(method: str, url: str, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", HTTP_TIMEOUT_S)
        return send(method, url, **kwargs)

    return request


def keyset_lifetime(cache_control: str | None) -> int:
    """How long to keep a platform's key set, in seconds, from its answer's ``Cache-Control``:
    ``max-age`` (or ``s-maxage``) within [:data:`REFETCH_EVERY_S`, :data:`KEYSET_MAX_S`];
    ``no-store`` / ``no-cache``: :data:`REFETCH_EVERY_S`; none: :data:`KEYSET_LIFETIME_S`."""
    if not cache_control:
        return KEYSET_LIFETIME_S
    directives = {name.lower(): value for name, value in parse_dict_header(cache_control).items()}
    if "no-store" in directives or "no-cache" in directives:
        return REFETCH_EVERY_S
    for name in ("s-maxage", "max-age"):
        value = str(directives.get(name) or "")
        if value.isascii() and value.isdigit():
            return min(max(int(value), REFETCH_EVERY_S), KEYSET_MAX_S)
    return KEYSET_LIFETIME_S


class CourseMessageLaunch(MessageLaunch[Any, Any, Any, Any]):
    """A message launch whose platform key set is fetched a bounded number of times.

    The key set is cached in :class:`DatabaseStorage` for as long as its ``Cache-Control``
    says (:func:`keyset_lifetime`). A token whose ``kid`` is not in it (the platform rotated
    its keys, or a forged token) fetches it again at most once per platform per
    :data:`REFETCH_EVERY_S`, for every worker (:func:`app.lti.tool.state_claim`); a fetch
    that fails, or a bad token, leaves the cached set as it was.
    """

    db: Session  # the launch request's session, set after the library builds the launch
    # The state the course's page found in the LMS's storage (LTI Platform Storage), which
    # then stands for the state cookie; ``None``: the cookie is checked.
    state_in_platform_storage: str | None = None

    def _get_request_param(self, key: str) -> str:
        return str(self._request.get_param(key) or "")

    def validate_state(self) -> CourseMessageLaunch:
        """The library's check of the ``state`` against its cookie, unless the state was
        checked in the LMS's storage (:attr:`state_in_platform_storage`).

        Raises:
            LtiMessageValidationException: no state, or not the one the login set.
        """
        if self.state_in_platform_storage:
            if self._get_request_param("state") != self.state_in_platform_storage:
                raise LtiMessageValidationException("State not found")
            return self
        super().validate_state()
        return self

    def validate_jwt_signature(self) -> CourseMessageLaunch:
        """Check the id_token's signature, and its ``exp``, ``iat`` (both required) and
        ``nbf`` with :data:`CLOCK_LEEWAY_S` seconds of leeway.

        Raises:
            LtiMessageValidationException: the token is not valid.
        """
        public_key, key_alg = self.get_public_key()
        try:
            jwt.decode(
                self._get_id_token(),
                public_key,
                algorithms=[key_alg],
                leeway=CLOCK_LEEWAY_S,
                options={"verify_aud": False, "require": REQUIRED_CLAIMS},
            )
        except jwt.InvalidTokenError as exc:
            raise LtiMessageValidationException(f"Can't decode id_token: {exc}") from exc
        return self

    def get_public_key(self) -> tuple[Any, str]:
        """The key that signed the id_token, and its algorithm.

        Raises:
            LtiKeyException: no ``kid`` or ``alg``, the key set cannot be fetched, or it has no
                such key (also when it was fetched again less than a minute ago).
        """
        assert self._registration is not None  # validate_registration ran before
        header = self._jwt.get("header", {})
        kid, alg = header.get("kid"), header.get("alg")
        if not kid or not alg:
            raise LtiKeyException("JWT KID or ALG not found")
        url = self._registration.get_key_set_url() or ""
        if not url.startswith(("http://", "https://")):
            raise LtiKeyException("The public key set URL is invalid: " + url)
        digest = hashlib.md5(url.encode("utf-8")).hexdigest()
        with _step(self.db) as db:
            cached = state_get(db, KEYSET_PREFIX + digest)
        if isinstance(cached, dict):
            found = _key_in(cached, kid, alg)
            if found is not None:
                return found
            with _step(self.db) as db:
                if not state_claim(db, REFETCH_PREFIX + digest, REFETCH_EVERY_S):
                    raise LtiKeyException(
                        "Unable to find public key (the platform's keys were fetched again "
                        "less than a minute ago)"
                    )
        found = _key_in(self._fetch_key_set(url, digest), kid, alg)
        if found is None:
            raise LtiKeyException("Unable to find public key")
        return found

    def _fetch_key_set(self, url: str, digest: str) -> dict[str, Any]:
        """Fetch the platform's key set and keep it (only a valid one replaces the cache)."""
        try:
            answer = self._requests_session.get(url, timeout=HTTP_TIMEOUT_S)
            keyset = answer.json() if answer.status_code == 200 else None
        except (requests.RequestException, ValueError) as exc:
            raise LtiKeyException(f"Error while fetching the public key URL {url}: {exc}") from exc
        if not isinstance(keyset, dict) or not isinstance(keyset.get("keys"), list):
            raise LtiKeyException(f"The public key URL {url} gave no key set")
        lifetime = keyset_lifetime(answer.headers.get("Cache-Control"))
        with _step(self.db) as db:
            state_set(db, KEYSET_PREFIX + digest, keyset, lifetime)
            # whichever way it was fetched, an unknown kid waits a minute for the next fetch
            state_set(db, REFETCH_PREFIX + digest, True, REFETCH_EVERY_S)
        return keyset


def _key_in(keyset: dict[str, Any], kid: str, alg: str) -> tuple[Any, str] | None:
    """The public key ``kid`` of ``keyset`` (its ``alg`` defaults to RS256) and its algorithm,
    or ``None``."""
    for key in keyset.get("keys") or []:
        if not isinstance(key, dict) or key.get("kid") != kid:
            continue
        if key.get("alg", "RS256") != alg:
            continue
        try:
            return jwt.PyJWK(key, algorithm=alg).key, alg
        except jwt.PyJWTError as exc:
            raise LtiKeyException("Can't read the platform's JWT key") from exc
    return None
