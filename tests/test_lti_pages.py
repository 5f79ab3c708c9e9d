"""The LTI pieces that need no LMS: the registration page, the narrow CSRF exemption of the two
LTI POSTs, the framing policy and cookies once an LMS is registered, and the grade queue's
backoff and passback state."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.learning.retention import erase_unreachable
from app.lti.launch import launch_person, link_to_account, score_target
from app.lti.scores import MAX_REFUSALS, claim_next, mark_failed
from app.lti.tool import register_platform
from app.main import create_app
from app.platform.auth import SignInLimiter
from app.platform.db import make_engine
from app.platform.migrate import downgrade, upgrade
from app.platform.models import Account, Learner, LtiPlatform, LtiScore, utcnow
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


def test_an_admin_registers_a_platform_on_the_page(settings):
    app = create_app(settings)
    teacher = instructor(TestClient(app, follow_redirects=False), settings, admin=True)
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
    # Registered, not confirmed: its origin is in no page's CSP, in this app or a new one.
    for client in (teacher, TestClient(create_app(settings))):
        csp = client.get("/").headers["content-security-policy"]
        assert MOODLE not in csp and "frame-ancestors 'none'" in csp
    page = teacher.get("/instrutor/lti")
    item = soup(page.text).select_one(".platforms li")
    assert text(item.select_one(".platform-state")) == (
        f"Esperando confirmação: ainda não abre nada. Confirmar deixa {MOODLE} mostrar as páginas"
        " do curso dentro das suas e receber os formulários delas."
    )
    confirmed = teacher.post(item.select_one("form")["action"], data={"csrftoken": token})
    assert confirmed.status_code == 303
    csp = teacher.get("/").headers["content-security-policy"]
    assert f"frame-ancestors 'self' {MOODLE}" in csp and f"form-action 'self' {MOODLE}" in csp
    assert text(soup(teacher.get("/instrutor/lti").text).select_one(".platform-state")) == (
        "Confirmada."
    )
    # Moving it to another origin makes it wait for a confirmation again.
    moved = {**FIELDS, "auth_url": "https://outro.example.org/auth"}
    assert teacher.post("/instrutor/lti", data={"csrftoken": token, **moved}).status_code == 303
    csp = teacher.get("/").headers["content-security-policy"]
    assert "outro.example.org" not in csp and MOODLE not in csp


def test_the_registration_form_reads_fields_as_sent_up_to_1000_characters(settings):
    """A field past 1000 characters is the generic 422 page; an absent one is a missing
    field; spaces around a value are dropped; nothing is registered until all is right."""
    teacher = instructor(
        TestClient(create_app(settings), follow_redirects=False), settings, admin=True
    )
    token = csrf_from(teacher.get("/instrutor/lti").text)
    for name in FIELDS:
        sent = {"csrftoken": token, **FIELDS, name: "h" * 1001}
        refused = teacher.post("/instrutor/lti", data=sent)
        assert refused.status_code == 422, name
        assert text(soup(refused.text).h1) == "Dados inválidos"
        assert "O formulário enviado está incompleto ou malformado" in refused.text
    absent = {key: value for key, value in FIELDS.items() if key != "token_url"}
    missing = teacher.post("/instrutor/lti", data={"csrftoken": token, **absent})
    assert missing.status_code == 422
    assert text(soup(missing.text).select_one("#lti-erro")) == "Preencha todos os campos."
    assert db_rows(settings, "SELECT COUNT(*) FROM lti_platform") == [(0,)]
    long_url = MOODLE + "/" + "t" * (1000 - len(MOODLE) - 3)
    spaced = {"csrftoken": token, **FIELDS, "token_url": f" {long_url} ", "client_id": " abc "}
    assert teacher.post("/instrutor/lti", data=spaced).status_code == 303
    assert db_rows(settings, "SELECT token_url, client_id FROM lti_platform") == [(long_url, "abc")]


CLI_URLS = ["--auth-url", FIELDS["auth_url"], "--token-url", FIELDS["token_url"]]
CLI_URLS += ["--jwks-url", FIELDS["jwks_url"]]


def test_a_deployment_id_of_only_commas_and_spaces_is_a_missing_field(settings):
    """ ", ," fills the field but names no deployment: it is refused as a missing field, with
    the form kept, and no platform without deployments is registered."""
    teacher = instructor(
        TestClient(create_app(settings), follow_redirects=False), settings, admin=True
    )
    token = csrf_from(teacher.get("/instrutor/lti").text)
    for value in (", ,", ",", " , , "):
        sent = {"csrftoken": token, **FIELDS, "deployment_id": value}
        refused = teacher.post("/instrutor/lti", data=sent)
        assert refused.status_code == 422, value
        page = soup(refused.text)
        assert text(page.select_one("#lti-erro")) == "Preencha todos os campos."
        assert page.select_one("#lti-deployment_id")["value"] == value.strip()
        assert page.select_one("#lti-issuer")["value"] == FIELDS["issuer"]
    assert db_rows(settings, "SELECT COUNT(*) FROM lti_platform") == [(0,)]
    assert db_rows(settings, "SELECT COUNT(*) FROM lti_deployment") == [(0,)]
    # The command refuses it the same way (one registration for both).
    args = ["lti", "registrar", "--issuer", MOODLE, "--client-id", "abc", *CLI_URLS]
    for value in (", ,", " "):
        done = curso(settings, *args, "--deployment-id", value)
        assert (done.returncode, done.stderr) == (1, "--deployment-id: Preencha todos os campos.\n")
    assert db_rows(settings, "SELECT COUNT(*) FROM lti_platform") == [(0,)]
    sent = {"csrftoken": token, **FIELDS, "deployment_id": ", 7 ,"}
    assert teacher.post("/instrutor/lti", data=sent).status_code == 303
    assert db_rows(settings, "SELECT deployment_id FROM lti_deployment") == [("7",)]


def test_ids_past_their_255_character_columns_get_422_with_the_form_kept(settings):
    """The issuer, the client id and each deployment id are stored in 255-character columns:
    past them, 422 with a message and what was typed, not PostgreSQL's error (a 500)."""
    teacher = instructor(
        TestClient(create_app(settings), follow_redirects=False), settings, admin=True
    )
    token = csrf_from(teacher.get("/instrutor/lti").text)
    long_id = "i" * 256
    for name, value in (
        ("issuer", f"{MOODLE}/{long_id}"),
        ("client_id", long_id),
        ("deployment_id", f"1, {long_id}"),
    ):
        refused = teacher.post("/instrutor/lti", data={"csrftoken": token, **FIELDS, name: value})
        assert refused.status_code == 422, name
        assert text(soup(refused.text).select_one("#lti-erro")) == (
            "O ID da plataforma, o ID de cliente e cada ID de implantação têm no máximo 255 "
            "caracteres."
        )
        assert soup(refused.text).select_one(f"#lti-{name}")["value"] == value
    args = ["lti", "registrar", "--issuer", MOODLE, "--deployment-id", "1", *CLI_URLS]
    done = curso(settings, *args, "--client-id", long_id)
    assert (done.returncode, done.stderr) == (
        1,
        "--client-id: O ID da plataforma, o ID de cliente e cada ID de implantação têm no "
        "máximo 255 caracteres.\n",
    )
    assert db_rows(settings, "SELECT COUNT(*) FROM lti_platform") == [(0,)]
    fits = {"csrftoken": token, **FIELDS, "client_id": "c" * 255, "deployment_id": "d" * 255}
    assert teacher.post("/instrutor/lti", data=fits).status_code == 303
    assert db_rows(settings, "SELECT client_id FROM lti_platform") == [("c" * 255,)]


