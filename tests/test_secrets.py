"""Secrets never reach a page or a log line, even when a request fails."""

from __future__ import annotations

import logging

from fastapi.testclient import TestClient

from app.main import create_app
from app.platform.settings import Settings
from tests.support.app import TEST_SECRET


def test_a_crash_shows_a_plain_page_without_traceback_or_secret(settings, caplog):
    app = create_app(settings)

    @app.get("/falha-de-teste")
    def boom():
        raise RuntimeError(f"falhou com {settings.secret_key}")

    with (
        caplog.at_level(logging.INFO, logger="curso"),
        TestClient(app, raise_server_exceptions=False) as client,
    ):
        client.get("/licoes/kernels")
        response = client.get("/falha-de-teste")
    assert response.status_code == 500
    assert (
        "Algo deu errado do nosso lado. Suas respostas anteriores estão salvas; tente de novo."
        in response.text
    )
    assert TEST_SECRET not in response.text and "Traceback" not in response.text
    assert TEST_SECRET not in caplog.text
    assert not app.debug, "páginas de depuração ficam desligadas"
    assert all(value not in caplog.text for value in client.cookies.values()), (
        "cookies não vão para o log"
    )


def crashing_app(settings):
    app = create_app(settings)

    @app.get("/falha-de-teste")
    def boom():
        raise RuntimeError("falha de teste proposital")

    return app


def test_debug_is_off_unless_the_setting_turns_it_on(settings, monkeypatch):
    monkeypatch.delenv("CURSO_DEBUG", raising=False)
    assert Settings().debug is False
    monkeypatch.setenv("CURSO_DEBUG", "true")
    assert Settings().debug is True
    with TestClient(crashing_app(settings), raise_server_exceptions=False) as client:
        response = client.get("/falha-de-teste", headers={"accept": "text/html"})
    assert response.status_code == 500
    assert "falha de teste proposital" not in response.text and "Traceback" not in response.text
    assert "Algo deu errado do nosso lado." in response.text


def test_the_debug_setting_shows_the_traceback(settings):
    app = crashing_app(settings.model_copy(update={"debug": True}))
    assert app.debug
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/falha-de-teste", headers={"accept": "text/html"})
    assert response.status_code == 500
    assert "RuntimeError" in response.text and "falha de teste proposital" in response.text
    assert "Algo deu errado do nosso lado." not in response.text


def test_the_500_page_carries_the_security_headers(settings):
    """Starlette answers a crash outside every middleware; the handler adds the headers itself."""
    with TestClient(crashing_app(settings), raise_server_exceptions=False) as client:
        response = client.get("/falha-de-teste")
    assert response.status_code == 500
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "same-origin"


def test_a_session_store_failure_still_shows_the_portuguese_500_page(settings, monkeypatch):
    """The session store fails while loading; the error page must not trip on the session."""
    from app.platform.sessions import SessionStore

    def broken(self, session_id):
        raise RuntimeError("banco fora do ar")

    monkeypatch.setattr(SessionStore, "load", broken)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        client.cookies.set("curso_sessao", "a" * 32)
        response = client.get("/progresso")
    assert response.status_code == 500
    assert "Algo deu errado do nosso lado." in response.text
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
