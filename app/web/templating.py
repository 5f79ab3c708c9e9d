"""Jinja2 set-up and the page/fragment response helpers.

Convention: a fragment is a template named ``_name.html``. The page template
includes it; a route answering an htmx request (``HX-Request: true``) returns the
fragment alone, except for a history restore (:func:`wants_fragment` decides, for every
route). Every such response carries ``Vary`` on both headers (:data:`VARY`).

Every text a learner reads comes from the gettext catalog (``_()`` and
``ngettext()`` in templates, see :mod:`app.i18n`). HTML pages carry an ``ETag``
so a browser revalidates instead of downloading the page again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import Response
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from starlette.requests import HTTPConnection

from app.content import page_ids
from app.content.calculators import offline_calculator
from app.content.lessons import Lesson
from app.content.numbers import format_number
from app.content.search import mark_words
from app.i18n import N_, gettext, local_datetime, local_day, translations
from app.learning.trees import PATH_SLOT, offline_tree
from app.learning.usecases import issued_token
from app.platform.sessions import LMS_NAME_KEY, LTI_USER_KEY, session_account
from app.platform.settings import PROJECT_ROOT
from app.web.assets import Assets
from app.web.fragments import RenderedTrees
from app.web.launches import launch_query, launch_token_of
from app.web.question_modes import LESSON
from app.web.splice import FORM_KEY_FIELD, ISSUED_FIELD
from app.web.urls import Urls

TEMPLATES_DIR = PROJECT_ROOT / "templates"
THEME_COOKIE = "tema"
THEMES = {"claro": "light", "escuro": "dark"}
DARK_SYSTEM = "(prefers-color-scheme: dark)"
TIMEZONE_COOKIE = "fuso"
HTML_CACHE = "private, no-cache"
# The one script of the behaviours (static/js/, each file one behaviour), made at start-up.
BEHAVIOURS = "behaviours.js"
# Each stylesheet the pages link, minified (served under these names, from static/<name>.css).
STYLES = {
    "app.css": "app.min.css",
    "dark.css": "dark.min.css",
    "instructor.css": "instructor.min.css",
}
# The instructor's own behaviours (the lesson editor, the dashboard's tabs): a second bundle, on
# the pages that load instructor.css, so that no learner downloads them.
INSTRUCTOR_BEHAVIOURS = "instructor.js"


def csrf_token(request: Request) -> str:
    """Return the CSRF token for forms and htmx headers (``scope["csrftoken"]``, given by the
    front door: :class:`app.web.security.RequestToken`)."""
    getter = request.scope.get("csrftoken") if request is not None else None
    return getter() if getter else ""


def form_issued(request: Request, slug: str) -> str:
    """An answer form's ``emitida``: the time the page is sent, signed for the lesson ``slug``
    (:func:`app.learning.usecases.issued_token`). A cached page gets it per response
    (:data:`app.web.splice.ISSUED_HOLE`)."""
    return issued_token(request.app.state.secret.encode(), slug)


def theme(request: Request | None) -> str:
    """The theme the learner chose (``light`` or ``dark``), or ``""`` to follow the system."""
    return THEMES.get(request.cookies.get(THEME_COOKIE, "") if request is not None else "", "")


def dark_media(request: Request | None) -> str:
    """The ``media`` of the dark stylesheet: the learner's choice, else the system's preference."""
    return {"dark": "all", "light": "not all"}.get(theme(request), DARK_SYSTEM)


def current_path(request: Request | None) -> str:
    """The path and query of the page, for forms that come back to it."""
    if request is None:
        return "/"
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


def site_url(request: Request | None, path: str = "/") -> str:
    """The absolute address of ``path`` (starting with ``/``) on this site.

    Uses ``CURSO_PUBLIC_URL`` when set, else the scheme and host of the request.
    """
    if request is None:
        return path
    base = getattr(request.app.state.settings, "public_url", "") or str(request.base_url).rstrip(
        "/"
    )
    return base + path


def canonical_url(request: Request | None) -> str:
    """The page's canonical address: its path on this site, without the query string."""
    return site_url(request, request.url.path if request is not None else "/")


def with_highlight(url: str, query: str) -> str:
    """``url`` with ``?destaque=<query>`` before its fragment: the page marks the query's words.

    ``/licoes/kernels#fusao`` and "fusão" give ``/licoes/kernels?destaque=fus%C3%A3o#fusao``.
    """
    if not query:
        return url
    address, hash_, fragment = url.partition("#")
    joiner = "&" if "?" in address else "?"
    return f"{address}{joiner}{urlencode({'destaque': query})}{hash_}{fragment}"


def marked_words(html: str, query: str) -> Markup:
    """The ``mark_words`` filter: a lesson's body with the words of ``query`` (``?destaque=``,
    :func:`with_highlight`) in ``<mark>``, so a search result lands on them without JavaScript."""
    return Markup(mark_words(str(html), query))


