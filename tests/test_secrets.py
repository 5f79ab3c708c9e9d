"""Secrets never reach a page or a log line, even when a request fails."""

from __future__ import annotations

import logging

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import TEST_SECRET


def test_a_crash_shows_a_plain_page_without_traceback_or_secret(settings, caplog):
    app = create_app(settings)

    @app.get("/falha-de-teste")
    def boom():
        raise RuntimeError(f"falhou com {settings.secret_key}")

    with caplog.at_level(logging.INFO, logger="curso"), TestClient(app, raise_server_exceptions=False) as client:
        client.get("/licoes/kernels")
        response = client.get("/falha-de-teste")
    assert response.status_code == 500
    assert "Algo deu errado do nosso lado. Suas respostas anteriores estão salvas; tente de novo." in response.text
    assert TEST_SECRET not in response.text and "Traceback" not in response.text
    assert TEST_SECRET not in caplog.text
    assert not app.debug, "páginas de depuração ficam desligadas"
    assert all(value not in caplog.text for value in client.cookies.values()), "cookies não vão para o log"
