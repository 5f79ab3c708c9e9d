"""The course as an LTI 1.3 tool: OIDC login, launch, deep linking, the tool's JWKS, and the
registration page for site admins.

The Starlette adapters of pylti1p3 (request, cookie service, OIDC login, redirect) are here;
the rest of the wiring is in :mod:`app.lti.library`. The library does blocking HTTP (the
platform's JWKS), so every call into it runs on the threadpool.

The login and launch POSTs come from the LMS, another site: the front door (its CSRF checks)
let exactly :data:`app.web.security.LTI_CROSS_SITE_POSTS` through. Their proof is the
id_token's signature (checked against the platform's JWKS), its ``iss``, ``aud``/``azp``,
``exp`` and ``iat`` (required, with a minute of leeway) and ``nonce`` (used once), and the
``state`` cookie set at the login; or, when the platform announces its storage frame
(``lti_storage_target``), the state and nonce kept there by the course's pages
(``static/js/lti-storage.js``), the launch posted again from the course's own page, and the
token's nonce being the one that login kept.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from itsdangerous import BadData, URLSafeTimedSerializer
from pydantic import BaseModel
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException, LtiInvalidNonceException, OIDCException
from pylti1p3.lineitem import LineItem
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.request import Request as LtiRequest
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from app.i18n import N_, gettext
from app.learning.credentials import TypedCredentials, WrongCredentials, check_credentials
from app.learning.progress import lesson_shape_total
from app.lti.launch import (
    CLAIM,
    LAUNCHES_KEY,
    graded_launch,
    launch_token,
    link_to_account,
    lms_name,
    person_for_launch,
    session_launches,
    with_launch,
)
from app.lti.library import (
    LOGIN_LIFETIME_S,
    CourseMessageLaunch,
    DatabaseStorage,
    OnceSessionService,
    ToolConf,
    use_nonce,
)
from app.lti.scores import passback_state
from app.lti.tool import (
    PlatformRefused,
    confirm_platform,
    origin_of,
    platforms,
    public_keys,
    register_platform,
    state_claim,
    state_get,
)
from app.platform.auth import LTI_ACCOUNT_PREFIX, Blocked
from app.platform.models import Account
from app.platform.sessions import (
    ACCOUNT_KEY,
    LEARNER_KEY,
    LMS_NAME_KEY,
    LTI_USER_KEY,
    rotate_session_id,
)
from app.web.cookies import set_cookie
from app.web.deps import (
    AdminDep,
    CourseDep,
    PasswordsDep,
    RowId,
    SessionDep,
    SignInLimiterDep,
    read_session,
)
from app.web.launches import LAUNCH_FIELD
from app.web.templating import render
from app.web.urls import safe_return_path, urls_of

router = APIRouter()
DEEP_LINK_KEY = "lti_deep_link"  # the launch id of a deep-linking request
LOGIN_PARAMS_PREFIX = "lti1p3-login-"
REVIEW_PAGE = "revisar"
BAD_LOGIN = N_("This LTI login request is not valid: %(why)s")
BAD_LAUNCH = N_("This LTI launch was refused: %(why)s")
REPLAYED = N_("This launch was already used. Open the activity again from the LMS.")
NOT_DEEP_LINK = N_("Open this page from the LMS, choosing the course as external tool content.")
UNKNOWN_LESSON = N_("The LMS asked for a lesson the course does not have: %(slug)s.")
NOT_FROM_LMS = N_("This page is for people who opened the course from the LMS.")
NO_COOKIE_OVER_HTTP = N_(
    "The course is served over plain HTTP, on another site than the LMS, so the browser does "
    "not send the course's cookie with the launch, not even in a new tab. The instructor must "
    "serve the course over HTTPS, with CURSO_SECURE_COOKIES=true (see “Moodle” in the README)."
)
NO_COOKIE_IN_NEW_TAB = N_(
    "Your browser did not send the course's cookie even in a new tab, so the launch could not "
    "be checked. Allow cookies for this site in the browser, or tell the instructor, who must "
    "check that the course is served over HTTPS."
)
NEW_TAB_EXPIRED = N_(
    "This link to open the course in a new tab has expired or was already used. Go back to "
    "the activity in the LMS and click “Open in a new tab” again."
)
# What a new tab takes from the framed session: the person, the LMS name and the graded launch.
NEW_TAB_KEPT = (LEARNER_KEY, ACCOUNT_KEY, LTI_USER_KEY, LMS_NAME_KEY, LAUNCHES_KEY)
NEW_TAB_MAX_AGE_S = 300  # a link is asked for at the click, and used at once
NEW_TAB_SALT = "curso-lti-nova-aba"
NEW_TAB_PREFIX = "nova-aba-"  # its nonce in lti_state, once used
NEW_WINDOW_PARAM = "lti1p3_new_window"  # in the login's query: the launch is in a new tab
# LTI Platform Storage (1EdTech "LTI Client Side postMessages", "postMessage Platform Storage"
# and "LTI OIDC Login with LTI Client Side postMessages"): the frame of the LMS that keeps data
# for the tool, named at the login (and again at the launch) when the platform has one.
STORAGE_TARGET_PARAM = "lti_storage_target"
STORAGE_CHECKED_FIELD = "lti_storage_checked"  # the launch again, once the page checked it
STORAGE_PREFIX = "lti1p3-storage-"  # + state: its nonce, the LMS origin and frame, in lti_state
STORAGE_TARGET_MAX = 200
STORAGE_NOT_SAME_ORIGIN = N_(
    "the launch checked through the LMS's storage must come from the course's own page"
)
STORAGE_NONCE = N_("the launch's nonce is not the one its login kept in the LMS's storage")
NO_PLATFORM = N_("There is no registered platform with this address.")
Field = Annotated[str, Form(max_length=1000)]  # a form field (alone, or in a form model)


class PlatformForm(BaseModel):
    """The LMS registration form, the fields of ``curso lti registrar``: an absent or empty
    field reads as "", one past 1000 characters is the 422 page "Dados inválidos"
    (:mod:`app.web.errors`)."""

    issuer: Field = ""
    client_id: Field = ""
    deployment_id: Field = ""  # several: comma-separated
    auth_url: Field = ""
    token_url: Field = ""
    jwks_url: Field = ""


class StarletteLtiRequest(LtiRequest):
    """pylti1p3's request, from parameters read on the event loop (query and form)."""

    def __init__(self, params: dict[str, str], cookies: dict[str, str], secure: bool) -> None:
        super().__init__()
        self._params, self._cookies, self._secure = params, cookies, secure
        self._session: dict[str, Any] = {}

    @property
    def session(self) -> dict[str, Any]:
        """Unused: the library's state lives in the database (``DatabaseStorage``)."""
        return self._session

    def get_param(self, key: str) -> str:
        """A query or form parameter ("" when absent)."""
        return self._params.get(key, "")

    def get_cookie(self, key: str) -> str | None:
        return self._cookies.get(key)

    def is_secure(self) -> bool:
        return self._secure


