"""The LTI pieces that need no LMS: the registration page, the narrow CSRF exemption of the two
LTI POSTs, the framing policy and cookies once an LMS is registered, and the grade queue's
backoff and passback state."""

from __future__ import annotations

import time
from datetime import timedelta

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.learning import lti
from app.main import create_app
from app.platform.db import make_engine
from app.platform.models import Learner, LtiScore, utcnow
from app.web.security import is_lti_cross_site_post, lti_cross_site_posts
from tests.support.accounts import instructor, sign_up
from tests.support.app import db_rows
from tests.support.cli import curso
from tests.support.html import csrf_from, soup, text

MOODLE = "https://moodle.example.edu.br"
FIELDS = {
    "issuer": MOODLE,
    "client_id": "abc123",
    "deployment_id": "1, 2",
    "auth_url": MOODLE + "/mod/lti/auth.php",
    "token_url": MOODLE + "/mod/lti/token.php",
    "jwks_url": MOODLE + "/mod/lti/certs.php",
}


def test_an_instructor_registers_a_platform_on_the_page(settings):
    teacher = instructor(TestClient(create_app(settings), follow_redirects=False), settings)
    page = teacher.get("/instrutor/lti")
    urls = [text(node) for node in soup(page.text).select(".tool-urls code")]
    base = "http://testserver"
    assert urls == [
        base + "/lti/launch",
        base + "/lti/login",
        base + "/lti/launch",
        base + "/lti/jwks.json",
        base + "/lti/launch",
    ]
    token = csrf_from(page.text)
    missing = teacher.post("/instrutor/lti", data={"csrftoken": token, **FIELDS, "client_id": ""})
    assert missing.status_code == 422
    assert text(soup(missing.text).select_one("#lti-erro")) == "Preencha todos os campos."
    assert soup(missing.text).select_one("#lti-issuer")["value"] == MOODLE
    bad = teacher.post("/instrutor/lti", data={"csrftoken": token, **FIELDS, "jwks_url": "certs"})
    assert bad.status_code == 422
    assert text(soup(bad.text).select_one("#lti-erro")) == (
        "Escreva um endereço completo, começando com https:// ou http://."
    )
    done = teacher.post("/instrutor/lti", data={"csrftoken": token, **FIELDS})
    assert done.status_code == 303
    assert db_rows(settings, "SELECT issuer, client_id, jwks_url FROM lti_platform") == [
        (MOODLE, "abc123", MOODLE + "/mod/lti/certs.php")
    ]
    assert db_rows(settings, "SELECT deployment_id FROM lti_deployment ORDER BY 1") == [
        ("1",),
        ("2",),
    ]
    listed = text(soup(teacher.get("/instrutor/lti").text).select_one(".platforms"))
    assert MOODLE in listed and "abc123" in listed
    keys = teacher.get("/lti/jwks.json").json()["keys"]
    assert len(keys) == 1 and keys[0]["alg"] == "RS256" and keys[0]["use"] == "sig"


def test_the_command_registers_and_adds_deployments(settings):
    args = ["lti", "registrar", "--issuer", MOODLE, "--client-id", "abc123"]
    urls = ["--auth-url", FIELDS["auth_url"], "--token-url", FIELDS["token_url"]]
    urls += ["--jwks-url", FIELDS["jwks_url"]]
    first = curso(settings, *args, "--deployment-id", "1", *urls)
    assert first.stdout == f"Plataforma registrada: {MOODLE}\n"
    again = curso(settings, *args, "--deployment-id", "7", "--deployment-id", "8", *urls)
    assert again.stdout == f"Plataforma atualizada: {MOODLE}\n"
    assert db_rows(settings, "SELECT deployment_id FROM lti_deployment ORDER BY 1") == [
        ("1",),
        ("7",),
        ("8",),
    ]


def every_route(app) -> list[tuple[str, set[str]]]:
    """(path, methods) of every route, through the included routers (their paths are whole)."""
    found = []

    def walk(routes):
        for route in routes:
            inner = getattr(route, "original_router", None)
            if inner is not None:
                walk(inner.routes)
            elif hasattr(route, "methods"):
                found.append((route.path, set(route.methods)))

    walk(app.routes)
    return found


