"""The learner's display preferences: the light/dark theme, remembered in a cookie.

``static/js/theme-switch.js`` switches the theme at once and writes the same cookie; this route
is the plain-form path, for browsers without JavaScript.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

from app.web.cookies import set_cookie
from app.web.templating import THEME_COOKIE, THEMES
from app.web.urls import safe_return_path

router = APIRouter()
THEME_MAX_AGE_S = 365 * 24 * 3600


@router.post("/tema", name="theme")
def choose_theme(
    request: Request,
    tema: Annotated[str, Form(max_length=20)],
    voltar: Annotated[str, Form(max_length=2000)] = "/",
):
    """Remember the theme (``claro`` or ``escuro``) for a year and go back to the page (303).

    The cookie is ``Secure`` when ``CURSO_SECURE_COOKIES`` is on, like every cookie of the course.
    """
    response = RedirectResponse(safe_return_path(voltar), status_code=303)
    if tema in THEMES:
        set_cookie(
            response,
            THEME_COOKIE,
            tema,
            max_age=THEME_MAX_AGE_S,
            httponly=False,
            secure=request.app.state.settings.secure_cookies,
        )
    return response
