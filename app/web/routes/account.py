"""Optional accounts: sign up, sign in (rate-limited), sign out.

On sign-up the anonymous learner of this browser becomes the account's learner; on
sign-in their progress merges into the account. Both rotate the session id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, StringConstraints

from app.i18n import N_, gettext
from app.learning.credentials import TypedCredentials, WrongCredentials, check_credentials
from app.learning.instructors import staff_account
from app.learning.learners import UsernameTaken, create_account, merge_learner
from app.learning.store import forget_birth_key, stored_place
from app.platform.auth import Blocked, CredentialsError, check_new_password, clean_username
from app.platform.sessions import ACCOUNT_KEY, LEARNER_KEY, VISIT_COOKIE, rotate_session_id
from app.web.cookies import forget_cookie, set_cookie
from app.web.deps import (
    CSRF_COOKIE,
    AccountNameDep,
    KnownDevicesDep,
    LearnerForWriteDep,
    LearnerIdDep,
    PasswordsDep,
    SessionDep,
    SignInLimiterDep,
)
from app.web.forms import leave_notice
from app.web.lookups import join_context, session_place
from app.web.templating import render
from app.web.urls import urls_of

router = APIRouter()
ALREADY_IN = N_(
    "You are already signed in. Sign out before signing in to another account or creating one."
)
DEVICE_COOKIE = "curso_dispositivo"
TAKEN = N_("That username already exists. Choose another, or sign in with it if it is yours.")
CREATED = N_(
    "Account created: you are signed in as %(name)s. Your progress is kept in it, and you can "
    "sign in to it from any browser."
)
# A field of the account forms: absent or empty reads as "", past 300 characters it is the
# 422 page "Dados inválidos" (app/web/errors.py).
AccountField = Annotated[str, StringConstraints(max_length=300)]


class SignInForm(BaseModel):
    """The sign-in form: username and password as typed, and the page to go back to."""

    usuario: AccountField = ""
    senha: AccountField = ""
    proximo: AccountField = ""


class SignUpForm(SignInForm):
    """The sign-up form: the sign-in form's fields and the password typed again."""

    confirmacao: AccountField = ""


@dataclass
class AccountDesk:
    """What signing up and signing in both work with (a FastAPI dependency): the database,
    this browser's learner and account, the password hasher, the sign-in limiter and the
    known devices."""

    db: SessionDep
    learner_id: LearnerForWriteDep
    account: AccountNameDep
    passwords: PasswordsDep
    limiter: SignInLimiterDep
    devices: KnownDevicesDep


DeskDep = Annotated[AccountDesk, Depends()]


@router.get("/conta", response_class=HTMLResponse, name="account")
def account_page(
    request: Request,
    db: SessionDep,
    account: AccountNameDep,
    _learner: LearnerIdDep,
    proximo: str = "",
):
    """The sign-in and sign-up forms, or the signed-in account with "Sair".

    ``?proximo=/caminho`` is where signing in leads (a page that asked for a sign-in).
    """
    instructor = staff_account(db, account) is not None
    next_page = safe_next(proximo)
    joining = join_context(db, urls_of(request).prefix("class_join_page"), next_page)
    return _page(request, account, next_page=next_page, instructor=instructor, joining=joining)


@router.post("/conta/criar", response_class=HTMLResponse)
def sign_up(
    request: Request,
    desk: DeskDep,
    form: Annotated[SignUpForm, Form()],
):
    """Create an account for this browser's learner, keeping their progress, and sign in.

    Sign-ups are limited per client (IPv4 address or IPv6 /64): past the limit, 429 with a
    message in Portuguese and ``Retry-After``. The browser becomes a known device of the account.
    Success leads to ``proximo`` when it is a path of this site (a class join link), else
    to the progress page, which says the account was created.
    """
    if desk.account:
        return _page(request, desk.account, status=409, signup_error=gettext(ALREADY_IN))
    blocked = desk.limiter.sign_up_attempt(_client_ip(request))
    if blocked:
        response = _refused(request, form, 429, blocked.message)
        response.headers["Retry-After"] = str(blocked.retry_after_s)
        return response
    try:
        username = clean_username(form.usuario)
        check_new_password(form.senha, form.confirmacao)
    except CredentialsError as exc:
        return _refused(request, form, 422, str(exc), wrong=exc.field)
    try:
        create_account(desk.db, desk.learner_id, username, desk.passwords.hash(form.senha))
    except UsernameTaken:
        return _refused(request, form, 409, gettext(TAKEN), wrong="username")
    _sign_in(request, desk.learner_id, username)
    next_page = safe_next(form.proximo)
    if not next_page:  # else the page that asked for an account (a class link) says what's next
        leave_notice(request, gettext(CREATED) % {"name": username})
    response = RedirectResponse(next_page or urls_of(request).path("progress"), status_code=303)
    return _known_device(request, desk.devices, username, response)