class CookieService:
    """pylti1p3's cookie service: ``lti1p3-<name>`` cookies, ``SameSite=None; Secure;
    Partitioned`` under HTTPS (the launch is a cross-site POST inside the LMS's iframe), else
    ``Lax``."""

    prefix = "lti1p3"

    def __init__(self, request: StarletteLtiRequest) -> None:
        self.request = request
        self.to_set: dict[str, tuple[str, int]] = {}

    def get_cookie(self, name: str) -> str | None:
        """The cookie ``name`` as this service set it."""
        return self.request.get_cookie(f"{self.prefix}-{name}")

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self.to_set[f"{self.prefix}-{name}"] = (str(value), exp or 3600)

    def update_response(self, response: Response) -> None:
        """Write the cookies set so far onto ``response``."""
        secure = self.request.is_secure()
        for key, (value, max_age) in self.to_set.items():
            set_cookie(
                response,
                key,
                value,
                max_age=max_age,
                secure=secure,
                samesite="none" if secure else "lax",
                partition=secure,
            )


class StarletteRedirect(Redirect[Response]):
    """A 302 to the platform's authorization endpoint, with the state cookie."""

    def __init__(self, location: str, cookies: CookieService) -> None:
        super().__init__()
        self.location, self.cookies = location, cookies

    def do_redirect(self) -> Response:
        response = RedirectResponse(self.location, status_code=302)
        self.cookies.update_response(response)
        return response

    def do_js_redirect(self) -> Response:
        """The same redirect (the course serves no inline scripts)."""
        return self.do_redirect()

    def set_redirect_url(self, location: str) -> None:
        self.location = location

    def get_redirect_url(self) -> str:
        return self.location


