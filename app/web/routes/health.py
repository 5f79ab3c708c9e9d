"""``/healthz``: is the database reachable, are migrations at head, did the lessons load."""

from __future__ import annotations

import functools

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool

from app.i18n import N_, gettext

router = APIRouter()
# The body's values, from the catalog (pt-BR); "ok" is the same in both languages.
UNREACHABLE = N_("unreachable")
PENDING = N_("pending (database at %(database)s, code at %(code)s)")
ENABLED = N_("enabled")
DISABLED = N_("disabled")
UNAVAILABLE = N_("unavailable")


@functools.cache
def code_head(url: str) -> str | None:
    """The newest migration in the code (read once per process: the migrations are code)."""
    # Alembic is imported here, not at the top: it is a third of a second of every worker's start.
    from alembic.script import ScriptDirectory

    from app.platform.migrate import alembic_config

    return ScriptDirectory.from_config(alembic_config(url)).get_current_head()


def database_state(engine) -> tuple[bool, str | None]:
    """Return (reachable, current revision) of the database behind ``engine``."""
    from alembic.runtime.migration import MigrationContext

    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
            return True, MigrationContext.configure(connection).get_current_revision()
    except Exception:  # noqa: BLE001 (any driver error means "unreachable" here)
        return False, None


@router.get("/healthz", include_in_schema=False)
async def healthz(request: Request) -> JSONResponse:
    """200 when everything is ready, else 503; the body says what is wrong."""
    state = request.app.state
    reachable, revision = await run_in_threadpool(database_state, state.engine)
    head = code_head(str(state.engine.url))
    course = state.live_course.current()
    body = {
        "database": "ok" if reachable else gettext(UNREACHABLE),
        "migrations": "ok"
        if revision == head
        else gettext(PENDING) % {"database": revision, "code": head},
        "lessons": {"loaded": len(course.lessons), "errors": len(course.errors)},
        "web_editor": gettext(ENABLED) if state.settings.web_editor else gettext(DISABLED),
    }
    healthy = reachable and revision == head and bool(course.lessons)
    body["status"] = "ok" if healthy else gettext(UNAVAILABLE)
    return JSONResponse(body, status_code=200 if healthy else 503)
