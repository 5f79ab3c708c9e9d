"""A form on another site that posts to the course is refused in Chromium (issue 13: the cache
hands every visitor their own CSRF token; the guard still refuses cross-site posts)."""

from __future__ import annotations

import sqlite3

from playwright.sync_api import expect

from tests.support.learning import KERNELS
from tests.support.server import LiveServer

ATTACKER = "http://localhost:{port}/premio"


def attempts(server: LiveServer) -> int:
    with sqlite3.connect(server.database) as db:
        return db.execute("SELECT count(*) FROM attempt").fetchone()[0]


def test_a_cross_site_form_post_is_refused_and_stores_nothing(new_page, live_server: LiveServer):
    page = new_page()
    page.goto(live_server.url + "/licoes/kernels")  # the learner has the course's cookies
    question = next(iter(KERNELS.questions.values()))
    token = page.evaluate("JSON.parse(document.body.getAttribute('hx-headers'))['x-csrftoken']")
    before = attempts(live_server)
    target = f"{live_server.url}/licoes/kernels/perguntas/{question.id}"
    # Another site (localhost is not the site 127.0.0.1) with a form that even knows a token.
    evil = (
        f'<form method="post" action="{target}">'
        f'<input name="csrftoken" value="{token}"><input name="opcao" value="b">'
        f'<input name="chave" value="{"k" * 22}"><input name="versao" '
        f'value="{question.content_hash}">'
        "<button>Ganhe um premio</button></form>"
    )
    port = live_server.url.rsplit(":", 1)[1]
    page.route(
        ATTACKER.format(port=port), lambda route: route.fulfill(body=evil, content_type="text/html")
    )
    page.goto(ATTACKER.format(port=port))
    with page.expect_response(target) as answered:
        page.get_by_role("button", name="Ganhe um premio").click()
    assert answered.value.status == 403
    expect(page.locator("main")).to_contain_text("Sessão expirada")
    assert attempts(live_server) == before
