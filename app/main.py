"""The app factory: ``create_app(settings)`` builds one independent app.

Run with ``uvicorn --factory app.main:create_app``; nothing is built at import time.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from starlette.middleware.gzip import GZipMiddleware
from starsessions import SessionMiddleware

from app.content.lesson_cache import LessonCache
from app.content.links import IMAGES_URL
from app.content.live import LiveCourse
from app.content.search import SearchIndex
from app.learning.lti import LmsOrigins
from app.learning.lti_sender import ScoreSender
from app.learning.mastery import concept_tags
from app.learning.writer import AnswerWriter
from app.platform.auth import KnownDevices, Passwords, SignInLimiter
from app.platform.db import make_engine, make_loop_engine, make_writer_engine
from app.platform.i18n import keep_compiled_catalog
from app.platform.logs import RequestLog, configure_logging
from app.platform.sessions import DatabaseStore, SessionLoader
from app.platform.settings import PROJECT_ROOT, Settings, load_settings
from app.web import (
    account,
    api,
    calculators,
    classes,
    editor,
    errors,
    glossary,
    health,
    instructor,
    lessons,
    lti,
    mydata,
    preferences,
    progress,
    quizzes,
    review,
    search,
    sitemap,
    trees,
)
from app.web.assets import Assets, FingerprintedStaticFiles
from app.web.images import LessonImages
from app.web.page_cache import VISITOR_HEADERS, LearnerPages, PageCache, VisitorPages
from app.web.security import RequestGuard, csrf_middleware
from app.web.templating import make_templates, theme
from app.web.urls import Urls

SESSION_COOKIE = "curso_sessao"
SESSION_MAX_AGE_S = 365 * 24 * 3600
GZIP_MIN_BYTES = 500
# Level 3 compresses a 50 KB lesson page in about a fifth of level 9's time (Starlette's
# default), for about 10% more bytes; the profile showed level 9 at a fifth of a page's CPU.
GZIP_LEVEL = 3


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app.

    Args:
        settings: configuration; read from ``CURSO_*`` variables when ``None``.

    Returns:
        A FastAPI app with its engine, live course, templates, password hasher and sign-in
        limiter on ``app.state``; sessions are kept in the database (``app/platform/sessions.py``).
        Lesson files are reloaded when they change (``CURSO_RELOAD_INTERVAL``); their
        problems are logged with file, line and column; valid lessons are served. Rendered
        lessons, the glossary and the compiled catalog are kept in ``var/cache/lessons``
        (:mod:`app.content.lesson_cache`), so a restart does not render them again.
    """
    settings = settings or load_settings()
    app = FastAPI(
        title="curso",
        description="API do curso de engines de inferência de LLM (respostas em português).",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        debug=settings.debug,
        redirect_slashes=False,  # its redirect builds an absolute URL from the Host header
    )
    app.state.settings = settings
    app.state.engine = make_engine(settings.resolved_database_url())
    app.state.loop_engine = make_loop_engine(settings.resolved_database_url())
    cache = LessonCache(settings.var_dir / "cache" / "lessons")
    keep_compiled_catalog(cache)
    assets = Assets(PROJECT_ROOT / "static")
    app.state.urls = Urls(app)  # every path, from the named routes (app/web/urls.py)
    app.state.templates = make_templates(assets=assets, urls=app.state.urls)
    configure_logging()
    app.state.live_course = LiveCourse(
        settings.lessons_dir,
        settings.reload_interval,
        static_dir=PROJECT_ROOT / "static",
        cache=cache,
    )
    # Built on the first search, rebuilt when the course changes.
    app.state.search = SearchIndex(app.state.live_course.current)
    app.state.page_cache = PageCache()  # visitors' lesson pages (app/web/page_cache.py)
    app.state.learner_pages = LearnerPages()  # learners' lesson pages, by state version
    app.state.passwords = Passwords()
    app.state.sign_in_limiter = SignInLimiter(settings.rate_limit_storage, engine=app.state.engine)
    # LTI 1.3: the registered LMSs may frame the pages; queued grades go out from a thread.
    app.state.lms_origins = LmsOrigins(app.state.engine)
    app.state.lti_sender = ScoreSender(app.state.engine)
    # Answers and places are written by one thread per process, in groups (app/learning/writer.py).
    # Its own one-connection engine: requests never take the connection it needs.
    app.state.answer_writer = AnswerWriter(
        make_writer_engine(settings.resolved_database_url()),
        tags=lambda: concept_tags(app.state.live_course.current()),
    )
    app.state.lti_sender.wake_if_pending()  # scores queued before a restart go out

    secret = settings.resolved_secret_key()
    app.state.known_devices = KnownDevices(secret)
    app.state.pseudonym_salt = secret.encode()  # learners in CSV exports, as in the request logs
    # Inside asgi-csrf (it hands out the token), before any routing: cached visitor pages.
    app.add_middleware(VisitorPages, state=app.state, theme=theme, response_headers=VISITOR_HEADERS)
    app.add_middleware(csrf_middleware(app.state.templates, secret, settings.secure_cookies))
    app.add_middleware(RequestLog, salt=secret)
    app.add_middleware(SessionLoader)
    app.add_middleware(
        SessionMiddleware,
        store=DatabaseStore(app.state.engine, app.state.loop_engine),
        cookie_name=SESSION_COOKIE,
        lifetime=SESSION_MAX_AGE_S,
        rolling=True,
        cookie_same_site="lax",
        cookie_https_only=settings.secure_cookies,
    )
    app.add_middleware(
        RequestGuard,
        templates=app.state.templates,
        signing_secret=secret,
        hsts=settings.secure_cookies,
        lms_origins=app.state.lms_origins,
    )
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=GZIP_LEVEL)
    app.mount("/static", FingerprintedStaticFiles(assets), name="static")
    app.mount(IMAGES_URL.rstrip("/"), LessonImages(settings.lessons_dir), name="lesson_images")
    # The editor comes before the instructor pages: its /instrutor/licoes/nova is not a lesson slug.
    for module in (
        lessons,
        quizzes,
        trees,
        search,
        glossary,
        sitemap,
        preferences,
        health,
        account,
        editor,
        classes,
        instructor,
        review,
        calculators,
        lti,
    ):
        app.include_router(module.router, include_in_schema=False)
    for module in (api, progress, mydata):  # their HTML routes opt out of the schema one by one
        app.include_router(module.router)
    errors.install(app)
    _api_docs(app)
    return app


def _api_docs(app: FastAPI) -> None:
    """Serve Swagger UI from ``static/swagger`` (no CDN)."""

    @app.get("/api/docs", include_in_schema=False, response_class=HTMLResponse)
    def api_docs(request: Request):
        return app.state.templates.TemplateResponse(request, "api_docs.html", {})