def account_name(request: Request | None) -> str | None:
    """The signed-in person's name for the page header: the name the LMS gave at the launch
    (``LMS_NAME_KEY``), else the username; ``None`` when nobody is signed in.

    Also ``None`` when the session could not be loaded (the 500 page must still render).
    """
    username = session_account(request)
    if username is None or request is None:
        return username
    shown = request.session.get(LMS_NAME_KEY)
    return shown if isinstance(shown, str) and shown else username


def from_lms(request: Request | None) -> bool:
    """True when an LMS launch signed this session in (the header offers "Abrir em nova aba")."""
    if account_name(request) is None or request is None:
        return False
    return isinstance(request.session.get(LTI_USER_KEY), list)


@pass_context
def _local_datetime(context, moment) -> str:
    request = context.get("request")
    return local_datetime(
        moment, request.cookies.get(TIMEZONE_COOKIE) if request is not None else None
    )


@pass_context
def _local_day(context, moment) -> str:
    request = context.get("request")
    return local_day(moment, request.cookies.get(TIMEZONE_COOKIE) if request is not None else None)


QUESTION_KINDS = {
    "single": N_("single choice"),
    "multiple": N_("multiple choice"),
    "scenario": N_("scenario"),
    "numeric": N_("numeric"),
    "ordering": N_("ordering"),
}


def kind_label(kind: str) -> str:
    """A question's ``kind`` as instructors read it ("escolha única"…); unknown kinds as written."""
    return gettext(QUESTION_KINDS[kind]) if kind in QUESTION_KINDS else kind


def class_title(name: str) -> str:
    """A class's page title: "Turma UX 2026" for "UX 2026", and the name alone when it already
    starts with the word (a class named "Turma UX 2026" is not "Turma Turma UX 2026")."""
    titled = gettext("Class %(name)s") % {"name": name}
    word = (gettext("Class %(name)s") % {"name": ""}).strip().casefold()
    first = name.split(maxsplit=1)[0].casefold() if name.strip() else ""
    return name if word and first == word else titled


def _kept_gettext(translate: Any, newstyle: Any) -> Any:
    """Jinja's newstyle ``gettext`` (``newstyle``, used as is when variables are given) with
    each message's result kept, by message and autoescaping."""
    kept: dict[tuple[str, bool], str] = {}

    @pass_context
    def gettext(context: Context, message: str, /, **variables: Any) -> str:
        if variables:
            return newstyle(context, message, **variables)
        autoescape = context.eval_ctx.autoescape
        text = kept.get((message, autoescape))
        if text is None:
            translated = translate(message)
            text = kept[message, autoescape] = (
                Markup(translated) if autoescape else translated
            ) % {}
        return text

    return gettext