class StarletteOIDCLogin(OIDCLogin[Any, Any, Any, Any, Response]):
    """pylti1p3's OIDC login answering with Starlette responses."""

    def get_redirect(self, url: str) -> Redirect[Response]:
        """A redirect to ``url`` carrying the state cookie."""
        return StarletteRedirect(url, self._cookie_service)


def _absolute(request: Request, path: str) -> str:
    base = request.app.state.settings.public_url or str(request.base_url).rstrip("/")
    return base.rstrip("/") + path


def _secure(request: Request) -> bool:
    return request.url.scheme == "https" or request.app.state.settings.secure_cookies


async def _params(request: Request) -> dict[str, str]:
    params = {k: v for k, v in request.query_params.items()}
    if request.method == "POST":
        form = await request.form()
        params.update({k: v for k, v in form.items() if isinstance(v, str)})
    return params


@router.api_route("/lti/login", methods=["GET", "POST"], name="lti_login")
async def lti_login(request: Request, db: SessionDep, limiter: SignInLimiterDep):
    """OIDC login initiation: remember a nonce (for minutes), set the state cookie, redirect to
    the platform's authorization endpoint. An unregistered issuer or client id gets 400; past
    :data:`app.platform.auth.LTI_LOGINS_PER_IP` from one address, 429 with the wait."""
    ip = request.client.host if request.client else "desconhecido"
    blocked = await run_in_threadpool(limiter.lti_login_attempt, ip)
    if blocked:
        context = {"message": blocked.message, "new_tab": ""}
        response = render(request, "lti_refused.html", context, status_code=429)
        response.headers["Retry-After"] = str(blocked.retry_after_s)
        return response
    params = await _params(request)
    lti_request = StarletteLtiRequest(params, dict(request.cookies), _secure(request))
    launch_url = _absolute(request, urls_of(request).path("lti_launch"))

    def login() -> Response | dict[str, str]:
        storage = DatabaseStorage(db)
        cookies = CookieService(lti_request)
        oidc = StarletteOIDCLogin(
            lti_request,
            ToolConf(db),
            session_service=OnceSessionService(lti_request, storage),
            cookie_service=cookies,
        )
        response = oidc.redirect(launch_url)
        # Kept with the state, for "Abrir em nova aba" when the browser drops the cookie.
        state = next(iter(cookies.to_set)).removeprefix(f"{CookieService.prefix}-")
        storage.set_value(LOGIN_PARAMS_PREFIX + state, params, LOGIN_LIFETIME_S)
        if not target:
            return response
        # The platform keeps the state and the nonce (put there by the page below) instead of
        # the state cookie, which a browser blocking cookies in the LMS's iframe drops.
        location = response.headers["location"]
        nonce = parse_qs(urlsplit(location).query).get("nonce", [""])[0]
        kept = {"nonce": nonce, "origin": origin_of(location), "target": target}
        storage.set_value(STORAGE_PREFIX + state, kept, LOGIN_LIFETIME_S)
        return {"mode": "put", "state": state, "next": location, **kept}

    target = params.get(STORAGE_TARGET_PARAM, "")[:STORAGE_TARGET_MAX]
    try:
        done = await run_in_threadpool(login)
    except (LtiException, OIDCException) as exc:
        message = gettext(BAD_LOGIN) % {"why": exc}
        return render(request, "lti_refused.html", {"message": message, "new_tab": ""}, 400)
    if isinstance(done, dict):
        return _storage_page(request, done)
    return done


