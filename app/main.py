"""The app factory: ``create_app(settings)`` builds one independent app.

Run with ``uvicorn --factory app.main:create_app``; nothing is built at import time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from starlette.datastructures import State
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware

from app.content.lesson_cache import LessonCache
from app.content.links import IMAGES_URL
from app.content.live import LiveCourse
from app.content.search import SearchIndex
from app.i18n import keep_compiled_catalog
from app.learning.mastery import concept_tags
from app.learning.retention import RetentionSweeper
from app.learning.store import LearnerStates
from app.learning.writer import AnswerWriter
from app.lti.scores import queue_scores
from app.lti.sender import ScoreSender
from app.lti.tool import LmsOrigins
from app.platform.auth import KnownDevices, Passwords, SignInLimiter
from app.platform.db import make_engine, make_loop_engine, make_writer_engine
from app.platform.logs import configure_logging
from app.platform.sessions import SESSION_MAX_AGE_S, SessionStore
from app.platform.settings import PROJECT_ROOT, Settings, load_settings
from app.web import errors, routes
from app.web.assets import Assets, FingerprintedStaticFiles
from app.web.front_door import FrontDoor
from app.web.page_cache import LEARNER_PAGES, KeyedPages
from app.web.routes.images import LessonImages
from app.web.templating import make_templates
from app.web.urls import Urls

__all__ = ["SESSION_MAX_AGE_S", "create_app"]
GZIP_MIN_BYTES = 500
# Level 3 compresses a 50 KB lesson page in about a fifth of level 9's time (Starlette's
# default), for about 10% more bytes; the profile showed level 9 at a fifth of a page's CPU.
GZIP_LEVEL = 3


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app: its state, then its middleware (outermost first), then its routes.

    ``settings`` are read from ``CURSO_*`` variables when ``None``. Lesson files are reloaded
    when they change (``CURSO_RELOAD_INTERVAL``); their problems are logged with file, line
    and column, and valid lessons are served. Rendered lessons, the glossary and the compiled
    catalog are kept in ``var/cache/lessons`` (:mod:`app.content.lesson_cache`), so a restart
    does not render them again.
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
        lifespan=_lifespan,
    )
    _state(app, settings)
    # add_middleware wraps what is there, so the list (outermost first) is added from its end.
    for layer in reversed(_middleware(app.state, settings)):
        app.add_middleware(layer.cls, *layer.args, **layer.kwargs)
    _mounts(app, settings)
    routes.include_all(app)
    errors.install(app)
    _api_docs(app)
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The app's own threads that run on a timer, started with the server, stopped with it."""
    app.state.retention.start()
    yield
    app.state.retention.stop()


def _state(app: FastAPI, settings: Settings) -> None:
    """What every request reads from ``app.state``: engines, the live course, templates,
    caches, the answer writer and the sign-in machinery."""
    state = app.state
    state.settings = settings
    state.engine = make_engine(settings.resolved_database_url())
    state.loop_engine = make_loop_engine(settings.resolved_database_url())
    cache = LessonCache(settings.var_dir / "cache" / "lessons")
    keep_compiled_catalog(cache)
    state.assets = Assets(PROJECT_ROOT / "static")
    state.urls = Urls(app)
    state.templates = make_templates(assets=state.assets, urls=state.urls)
    configure_logging()
    state.live_course = LiveCourse(
        settings.lessons_dir,
        settings.reload_interval,
        static_dir=PROJECT_ROOT / "static",
        cache=cache,
    )
    # Built on the first search, rebuilt when the course changes.
    state.search = SearchIndex(state.live_course.current)
    state.visitor_pages = KeyedPages()  # every lesson × theme of the course version
    state.learner_pages = KeyedPages(max_pages=LEARNER_PAGES)  # by learner state, LRU
    state.passwords = Passwords()
    state.sign_in_limiter = SignInLimiter(settings.rate_limit_storage, engine=state.engine)
    # LTI 1.3: the registered LMSs may frame the pages; queued grades go out from a thread.
    state.lms_origins = LmsOrigins(state.engine)
    state.lti_sender = ScoreSender(state.engine)
    # Answers and places are written by one thread per process, in groups. Its own
    # one-connection engine: requests never take the connection it needs.
    state.answer_writer = AnswerWriter(
        make_writer_engine(settings.resolved_database_url()),
        tags=lambda: concept_tags(state.live_course.current()),
        outbox=queue_scores,  # an LTI launch's score is queued with its answer
    )
    # Each active learner's state, checked against the database on every read (only the
    # rows newer than those kept are read).
    state.learner_states = LearnerStates()
    state.lti_sender.wake_if_pending()  # scores queued before a restart go out
    # Anonymous learners nobody can reach any more are erased, once a day (LGPD).
    state.retention = RetentionSweeper(state.engine, settings.anonymous_retention_days)
    state.secret = settings.resolved_secret_key()
    state.known_devices = KnownDevices(state.secret)
    state.pseudonym_salt = state.secret.encode()  # learners in CSV exports, as in the logs
    # Sessions: the websession table behind a per-process cache (app/platform/sessions.py).
    state.sessions = SessionStore(state.engine, settings.resolved_database_url())


def _middleware(state: State, settings: Settings) -> list[Middleware]:
    """The middleware, outermost first (as Starlette's ``middleware=`` list reads): gzip, then
    the front door (guard, CSRF, session, security headers, log, cached visitor pages)."""
    return [
        Middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=GZIP_LEVEL),
        Middleware(FrontDoor, state=state, settings=settings),
    ]


def _mounts(app: FastAPI, settings: Settings) -> None:
    """Static files (fingerprinted) and the lessons' images."""
    app.mount("/static", FingerprintedStaticFiles(app.state.assets), name="static")
    app.mount(IMAGES_URL.rstrip("/"), LessonImages(settings.lessons_dir), name="lesson_images")


def _api_docs(app: FastAPI) -> None:
    """Serve Swagger UI from ``static/swagger`` (no CDN)."""

    @app.get("/api/docs", include_in_schema=False, response_class=HTMLResponse)
    def api_docs(request: Request):
        return app.state.templates.TemplateResponse(request, "api_docs.html", {})
