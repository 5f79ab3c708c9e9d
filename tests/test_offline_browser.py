"""Studying without a connection (issue 40) in Chromium at 360 px, the connection cut with
``context.set_offline(True)``: a lesson downloaded from its page (size first) opens with no
network; a page not downloaded shows the lessons the device holds; /progresso lists them with
"Remover" (the cache's key-leak test is in tests/test_offline_sync_browser.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import ConsoleWatch, axe_violations
from tests.support.learning import COURSE, KERNELS
from tests.support.offline import (
    CACHED,
    SINGLE,
    answer_offline,
    answered_offline,
    attempts_with,
    confirm_download,
    download,
    new_account_in_page,
    ready,
)
from tests.support.server import LiveServer, grant_instructor

OTHER = next(lesson for lesson in COURSE.lessons if lesson.slug != KERNELS.slug)


def test_a_downloaded_lesson_opens_offline_and_the_others_say_so(new_page, live_server: LiveServer):
    page = new_page(360, 740)
    console = ConsoleWatch(page)
    base = live_server.url
    download(page, base, KERNELS.slug)
    version = page.locator("[data-offline-lesson]").get_attribute("data-version")
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("h1")).to_have_text(KERNELS.meta.title_text)
    expect(page.locator("[data-offline-status]")).to_have_attribute("data-version", version)
    page.goto(f"{base}/licoes/{OTHER.slug}")
    expect(page.locator("h1")).to_have_text("Sem conexão")
    listed = page.locator("[data-offline-list] a")
    expect(listed).to_have_count(1)
    expect(listed).to_have_text(KERNELS.meta.title_text)
    listed.click()
    expect(page.locator("h1")).to_have_text(KERNELS.meta.title_text)
    page.context.set_offline(False)
    page.goto(f"{base}/progresso")
    items = page.locator("[data-offline-items] li")
    expect(items).to_have_count(1)
    expect(items).to_contain_text(KERNELS.meta.title_text)
    expect(items).to_contain_text("Baixada neste aparelho em ")
    expect(items.locator("[data-version]")).to_have_attribute("data-version", version)
    items.get_by_role("button").click()
    expect(items).to_have_count(0)
    expect(page.locator("[data-offline-none]")).to_be_visible()
    assert page.evaluate(CACHED) == {}
    # Chromium logs each request the cut connection failed (the worker tries the network first).
    assert [e for e in console.errors if "ERR_INTERNET_DISCONNECTED" not in e] == []


def test_the_whole_course_downloads_from_progress(new_page, live_server: LiveServer):
    page = new_page(360, 740)
    page.goto(f"{live_server.url}/progresso")
    ready(page)
    section = page.locator("[data-offline-downloads]")
    section.get_by_role("button", name="Baixar o curso todo").click()
    confirm_download(section)
    expect(section.locator("[data-offline-items] li")).to_have_count(len(COURSE.lessons))


@pytest.mark.parametrize("theme", ("claro", "escuro"))
def test_the_offline_pages_pass_axe(new_page, live_server: LiveServer, theme: str):
    page = new_page(360, 740, color_scheme="dark" if theme == "escuro" else "light")
    for path in ("/sem-internet", "/sem-internet/respostas", "/progresso"):
        page.goto(live_server.url + path)
        assert axe_violations(page) == [], (path, theme)


def test_the_manifest_makes_the_course_installable(new_page, live_server: LiveServer):
    page = new_page(360, 740)
    page.goto(live_server.url + "/")
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    manifest = page.request.get(live_server.url + href).json()
    assert manifest["name"] == "Curso: engines de inferência de LLM"
    assert manifest["lang"] == "pt-BR" and manifest["display"] == "standalone"
    assert {icon["sizes"] for icon in manifest["icons"]} == {"192x192", "512x512"}
    for icon in manifest["icons"]:
        response = page.request.get(live_server.url + icon["src"])
        assert response.headers["content-type"] == "image/png"
    worker = page.request.get(live_server.url + "/sw.js")
    assert worker.headers["service-worker-allowed"] == "/"


def test_answers_given_offline_are_graded_when_the_connection_returns(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    keys = answered_offline(page, live_server.url)
    badge = page.locator("[data-offline-badge]")
    expect(badge).to_have_text("Respostas esperando: 3")
    assert attempts_with(live_server, keys) == []
    page.context.set_offline(False)
    graded = page.locator(".offline-graded")
    expect(graded.locator("h2")).to_have_text("Corrigidas agora")
    expect(graded.locator(".offline-verdict")).to_have_count(3)
    expected = [
        "✓ Resposta correta" if q.options[0].id in q.answer else "✗ Resposta incorreta"
        for q in SINGLE
    ]
    assert graded.locator(".offline-verdict").all_text_contents() == expected
    expect(badge).to_be_hidden()
    stored = attempts_with(live_server, keys)
    assert sorted(stored) == sorted((q.id, key) for q, key in zip(SINGLE, keys, strict=True))


HINTED = next(q for q in KERNELS.questions.values() if q.hints and q not in SINGLE)


def test_a_hint_button_sent_offline_is_not_kept_as_an_answer(new_page, live_server: LiveServer):
    page = new_page(360, 740)
    download(page, live_server.url, KERNELS.slug)
    page.context.set_offline(True)
    page.reload()
    hinted = page.locator(f"#pergunta-{HINTED.id}")
    # The answer form sent by its hint button as a plain form sends it, before htmx is loaded
    # (no pointer or key yet; htmx-on-demand.js then sends the hint through htmx).
    hinted.locator(".hint-button").evaluate("button => button.form.requestSubmit(button)")
    keys = answer_offline(page, SINGLE[:1])
    expect(page.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 1")
    expect(hinted.locator(".offline-kept")).to_have_count(0)
    page.context.set_offline(False)
    expect(page.locator(".offline-verdict")).to_have_count(1)
    hint_key = hinted.locator('input[name="chave"]').get_attribute("value")
    assert attempts_with(live_server, [*keys, hint_key]) == [(SINGLE[0].id, keys[0])]


def test_two_tabs_syncing_at_once_store_each_answer_once(new_page, live_server: LiveServer):
    first = new_page(360, 740)
    keys = answered_offline(first, live_server.url)
    second = first.context.new_page()
    second.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    expect(second.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 3")
    first.context.set_offline(False)  # both tabs hear "online" and sync
    for page in (first, second):
        expect(page.locator("[data-offline-badge]")).to_be_hidden()
    shown = sum(page.locator(".offline-verdict").count() for page in (first, second))
    assert shown == 3
    assert len(attempts_with(live_server, keys)) == 3


def test_a_sync_cut_in_the_middle_is_finished_later_with_no_answer_twice(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    keys = answered_offline(page, live_server.url)
    sent = []

    def cut_the_second(route):
        sent.append(route.request.url)
        if len(sent) == 2:  # the server stores it, the phone never hears back
            route.fetch()
            route.abort("internetdisconnected")
        else:
            route.continue_()

    page.route("**/perguntas/*", cut_the_second)
    page.context.set_offline(False)
    expect(page.locator(".offline-verdict")).to_have_count(1)
    expect(page.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 2")
    assert len(attempts_with(live_server, keys)) == 2
    page.unroute("**/perguntas/*")
    page.reload()  # the next page load sends what is still waiting
    expect(page.locator(".offline-verdict")).to_have_count(2)
    expect(page.locator("[data-offline-badge]")).to_be_hidden()
    assert len(attempts_with(live_server, keys)) == 3


def test_a_question_changed_or_another_accounts_answer_stays_listed(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    keys = answered_offline(page, live_server.url)
    # One form showed an old version of its question; one answer was kept by another account.
    page.evaluate(
        """async ([changed, other]) => {
          const db = await new Promise((ok) => { const r = indexedDB.open("curso", 1);
            r.onsuccess = () => ok(r.result); });
          const store = db.transaction("respostas", "readwrite").objectStore("respostas");
          for (const key of [changed, other]) {
            const entry = await new Promise((ok) => { const r = store.get(key);
              r.onsuccess = () => ok(r.result); });
            if (key === changed) entry.fields = entry.fields.map(([n, v]) =>
              [n, n === "versao" ? "0000000000000000" : v]);
            else entry.account = "outra-pessoa";
            store.put(entry);
          }
        }""",
        [keys[0], keys[1]],
    )
    page.context.set_offline(False)
    expect(page.locator(".offline-verdict")).to_have_count(1)
    expect(page.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 2")
    page.goto(f"{live_server.url}/sem-internet/respostas")
    states = page.locator("[data-offline-queue] .offline-state")
    expect(states).to_have_text(
        [
            "Esta pergunta mudou; responda de novo.",
            "Guardada por outra conta neste aparelho: não é enviada como sua.",
        ]
    )
    assert [key for _, key in attempts_with(live_server, keys)] == [keys[2]]
    page.get_by_role("button", name=re.compile("^Descartar")).click()
    expect(states).to_have_count(1)
    expect(page.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 1")


def test_an_instructors_page_offers_no_download(new_page, live_server: LiveServer):
    page = new_page(360, 740)
    grant_instructor(live_server, new_account_in_page(page, live_server))
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    ready(page)
    expect(page.locator(".check-panel")).to_be_attached()
    expect(page.locator("[data-offline-lesson]")).to_have_count(0)


def test_a_downloaded_lesson_is_downloaded_again_when_its_version_changes(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    download(page, live_server.url, KERNELS.slug)
    version = page.locator("[data-offline-lesson]").get_attribute("data-version")
    # The device holds an older version of the lesson (the page it kept says so, too).
    page.evaluate(
        """async (url) => {
          const all = JSON.parse(localStorage.getItem("curso-baixadas"));
          all[url].version = "00000000";
          localStorage.setItem("curso-baixadas", JSON.stringify(all));
          const cache = await caches.open("curso-sem-internet");
          const old = (await (await cache.match(url)).text()).replace(/data-version="[0-9a-f]+"/,
            'data-version="00000000"');
          await cache.put(url, new Response(old, {headers: {"Content-Type": "text/html"}}));
        }""",
        f"/licoes/{KERNELS.slug}",
    )
    page.reload()
    status = page.locator("[data-offline-status]")
    expect(status).to_have_attribute("data-version", version)
    expect(status).not_to_contain_text("Há uma versão nova.")
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("[data-offline-lesson]")).to_have_attribute("data-version", version)


def test_signing_out_warns_of_waiting_answers_then_clears_the_device(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    new_account_in_page(page, live_server)
    keys = answered_offline(page, live_server.url)
    page.route("**/perguntas/*", lambda route: route.abort("internetdisconnected"))
    page.context.set_offline(False)
    page.goto(live_server.url + "/conta")
    expect(page.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 3")
    page.get_by_role("button", name="Sair").click()
    expect(page.get_by_role("alert")).to_have_text(
        "Este aparelho guarda 3 respostas ainda não enviadas. Sair apaga essas respostas e as "
        "lições baixadas. Para sair mesmo assim, toque em “Sair” de novo."
    )
    page.get_by_role("button", name="Sair").click()
    expect(page).to_have_url(live_server.url + "/")
    assert page.evaluate(CACHED) == {}
    assert page.evaluate("localStorage.getItem('curso-baixadas')") is None
    expect(page.locator("[data-offline-badge]")).to_be_hidden()
    assert attempts_with(live_server, keys) == []