def _storage_page(request: Request, check: dict[str, Any]) -> Response:
    """The page that puts the login's state and nonce into the LMS's storage and goes on to
    the platform (``mode`` ``put``), or gets them back and posts the launch again (``get``):
    ``static/js/lti-storage.js``. Never cached, never with the state cookie."""
    response = render(request, "lti_storage.html", {"check": check})
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/lti/launch", name="lti_launch")
async def lti_launch(request: Request, db: SessionDep, course: CourseDep):
    """A resource-link or deep-linking launch: validate the id_token, use its nonce up, sign
    the person in (a new session id) and open the lesson (``licao`` custom parameter), the
    review page, or the deep-linking picker."""
    params = await _params(request)
    lti_request = StarletteLtiRequest(params, dict(request.cookies), _secure(request))
    state = request.app.state
    stored = await run_in_threadpool(_stored_login, db, lti_request)
    if stored is not None and not params.get(STORAGE_CHECKED_FIELD):
        target = params.get(STORAGE_TARGET_PARAM, "")[:STORAGE_TARGET_MAX] or stored["target"]
        fields = {
            "id_token": params.get("id_token", ""),
            "state": params.get("state", ""),
            STORAGE_TARGET_PARAM: target,
            STORAGE_CHECKED_FIELD: "1",
        }
        check: dict[str, Any] = {**stored, "mode": "get", "target": target}
        check.update(state=params.get("state", ""), fields=fields)
        check["action"] = urls_of(request).path("lti_launch")
        return _storage_page(request, check)
    if stored is not None and request.headers.get("sec-fetch-site") != "same-origin":
        message = gettext(BAD_LAUNCH) % {"why": gettext(STORAGE_NOT_SAME_ORIGIN)}
        return render(request, "lti_refused.html", {"message": message, "new_tab": ""}, 403)
    try:
        outcome = await run_in_threadpool(_launch, db, state, lti_request, stored)
    except LtiInvalidNonceException:  # its nonce was used up by the first launch
        outcome = None
    except LtiException as exc:
        return _refused(request, lti_request, str(exc))
    if outcome is None:
        raise HTTPException(status_code=403, detail=gettext(REPLAYED))
    claims, person, launch_id, deep_link, platform_id = outcome
    same_learner = request.session.get(LEARNER_KEY) == person.learner_id
    launched = request.session.get(LAUNCHES_KEY) if same_learner else None
    await run_in_threadpool(rotate_session_id, request)  # it deletes the old session row
    request.session.clear()
    request.session.update({LEARNER_KEY: person.learner_id, ACCOUNT_KEY: person.username})
    request.session[LTI_USER_KEY] = [platform_id, str(claims["sub"])]
    if name := lms_name(claims):
        request.session[LMS_NAME_KEY] = name
    urls = urls_of(request)
    if deep_link:
        if not person.instructor:
            raise HTTPException(status_code=403, detail=gettext(NOT_DEEP_LINK))
        request.session[DEEP_LINK_KEY] = launch_id
        return RedirectResponse(urls.path("lti_deep_link"), status_code=303)
    custom = claims.get(CLAIM + "custom") or {}
    slug = str(custom.get("licao") or "") if isinstance(custom, dict) else ""
    if slug == REVIEW_PAGE:
        return RedirectResponse(urls.path("review"), status_code=303)
    if not slug:
        return RedirectResponse(urls.path("home"), status_code=303)
    if course.get(slug) is None:
        raise HTTPException(status_code=404, detail=gettext(UNKNOWN_LESSON) % {"slug": slug})
    graded = graded_launch(platform_id, person.class_id, claims, slug)
    if graded is None or person.instructor:
        return RedirectResponse(urls.path("lesson", slug=slug), status_code=303)
    # The lesson's page carries its launch (signed, for this learner) in its forms: another
    # launch in another tab does not change where this tab's grades go.
    request.session[LAUNCHES_KEY] = with_launch(launched, graded)
    token = launch_token(request.app.state.secret, graded, person.learner_id)
    return RedirectResponse(
        urls.with_query("lesson", {LAUNCH_FIELD: token}, slug=slug), status_code=303
    )


