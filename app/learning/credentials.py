"""Checking a course account's username and password under the sign-in limits: the one path of
every form that signs in to an account with them (the sign-in form, and the form that links
another identity to the account someone already has).

The limiter and the password hasher are the platform's (:mod:`app.platform.auth`, which keeps no
account); the account is found and its hash replaced here, on the floor that stores accounts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlmodel import Session

from app.i18n import N_, gettext
from app.learning.learners import find_account, replace_password_hash
from app.platform.auth import Blocked, KnownDevices, Passwords, SignInLimiter, is_username
from app.platform.models import Account

WRONG_CREDENTIALS = N_("Wrong username or password.")
USERNAME_TYPED_MAX = 30  # what is read of the typed username (the longest a username can be)


@dataclass(frozen=True)
class TypedCredentials:
    """A sign-in form as sent, and where from.

    Attributes:
        username: as typed; trimmed, lower-cased and cut at :data:`USERNAME_TYPED_MAX`
            characters before it is looked up.
        password: as typed (:meth:`app.platform.auth.Passwords.check` normalises it).
        client: the client's IP address (the limits count its IPv4 address or IPv6 /64).
        device_cookie: the browser's "known device" cookie (:class:`KnownDevices`), if it sent
            one.
    """

    username: str
    password: str = field(repr=False)  # never in a log line or a traceback
    client: str
    device_cookie: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class WrongCredentials:
    """No account has this username and password (or it is one the form may not sign in to)."""

    @property
    def message(self) -> str:
        """What the learner reads, in Portuguese; the same for an unknown name and a wrong
        password, so the page does not tell which usernames exist."""
        return gettext(WRONG_CREDENTIALS)


def check_credentials(
    db: Session,
    passwords: Passwords,
    limiter: SignInLimiter,
    typed: TypedCredentials,
    devices: KnownDevices | None = None,
    *,
    allowed: Callable[[Account], bool] | None = None,
) -> Account | Blocked | WrongCredentials:
    """Check ``typed`` against the stored account, counting the attempt in the sign-in limits.

    The attempt is counted as failed before the password is checked
    (:meth:`SignInLimiter.attempt`): per client only for a name no account can have; per
    (username, client), per username and per client from an unknown device; per device only
    when ``devices`` finds a valid known-device cookie for the username. A right password takes
    the attempt back (:meth:`SignInLimiter.succeeded`) and, when the stored hash is old (made
    before NFKC normalisation, or with other argon2 parameters), replaces it (committed).

    Args:
        devices: reads ``typed.device_cookie``; ``None`` when the form has no known devices.
        allowed: whether the form may sign in to the account, asked once its password is
            right; a refused account is a wrong sign-in, still counted as failed.

    Returns:
        :class:`Blocked` past a limit (no password was checked), :class:`WrongCredentials`,
        or the account signed in to.
    """
    name = typed.username.strip().lower()[:USERNAME_TYPED_MAX]
    username = name if is_username(name) else None
    device = devices.device(typed.device_cookie, username) if devices else None
    blocked = limiter.attempt(username, typed.client, device)  # failed until the password is right
    if blocked:
        return blocked
    found = find_account(db, username) if username else None
    checked = passwords.check(typed.password, found.password_hash if found else None)
    if not checked.matched or found is None:
        return WrongCredentials()
    if allowed is not None and not allowed(found):
        return WrongCredentials()
    limiter.succeeded(found.username, typed.client, device)
    if checked.new_hash:
        replace_password_hash(db, found, checked.new_hash)
    return found