def test_only_the_two_lti_posts_skip_the_cross_site_checks(settings):
    app = create_app(settings)
    lti_posts = lti_cross_site_posts(app.state.urls)
    posts = sorted(
        path
        for path, methods in every_route(app)
        if "POST" in methods and is_lti_cross_site_post({"method": "POST", "path": path}, lti_posts)
    )
    assert len(every_route(app)) > 50
    assert posts == sorted(lti_posts) == ["/lti/launch", "/lti/login"]
    assert not is_lti_cross_site_post({"method": "POST", "path": "/lti/launch/"}, lti_posts)
    assert not is_lti_cross_site_post({"method": "PUT", "path": "/lti/launch"}, lti_posts)
    browser = TestClient(app, follow_redirects=False)
    assert sign_up(browser, "ana").status_code == 303
    token = csrf_from(browser.get("/conta").text)
    cross = {"Sec-Fetch-Site": "cross-site"}
    # Any other POST from another site is refused, even with a valid token...
    refused = browser.post("/conta/sair", data={"csrftoken": token}, headers=cross)
    assert refused.status_code == 403
    # ...and without the CSRF cookie.
    bare = TestClient(app, follow_redirects=False)
    assert bare.post("/conta/entrar", data={"usuario": "ana"}).status_code == 403
    # The LTI launch passes the guard and is judged by the LTI checks (no id_token: 400).
    launched = bare.post("/lti/launch", data={"state": "x"}, headers=cross)
    assert launched.status_code == 400
    assert "Esta entrada LTI foi recusada" in launched.text


def test_a_registered_lms_may_frame_the_pages_and_receive_forms(settings):
    app = create_app(settings)
    client = TestClient(app)
    assert "frame-ancestors 'none'" in client.get("/").headers["content-security-policy"]
    assert client.get("/").headers["x-frame-options"] == "DENY"
    with Session(make_engine(settings.database_url)) as db:
        lti.register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:])
    fresh = TestClient(create_app(settings))
    headers = fresh.get("/").headers
    assert f"frame-ancestors 'self' {MOODLE}" in headers["content-security-policy"]
    assert f"form-action 'self' {MOODLE}" in headers["content-security-policy"]
    assert "x-frame-options" not in headers


def test_over_https_the_cookies_work_inside_the_lms_iframe(settings):
    settings = settings.model_copy(update={"secure_cookies": True})
    with Session(make_engine(settings.database_url)) as db:
        lti.register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:])
    client = TestClient(create_app(settings), base_url="https://testserver")
    page = client.get("/conta")
    cookies = page.headers.get_list("set-cookie")
    csrf = next(c for c in cookies if c.startswith("csrftoken="))
    assert "SameSite=None; Partitioned" in csrf and "Secure" in csrf
    token = csrf_from(page.text)
    signed = client.post(
        "/conta/criar",
        data={
            "csrftoken": token,
            "usuario": "ana",
            "senha": "senha-boa-123",
            "confirmacao": "senha-boa-123",
        },
        follow_redirects=False,
    )
    session = next(
        c for c in signed.headers.get_list("set-cookie") if c.startswith("curso_sessao=")
    )
    assert "SameSite=None; Partitioned" in session and "secure" in session.lower()


def test_a_failed_score_waits_longer_each_time_and_the_dashboard_says_why(settings):
    engine = make_engine(settings.database_url)
    with Session(engine) as db:
        platform, _ = lti.register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:])
    learner = "a" * 32
    # A learner and a queued score, as an answer in a launched lesson leaves them.
    with Session(engine) as db:
        db.add(Learner(id=learner))
        db.commit()
        score = LtiScore(
            platform_id=platform.id,
            learner_id=learner,
            user_sub="s1",
            lineitem_url=MOODLE + "/mod/lti/services.php/2/lineitems/9/lineitem",
            lesson_slug="kernels",
            score_given=1,
            score_maximum=2,
            activity_progress="InProgress",
            grading_progress="FullyGraded",
        )
        db.add(score)
        db.commit()
        db.refresh(score)
        waits = []
        for _ in range(3):
            lti.mark_failed(db, score, "503 Nota recusada pelo LMS")
            db.refresh(score)
            waits.append(round((score.next_try_at - utcnow()) / timedelta(seconds=1)))
        assert waits == [2, 4, 8]
        assert lti.due_scores(db, utcnow()) == []
        assert lti.due_scores(db, utcnow(), everything=True) == [score.id]
    teacher = instructor(TestClient(create_app(settings)), settings)
    row = soup(teacher.get("/instrutor/lti").text).select_one("table.passback tbody tr")
    assert [text(cell) for cell in row.select("th, td")] == [
        "(sem turma)",
        "0",
        "0",
        "1",
        "503 Nota recusada pelo LMS",
    ]


