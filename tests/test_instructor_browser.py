"""An instructor in Chromium: signs in, reads the dashboard and a preview, downloads a CSV."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from app.content.course import load_course
from app.platform.db import make_engine
from tests.support.accounts import sign_up
from tests.support.app import REPO_LESSONS
from tests.support.browser import ConsoleWatch
from tests.support.cohort import seed_cohort, write_cohort_lessons
from tests.support.html import csrf_from, soup
from tests.support.learning import KERNELS
from tests.support.lessons import GOOD
from tests.support.server import LiveServer, grant_instructor, reloading_server

FIRST = next(iter(KERNELS.questions.values()))


@pytest.fixture
def server(tmp_path_factory):
    """A server of its own: this test grants a role and stores answers."""
    live = LiveServer(tmp_path_factory.mktemp("instrutor"), REPO_LESSONS)
    live.start()
    yield live
    live.stop()


def answer(client: httpx.Client, option: str) -> None:
    page = client.get("/licoes/kernels").text
    key = soup(page).select_one(f'#pergunta-{FIRST.id} input[name="chave"]')["value"]
    form = {
        "csrftoken": csrf_from(page),
        "opcao": option,
        "chave": key,
        "versao": FIRST.content_hash,
    }
    assert client.post(f"/licoes/kernels/perguntas/{FIRST.id}", data=form).status_code == 303


def test_instructor_signs_in_reads_the_dashboard_and_preview_and_downloads_a_csv(
    server, browser: Browser, artifacts, tmp_path
):
    for option in ("b", "a", "b"):
        answer(httpx.Client(base_url=server.url), option)
    with httpx.Client(base_url=server.url) as client:
        assert sign_up(client, "professora").status_code == 303
    grant_instructor(server, "professora")

    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, locale="pt-BR", accept_downloads=True
    )
    page = context.new_page()
    watch = ConsoleWatch(page)
    page.goto(server.url + "/instrutor")
    expect(page).to_have_url(re.compile(r"/conta\?proximo=%2Finstrutor$"))
    page.fill("#entrar-usuario", "professora")
    page.fill("#entrar-senha", "senha-boa-123")
    page.get_by_role("button", name="Entrar").click()
    expect(page).to_have_url(server.url + "/instrutor")
    expect(page.locator("h1")).to_have_text("Painel do instrutor")
    tabs = page.get_by_role("navigation", name="Seções do painel")
    expect(tabs.locator('[aria-current="page"]')).to_have_text("Visão geral")
    page.screenshot(path=artifacts / "instrutor-painel-1280.png", full_page=True)
    page.screenshot(path=artifacts / "instrutor-painel-topo-1280.png")
    page.evaluate("window.mesmoDocumento = true")
    tabs.get_by_role("link", name="Funil").click()
    expect(page).to_have_url(server.url + "/instrutor/funil")
    expect(page.locator('table.funnel tr[data-licao="kernels"] .started')).to_have_text("3")
    tabs.get_by_role("link", name="Perguntas").click()
    expect(page).to_have_url(server.url + "/instrutor/perguntas")
    expect(tabs.locator('[aria-current="page"]')).to_have_text("Perguntas")
    # Issue 38: a tab opens in place (its <main> swapped, the page's styles and scripts kept),
    # as a new page would: its title, the heading focused, the window at the top.
    assert page.evaluate("window.mesmoDocumento === true"), "a aba recarregou a página inteira"
    expect(page).to_have_title(re.compile(r"^Perguntas · Painel do instrutor · "))
    expect(page.locator("main h1")).to_be_focused()
    expect(page.locator("main")).to_have_count(1)
    card = page.locator(f"#q-kernels-{FIRST.id}")
    expect(card).to_have_css("border-top-style", "solid")  # instructor.css still applies
    expect(card.locator(".fig-learners")).to_have_text("3")
    expect(card.locator(".fig-facility")).to_have_text("67%")
    card.locator(":scope > summary").click()  # the card opens on its chart
    expect(card.locator(".ic-option.ic-key .ic-key-mark")).to_have_text("✓ gabarito")
    card.screenshot(path=artifacts / "instrutor-pergunta-1280.png")
    page.locator("#como-calculamos").screenshot(
        path=artifacts / "instrutor-como-calculamos-1280.png"
    )
    for section in ("arvores", "arquivos"):
        tabs.locator(f'a[href="/instrutor/{section}"]').click()
        expect(page).to_have_url(server.url + f"/instrutor/{section}")
        page.locator(f"#{section}").screenshot(path=artifacts / f"instrutor-{section}-1280.png")
    page.go_back()
    page.go_back()
    expect(page).to_have_url(server.url + "/instrutor/perguntas")
    page.go_back()
    page.go_back()
    expect(page).to_have_url(server.url + "/instrutor")

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Tentativas (CSV)").click()
    download = download_info.value
    assert re.fullmatch(r"tentativas-\d{4}-\d{2}-\d{2}\.csv", download.suggested_filename)
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert saved.read_bytes().startswith(b"\xef\xbb\xbf"), "o BOM do UTF-8, para o Excel"
    with saved.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["pergunta"], r["opcoes"], r["correta"]) for r in rows] == [
        (FIRST.id, "b", "sim"),
        (FIRST.id, "a", "não"),
        (FIRST.id, "b", "sim"),
    ]

    page.go_forward()
    page.go_forward()
    expect(page).to_have_url(server.url + "/instrutor/perguntas")
    card.evaluate("details => { details.open = true; }")  # open, whatever history kept
    card.get_by_role("link", name="Ver com o gabarito").click()
    expect(page).to_have_url(re.compile(rf"/instrutor/licoes/kernels#pergunta-{FIRST.id}$"))
    expect(page.locator(".check-panel .check-ok")).to_have_text(
        "Nenhum problema: curso check aceita este arquivo."
    )
    question = page.locator(f"#pergunta-{FIRST.id}")
    expect(question.locator(".tag-right")).to_have_count(len(FIRST.answer))
    expect(question.locator(".explanation")).to_have_count(len(FIRST.options))
    page.screenshot(path=artifacts / "instrutor-previa-1280.png")

    page.set_viewport_size({"width": 360, "height": 800})
    for tab in ("", "/funil", "/perguntas", "/dominio", "/arvores", "/arquivos"):
        page.goto(server.url + "/instrutor" + tab)
        name = tab.strip("/") or "painel"
        page.screenshot(path=artifacts / f"instrutor-{name}-360.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, (
            f"nada rola para o lado no celular: {tab}"
        )
    assert watch.errors == []
    context.close()


def signed_in_page(browser: Browser, server: LiveServer, username: str | None, width: int = 1280):
    """A browser page, signed in as ``username`` (an existing account) when given."""
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="pt-BR")
    page = context.new_page()
    if username:
        page.goto(server.url + "/conta")
        page.fill("#entrar-usuario", username)
        page.fill("#entrar-senha", "senha-boa-123")
        page.get_by_role("button", name="Entrar").click()
        expect(page.locator(".nav-account")).to_have_text(f"Conta: {username}")
    return page


def test_a_broken_save_shows_the_instructor_where_and_the_learner_nothing(
    browser: Browser, artifacts, tmp_path, monkeypatch
):
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "01-a.md").write_text(GOOD, encoding="utf-8")
    with reloading_server(tmp_path, folder, monkeypatch) as server:
        teacher = signed_in_page(browser, server, "professora")
        learner = signed_in_page(browser, server, None)
        watch = ConsoleWatch(learner)
        (folder / "01-a.md").write_text(
            GOOD.replace("answer: [b]", "answer: [z]"), encoding="utf-8"
        )
        teacher.goto(server.url + "/licoes/decode-prefill")
        panel = teacher.locator(".check-panel")
        expect(panel.locator(".check-error")).to_have_text(
            "01-a.md:33:12 erro a resposta `z` da pergunta `fase-banda` não é uma opção; opções: "
            "a, b, c"
        )
        panel.screenshot(path=artifacts / "instrutor-painel-erro-1280.png")
        teacher.screenshot(path=artifacts / "instrutor-licao-quebrada-1280.png")
        learner.goto(server.url + "/licoes/decode-prefill")
        expect(learner.locator("h1")).to_have_text("Decode e prefill")
        expect(learner.locator(".check-panel")).to_have_count(0)
        learner.locator("#op-fase-banda-b").check()
        learner.locator("#pergunta-fase-banda button").click()
        expect(learner.locator("#pergunta-fase-banda .verdict")).to_have_text(
            re.compile("Resposta correta")
        )
        learner.screenshot(path=artifacts / "aluno-licao-quebrada-1280.png")
        assert watch.errors == []


@contextmanager
def cohort_dashboard(browser: Browser, tmp_path, monkeypatch) -> Iterator[tuple[LiveServer, Page]]:
    """A live server with the cohort's lessons and answers (tests/support/cohort.py), and a
    page signed in as its instructor."""
    folder = tmp_path / "lessons"
    write_cohort_lessons(folder)
    with reloading_server(tmp_path, folder, monkeypatch) as server:
        engine = make_engine(f"sqlite:///{server.database}")
        seed_cohort(engine, load_course(folder))
        engine.dispose()
        yield server, signed_in_page(browser, server, "professora")


def test_the_dashboard_points_at_the_question_that_misleads(
    browser: Browser, artifacts, tmp_path, monkeypatch
):
    with cohort_dashboard(browser, tmp_path, monkeypatch) as (server, page):
        watch = ConsoleWatch(page)
        page.goto(server.url + "/instrutor#revisar")  # a link to the one-page dashboard
        expect(page).to_have_url(server.url + "/instrutor/perguntas#revisar")
        review = page.locator("#revisar")
        expect(review.locator(".flagged-list > li")).to_have_count(3)
        review.screenshot(path=artifacts / "instrutor-revisar-1280.png")
        review.get_by_role("link", name=re.compile("Pergunta ruim")).click()
        card = page.locator("#q-itens-ruim")
        expect(card.locator(".ic-distractor .ic-distractor-mark")).to_have_text("atrai os melhores")
        card.screenshot(path=artifacts / "instrutor-distractor-1280.png")
        page.set_viewport_size({"width": 360, "height": 800})
        card.screenshot(path=artifacts / "instrutor-distractor-360.png")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        assert watch.errors == []


def test_old_links_into_the_one_page_dashboard_land_on_the_tab_that_holds_them(
    browser: Browser, tmp_path, monkeypatch
):
    """``/instrutor#funil``, ``#conceitos``, ``#q-<lesson>-<id>``… were sections of one page;
    each now opens the tab that holds it, with the class filter kept, and back leaves it."""
    with cohort_dashboard(browser, tmp_path, monkeypatch) as (server, page):
        watch = ConsoleWatch(page)
        landings = {
            "funil": "/instrutor/funil#funil",
            "conceitos": "/instrutor/dominio#conceitos",
            "arvores": "/instrutor/arvores#arvores",
            "arquivos": "/instrutor/arquivos#arquivos",
            "como-calculamos": "/instrutor/perguntas#como-calculamos",
            "q-itens-ruim": "/instrutor/perguntas#q-itens-ruim",
            "alunos": "/instrutor#alunos",
            "exportar": "/instrutor#exportar",
        }
        for anchor, landing in landings.items():
            page.goto(f"{server.url}/instrutor#{anchor}")
            expect(page).to_have_url(server.url + landing)
            expect(page.locator(f"#{anchor}")).to_be_in_viewport()
        ruim = page.locator("#q-itens-ruim")
        page.goto(f"{server.url}/instrutor#q-itens-ruim")
        expect(ruim.locator(".ic-distractor .ic-distractor-mark")).to_be_visible()
        page.goto(server.url + "/instrutor/arquivos")
        page.goto(server.url + "/instrutor?turma=#funil")
        expect(page).to_have_url(server.url + "/instrutor/funil#funil")
        page.go_back()
        expect(page).to_have_url(server.url + "/instrutor/arquivos")
        assert watch.errors == []