def _stored_login(db: Session, lti_request: StarletteLtiRequest) -> dict[str, str] | None:
    """What the login of this launch's state kept for the LMS's storage (its nonce, the LMS
    origin and frame), when the platform announced its storage and the state cookie did not
    come back; ``None`` otherwise (the cookie path)."""
    state = lti_request.get_param("state")
    if not state or CookieService(lti_request).get_cookie(state) is not None:
        return None
    kept = state_get(db, STORAGE_PREFIX + state)
    db.rollback()  # a read: the connection goes back to the pool
    return kept if isinstance(kept, dict) else None


def _launch(
    db: Session, state: Any, lti_request: StarletteLtiRequest, stored: dict[str, str] | None = None
):
    """Validate the launch (blocking HTTP: the platform's JWKS) and sign its person in.

    With ``stored`` (:func:`_stored_login`), the launch's state was checked by the course's
    page against the LMS's storage instead of the state cookie, and the id_token's nonce must
    be the one its login kept.

    Returns:
        ``(claims, person, launch id, deep linking?, platform id)``, or ``None`` for a replay.

    Raises:
        LtiException: the launch is not valid.
    """
    storage = DatabaseStorage(db)
    launch = CourseMessageLaunch(
        lti_request,
        ToolConf(db),
        session_service=OnceSessionService(lti_request, storage),
        cookie_service=CookieService(lti_request),
    )
    launch.db = db
    if stored is not None:
        launch.state_in_platform_storage = lti_request.get_param("state")
    claims = dict(launch.get_launch_data())
    if stored is not None and claims.get("nonce") != stored.get("nonce"):
        raise LtiException(gettext(STORAGE_NONCE))
    aud = claims.get("aud")
    if isinstance(aud, list) and len(aud) > 1 and claims.get("azp") != launch.get_client_id():
        raise LtiException("azp is not the client id")
    if "azp" in claims and claims["azp"] != launch.get_client_id():
        raise LtiException("azp is not the client id")
    if not use_nonce(db, str(claims.get("nonce") or ""), claims.get("exp")):
        return None
    password_hash = state.passwords.hash(secrets.token_urlsafe(32))
    found = person_for_launch(db, launch.get_iss(), launch.get_client_id(), claims, password_hash)
    if found is None:
        raise LtiException("Unregistered issuer")
    person, platform_id = found
    return claims, person, launch.get_launch_id(), launch.is_deep_link_launch(), platform_id


def _refused(request: Request, lti_request: StarletteLtiRequest, why: str) -> Response:
    """The refusal page. When the state cookie did not come back (a browser that blocks
    cookies in the LMS's iframe), a link that logs in again in a new tab; but when a new tab
    cannot carry it either, no link (it would only lead back here): why, and what to change.

    A new tab cannot help when the course is on plain HTTP and the launch is posted from
    another site (the ``SameSite=Lax`` cookie stays behind on a cross-site POST), nor when
    the launch being refused already came from that new tab.
    """
    context = {"message": gettext(BAD_LAUNCH) % {"why": why}, "new_tab": "", "no_cookie": ""}
    state = lti_request.get_param("state") or ""
    params = None
    if state and CookieService(lti_request).get_cookie(state) is None:
        with read_session(request) as db:
            params = state_get(db, LOGIN_PARAMS_PREFIX + state)
    if isinstance(params, dict):
        cross_site = request.headers.get("sec-fetch-site") == "cross-site"
        if not _secure(request) and cross_site:
            context["no_cookie"] = gettext(NO_COOKIE_OVER_HTTP)
        elif params.get(NEW_WINDOW_PARAM):
            context["no_cookie"] = gettext(NO_COOKIE_IN_NEW_TAB)
        else:
            # A tab of its own has no LMS frame around it to keep the state in.
            kept = {k: v for k, v in params.items() if k != STORAGE_TARGET_PARAM}
            query = {**kept, NEW_WINDOW_PARAM: "1"}
            context["new_tab"] = urls_of(request).with_query("lti_login", query)
    status = 403 if params is not None else 400
    return render(request, "lti_refused.html", context, status_code=status)