def test_only_a_site_admin_registers_or_confirms_a_platform(settings):
    app = create_app(settings)
    with Session(make_engine(settings.database_url)) as db:
        platform, _ = register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:])
    teacher = instructor(TestClient(app, follow_redirects=False), settings)
    token = csrf_from(teacher.get("/conta").text)
    assert teacher.get("/instrutor/lti").status_code == 403
    refused = teacher.post("/instrutor/lti", data={"csrftoken": token, **FIELDS, "client_id": "z"})
    assert refused.status_code == 403
    assert "Só um administrador do curso registra e confirma AVAs." in refused.text
    confirm = f"/instrutor/lti/{platform.id}/confirmar"
    assert teacher.post(confirm, data={"csrftoken": token}).status_code == 403
    assert db_rows(settings, "SELECT client_id, confirmed_at FROM lti_platform") == [("abc", None)]
    assert MOODLE not in teacher.get("/").headers["content-security-policy"]
    admin = instructor(TestClient(app, follow_redirects=False), settings, "dona", admin=True)
    token = csrf_from(admin.get("/conta").text)
    assert admin.post("/instrutor/lti/999/confirmar", data={"csrftoken": token}).status_code == 404


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


def test_a_confirmed_lms_may_frame_the_pages_and_receive_forms(settings):
    app = create_app(settings)
    client = TestClient(app)
    assert "frame-ancestors 'none'" in client.get("/").headers["content-security-policy"]
    assert client.get("/").headers["x-frame-options"] == "DENY"
    with Session(make_engine(settings.database_url)) as db:
        register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:], confirmed=True)
    fresh = TestClient(create_app(settings))
    headers = fresh.get("/").headers
    assert f"frame-ancestors 'self' {MOODLE}" in headers["content-security-policy"]
    assert f"form-action 'self' {MOODLE}" in headers["content-security-policy"]
    assert "x-frame-options" not in headers


