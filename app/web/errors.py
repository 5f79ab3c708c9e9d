"""Error pages and messages in Portuguese, as HTML for pages and fragments for htmx."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.web.templating import is_htmx, render

TITLES = {
    400: "Pedido inválido",
    403: "Acesso negado",
    404: "Página não encontrada",
    405: "Método não permitido",
    413: "Envio grande demais",
    415: "Formato não aceito",
    422: "Dados inválidos",
    500: "Erro interno",
    503: "Lição indisponível",
}
DEFAULT_DETAIL = {
    404: "Não encontramos esta página. Volte ao início do curso.",
    405: "Este endereço não aceita esse tipo de pedido.",
    500: "Algo deu errado do nosso lado. Suas respostas anteriores estão salvas; tente de novo.",
}
INVALID_FORM = "O formulário enviado está incompleto ou malformado. Recarregue a página e tente de novo."


def error_response(request: Request, status_code: int, detail: str | None):
    """Render the error page (the ``_error.html`` fragment for htmx, JSON under ``/api/``)."""
    message = detail if detail and status_code != 500 else DEFAULT_DETAIL.get(status_code, detail)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": message or TITLES.get(status_code, "Erro")}, status_code=status_code)
    context = {"status": status_code, "title": TITLES.get(status_code, "Erro"), "message": message}
    name = "_error.html" if is_htmx(request) else "error.html"
    return render(request, name, context, status_code=status_code)


def install(app: FastAPI) -> None:
    """Register the handlers on ``app``."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        detail = exc.detail if isinstance(exc.detail, str) and exc.detail != _http_phrase(exc) else None
        if exc.status_code == 400:
            detail = INVALID_FORM  # Starlette's own form-parsing messages are in English
        response = error_response(request, exc.status_code, detail or DEFAULT_DETAIL.get(exc.status_code))
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, _exc: RequestValidationError):
        return error_response(request, 422, INVALID_FORM)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, _exc: Exception):
        return error_response(request, 500, None)


def _http_phrase(exc: StarletteHTTPException) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(exc.status_code).phrase
    except ValueError:
        return ""