@router.get("/lti/jwks.json", name="lti_jwks")
def lti_jwks(db: SessionDep):
    """The tool's public keys (the signing key and those retired in the last two days)."""
    return JSONResponse({"keys": public_keys(db)}, headers={"Cache-Control": "max-age=300"})


def _deep_link_launch(request: Request) -> str:
    launch_id = request.session.get(DEEP_LINK_KEY)
    if not isinstance(launch_id, str):
        raise HTTPException(status_code=403, detail=gettext(NOT_DEEP_LINK))
    return launch_id


@router.get("/lti/conteudo", response_class=HTMLResponse, name="lti_deep_link")
def lti_deep_link(request: Request, course: CourseDep):
    """The picker an LMS instructor sees when adding the course as content: every lesson
    (title, summary, question count) and the review page. Only the session of an instructor's
    deep-linking launch opens it (403 otherwise)."""
    _deep_link_launch(request)
    return render(request, "lti_deep_link.html", {"course": course})


@router.post("/lti/conteudo", response_class=HTMLResponse)
async def lti_deep_link_answer(
    request: Request, db: SessionDep, course: CourseDep, licao: Field = ""
):
    """Answer the LMS with an ``ltiResourceLink`` (and a line item with the lesson's question
    count): a form that posts the signed response back to the LMS."""
    launch_id = _deep_link_launch(request)
    lesson = course.get(licao) if licao != REVIEW_PAGE else None
    if licao != REVIEW_PAGE and lesson is None:
        return render(request, "lti_deep_link.html", {"course": course, "error": True}, 422)
    launch_url = _absolute(request, urls_of(request).path("lti_launch"))
    title = lesson.meta.title_text if lesson else gettext("Spaced review")

    def answer() -> tuple[str, str]:
        lti_request = StarletteLtiRequest({}, {}, _secure(request))
        storage = DatabaseStorage(db)
        launch = CourseMessageLaunch.from_cache(
            launch_id,
            lti_request,
            ToolConf(db),
            session_service=OnceSessionService(lti_request, storage),
            cookie_service=CookieService(lti_request),
        )
        resource = (
            DeepLinkResource()
            .set_url(launch_url)
            .set_title(title)
            .set_custom_params({"licao": licao})
        )
        if lesson is not None and lesson.questions:
            resource.set_lineitem(
                LineItem()
                .set_label(title)
                .set_score_maximum(lesson_shape_total(lesson))
                .set_resource_id(lesson.slug)
                .set_tag(lesson.slug)
            )
        deep_link = launch.get_deep_link()
        settings = launch.get_launch_data()[
            "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
        ]
        return settings["deep_link_return_url"], deep_link.get_response_jwt([resource])

    try:
        return_url, jwt = await run_in_threadpool(answer)
    except LtiException as exc:
        message = gettext(BAD_LAUNCH) % {"why": exc}
        return render(request, "lti_refused.html", {"message": message, "new_tab": ""}, 400)
    request.session.pop(DEEP_LINK_KEY, None)
    context = {"return_url": return_url, "jwt": jwt, "title": title}
    return render(request, "lti_deep_link_sent.html", context)


# --- a new tab that keeps the learner --------------------------------------------------------


def _new_tab_signer(request: Request) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(request.app.state.secret, salt=NEW_TAB_SALT)


