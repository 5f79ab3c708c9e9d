"""The app factory: ``create_app(settings)`` builds one independent app.

Run with ``uvicorn --factory app.main:create_app``; nothing is built at import time.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.sessions import SessionMiddleware

from app.content.course import load_course
from app.db import make_engine
from app.search import SearchIndex, folder_signature
from app.security import RequestGuard, csrf_middleware
from app.settings import PROJECT_ROOT, Settings, load_settings
from app.web import api, errors, glossary, lessons, preferences, quizzes, search, trees
from app.web.assets import Assets, FingerprintedStaticFiles
from app.web.templating import make_templates

log = logging.getLogger("curso")
SESSION_COOKIE = "curso_sessao"
SESSION_MAX_AGE_S = 365 * 24 * 3600
GZIP_MIN_BYTES = 500


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app.

    Args:
        settings: configuration; read from ``CURSO_*`` variables when ``None``.

    Returns:
        A FastAPI app with its engine, course and templates on ``app.state``.
        Lesson problems are logged as ``file:line: message``; valid lessons are served.
    """
    settings = settings or load_settings()
    app = FastAPI(
        title="curso",
        description="API do curso de engines de inferência de LLM (respostas em português).",
        docs_url=None, redoc_url=None, openapi_url="/api/openapi.json",
    )
    app.state.settings = settings
    app.state.engine = make_engine(settings.resolved_database_url())
    assets = Assets(PROJECT_ROOT / "static")
    app.state.templates = make_templates(assets=assets)
    signature = folder_signature(settings.lessons_dir)  # before loading: a later edit still shows
    app.state.course = load_course(settings.lessons_dir)
    app.state.search = SearchIndex(settings.lessons_dir, app.state.course, signature)
    for error in app.state.course.errors:
        log.error("%s", error)

    secret = settings.resolved_secret_key()
    app.add_middleware(csrf_middleware(app.state.templates, secret, settings.secure_cookies))
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret,
        session_cookie=SESSION_COOKIE,
        max_age=SESSION_MAX_AGE_S,
        same_site="lax",
        https_only=settings.secure_cookies,
    )
    app.add_middleware(RequestGuard, templates=app.state.templates)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES)
    app.mount("/static", FingerprintedStaticFiles(assets), name="static")
    for module in (lessons, quizzes, trees, search, glossary, preferences, api):
        app.include_router(module.router)
    errors.install(app)
    _api_docs(app, assets)
    return app


def _api_docs(app: FastAPI, assets: Assets) -> None:
    """Serve Swagger UI from ``static/swagger`` (no CDN)."""

    @app.get("/api/docs", include_in_schema=False)
    def api_docs():
        return get_swagger_ui_html(
            openapi_url="/api/openapi.json", title="curso · API",
            swagger_js_url=assets.url("swagger/swagger-ui-bundle.js"),
            swagger_css_url=assets.url("swagger/swagger-ui.css"),
            swagger_favicon_url=assets.url("favicon.svg"),
        )
