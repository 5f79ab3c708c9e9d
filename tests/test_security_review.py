"""Regressions for the findings of the security review (``docs/revisao-de-seguranca.md``).

Each test names its finding; each failed before its fix.
"""

from __future__ import annotations

import asyncio

import httpx
from fastapi.testclient import TestClient

from tests.conftest import csrf_from
from tests.test_http import HX, KERNELS, soup, stored, text

QUESTION = next(iter(KERNELS.questions))


def raw_get(app, path: str, headers: dict[str, bytes]) -> httpx.Response:
    """GET through httpx's ASGI transport, which passes header bytes as they are.

    (Starlette's TestClient re-encodes header values as UTF-8, so it cannot send these.)
    """

    async def get():
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return await client.get(path, headers=headers)

    return asyncio.run(get())


def test_malformed_cookies_are_dropped_not_a_500(client):
    """Finding 1: a Cookie header that is not UTF-8 crashed asgi-csrf (500 on every page), and
    a quoted cookie with an octal escape (``"\\000"``) put a NUL byte in the session id, which
    PostgreSQL refuses (500)."""
    for raw in (b"a=\xff\xfe", b'curso_sessao="\\000abc"', b'curso_sessao="\\000abc"; a=\xff'):
        response = raw_get(client.app, "/progresso", {"cookie": raw})
        assert response.status_code == 200, raw
        new_id = response.cookies.get("curso_sessao")
        assert new_id and len(new_id) == 32 and new_id.isalnum()


def test_well_formed_cookies_next_to_a_malformed_one_are_kept(client):
    page = client.get("/licoes/kernels").text
    session_id, token = client.cookies["curso_sessao"], client.cookies["csrftoken"]
    raw = f"lixo=\xff; curso_sessao={session_id}; csrftoken={token}; tema=escuro".encode("latin-1")
    response = raw_get(client.app, "/progresso", {"cookie": raw})
    assert response.status_code == 200
    assert soup(response).html["data-theme"] == "dark"
    assert response.cookies.get("curso_sessao") == session_id, "a sessão de antes continua valendo"
    assert csrf_from(response.text) == csrf_from(page)
