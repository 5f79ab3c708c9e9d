"""Sign-in rules: usernames, passwords (argon2 via pwdlib), known devices and the limits.

No HTTP and no database here: the web layer calls these with plain values.
"""

from __future__ import annotations

import ipaddress
import math
import re
import secrets
import threading
import time
import unicodedata
from dataclasses import dataclass
from functools import cached_property

from itsdangerous import BadData, URLSafeTimedSerializer
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from app.i18n import gettext, ngettext

USERNAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{2,29}$")
PASSWORD_MIN = 8
PASSWORD_MAX = 200
FAILS_PER_PAIR = "5 per 15 minutes"
FAILS_PER_IP = "20 per 15 minutes"
FAILS_PER_USERNAME = "50 per 15 minutes"
FAILS_PER_DEVICE = "5 per 15 minutes"
SIGN_UPS_PER_IP = "20 per hour"
# LMS logins (``/lti/login``, each keeps a nonce for minutes): a class behind one address
# opening the activity at once fits.
LTI_LOGINS_PER_IP = "120 per minute"
DEVICE_COOKIE_MAX_AGE_S = 180 * 24 * 3600
SCOPE = "entrar"  # the first identifier of every sign-in and sign-up counter's key
IPV6_CLIENT_PREFIX = 64
# Argon2id as OWASP's Password Storage Cheat Sheet configures it at the least: 19 MiB of memory
# (19,456 KiB), 2 iterations, 1 degree of parallelism. pwdlib's default (argon2-cffi's, RFC 9106's
# low-memory profile: 64 MiB, 3 iterations, 4 lanes) spent about 190 ms of CPU per check, most of
# a sign-in; this one about 25 ms. A hash stored with other parameters is rewritten with these at
# its next right sign-in (:attr:`PasswordCheck.new_hash`).
ARGON2_MEMORY_KIB = 19_456
ARGON2_TIME_COST = 2
ARGON2_PARALLELISM = 1


class CredentialsError(ValueError):
    """A username or password that breaks the rules; ``str(exc)`` is the message in Portuguese.

    Attributes:
        field: what to fix, ``username``, ``password`` or ``confirmation`` (the form puts the
            cursor there).
    """

    def __init__(self, message: str, field: str = "password") -> None:
        super().__init__(message)
        self.field = field


# The accounts the course makes for LMS people (app.lti.launch) are named with this prefix and
# a random suffix; nobody signs up with it, so a name with it is always one of those, and
# /lti/vincular never links one.
LTI_ACCOUNT_PREFIX = "lti-"


def clean_username(raw: str) -> str:
    """Return the username as stored: trimmed and lower-case.

    Raises:
        CredentialsError: it is not 3 to 30 of ``a-z``, ``0-9``, ``.``, ``_``, ``-``,
            starting with a letter or digit, or it starts with :data:`LTI_ACCOUNT_PREFIX`.
    """
    name = raw.strip().lower()
    if not USERNAME_RE.match(name):
        raise CredentialsError(
            gettext(
                "The username must have 3 to 30 characters: unaccented letters, digits, "
                "dot, hyphen or underscore, starting with a letter or digit."
            ),
            field="username",
        )
    if name.startswith(LTI_ACCOUNT_PREFIX):
        raise CredentialsError(
            gettext("Usernames starting with %(prefix)s are kept for people who come from an LMS.")
            % {"prefix": LTI_ACCOUNT_PREFIX},
            field="username",
        )
    return name


def is_username(name: str) -> bool:
    """True when ``name`` (already trimmed and lower-case) is a username an account can have."""
    return USERNAME_RE.match(name) is not None


