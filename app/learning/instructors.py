"""The roles: who has them, granting and taking them away (no HTTP here).

- A **site instructor** (``account.is_instructor``, given only by ``curso instrutor
  adicionar``) edits and publishes lessons and sees every learner on the dashboard.
- A **site admin** (``account.is_admin`` too, ``curso instrutor adicionar --admin``) also sees
  every class and does what concerns the whole site (:data:`app.web.deps.AdminDep`).
- A **class instructor** (a ``class_staff`` row) sees that class only: its dashboard, exports,
  due dates. Whoever makes the row (a site instructor, or another room of the app) gives
  nothing more.
"""

from __future__ import annotations

from sqlmodel import Session, select

from app.learning.learners import find_account
from app.platform.models import Account, ClassStaff


class AccountNotFound(LookupError):
    """No account has the username given."""


def set_instructor(
    db: Session, username: str, value: bool, admin: bool = False
) -> tuple[Account, bool]:
    """Grant (``value=True``) or take away the instructor role of an existing account.

    Args:
        db: an open session; this function commits it.
        username: the account's username (any case, surrounding spaces ignored).
        value: the role the account should have.
        admin: with ``value``, also make the instructor an admin, who sees every class.
            Taking the role away also takes the admin flag.

    Returns:
        The account and whether it changed (False when it already had that role).

    Raises:
        AccountNotFound: no account has that username.
    """
    account = find_account(db, username.strip().lower())
    if account is None:
        raise AccountNotFound(username)
    wanted_admin = admin and value
    same_admin = account.is_admin == wanted_admin or (value and not admin)
    if account.is_instructor == value and same_admin:
        return account, False
    account.is_instructor = value
    if wanted_admin or not value:
        account.is_admin = wanted_admin
    db.add(account)
    db.commit()
    db.refresh(account)
    return account, True


def instructor_account(db: Session, username: str | None) -> Account | None:
    """Return the account of ``username`` when it has the instructor role, else ``None``."""
    account = find_account(db, username) if username else None
    return account if account is not None and account.is_instructor else None


def staff_account(db: Session, username: str | None) -> Account | None:
    """Return the account of ``username`` when it is a site instructor or teaches a class,
    else ``None``."""
    account = find_account(db, username) if username else None
    if account is None or account.is_instructor:
        return account
    teaches = db.exec(select(ClassStaff).where(ClassStaff.account_id == account.id)).first()
    return account if teaches is not None else None


def admin_account(db: Session, username: str | None) -> Account | None:
    """Return the account of ``username`` when it is a site admin, else ``None``."""
    account = instructor_account(db, username)
    return account if account is not None and account.is_admin else None