def test_over_https_the_cookies_work_inside_the_lms_iframe(settings):
    settings = settings.model_copy(update={"secure_cookies": True})
    with Session(make_engine(settings.database_url)) as db:
        register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:], confirmed=True)
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


def test_with_secure_cookies_the_login_sets_a_partitioned_state_cookie(settings):
    settings = settings.model_copy(update={"secure_cookies": True})
    with Session(make_engine(settings.database_url)) as db:
        register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:], confirmed=True)
    client = TestClient(create_app(settings), base_url="https://curso.example.org")
    login = client.post(
        "/lti/login",
        data={
            "iss": MOODLE,
            "client_id": "abc",
            "login_hint": "7",
            "target_link_uri": "https://curso.example.org/lti/launch",
        },
        headers={"Sec-Fetch-Site": "cross-site"},
        follow_redirects=False,
    )
    assert login.status_code == 302
    assert login.headers["location"].startswith(FIELDS["auth_url"] + "?")
    state = next(c for c in login.headers.get_list("set-cookie") if c.startswith("lti1p3-state-"))
    framed = ("Secure", "SameSite=None", "Partitioned")
    assert all(attribute in state.split("; ") for attribute in framed)
    # The theme's cookie, set by a route, goes through the same helper.
    token = csrf_from(client.get("/").text)
    chosen_theme = {"csrftoken": token, "tema": "escuro"}
    theme = client.post("/tema", data=chosen_theme, follow_redirects=False)
    chosen = next(c for c in theme.headers.get_list("set-cookie") if c.startswith("tema="))
    assert all(attribute in chosen.split("; ") for attribute in framed)


def test_a_registered_lms_may_frame_the_error_pages_too(settings):
    with Session(make_engine(settings.database_url)) as db:
        register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:], confirmed=True)
    app = create_app(settings)

    @app.get("/falha-de-teste")
    def boom():
        raise RuntimeError("falha de teste proposital")

    client = TestClient(app, raise_server_exceptions=False)
    cross = {"Sec-Fetch-Site": "cross-site"}
    pages = {
        "404": client.get("/nao-existe"),
        "500": client.get("/falha-de-teste"),
        "refused launch": client.post("/lti/launch", data={"state": "x"}, headers=cross),
        "refused login": client.post("/lti/login", data={"iss": "x"}, headers=cross),
        "CSRF refusal": client.post("/tema", data={"tema": "escuro"}, headers=cross),
    }
    for name, page in pages.items():
        assert page.status_code >= 400, name
        policy = page.headers["content-security-policy"]
        assert f"frame-ancestors 'self' {MOODLE}" in policy, name
        assert "x-frame-options" not in page.headers, name
    assert text(soup(pages["500"].text).select_one("main p")) == (
        "Algo deu errado do nosso lado. Suas respostas anteriores estão salvas; tente de novo."
    )
    refused = soup(pages["refused launch"].text).select_one("main")
    assert "Abra a atividade de novo pelo AVA" in text(refused)