def client_key(host: str) -> str:
    """The client a per-IP limit counts: the IPv4 address, or the IPv6 /64 network.

    One IPv6 subscriber usually gets a whole /64, so counting single addresses would give
    them billions of fresh limits. Anything that is not an IP address is used as it is.
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False))
    return str(address)


def normalize_password(password: str) -> str:
    """Return ``password`` in Unicode NFKC, the form every password is hashed and compared in.

    The same visible text can arrive as different code points: "é" precomposed (NFC) or as
    "e" plus a combining accent (NFD, as macOS text and some keyboards and password managers
    send it). NIST SP 800-63B, section 5.1.1.2, advises NFKC (or NFKD) normalisation of
    Unicode secrets before hashing.
    """
    return unicodedata.normalize("NFKC", password)


def check_new_password(password: str, confirmation: str) -> None:
    """Check a password chosen at sign-up (or a new one), in its NFKC form.

    Raises:
        CredentialsError: too short, too long, or different from its confirmation.
    """
    password, confirmation = normalize_password(password), normalize_password(confirmation)
    if len(password) < PASSWORD_MIN:
        message = gettext("The password needs at least %(num)s characters.")
        raise CredentialsError(message % {"num": PASSWORD_MIN})
    if len(password) > PASSWORD_MAX:
        message = gettext("The password may have at most %(num)s characters.")
        raise CredentialsError(message % {"num": PASSWORD_MAX})
    if password != confirmation:
        message = gettext("The confirmation does not match the password.")
        raise CredentialsError(message, field="confirmation")


@dataclass(frozen=True)
class PasswordCheck:
    """The outcome of checking a password against an account's hash.

    Attributes:
        new_hash: a hash to store in place of the old one (the old hash was made from the
            password before NFKC normalisation, or with other parameters than
            :func:`argon2_hasher`'s), else ``None``.
    """

    matched: bool
    new_hash: str | None = None


def argon2_hasher() -> PasswordHash:
    """pwdlib's argon2id with OWASP's parameters (:data:`ARGON2_MEMORY_KIB` and the rest)."""
    return PasswordHash(
        (
            Argon2Hasher(
                time_cost=ARGON2_TIME_COST,
                memory_cost=ARGON2_MEMORY_KIB,
                parallelism=ARGON2_PARALLELISM,
            ),
        )
    )


class Passwords:
    """Argon2id hashing (:func:`argon2_hasher`) of NFKC-normalised passwords.

    :meth:`check` against a missing account still spends the same argon2 checks, so the
    time taken does not tell whether a username exists.
    """

    def __init__(self) -> None:
        self._hasher = argon2_hasher()

    @cached_property
    def _dummy(self) -> str:
        return self._hasher.hash("senha-que-ninguem-usa")

    def hash(self, password: str) -> str:
        """Return the argon2 hash (PHC string) of ``password`` in NFKC.

        The password is normalised first (:func:`normalize_password`).
        """
        return self._hasher.hash(normalize_password(password))

    def check(self, password: str, password_hash: str | None) -> PasswordCheck:
        """Check ``password`` against ``password_hash``; never a match for ``None``.

        The NFKC form is checked first. Hashes made before passwords were normalised hold the
        raw text, so when that fails and the raw text differs, the raw text is tried once;
        when it matches, :attr:`PasswordCheck.new_hash` holds the NFKC hash to store instead.

        Args:
            password: the password as typed (at most :data:`PASSWORD_MAX` characters are used).
            password_hash: the account's stored hash, or ``None`` when there is no account.

        Returns:
            Whether it matched, and the hash to store when the stored one should be replaced.
        """
        raw = password[:PASSWORD_MAX]
        normalized = normalize_password(raw)
        stored = password_hash or self._dummy
        matched, updated = self._hasher.verify_and_update(normalized, stored)
        if matched:
            return PasswordCheck(password_hash is not None, updated if password_hash else None)
        if raw != normalized and self._hasher.verify(raw, stored) and password_hash is not None:
            return PasswordCheck(True, self._hasher.hash(normalized))
        return PasswordCheck(False)

    def verify(self, password: str, password_hash: str | None) -> bool:
        """True when ``password`` matches ``password_hash`` (:meth:`check`); never for ``None``."""
        return self.check(password, password_hash).matched


SIGN_IN, SIGN_UP, LTI_LOGIN = "sign_in", "sign_up", "lti_login"  # what a limit refused


@dataclass(frozen=True)
class Blocked:
    """A sign-in, sign-up or LMS login refused by a limit; ``message`` is in Portuguese.

    Attributes:
        retry_after_s: seconds until the limit's window ends (at least 1).
        kind: what was refused: :data:`SIGN_IN`, :data:`SIGN_UP` or :data:`LTI_LOGIN`.
    """

    retry_after_s: int
    kind: str = SIGN_IN

    @property
    def message(self) -> str:
        """What the learner reads."""
        minutes = max(1, math.ceil(self.retry_after_s / 60))
        if self.kind == SIGN_UP:
            message = ngettext(
                "Too many accounts created from this network. Wait %(num)s minute and try again.",
                "Too many accounts created from this network. Wait %(num)s minutes and try again.",
                minutes,
            )
        elif self.kind == LTI_LOGIN:
            message = ngettext(
                "Too many entries from the LMS from this network. Wait %(num)s minute and open "
                "the activity again.",
                "Too many entries from the LMS from this network. Wait %(num)s minutes and open "
                "the activity again.",
                minutes,
            )
        else:
            message = ngettext(
                "Too many failed sign-in attempts. For safety, wait %(num)s minute and try again.",
                "Too many failed sign-in attempts. For safety, wait %(num)s minutes and try again.",
                minutes,
            )
        return message % {"num": minutes}


class KnownDevices:
    """Signed "known device" cookies (OWASP's "device cookies" against online guessing).

    Each successful sign-in gives the browser a cookie that names the account and a random
    device id, signed with the app's secret (itsdangerous, the signer of the CSRF token too). A
    sign-in that shows a valid cookie for the username it types comes from a device that has
    signed in to that account before: it skips the per-username ceiling and the per-IP limit
    and is limited per device instead, so nobody can lock a learner out of their own devices.

    Args:
        max_age_s: how long a cookie stays valid, in seconds.
    """

    def __init__(self, secret: str, max_age_s: int = DEVICE_COOKIE_MAX_AGE_S) -> None:
        self._signer = URLSafeTimedSerializer(secret, salt="curso-dispositivo-conhecido")
        self.max_age_s = max_age_s

    def issue(self, username: str) -> str:
        """Return a new cookie value for a browser that just signed in as ``username``."""
        return self._signer.dumps({"u": username, "d": secrets.token_urlsafe(16)})

    def device(self, cookie: str | None, username: str | None) -> str | None:
        """The device id of ``cookie`` when it is valid, unexpired and names ``username``.

        Args:
            cookie: the cookie's value as the browser sent it, or ``None``.
            username: the clean username being signed in to, or ``None``.

        Returns:
            The device id, or ``None`` (no cookie, a forged or expired one, another account).
        """
        if not cookie or username is None:
            return None
        try:
            data = self._signer.loads(cookie, max_age=self.max_age_s)
        except BadData:
            return None
        if not isinstance(data, dict) or data.get("u") != username:
            return None
        if not isinstance(data.get("d"), str):
            return None
        return data["d"]


class SignInLimiter:
    """Failed sign-ins and sign-ups, limited with the ``limits`` library.

    Sign-in failures count, from an unknown device, per (username, client) pair, per username
    (a ceiling over every client, that slows a guessing attack spread over many addresses)
    and per client; from a known device (:class:`KnownDevices`), per device only. A client is
    an IPv4 address or an IPv6 /64 (:func:`client_key`). So guesses from elsewhere lock out
    neither the learner's own address nor their known devices.

    An attempt is counted before the password is checked, with one atomic increment per
    limit, and taken back when it turns out right: concurrent guesses cannot all pass a
    limit that none of them has counted yet. The storage must accept negative increments
    (the database, ``memory://`` and Redis do).

    Args:
        storage_uri: ``database`` (counters in the app's database, shared by every worker)
            or a ``limits`` storage URI, e.g. ``memory://`` or ``redis://host:6379``.
        engine: the app's engine, used when ``storage_uri`` is ``database``.
        per_pair: failures allowed per (username, client), in ``limits`` notation.
        per_ip: failures allowed per client, in ``limits`` notation.
        per_username: failures allowed per username over every unknown device.
        per_device: failures allowed per known device.
        sign_ups_per_ip: sign-up attempts allowed per client.
        lti_logins_per_ip: LMS logins (``/lti/login``) allowed per client.

    Raises:
        ValueError: the URI names no storage ``limits`` knows (or its driver is missing).

    ``limits`` (and the database storage) are set up on the first sign-in or sign-up, not
    when the app starts: most visits never sign in. Any other storage URI is checked at once.
    """

    def __init__(
        self,
        storage_uri: str,
        per_pair: str = FAILS_PER_PAIR,
        per_ip: str = FAILS_PER_IP,
        engine=None,
        per_username: str = FAILS_PER_USERNAME,
        per_device: str = FAILS_PER_DEVICE,
        sign_ups_per_ip: str = SIGN_UPS_PER_IP,
        lti_logins_per_ip: str = LTI_LOGINS_PER_IP,
    ) -> None:
        self._storage_uri = storage_uri
        self._engine = engine
        self._rules = (per_pair, per_ip, per_username, per_device, sign_ups_per_ip)
        self._lti_rule = lti_logins_per_ip
        self._setup_lock = threading.Lock()
        self._ready = False
        if storage_uri != "database":
            self._set_up()

    def _set_up(self) -> None:
        """Build the limiter and parse the limits, once (thread-safe)."""
        if self._ready:
            return
        with self._setup_lock:
            if self._ready:
                return
            from limits import parse
            from limits.storage import storage_from_string
            from limits.strategies import FixedWindowRateLimiter

            from app.platform.ratelimit_store import DATABASE, DatabaseLimitStorage

            storage = (
                DatabaseLimitStorage(self._engine)
                if self._storage_uri == DATABASE
                else storage_from_string(self._storage_uri)
            )
            self._limiter = FixedWindowRateLimiter(storage)
            per_pair, per_ip, per_username, per_device, sign_ups = self._rules
            self._per_pair = parse(per_pair)
            self._per_ip = parse(per_ip)
            self._per_username = parse(per_username)
            self._per_device = parse(per_device)
            self._sign_ups = parse(sign_ups)
            self._lti_logins = parse(self._lti_rule)
            self._ready = True

    def attempt(self, username: str | None, ip: str, device: str | None = None) -> Blocked | None:
        """Count one sign-in attempt as failed, before its password is checked.

        Args:
            username: the clean username, or ``None`` for a name no account can have (then
                only the client counts the attempt).
            device: the known device id (:meth:`KnownDevices.device`), or ``None``.

        Returns:
            :class:`Blocked` when a limit is used up (the attempt is then taken back: it
            checks no password), else ``None``.
        """
        self._set_up()
        keys = [(item, key) for item, key, _ in self._keys(username, ip, device)]
        return self._hit_all(keys, SIGN_IN)

    def succeeded(self, username: str, ip: str, device: str | None = None) -> None:
        """The password was right: forget the pair's (or device's) failures, take the rest back."""
        self._set_up()
        for item, key, forget in self._keys(username, ip, device):
            if forget:
                self._limiter.clear(item, SCOPE, key)
            else:
                self._limiter.hit(item, SCOPE, key, cost=-1)

    def forget(self, username: str) -> None:
        """Drop every counter whose key names ``username`` (its account was erased).

        With the ``database`` storage (and ``memory://``) the per-username, per-pair and
        per-device counters go, and every ended window with them; other storages (Redis) only
        drop the per-username counter here, and expire the rest when their 15-minute window ends.
        """
        self._set_up()
        from limits.storage import MemoryStorage

        from app.platform.ratelimit_store import DatabaseLimitStorage

        namespace = f"{self._per_pair.namespace}/{SCOPE}/"
        per_username, per_pair, per_device = _user_stems(username)
        prefixes = [namespace + per_username + "/", namespace + per_pair, namespace + per_device]
        storage = self._limiter.storage
        if isinstance(storage, DatabaseLimitStorage):
            storage.clear_prefixes(prefixes)
        elif isinstance(storage, MemoryStorage):
            for key in [key for key in storage.storage if key.startswith(tuple(prefixes))]:
                storage.clear(key)
        else:
            self._limiter.clear(self._per_username, SCOPE, per_username)

    def sign_up_attempt(self, ip: str) -> Blocked | None:
        """Count one sign-up from the client of ``ip`` (IPv6: its /64).

        Returns:
            :class:`Blocked` (:data:`SIGN_UP`) when the client's sign-ups are used up,
            else ``None``.
        """
        self._set_up()
        return self._hit_all([(self._sign_ups, f"criar:{client_key(ip)}")], SIGN_UP)

    def lti_login_attempt(self, ip: str) -> Blocked | None:
        """Count one LMS login (``/lti/login``) from the client of ``ip`` (IPv6: its /64).

        Returns:
            :class:`Blocked` (:data:`LTI_LOGIN`) when the client's LMS logins are used up,
            else ``None``.
        """
        self._set_up()
        return self._hit_all([(self._lti_logins, f"lti:{client_key(ip)}")], LTI_LOGIN)

    def _hit_all(self, keys, kind: str) -> Blocked | None:
        counted = []
        for item, key in keys:
            counted.append((item, key))
            if not self._limiter.hit(item, SCOPE, key):
                for hit_item, hit_key in counted:
                    self._limiter.hit(hit_item, SCOPE, hit_key, cost=-1)
                reset_at = self._limiter.get_window_stats(item, SCOPE, key).reset_time
                return Blocked(max(1, int(reset_at - time.time())), kind)
        return None

    def _keys(self, username: str | None, ip: str, device: str | None):
        """(limit, key, forget on success) for each counter one sign-in attempt uses."""
        client = client_key(ip)
        if username is not None:
            per_username, per_pair, per_device = _user_stems(username)
            if device is not None:
                yield self._per_device, per_device + device, True
                return
            yield self._per_pair, per_pair + client, True
            yield self._per_username, per_username, False
        yield self._per_ip, f"ip:{client}", False


def _user_stems(username: str) -> tuple[str, str, str]:
    """The per-username counter's identifier of ``username``, and how the identifiers of its
    per-pair and per-device counters start: ``user:<name>``, ``user-ip:<name>:``,
    ``device:<name>:``. Usernames hold no ``/`` or ``:``, so no other name's keys start so."""
    return f"user:{username}", f"user-ip:{username}:", f"device:{username}:"
