"""Jinja2 set-up and the page/fragment response helpers.

Convention: a fragment is a template named ``_name.html``. The page template
includes it; a route answering an htmx request (``HX-Request: true``) returns the
fragment alone. Every such response carries ``Vary: HX-Request``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.sessions import session_account
from app.settings import PROJECT_ROOT

TEMPLATES_DIR = PROJECT_ROOT / "templates"


def csrf_token(request: Request) -> str:
    """Return the CSRF token for forms and htmx headers (set by asgi-csrf)."""
    getter = request.scope.get("csrftoken") if request is not None else None
    return getter() if getter else ""


def make_templates(directory: Path = TEMPLATES_DIR) -> Jinja2Templates:
    """Build the Jinja2 environment with the helpers every template uses."""
    templates = Jinja2Templates(directory=str(directory))
    templates.env.globals["csrf_token"] = csrf_token
    templates.env.globals["account_name"] = session_account
    return templates


def is_htmx(request: Request) -> bool:
    """True when the request comes from htmx (``HX-Request: true``)."""
    return request.headers.get("hx-request") == "true"


def render(
    request: Request, name: str, context: dict[str, Any], status_code: int = 200
) -> HTMLResponse:
    """Render ``name`` with ``context`` and mark the response ``Vary: HX-Request``."""
    templates: Jinja2Templates = request.app.state.templates
    response = templates.TemplateResponse(request, name, context, status_code=status_code)
    response.headers["Vary"] = "HX-Request"
    return response