@router.get("/lti/nova-aba", name="lti_new_tab")
def lti_new_tab(request: Request, voltar: Annotated[str, Query(max_length=2000)] = "/"):
    """For a person an LMS launch signed in, inside the LMS's iframe: a link, used once within
    :data:`NEW_TAB_MAX_AGE_S`, that signs the same person in a new tab (whose cookies are not
    the iframe's partitioned ones) and opens ``voltar``. JSON ``{"url": …}``; 403 for anyone
    else. ``static/js/new-tab.js`` asks for it at the click on "Abrir em nova aba"."""
    _lti_user(request)
    kept = {key: request.session[key] for key in NEW_TAB_KEPT if key in request.session}
    ticket = {"session": kept, "path": safe_return_path(voltar), "nonce": secrets.token_hex(16)}
    token = _new_tab_signer(request).dumps(ticket)
    url = urls_of(request).path("lti_new_tab_open", token=token)
    return JSONResponse({"url": url}, headers={"Cache-Control": "no-store"})


@router.get("/lti/nova-aba/{token}", name="lti_new_tab_open")
def lti_new_tab_open(request: Request, db: SessionDep, token: str):
    """Sign in the person of a :func:`lti_new_tab` link (a new session id) and open its page;
    an expired, altered or used link is a 403 page saying to click again in the LMS."""
    try:
        ticket = _new_tab_signer(request).loads(token, max_age=NEW_TAB_MAX_AGE_S)
    except BadData:
        ticket = None
    fresh = isinstance(ticket, dict) and isinstance(ticket.get("session"), dict)
    if fresh:
        fresh = state_claim(db, NEW_TAB_PREFIX + str(ticket["nonce"]), NEW_TAB_MAX_AGE_S)
    if not fresh:
        raise HTTPException(status_code=403, detail=gettext(NEW_TAB_EXPIRED))
    rotate_session_id(request)
    request.session.clear()
    request.session.update(ticket["session"])
    return RedirectResponse(safe_return_path(str(ticket["path"])), status_code=303)


# --- linking the LMS person to an existing course account ----------------------------------


def _lti_user(request: Request) -> tuple[int, str]:
    found = request.session.get(LTI_USER_KEY)
    if not (isinstance(found, list) and len(found) == 2 and isinstance(found[0], int)):
        raise HTTPException(status_code=403, detail=gettext(NOT_FROM_LMS))
    return found[0], str(found[1])


def _linkable(account: Account) -> bool:
    """Whether an LMS person may link ``account``: not one made for an LMS person, whose
    password is random and unusable."""
    return not account.username.startswith(LTI_ACCOUNT_PREFIX)


@router.get("/lti/vincular", response_class=HTMLResponse, name="lti_link")
def lti_link_page(request: Request):
    """For a person who came from the LMS: sign in once with the course account they already
    have, so their LMS launches become that account (never matched by e-mail)."""
    _lti_user(request)
    return render(request, "lti_link.html", {"error": "", "username": ""})


@router.post("/lti/vincular", response_class=HTMLResponse)
def lti_link(
    request: Request,
    db: SessionDep,
    passwords: PasswordsDep,
    limiter: SignInLimiterDep,
    usuario: Field = "",
    senha: Field = "",
):
    """Check the account's username and password under the sign-in limits
    (:func:`app.learning.credentials.check_credentials`, as ``/conta/entrar`` does: an old hash
    is replaced), then move the LMS person's progress and classes into it and sign in as it (a
    new session id). 401 with a message on a wrong password or an account made for an LMS
    person, 429 with ``Retry-After`` past the limits.

    No "known device" here: that cookie is ``Path=/conta``, so the browser never sends it to
    this page, and inside the LMS's iframe the course is a third party whose cookies live in the
    LMS's partition. A person links once (their next launches are the account), so a device
    cookie kept for this page would hardly ever be shown again.
    """
    platform_id, sub = _lti_user(request)
    ip = request.client.host if request.client else "desconhecido"
    typed = TypedCredentials(usuario, senha, ip)
    found = check_credentials(db, passwords, limiter, typed, allowed=_linkable)
    if isinstance(found, Blocked):
        context = {"error": found.message, "username": usuario}
        response = render(request, "lti_link.html", context, status_code=429)
        response.headers["Retry-After"] = str(found.retry_after_s)
        return response
    if isinstance(found, WrongCredentials):
        context = {"error": found.message, "username": usuario}
        return render(request, "lti_link.html", context, status_code=401)
    link_to_account(db, platform_id, sub, found)
    kept = {key: request.session.get(key) for key in (LAUNCHES_KEY, LTI_USER_KEY)}
    rotate_session_id(request)
    request.session.clear()
    request.session.update({LEARNER_KEY: found.learner_id, ACCOUNT_KEY: found.username})
    request.session.update({key: value for key, value in kept.items() if value is not None})
    launches = session_launches(kept[LAUNCHES_KEY])
    urls = urls_of(request)
    if not launches:
        return RedirectResponse(urls.path("progress"), status_code=303)
    graded = launches[-1]  # the lesson launched last, its forms signed for the account now
    token = launch_token(request.app.state.secret, graded, found.learner_id)
    target = urls.with_query("lesson", {LAUNCH_FIELD: token}, slug=graded.lesson_slug)
    return RedirectResponse(target, status_code=303)