def _queued_score(db: Session, platform_id: int, learner: str, sub: str, lineitem: str) -> LtiScore:
    """A learner and a queued score, as an answer in a launched lesson leaves them."""
    db.add(Learner(id=learner))
    db.commit()
    score = LtiScore(
        target=score_target(platform_id, lineitem, "", "", "kernels"),
        platform_id=platform_id,
        learner_id=learner,
        user_sub=sub,
        lineitem_url=lineitem,
        lesson_slug="kernels",
        score_given=1,
        score_maximum=2,
        activity_progress="InProgress",
        grading_progress="FullyGraded",
    )
    db.add(score)
    db.commit()
    db.refresh(score)
    return score


def _passback_cells(settings) -> list[str]:
    teacher = instructor(TestClient(create_app(settings)), settings, admin=True)
    row = soup(teacher.get("/instrutor/lti").text).select_one("table.passback tbody tr")
    return [text(cell) for cell in row.select("th, td")]


def test_a_failed_score_waits_longer_each_time_and_the_dashboard_says_why(settings):
    engine = make_engine(settings.database_url)
    with Session(engine) as db:
        platform, _ = register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:])
        assert platform.id is not None
        lineitem = MOODLE + "/mod/lti/services.php/2/lineitems/9/lineitem"
        score = _queued_score(db, platform.id, "a" * 32, "s1", lineitem)
        waits = []
        for _ in range(5):
            taken = claim_next(db, "sender-1", everything=True)
            assert taken is not None and taken.id == score.id
            mark_failed(db, taken, "503 Nota recusada pelo LMS")
            score = db.get_one(LtiScore, taken.id)
            waits.append(round((score.next_try_at - utcnow()) / timedelta(seconds=1)))
        assert waits == [2, 4, 8, 16, 32]
        assert score.status == "pending"  # the platform down: retried as long as it takes
        assert claim_next(db, "sender-2") is None
    assert _passback_cells(settings) == [
        "(sem turma)",
        "0",
        "1",
        "0",
        "0",
        "503 Nota recusada pelo LMS",
    ]


def test_a_score_the_platform_refuses_stops_after_three_tries_with_its_message(settings):
    engine = make_engine(settings.database_url)
    refusal = '400 {"error": "A nota excede o máximo do item"}'
    with Session(engine) as db:
        platform, _ = register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:])
        assert platform.id is not None
        score = _queued_score(db, platform.id, "c" * 32, "s3", MOODLE + "/lineitems/3")
        statuses = []
        for _ in range(MAX_REFUSALS):
            taken = claim_next(db, "sender-1", everything=True)
            assert taken is not None
            mark_failed(db, taken, refusal, refused=True)
            statuses.append(db.get_one(LtiScore, score.id).status)
        assert statuses == ["pending", "pending", "failed"]
        assert claim_next(db, "sender-1", everything=True) is None
    assert _passback_cells(settings) == ["(sem turma)", "0", "0", "0", "1", refusal]


def test_an_address_that_would_break_the_csp_is_refused(settings):
    app = create_app(settings)
    teacher = instructor(TestClient(app, follow_redirects=False), settings, admin=True)
    token = csrf_from(teacher.get("/instrutor/lti").text)
    evil = "https://moodle.example.edu.br; script-src 'unsafe-inline'/auth"
    sent = teacher.post("/instrutor/lti", data={"csrftoken": token, **FIELDS, "auth_url": evil})
    assert sent.status_code == 422
    args = ["lti", "registrar", "--issuer", MOODLE, "--client-id", "x", "--deployment-id", "1"]
    done = curso(settings, *args, "--auth-url", evil, "--token-url", evil, "--jwks-url", evil)
    assert done.returncode == 1
    assert (
        done.stderr
        == "--auth-url: Escreva um endereço completo, começando com https:// ou http://.\n"
    )
    # A row written some other way (not through register_platform) still never reaches the
    # header.
    with Session(make_engine(settings.database_url)) as db:
        for issuer, urls in (
            (MOODLE, (evil, evil, evil)),
            ("https://ok", (MOODLE + "/a", MOODLE, MOODLE)),
        ):
            db.add(
                LtiPlatform(
                    issuer=issuer,
                    client_id="x",
                    auth_url=urls[0],
                    token_url=urls[1],
                    jwks_url=urls[2],
                    confirmed_at=utcnow(),
                )
            )
        db.commit()
    csp = TestClient(create_app(settings)).get("/").headers["content-security-policy"]
    assert csp.endswith(f"frame-ancestors 'self' {MOODLE}")
    assert "unsafe-inline'/" not in csp and csp.count("script-src") == 1


