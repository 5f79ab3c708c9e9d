"""Sign-in rules: usernames, passwords (argon2 via pwdlib) and the failed sign-in limit.

No HTTP and no database here: the web layer calls these with plain values.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from functools import cached_property

from limits import parse
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from app.i18n import gettext, ngettext
from app.ratelimit_store import DATABASE, DatabaseLimitStorage
from pwdlib import PasswordHash

USERNAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{2,29}$")
PASSWORD_MIN = 8
PASSWORD_MAX = 200
FAILS_PER_USERNAME = "5 per 15 minutes"
FAILS_PER_IP = "20 per 15 minutes"


class CredentialsError(ValueError):
    """A username or password that breaks the rules; ``str(exc)`` is the message in Portuguese."""


def clean_username(raw: str) -> str:
    """Return the username as stored: trimmed and lower-case.

    Raises:
        CredentialsError: it is not 3 to 30 of ``a-z``, ``0-9``, ``.``, ``_``, ``-``,
            starting with a letter or digit.
    """
    name = raw.strip().lower()
    if not USERNAME_RE.match(name):
        raise CredentialsError(
            gettext(
                "The username must have 3 to 30 characters: unaccented letters, digits, "
                "dot, hyphen or underscore, starting with a letter or digit."
            )
        )
    return name


def check_new_password(password: str, confirmation: str) -> None:
    """Check a password chosen at sign-up.

    Raises:
        CredentialsError: too short, too long, or different from its confirmation.
    """
    if len(password) < PASSWORD_MIN:
        message = gettext("The password needs at least %(num)s characters.")
        raise CredentialsError(message % {"num": PASSWORD_MIN})
    if len(password) > PASSWORD_MAX:
        message = gettext("The password may have at most %(num)s characters.")
        raise CredentialsError(message % {"num": PASSWORD_MAX})
    if password != confirmation:
        raise CredentialsError(gettext("The confirmation does not match the password."))


class Passwords:
    """Argon2 hashing with pwdlib's recommended parameters.

    :meth:`verify` against a missing account still spends one argon2 check, so the
    time taken does not tell whether a username exists.
    """

    def __init__(self) -> None:
        self._hasher = PasswordHash.recommended()

    @cached_property
    def _dummy(self) -> str:
        return self._hasher.hash("senha-que-ninguem-usa")

    def hash(self, password: str) -> str:
        """Return the argon2 hash (PHC string) of ``password``."""
        return self._hasher.hash(password)

    def verify(self, password: str, password_hash: str | None) -> bool:
        """True when ``password`` matches ``password_hash``; always False for ``None``."""
        matched = self._hasher.verify(password[:PASSWORD_MAX], password_hash or self._dummy)
        return matched and password_hash is not None


@dataclass(frozen=True)
class Blocked:
    """A sign-in refused by the limit; ``message`` is in Portuguese."""

    retry_after_s: int

    @property
    def message(self) -> str:
        """What the learner reads."""
        minutes = max(1, math.ceil(self.retry_after_s / 60))
        message = ngettext(
            "Too many failed sign-in attempts. For safety, wait %(num)s minute and try again.",
            "Too many failed sign-in attempts. For safety, wait %(num)s minutes and try again.",
            minutes,
        )
        return message % {"num": minutes}


class SignInLimiter:
    """Failed sign-ins, limited per username and per client IP (the ``limits`` library).

    Args:
        storage_uri: ``database`` (counters in the app's database, shared by every worker)
            or a ``limits`` storage URI, e.g. ``memory://`` or ``redis://host:6379``.
        engine: the app's engine, used when ``storage_uri`` is ``database``.
        per_username: failures allowed per username, in ``limits`` notation.
        per_ip: failures allowed per client IP, in ``limits`` notation.

    Raises:
        ValueError: the URI names no storage ``limits`` knows (or its driver is missing).
    """

    def __init__(
        self, storage_uri: str, per_username: str = FAILS_PER_USERNAME, per_ip: str = FAILS_PER_IP,
        engine=None,
    ) -> None:
        if storage_uri == DATABASE:
            storage = DatabaseLimitStorage(engine)
        else:
            storage = storage_from_string(storage_uri)
        self._limiter = FixedWindowRateLimiter(storage)
        self._per_username = parse(per_username)
        self._per_ip = parse(per_ip)

    def check(self, username: str, ip: str) -> Blocked | None:
        """Return :class:`Blocked` when either limit is used up, else ``None``."""
        for item, key in ((self._per_username, f"user:{username}"), (self._per_ip, f"ip:{ip}")):
            if not self._limiter.test(item, "entrar", key):
                reset_at = self._limiter.get_window_stats(item, "entrar", key).reset_time
                return Blocked(max(1, int(reset_at - time.time())))
        return None

    def failed(self, username: str, ip: str) -> None:
        """Count one failed sign-in against the username and the IP."""
        self._limiter.hit(self._per_username, "entrar", f"user:{username}")
        self._limiter.hit(self._per_ip, "entrar", f"ip:{ip}")

    def succeeded(self, username: str) -> None:
        """Forget the username's failures after a successful sign-in."""
        self._limiter.clear(self._per_username, "entrar", f"user:{username}")