def test_an_address_that_would_break_the_csp_is_refused(settings):
    teacher = instructor(TestClient(create_app(settings), follow_redirects=False), settings)
    token = csrf_from(teacher.get("/instrutor/lti").text)
    evil = "https://moodle.example.edu.br; script-src 'unsafe-inline'/auth"
    sent = teacher.post("/instrutor/lti", data={"csrftoken": token, **FIELDS, "auth_url": evil})
    assert sent.status_code == 422
    args = ["lti", "registrar", "--issuer", MOODLE, "--client-id", "x", "--deployment-id", "1"]
    done = curso(settings, *args, "--auth-url", evil, "--token-url", evil, "--jwks-url", evil)
    assert done.returncode == 1
    assert (
        done.stderr == f"{evil}: Escreva um endereço completo, começando com https:// ou http://.\n"
    )
    # A row written some other way still never reaches the header.
    with Session(make_engine(settings.database_url)) as db:
        lti.register_platform(db, MOODLE, "abc", ["1"], evil, evil, evil)
        lti.register_platform(db, "https://ok", "x", ["1"], MOODLE + "/a", MOODLE, MOODLE)
    csp = TestClient(create_app(settings)).get("/").headers["content-security-policy"]
    assert csp.endswith(f"frame-ancestors 'self' {MOODLE}")
    assert "unsafe-inline'/" not in csp and csp.count("script-src") == 1


def test_scores_queued_before_a_restart_are_sent_when_the_app_starts(settings):
    closed = "http://127.0.0.1:9"  # nothing listens: each try fails at once
    with Session(make_engine(settings.database_url)) as db:
        platform, _ = lti.register_platform(
            db, closed, "abc", ["1"], closed + "/auth", closed + "/token", closed + "/jwks"
        )
        db.add(Learner(id="b" * 32))
        db.add(
            LtiScore(
                platform_id=platform.id,
                learner_id="b" * 32,
                user_sub="s2",
                lineitem_url=closed + "/lineitems/1",
                lesson_slug="kernels",
                score_given=1,
                score_maximum=2,
                activity_progress="InProgress",
                grading_progress="FullyGraded",
            )
        )
        db.commit()
    app = create_app(settings)
    deadline = time.monotonic() + 30
    rows = []
    while time.monotonic() < deadline:
        rows = db_rows(settings, "SELECT status, tries FROM lti_score")
        if rows and rows[0][0] == "failed":
            break
        time.sleep(0.1)
    app.state.lti_sender.stop()
    assert rows[0][0] == "failed" and rows[0][1] >= 1
    assert "Connection refused" in db_rows(settings, "SELECT last_error FROM lti_score")[0][0]


def test_the_content_picker_opened_outside_the_lms_says_so_without_asking_to_sign_in(settings):
    """Issue 38: a signed-out visitor was sent to sign in, then refused. Without a
    deep-linking launch the page says where to open it from, whoever asks."""
    app = create_app(settings)
    visitor = TestClient(app, follow_redirects=False)
    teacher = instructor(TestClient(app, follow_redirects=False), settings)
    for client in (visitor, teacher):
        page = client.get("/lti/conteudo")
        assert page.status_code == 403, page.headers.get("location")
        assert (
            "Abra esta página pelo AVA, escolhendo o curso como conteúdo de ferramenta externa."
            in text(soup(page.text).select_one("main"))
        )
