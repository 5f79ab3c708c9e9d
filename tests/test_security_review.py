"""Regressions for the findings of the security review (``tests/revisao-de-seguranca.md``).

Each test names its finding; each failed before its fix.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
from anyio.from_thread import start_blocking_portal
from fastapi.testclient import TestClient

from app.main import create_app
from app.platform.auth import SignInLimiter, client_key
from tests.support.accounts import PASSWORD, instructor, new_browser, sign_in, sign_up
from tests.support.html import HX, csrf_from, soup, text
from tests.support.learning import KERNELS, answer, key_of, stored, version_of

QUESTION = next(iter(KERNELS.questions))


def raw_get(app, path: str, headers: dict[str, bytes]) -> httpx.Response:
    """GET through httpx's ASGI transport, which passes header bytes as they are.

    (Starlette's TestClient re-encodes header values as UTF-8, so it cannot send these.)
    The event loop runs in a portal thread, as in the TestClient: Playwright's sync API may
    already run one in this thread.
    """

    async def get():
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return await client.get(path, headers=headers)

    with start_blocking_portal() as portal:
        return portal.call(get)


def test_malformed_cookies_are_dropped_not_a_500(client):
    """Finding 1: a Cookie header that is not UTF-8 crashed asgi-csrf (500 on every page), and
    a quoted cookie with an octal escape (``"\\000"``) put a NUL byte in the session id, which
    PostgreSQL refuses (500)."""
    for raw in (b"a=\xff\xfe", b'curso_sessao="\\000abc"', b'curso_sessao="\\000abc"; a=\xff'):
        response = raw_get(client.app, "/progresso", {"cookie": raw})
        assert response.status_code == 200, raw
        # The bad id is not kept; reading creates no session, so none is set back.
        assert "curso_sessao" not in response.cookies


def test_well_formed_cookies_next_to_a_malformed_one_are_kept(client):
    page = client.get("/licoes/kernels").text
    first = next(iter(KERNELS.questions.values()))
    answer(client, "kernels", first.id, sorted(first.answer))  # a learner: now there is a session
    session_id, token = client.cookies["curso_sessao"], client.cookies["csrftoken"]
    raw = f"lixo=\xff; curso_sessao={session_id}; csrftoken={token}; tema=escuro".encode("latin-1")
    response = raw_get(client.app, "/progresso", {"cookie": raw})
    assert response.status_code == 200
    assert soup(response).html["data-theme"] == "dark"
    assert "curso_sessao" not in response.cookies, "a sessão de antes vale: nenhuma nova"
    percent = text(soup(response).select_one(".course-percent"))
    assert percent != "0%", "a sessão de antes continua valendo"
    assert csrf_from(response.text) == csrf_from(page)


def test_a_nul_byte_in_the_username_is_a_wrong_sign_in_not_a_500(client):
    """Finding 2: the username went into the limiter's key as typed; PostgreSQL refuses a NUL."""
    sign_up(new_browser(client), "ana")
    for typed in ("ana\x00", "\x00", "an\x00a" * 10):
        response = sign_in(client, typed, PASSWORD)
        assert response.status_code == 401, repr(typed)
        assert text(soup(response).select_one(".form-error")) == "Usuário ou senha incorretos."
    assert sign_in(client, "ana", PASSWORD).status_code == 303


def test_concurrent_failed_sign_ins_check_no_more_passwords_than_the_limit(client):
    """Finding 3: the limit was tested before and counted after the password check, so
    concurrent guesses all got through; and each request held a pooled connection while
    the limiter waited for another one, so 30 at once exhausted the pool (500 after 30 s)."""
    sign_up(new_browser(client), "ana")
    browsers = [new_browser(client) for _ in range(30)]
    tokens = [csrf_from(browser.get("/conta").text) for browser in browsers]
    start = threading.Barrier(len(browsers))

    def guess(number: int) -> int:
        start.wait()
        data = {"csrftoken": tokens[number], "usuario": "ana", "senha": f"chute {number}"}
        return browsers[number].post("/conta/entrar", data=data).status_code

    with ThreadPoolExecutor(len(browsers)) as pool:
        statuses = Counter(pool.map(guess, range(len(browsers))))
    assert statuses == {401: 5, 429: 25}
    assert sign_in(client, "ana", PASSWORD).status_code == 429


def test_ipv6_clients_are_counted_by_their_64_network():
    """Finding 4: counted per address, one IPv6 subscriber (a whole /64) had endless limits."""
    assert client_key("2001:db8:0:0:aaaa::1") == "2001:db8::/64"
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key("192.0.2.7") == "192.0.2.7" and client_key("testclient") == "testclient"
    limiter = SignInLimiter("memory://", per_ip="3 per 15 minutes")
    for host in ("2001:db8::1", "2001:db8::2", "2001:db8::3:4"):
        assert limiter.attempt(None, host) is None
    assert limiter.attempt(None, "2001:db8::ffff:ffff") is not None, "o mesmo /64"
    assert limiter.attempt(None, "2001:db8:0:1::1") is None, "outro /64 segue livre"


def test_case_and_spaces_do_not_give_a_username_more_tries(client):
    sign_up(new_browser(client), "ana")
    for typed in ("ANA", " ana ", "Ana", "aNa\t", "ana"):
        assert sign_in(client, typed, "senha errada").status_code == 401
    assert sign_in(client, "ANA ", PASSWORD).status_code == 429


def test_right_and_refused_sign_ins_do_not_use_up_the_ip_limit():
    """Taken back: a classroom behind one address signs in together."""
    limiter = SignInLimiter("memory://", per_username="2 per 15 minutes", per_ip="3 per 15 minutes")
    for number in range(10):
        assert limiter.attempt(f"aluno{number}", "192.0.2.1") is None
        limiter.succeeded(f"aluno{number}", "192.0.2.1")
    assert limiter.attempt("ana", "192.0.2.1") is None
    assert limiter.attempt("ana", "192.0.2.1") is None
    for _ in range(5):
        assert limiter.attempt("ana", "192.0.2.1") is not None, "ana está bloqueada"
    assert limiter.attempt("bia", "192.0.2.1") is None, "os bloqueios não contaram para o IP"
    assert limiter.attempt("caio", "192.0.2.1") is not None, "3 falhas: agora o IP está bloqueado"


def test_no_redirect_takes_its_host_from_the_request(client):
    """Finding 6: Starlette's trailing-slash redirect wrote the Host header into an absolute
    Location (``Host: evil.example`` sent ``/instrutor/`` to ``http://evil.example/instrutor``)."""
    for path in ("/instrutor/", "/licoes/kernels/", "/progresso/", "/api/arvores/"):
        response = client.get(path, headers={"host": "evil.example"}, follow_redirects=False)
        assert "evil.example" not in response.headers.get("location", ""), path
        assert response.status_code == 404, path


def test_personal_json_is_never_stored_by_a_cache(client):
    """Finding 7: ``/meus-dados/exportar`` and ``/api/progresso`` had no Cache-Control, and a
    shared cache in front of the course may keep a learner's data for the next visitor."""
    for path in ("/meus-dados/exportar", "/api/progresso"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers["cache-control"] == "private, no-store", path


def test_a_post_from_another_site_is_refused_even_with_a_valid_token(client, settings):
    """Finding 8: the CSRF token is a double-submit cookie not bound to the session, so a
    sibling subdomain (or anyone who can set a cookie for the course's host) could plant its
    own valid cookie and token pair; and asgi-csrf skips requests without cookies (``/tema``).
    Browsers say where a request comes from in ``Sec-Fetch-Site``: only same-origin posts pass."""
    attacker = new_browser(client)
    attacker.get("/licoes/kernels")
    planted = attacker.cookies["csrftoken"]
    page = client.get(f"/licoes/kernels?refazer={QUESTION}").text
    client.cookies.set("csrftoken", planted)
    data = {
        "csrftoken": planted,
        "opcao": "b",
        "chave": key_of(page, QUESTION),
        "versao": version_of(page, QUESTION),
    }
    url = f"/licoes/kernels/perguntas/{QUESTION}"
    for origin in ("same-site", "cross-site"):
        for headers in ({}, HX):
            refused = client.post(url, data=data, headers={"sec-fetch-site": origin, **headers})
            assert refused.status_code == 403, (origin, headers)
            assert "Sessão expirada, recarregue a página." in refused.text
    assert stored(settings) == []
    theme = new_browser(client).post(
        "/tema",
        data={"tema": "escuro"},
        headers={"sec-fetch-site": "cross-site"},
        follow_redirects=False,
    )
    assert theme.status_code == 403 and "set-cookie" not in theme.headers
    same_origin = {"sec-fetch-site": "same-origin"}
    ok = client.post(url, data=data, headers=same_origin, follow_redirects=False)
    assert ok.status_code == 303, "o próprio site continua podendo enviar"


def test_concurrent_instructor_requests_do_not_exhaust_the_pool(client, settings):
    """Finding 9: the instructor check held its own request-long connection, and the session
    middleware (after the response) or the CSV stream asked for another: 40 instructor
    requests at once left the pool empty, and every request of the worker waited 30 s (500)."""
    teacher = instructor(client, settings)
    paths = ["/instrutor/exportar/tentativas.csv", "/instrutor/licoes/kernels"] * 20
    start = threading.Barrier(len(paths))

    def get(path: str) -> int:
        start.wait()
        return teacher.get(path).status_code

    with ThreadPoolExecutor(len(paths)) as pool:
        statuses = Counter(pool.map(get, paths))
    assert statuses == {200: len(paths)}


def test_with_secure_cookies_every_cookie_is_secure_and_hsts_is_sent(settings):
    """Finding 10: ``CURSO_SECURE_COOKIES`` marked the session and CSRF cookies but not the
    theme cookie that ``POST /tema`` sets."""
    secure = create_app(settings.model_copy(update={"secure_cookies": True}))
    with TestClient(secure, base_url="https://testserver") as browser:
        page = browser.get("/conta")
        token = csrf_from(page.text)
        form = {"csrftoken": token, "tema": "escuro"}
        theme = browser.post("/tema", data=form, follow_redirects=False)
        first = next(iter(KERNELS.questions.values()))
        answered = answer(browser, "kernels", first.id, sorted(first.answer))  # the session is born
    cookies = [
        *page.headers.get_list("set-cookie"),
        *theme.headers.get_list("set-cookie"),
        *answered.headers.get_list("set-cookie"),
    ]
    names = {cookie.split("=", 1)[0] for cookie in cookies}
    assert names == {"csrftoken", "curso_sessao", "tema"}
    for cookie in cookies:
        assert "secure" in [part.strip().lower() for part in cookie.split(";")], cookie
    assert page.headers["strict-transport-security"] == "max-age=31536000"
