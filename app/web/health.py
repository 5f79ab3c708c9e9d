"""``/healthz``: is the database reachable, are migrations at head, did the lessons load."""

from __future__ import annotations

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool

from app.migrate import alembic_config

router = APIRouter()


def database_state(engine) -> tuple[bool, str | None]:
    """Return (reachable, current revision) of the database behind ``engine``."""
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
    head = ScriptDirectory.from_config(alembic_config(str(state.engine.url))).get_current_head()
    course = state.course
    body = {
        "database": "ok" if reachable else "inacessível",
        "migrations": "ok" if revision == head else f"pendentes (banco em {revision}, código em {head})",
        "lessons": {"loaded": len(course.lessons), "errors": len(course.errors)},
    }
    healthy = reachable and revision == head and bool(course.lessons)
    body["status"] = "ok" if healthy else "indisponível"
    return JSONResponse(body, status_code=200 if healthy else 503)
