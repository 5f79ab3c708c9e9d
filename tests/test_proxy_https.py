"""The course behind a TLS-terminating reverse proxy, as the README's Moodle section sets it
up: uvicorn with ``--proxy-headers --forwarded-allow-ips 127.0.0.1`` and
``CURSO_SECURE_COOKIES=true`` behind a proxy that serves HTTPS (tests/support/tls_proxy.py).
The addresses the course writes (canonical links, the LTI login's redirect to the LMS and its
``redirect_uri``) keep ``https``, and the LTI state cookie is ``Secure; Partitioned``."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.support.app import REPO_LESSONS, make_settings
from tests.support.cli import curso
from tests.support.html import soup
from tests.support.server import LiveServer, free_port
from tests.support.tls import make_certificates
from tests.support.tls_proxy import TlsProxy

MOODLE = "https://moodle.example.edu.br"


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    folder = tmp_path_factory.mktemp("proxy")
    tls = make_certificates(folder / "tls")
    course = LiveServer(folder / "curso", REPO_LESSONS)
    course.extra_env = {"CURSO_SECURE_COOKIES": "true"}
    course.extra_args = ["--proxy-headers", "--forwarded-allow-ips", "127.0.0.1"]
    make_settings(course.tmp, course.lessons_dir)
    registered = curso(
        course.settings,
        *("lti", "registrar", "--issuer", MOODLE, "--client-id", "abc", "--deployment-id", "1"),
        *("--auth-url", MOODLE + "/auth", "--token-url", MOODLE + "/token"),
        *("--jwks-url", MOODLE + "/jwks"),
    )
    assert registered.returncode == 0, registered.stderr
    course.start()
    proxy = TlsProxy(folder / "proxy", free_port(), course.url, tls)
    try:
        proxy.start()
        with httpx.Client(base_url=proxy.url, verify=tls.client_context()) as client:
            yield proxy, client
    finally:
        proxy.stop()
        course.stop()


def test_behind_a_tls_proxy_the_links_and_redirects_keep_https(proxied):
    proxy, client = proxied
    lesson = client.get("/licoes/kernels")
    assert lesson.status_code == 200
    canonical = soup(lesson.text).select_one('link[rel="canonical"]')["href"]
    assert canonical == proxy.url + "/licoes/kernels"
    login = client.post(
        "/lti/login",
        data={"iss": MOODLE, "client_id": "abc", "login_hint": "7"},
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    assert login.status_code == 302
    location = urlsplit(login.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == MOODLE + "/auth"
    assert parse_qs(location.query)["redirect_uri"] == [proxy.url + "/lti/launch"]
    state = next(c for c in login.headers.get_list("set-cookie") if c.startswith("lti1p3-"))
    assert all(part in state.split("; ") for part in ("Secure", "SameSite=None", "Partitioned"))