@router.post("/conta/entrar", response_class=HTMLResponse)
def sign_in(
    request: Request,
    desk: DeskDep,
    form: Annotated[SignInForm, Form()],
):
    """Sign in; this browser's anonymous progress merges into the account.

    The username and password are checked under the sign-in limits, with this browser's
    "known device" cookie (:func:`app.learning.credentials.check_credentials`): past a limit,
    429 with a message in Portuguese and ``Retry-After``; a wrong sign-in, 401. Success renews
    the known device cookie and leads to ``proximo`` when it is a path of this site, else to
    the progress page.
    """
    next_page = safe_next(form.proximo)
    if desk.account:
        return _page(request, desk.account, status=409, signin_error=gettext(ALREADY_IN))
    cookie = request.cookies.get(DEVICE_COOKIE)
    typed = TypedCredentials(form.usuario, form.senha, _client_ip(request), cookie)
    found = check_credentials(desk.db, desk.passwords, desk.limiter, typed, desk.devices)
    if isinstance(found, Blocked):
        response = _refused(request, form, 429, found.message)
        response.headers["Retry-After"] = str(found.retry_after_s)
        return response
    if isinstance(found, WrongCredentials):
        return _refused(request, form, 401, found.message)
    merge_learner(
        desk.db,
        desk.learner_id,
        found.learner_id,
        stored_place(desk.db, desk.learner_id) or session_place(request),
    )
    _sign_in(request, found.learner_id, found.username)
    response = RedirectResponse(next_page or urls_of(request).path("progress"), status_code=303)
    return _known_device(request, desk.devices, found.username, response)


def safe_next(path: str) -> str:
    """Return ``path`` when it is a path on this site (``/...``), else ``""``.

    ``//host`` and ``/\\host`` are refused: browsers read them as other sites.
    """
    if not path.startswith("/") or path.startswith(("//", "/\\")) or len(path) > 300:
        return ""
    return path if path.isprintable() else ""


@router.post("/conta/sair")
def sign_out(request: Request, db: SessionDep, learner_id: LearnerIdDep):
    """End the session (it is deleted from the store, so its old cookie opens nothing); the
    next visit is a new anonymous learner. The CSRF cookie goes too, so the next person at
    this browser gets a token of their own.
    """
    if learner_id is not None:
        forget_birth_key(db, learner_id)
    request.session.clear()
    response = RedirectResponse(urls_of(request).path("home"), status_code=303)
    secure = request.app.state.settings.secure_cookies
    forget_cookie(response, CSRF_COOKIE, secure=secure)
    forget_cookie(response, VISIT_COOKIE, secure=secure)
    return response


def _client_ip(request: Request) -> str:
    return request.client.host if request.client else "desconhecido"


def _known_device(request: Request, devices, username: str, response):
    """Give the browser a fresh signed "known device" cookie for ``username`` (OWASP)."""
    set_cookie(
        response,
        DEVICE_COOKIE,
        devices.issue(username),
        max_age=devices.max_age_s,
        path="/conta",
        secure=request.app.state.settings.secure_cookies,
    )
    return response


def _sign_in(request: Request, learner_id: str, username: str) -> None:
    rotate_session_id(request)
    request.session.clear()
    request.session.update({LEARNER_KEY: learner_id, ACCOUNT_KEY: username})


def _refused(
    request: Request, form: SignInForm, status: int, message: str, wrong: str | None = None
):
    """The account page again with ``message`` beside the form sent (sign-up for a
    :class:`SignUpForm`, else sign-in), the username typed and the page the form leads to;
    ``wrong``: the sign-up field to fix ("username", "password" or "confirmation")."""
    error = "signup_error" if isinstance(form, SignUpForm) else "signin_error"
    context = {error: message, "username": form.usuario, "wrong": wrong}
    return _page(request, None, status=status, next_page=safe_next(form.proximo), **context)


def _page(request: Request, account: str | None, status: int = 200, **context):
    context.setdefault("username", "")
    context.setdefault("next_page", "")
    return render(request, "account.html", {"account": account, **context}, status_code=status)
