"""Error pages and messages in Portuguese, as HTML for pages and fragments for htmx."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.types import Scope

from app.i18n import N_, gettext
from app.learning.writer import WriterUnavailable
from app.web.headers import security_headers
from app.web.lookups import moved_lesson_url
from app.web.templating import render, wants_fragment

# Message ids; the text comes from the catalog when the page is rendered.
TITLES = {
    400: N_("Bad request"),
    403: N_("Access denied"),
    404: N_("Page not found"),
    405: N_("Method not allowed"),
    413: N_("Upload too large"),
    415: N_("Format not accepted"),
    422: N_("Invalid data"),
    500: N_("Internal error"),
    503: N_("Lesson unavailable"),
}
DEFAULT_DETAIL = {
    404: N_("We could not find this page. Go back to the start of the course."),
    405: N_("This address does not accept that kind of request."),
    500: N_("Something went wrong on our side. Your earlier answers are saved; try again."),
}
EXPIRED_MESSAGE = N_("Session expired, reload the page.")
NOT_STORED_TITLE = N_("Answer not saved")
NOT_STORED = N_(
    "The course could not save your answer just now, and nothing of it was saved halfway. "
    "Try again: sending the same answer again saves it once."
)
INVALID_FORM = N_("The form sent is incomplete or malformed. Reload the page and try again.")
ERROR = N_("Error")


def title_of(status_code: int) -> str:
    """The error page's title for ``status_code``, in Portuguese."""
    return gettext(TITLES.get(status_code, ERROR))


def error_response(
    request: Request, status_code: int, detail: str | None, title: str | None = None
):
    """Render the error page (the ``_error.html`` fragment for htmx, JSON under ``/api/``).

    ``detail`` and ``title`` are already in Portuguese; the defaults are looked up in the
    catalog.
    """
    message = detail if detail and status_code != 500 else _default_detail(status_code) or detail
    if request.url.path.startswith(api_section(request)):
        return JSONResponse({"detail": message or title_of(status_code)}, status_code=status_code)
    context = _context(status_code, message)
    if title:
        context["title"] = title
    return render(request, _template(request), context, status_code)


def api_section(request: Request) -> str:
    """What every API path starts with: the folder of the app's OpenAPI schema (``/api/``)."""
    return request.app.openapi_url.rpartition("/")[0] + "/"


def error_html(templates: Jinja2Templates, scope: Scope, status_code: int, message: str) -> str:
    """The error page's HTML for a middleware that answers before any route runs.

    Args:
        scope: the ASGI scope (an htmx request gets only the ``_error.html`` fragment).
        status_code: the HTTP status shown in the page.
        message: what went wrong, already in Portuguese.
    """
    template = templates.get_template(_template(HTTPConnection(scope)))
    return template.render(**_context(status_code, message), request=None)


def _template(connection: HTTPConnection) -> str:
    return "_error.html" if wants_fragment(connection) else "error.html"


def _context(status_code: int, message: str | None) -> dict[str, object]:
    return {"status": status_code, "title": title_of(status_code), "message": message}


def install(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        detail = (
            exc.detail if isinstance(exc.detail, str) and exc.detail != _http_phrase(exc) else None
        )
        if exc.status_code == 404 and (moved := moved_lesson_url(request)) is not None:
            return _moved(request, moved)
        if exc.status_code == 400:
            detail = gettext(INVALID_FORM)  # Starlette's own form-parsing messages are in English
        response = error_response(
            request, exc.status_code, detail or _default_detail(exc.status_code)
        )
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, _exc: RequestValidationError):
        return error_response(request, 422, gettext(INVALID_FORM))

    @app.exception_handler(WriterUnavailable)
    async def not_stored(request: Request, _exc: WriterUnavailable):
        response = error_response(request, 503, gettext(NOT_STORED), gettext(NOT_STORED_TITLE))
        response.headers["Retry-After"] = "1"
        return response

    @app.exception_handler(Exception)
    async def unexpected(request: Request, _exc: Exception):
        # Sent by Starlette's outermost middleware, which no other middleware wraps. The
        # registered LMSs may frame it, as every other page: inside their iframe the learner
        # reads the message, not the browser's "refused to connect".
        response = error_response(request, 500, None)
        state = request.app.state
        for name, value in security_headers(state.settings.secure_cookies, state.lms_origins()):
            response.headers[name.decode()] = value.decode()
        return response


def _moved(request: Request, url: str) -> RedirectResponse:
    """A renamed lesson's old address: 301 for reads, 308 (method and form kept) otherwise.

    ``no-cache``: the browser asks again next time, since a later rename may give the old
    slug back to a lesson."""
    status = 301 if request.method in ("GET", "HEAD") else 308
    return RedirectResponse(url, status_code=status, headers={"Cache-Control": "no-cache"})


def _default_detail(status_code: int) -> str | None:
    message = DEFAULT_DETAIL.get(status_code)
    return gettext(message) if message else None


def _http_phrase(exc: StarletteHTTPException) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(exc.status_code).phrase
    except ValueError:
        return ""