def test_scores_queued_before_a_restart_are_sent_when_the_app_starts(settings):
    closed = "http://127.0.0.1:9"  # nothing listens: each try fails at once
    with Session(make_engine(settings.database_url)) as db:
        platform, _ = register_platform(
            db, closed, "abc", ["1"], closed + "/auth", closed + "/token", closed + "/jwks"
        )
        assert platform.id is not None
        _queued_score(db, platform.id, "b" * 32, "s2", closed + "/lineitems/1")
    app = create_app(settings)
    deadline = time.monotonic() + 30
    rows = []
    while time.monotonic() < deadline:
        rows = db_rows(settings, "SELECT status, tries FROM lti_score")
        if rows and rows[0][1] >= 1:
            break
        time.sleep(0.1)
    app.state.lti_sender.stop()
    assert rows[0][0] == "pending" and rows[0][1] >= 1
    assert "Connection refused" in db_rows(settings, "SELECT last_error FROM lti_score")[0][0]


def test_the_migration_takes_the_site_role_an_lms_launch_gave_and_unconfirms_platforms(settings):
    url = settings.database_url
    downgrade(url, "0014")
    when = datetime(2026, 12, 1, tzinfo=UTC)
    db_rows(
        settings,
        "INSERT INTO lti_platform (issuer, client_id, auth_url, token_url, jwks_url, created_at)"
        " VALUES (?, 'abc', ?, ?, ?, ?)",
        MOODLE,
        *list(FIELDS.values())[3:],
        when,
    )
    # username, site instructor, admin, signed in by an LMS person
    accounts = [
        ("lti-0a", True, False, True),  # an LMS Instructor launch made it a site instructor
        ("prof", True, False, False),  # `curso instrutor adicionar prof`
        ("dona", True, True, True),  # an admin who linked her LMS identity
        ("lti-0b", False, False, True),  # an LMS learner
    ]
    for number, (username, site, admin, from_lms) in enumerate(accounts):
        learner = f"{number:032d}"
        db_rows(settings, "INSERT INTO learner (id, created_at) VALUES (?, ?)", learner, when)
        db_rows(
            settings,
            "INSERT INTO account (learner_id, username, password_hash, created_at, is_instructor,"
            " is_admin) VALUES (?, ?, 'x', ?, ?, ?)",
            learner,
            username,
            when,
            site,
            admin,
        )
        if from_lms:
            db_rows(
                settings,
                "INSERT INTO lti_user (platform_id, sub, learner_id, account_id, name, created_at)"
                " SELECT p.id, ?, ?, a.id, '', ? FROM lti_platform p, account a"
                " WHERE a.username = ?",
                username,
                learner,
                when,
                username,
            )
    db_rows(
        settings,
        "INSERT INTO classroom (name, description, join_code, time_zone, created_at)"
        " VALUES ('Redes (Moodle)', '', 'codigo', 'America/Sao_Paulo', ?)",
        when,
    )
    db_rows(
        settings,
        "INSERT INTO class_staff (class_id, account_id) SELECT c.id, a.id FROM classroom c,"
        " account a WHERE a.username = 'lti-0a'",
    )
    upgrade(url)
    roles = "SELECT username, is_instructor, is_admin FROM account ORDER BY username"
    assert db_rows(settings, roles) == [
        ("dona", True, True),
        ("lti-0a", False, False),
        ("lti-0b", False, False),
        ("prof", True, False),
    ]
    staff = "SELECT a.username FROM class_staff s JOIN account a ON a.id = s.account_id"
    assert db_rows(settings, staff) == [("lti-0a",)]
    assert db_rows(settings, "SELECT confirmed_at FROM lti_platform") == [(None,)]
    assert (
        MOODLE not in TestClient(create_app(settings)).get("/").headers["content-security-policy"]
    )
    downgrade(url, "0014")
    assert db_rows(settings, "SELECT count(*) FROM lti_platform") == [(1,)]
    assert db_rows(settings, "SELECT count(*) FROM account") == [(4,)]
    upgrade(url)
    assert db_rows(settings, staff) == [("lti-0a",)]
    assert db_rows(settings, roles)[1] == ("lti-0a", False, False)