# --- registration and confirmation by a site admin -------------------------------------------


def _tool_urls(request: Request) -> dict[str, str]:
    urls = urls_of(request)
    return {
        "tool": _absolute(request, urls.path("lti_launch")),
        "login": _absolute(request, urls.path("lti_login")),
        "redirect": _absolute(request, urls.path("lti_launch")),
        "jwks": _absolute(request, urls.path("lti_jwks")),
        "deep_link": _absolute(request, urls.path("lti_launch")),
    }


def _registration_page(request: Request, db: Session, status: int = 200, **context: Any):
    context.setdefault("form", {})
    context.setdefault("error", "")
    page = {
        "platforms": platforms(db),
        "tool_urls": _tool_urls(request),
        "passback": passback_state(db),
        "origin_of": origin_of,
        **context,
    }
    return render(request, "lti_platforms.html", page, status_code=status)


@router.get("/instrutor/lti", response_class=HTMLResponse, name="lti_platforms")
def lti_platforms(request: Request, db: SessionDep, _admin: AdminDep):
    """The tool's URLs to paste into the LMS, the registered platforms (each unconfirmed one
    with its "Confirmar" button), the registration form and the grade passback state per
    class. Site admins only."""
    return _registration_page(request, db)


@router.post("/instrutor/lti", response_class=HTMLResponse)
def lti_register(
    request: Request,
    db: SessionDep,
    _admin: AdminDep,
    sent: Annotated[PlatformForm, Form()],
):
    """Register a platform (the fields of ``curso lti registrar``, several deployment ids
    comma-separated); 422 with the form kept and the message of
    :class:`app.lti.tool.PlatformRefused` when :func:`app.lti.tool.register_platform` refuses it.

    The platform waits for the admin's confirmation (:func:`lti_confirm`): until then it
    launches nothing and its origin stays out of the CSP."""
    form = {name: value.strip() for name, value in sent.model_dump().items()}
    try:
        register_platform(
            db,
            form["issuer"],
            form["client_id"],
            [form["deployment_id"]],
            form["auth_url"],
            form["token_url"],
            form["jwks_url"],
        )
    except PlatformRefused as refused:
        return _registration_page(request, db, 422, form=form, error=str(refused))
    request.app.state.lms_origins.refresh()  # an update to another origin waits again
    return RedirectResponse(urls_of(request).path("lti_platforms"), status_code=303)


@router.post("/instrutor/lti/{platform_id}/confirmar", name="lti_confirm")
def lti_confirm(request: Request, platform_id: RowId, db: SessionDep, _admin: AdminDep):
    """Confirm a registered platform: it launches the course from now on, and its origin may
    frame the pages and receive their forms (the CSP; every worker within
    :class:`app.lti.tool.LmsOrigins`' refresh). 404 for an unknown id."""
    if confirm_platform(db, platform_id) is None:
        raise HTTPException(status_code=404, detail=gettext(NO_PLATFORM))
    request.app.state.lms_origins.refresh()
    return RedirectResponse(urls_of(request).path("lti_platforms"), status_code=303)