def json_island(data: object) -> Markup:
    """``data`` as the text of a ``<script type="application/json">``: compact JSON with every
    ``<`` written ``\\u003c``, so no text in it (``</script>``, ``<!--``) can end the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c"))


_VERSIONS: dict[int, tuple[Lesson, str]] = {}
VERSION_CHARS = 8


def lesson_version(lesson: Lesson) -> str:
    """A short hash (8 hex digits) of what a lesson shows: its title, body and questions'
    versions. A device that downloaded the lesson (issue 40) compares it with the page's to
    download it again; computed once per loaded lesson."""
    kept = _VERSIONS.get(id(lesson))
    if kept is not None and kept[0] is lesson:
        return kept[1]
    digest = hashlib.sha256(lesson.meta.title_text.encode())
    for part in lesson.parts:
        digest.update(part.encode() if isinstance(part, str) else repr(part).encode())
    for question in lesson.questions.values():
        digest.update(question.content_hash.encode())
    if len(_VERSIONS) > 1024:  # lessons are loaded again on each edit: old ones go
        _VERSIONS.clear()
    _VERSIONS[id(lesson)] = (lesson, digest.hexdigest()[:VERSION_CHARS])
    return _VERSIONS[id(lesson)][1]


def make_templates(
    directory: Path = TEMPLATES_DIR, assets: Assets | None = None, urls: Urls | None = None
) -> Jinja2Templates:
    """Build the Jinja2 environment with the catalog and the helpers every template uses.

    Args:
        assets: the fingerprinted static files (``static_url``); the project's when ``None``.
        urls: the app's URL builder, the ``urls`` global (:class:`app.web.urls.Urls`).
            The page's ids come from the ``ids`` global (:mod:`app.content.page_ids`).
    """
    templates = Jinja2Templates(directory=str(directory))
    # Templates are code: they change with a restart, so no file is checked on each render.
    templates.env.auto_reload = False
    templates.env.add_extension("jinja2.ext.i18n")
    # The i18n extension adds this method when it is installed, so Environment's types lack it.
    templates.env.install_gettext_translations(  # type: ignore[attr-defined]
        translations(), newstyle=True
    )
    # ``_()`` and ``gettext()`` without variables, translated once per message: Jinja's own
    # go through an alias, a second call, ``Markup`` and ``% {}`` each time (a tenth of an
    # answer's CPU). Same results; the catalog does not change while the process runs.
    kept = _kept_gettext(translations().gettext, templates.env.globals["gettext"])
    templates.env.globals.update(gettext=kept, _=kept)
    assets = assets or Assets(PROJECT_ROOT / "static")
    templates.env.globals.update(
        csrf_token=csrf_token,
        theme=theme,
        dark_media=dark_media,
        current_path=current_path,
        static_url=assets.url,
        behaviours=assets.bundle(BEHAVIOURS, assets.scripts("js", first="core.js")),
        instructor_behaviours=assets.bundle(INSTRUCTOR_BEHAVIOURS, assets.scripts("js/instructor")),
        styles={source: assets.bundle(name, [source]) for source, name in STYLES.items()},
        local_datetime=_local_datetime,
        local_day=_local_day,
        account_name=account_name,
        from_lms=from_lms,
        tree_html=RenderedTrees(templates.env).html,
        kind_label=kind_label,
        class_title=class_title,
        number=format_number,
        canonical_url=canonical_url,
        site_url=site_url,
        with_highlight=with_highlight,
        urls=urls,
        ids=page_ids,
        launch_query=launch_query,
        launch_token=launch_token_of,
        form_issued=form_issued,
        lesson_version=lesson_version,
        json_island=json_island,
        offline_tree=offline_tree,
        offline_calculator=offline_calculator,
        path_slot=PATH_SLOT,
        question_mode=LESSON,  # a lesson's; /revisar and the notebook pass their own
    )
    templates.env.filters["mark_words"] = marked_words
    return templates


# htmx 2 sends ``HX-Request: true`` on history restores too (``historyRestoreAsHxRequest``
# defaults to true), with ``HX-History-Restore-Request: true``: that request puts the answer
# in place of the whole <body>, so it needs the full page.
VARY = "HX-Request, HX-History-Restore-Request"


def wants_fragment(request: HTTPConnection) -> bool:
    """True when the response should be the fragment alone, False for the full page.

    The one place that makes this choice for every route: htmx swapping part of a page sends
    ``HX-Request: true``; a history restore after a cache miss (``sessionStorage`` had no
    snapshot, e.g. after more than ``htmx.config.historyCacheSize`` pushes) sends it too,
    with ``HX-History-Restore-Request: true``, and must get the full page, since htmx puts
    the answer in place of the whole ``<body>`` (htmx 2 docs, "History Support").

    Args:
        request: the incoming request (or any connection built from an ASGI scope).

    Returns:
        True for an htmx request that is not a history restore.
    """
    headers = request.headers
    restoring = headers.get("hx-history-restore-request") == "true"
    return headers.get("hx-request") == "true" and not restoring


def render(
    request: Request, name: str, context: dict[str, Any], status_code: int = 200
) -> Response:
    """Render ``name`` with ``context``, with ``Vary`` (:data:`VARY`) and, when a GET or HEAD
    answers 200, an ``ETag``.

    A request whose ``If-None-Match`` holds that ``ETag`` gets ``304 Not Modified``. A POST's
    response (an answer's fragment) has none: no browser revalidates it, and scanning and
    hashing its body cost tens of microseconds per answer.
    """
    templates: Jinja2Templates = request.app.state.templates
    response = templates.TemplateResponse(request, name, context, status_code=status_code)
    response.headers["Vary"] = VARY
    if status_code != 200 or request.method not in ("GET", "HEAD"):
        return response
    # A quiz form's idempotency key (``chave``) is new on every render, so the ETag leaves it
    # out: an unchanged page still revalidates. A key can only have been used if an answer was
    # stored, and then the page itself has changed (the graded answer, the counts), so its
    # ETag has too. The forms' issued time (``emitida``) is left out too: a page kept by the
    # browser says when it was first sent, which is when the learner had it.
    stable = ISSUED_FIELD.sub(rb'\1"', FORM_KEY_FIELD.sub(rb'\1"', response.body))
    etag = 'W/"' + hashlib.blake2b(stable, digest_size=16).hexdigest() + '"'
    headers = {"ETag": etag, "Cache-Control": HTML_CACHE, "Vary": f"{VARY}, Cookie"}
    unchanged = not_modified(request, etag, headers)
    if unchanged is not None:
        return unchanged
    response.headers.update(headers)
    return response


def not_modified(request: HTTPConnection, etag: str, headers: dict[str, str]) -> Response | None:
    """``304 Not Modified`` with ``headers`` when the request's ``If-None-Match`` holds ``etag``
    (weak comparison, RFC 9110 §13.1.2: ``"x"`` matches ``W/"x"``), else ``None``."""
    tags = {tag.strip() for tag in request.headers.get("if-none-match", "").split(",")}
    if etag in tags | {f"W/{tag}" for tag in tags if tag and not tag.startswith("W/")}:
        return Response(status_code=304, headers=headers)
    return None