LOGIN = {
    "iss": MOODLE,
    "client_id": "abc",
    "login_hint": "ana",
    "target_link_uri": "http://testserver/lti/launch",
}


def test_lms_logins_past_the_limit_get_a_429_in_portuguese_and_store_nothing(settings):
    with Session(make_engine(settings.database_url)) as db:
        register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:], confirmed=True)
    app = create_app(settings)
    app.state.sign_in_limiter = SignInLimiter("memory://", lti_logins_per_ip="3 per minute")
    client = TestClient(app, follow_redirects=False)
    for _ in range(3):
        assert client.get("/lti/login", params=LOGIN).status_code == 302
    stored = db_rows(settings, "SELECT count(*) FROM lti_state")
    refused = client.get("/lti/login", params=LOGIN)
    assert refused.status_code == 429
    assert text(soup(refused.text).select_one("main .meta")) == (
        "Entradas demais pelo AVA a partir desta rede. Espere 1 minuto e abra a atividade de novo."
    )
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert client.post("/lti/login", data=LOGIN).status_code == 429
    assert db_rows(settings, "SELECT count(*) FROM lti_state") == stored


def test_a_login_keeps_its_nonce_and_state_for_minutes_not_a_day(settings):
    with Session(make_engine(settings.database_url)) as db:
        register_platform(db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:], confirmed=True)
    client = TestClient(create_app(settings), follow_redirects=False)
    assert client.get("/lti/login", params=LOGIN).status_code == 302
    rows = db_rows(settings, "SELECT key, expires_at FROM lti_state")
    assert {key.split("-")[1] for key, _ in rows} == {"nonce", "login"}
    for key, expires in rows:
        moment = datetime.fromisoformat(str(expires)) if isinstance(expires, str) else expires
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        left = (moment - datetime.now(UTC)).total_seconds()
        assert 0 < left <= 600, key


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


def test_an_lms_person_is_never_erased_as_an_unreachable_learner(settings):
    """The retention sweep (app/learning/retention.py) keeps every learner with an account and
    knows nothing of LMSs: a launch's person, and one linked to an account made here, must
    each have their account, however long they stay away and without any session."""
    sign_up(TestClient(create_app(settings)), "bia")
    engine = make_engine(settings.database_url)
    try:
        with Session(engine) as db:
            platform, _ = register_platform(
                db, MOODLE, "abc", ["1"], *list(FIELDS.values())[3:], confirmed=True
            )
            assert platform.id is not None
            launched = launch_person(db, platform, {"sub": "s-1", "name": "Ana"}, "x")
            launch_person(db, platform, {"sub": "s-2", "name": "Bia"}, "x")
            bia = db.exec(select(Account).where(Account.username == "bia")).one()
            link_to_account(db, platform.id, "s-2", bia)
            linked = bia.learner_id
        long_ago = utcnow() - timedelta(days=3650)
        db_rows(settings, "UPDATE learner SET created_at = ?, place_at = ?", long_ago, long_ago)
        db_rows(settings, "UPDATE websession SET expires_at = ?", long_ago)
        with Session(engine) as db:
            assert erase_unreachable(db, 30) == 0
    finally:
        engine.dispose()
    assert sorted(db_rows(settings, "SELECT sub, learner_id FROM lti_user")) == [
        ("s-1", launched.learner_id),
        ("s-2", linked),
    ]
