"""Studying without a connection (issue 40), what its "Done when" asks beyond
tests/test_offline_browser.py, in Chromium at 360 px: a learner launched from an LMS answers
offline and the grade reaches the LMS after the sync, with the times the answers were given;
an instructor downloads the whole course as learners see it; no cached response holds the
explanation of a question the learner has not answered; axe finds nothing on a lesson with
answers waiting or on the offline pages with something in them, in both themes; and the
service worker is registered only after the page's load event; htmx, which a lesson loads on
the first interaction, comes from the download (a page opened offline answers once the
connection returns; on a network that carries nothing, an answer is kept); and, online, the
service worker is woken only for pages."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect

from app.learning.progress import lesson_shape_total
from tests.support.app import query
from tests.support.browser import axe_violations
from tests.support.learning import COURSE, KERNELS
from tests.support.lti_platform import lms_fixture
from tests.support.offline import (
    CACHED,
    SINGLE,
    answer_offline,
    attempts_with,
    download,
    new_account_in_page,
    ready,
)
from tests.support.server import LiveServer, grant_instructor

RIGHT_FIRST = [q for q in SINGLE if q.options[0].id in q.answer]  # answered right offline


def given_at(server: LiveServer, keys: list[str]) -> list[datetime]:
    """The stored times of the attempts with these form keys, in UTC."""
    marks = ", ".join(f":k{n}" for n in range(len(keys)))
    rows = query(
        server.settings,
        f"SELECT created_at FROM attempt WHERE idempotency_key IN ({marks})",
        **{f"k{n}": key for n, key in enumerate(keys)},
    )
    times = [at if isinstance(at, datetime) else datetime.fromisoformat(at) for (at,) in rows]
    return [at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC) for at in times]


def download_all(page: Page, base: str) -> None:
    """ "Baixar o curso todo" on /progresso, size first, until every lesson is listed."""
    page.goto(f"{base}/progresso")
    ready(page)
    section = page.locator("[data-offline-downloads]")
    section.get_by_role("button", name="Baixar o curso todo").click()
    section.get_by_role("button", name="Confirmar o download").click()
    expect(section.locator("[data-offline-items] li")).to_have_count(len(COURSE.lessons))


lms = lms_fixture("lti-offline", backends=["sqlite"])


def test_an_lms_learner_answers_offline_and_the_grade_reaches_the_lms(lms, new_page):
    tool, platform = lms
    page = new_page(360, 740)
    page.goto(f"{platform.url}/launch?user=rui-40&papel=aluno&licao={KERNELS.slug}")
    page.wait_for_url(f"{tool.url}/licoes/{KERNELS.slug}*")
    before = datetime.now(UTC).replace(microsecond=0)
    download(page, tool.url, KERNELS.slug)
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("h1")).to_have_text(KERNELS.meta.title_text)
    keys = answer_offline(page)
    expect(page.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 3")
    answered = datetime.now(UTC)
    assert platform.gradebook()["scores"] == []
    page.context.set_offline(False)
    expect(page.locator(".offline-graded .offline-verdict")).to_have_count(3)
    expect(page.locator("[data-offline-badge]")).to_be_hidden()
    # Three attempts, each at the time it was given on the phone, not when it arrived.
    times = given_at(tool, keys)
    assert len(times) == 3
    assert all(before <= at <= answered for at in times), (before, times, answered)
    # The LMS gets the lesson's score through the score queue, as for an answer online.
    deadline = time.monotonic() + 30
    scores: list[dict] = []
    while time.monotonic() < deadline:
        scores = [s for s in platform.gradebook()["scores"] if s["userId"] == "rui-40"]
        if scores and scores[-1]["scoreGiven"] == len(RIGHT_FIRST):
            break
        time.sleep(0.2)
    assert scores and scores[-1]["scoreGiven"] == len(RIGHT_FIRST), scores
    assert scores[-1]["scoreMaximum"] == lesson_shape_total(KERNELS)


def test_an_instructor_downloads_the_whole_course_as_learners_see_it(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    grant_instructor(live_server, new_account_in_page(page, live_server))
    download_all(page, live_server.url)
    cached = page.evaluate(CACHED)
    pages = {url: text for url, text in cached.items() if "/licoes/" in url and text}
    assert len(pages) == len(COURSE.lessons), list(cached)
    for url, text in pages.items():
        assert "check-panel" not in text, url
        assert "data-offline-lesson" in text, url
    page.context.set_offline(True)
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    expect(page.locator("h1")).to_have_text(KERNELS.meta.title_text)
    expect(page.locator(".check-panel")).to_have_count(0)


def test_no_cached_response_explains_a_question_not_answered(new_page, live_server: LiveServer):
    page = new_page(360, 740)
    answered = SINGLE[0]
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    block = page.locator(f"#pergunta-{answered.id}")
    right = sorted(answered.answer)[0]
    page.locator(f"#op-{answered.id}-{right}").check()
    block.get_by_role("button", name="Responder").click()
    expect(block.locator(".verdict")).to_be_visible()
    download_all(page, live_server.url)
    cached = page.evaluate(CACHED)
    assert not [url for url in cached if "/instrutor" in url]
    explained = [
        (lesson.slug, question, option.explanation_html.strip())
        for lesson in COURSE.lessons
        for question in lesson.questions.values()
        for option in question.options
        if option.explanation_html.strip()
    ]
    leaks = [
        (url, slug, question.id)
        for url, text in cached.items()
        for slug, question, explanation in explained
        if explanation in text and question.id != answered.id
    ]
    assert leaks == []
    # The check can see an explanation: the answered question's is in its lesson's copy.
    kept = cached[f"{live_server.url}/licoes/{KERNELS.slug}"]
    assert any(explanation in kept for _, q, explanation in explained if q.id == answered.id)


@pytest.mark.parametrize("theme", ("claro", "escuro"))
def test_a_lesson_with_answers_waiting_and_the_offline_pages_pass_axe(
    new_page, live_server: LiveServer, theme: str
):
    page = new_page(360, 740, color_scheme="dark" if theme == "escuro" else "light")
    download(page, live_server.url, KERNELS.slug)
    page.context.set_offline(True)
    page.reload()
    answer_offline(page)
    expect(page.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 3")
    found = {"licao": axe_violations(page)}
    page.goto(f"{live_server.url}/sem-internet/respostas")
    expect(page.locator("[data-offline-queue] li")).to_have_count(3)
    found["respostas"] = axe_violations(page)
    page.goto(f"{live_server.url}/licoes/escolha-self-hosted")  # not downloaded
    expect(page.locator("[data-offline-list] a")).to_have_count(1)
    found["sem-internet"] = axe_violations(page)
    assert found == {name: [] for name in found}, theme


# Records, for each service worker registration, whether the page's load event had fired.
WATCH_REGISTER = """
window.cursoLoaded = false;
window.cursoRegistered = [];
window.addEventListener("load", () => { window.cursoLoaded = true; });
const register = ServiceWorkerContainer.prototype.register;
ServiceWorkerContainer.prototype.register = function (...args) {
  window.cursoRegistered.push(window.cursoLoaded);
  return register.apply(this, args);
};
"""

# Resolves once the page has registered the service worker.
REGISTERED = """() => new Promise((done) => {
  const check = () => (window.cursoRegistered.length ? done(true) : setTimeout(check, 20));
  check();
})"""


def test_the_service_worker_is_registered_after_the_load_event(new_page, live_server: LiveServer):
    page = new_page(360, 740)
    page.add_init_script(WATCH_REGISTER)
    for path in ("/", f"/licoes/{KERNELS.slug}"):
        page.goto(live_server.url + path)
        # Not ready(): on the second page the worker of the first is ready before this page
        # registers (after its load, when the browser is idle).
        page.evaluate(REGISTERED)
        assert page.evaluate("window.cursoRegistered") == [True], path


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_the_course_passes_the_installability_checks_lighthouse_made(
    browser_type, browser_type_launch_args, live_server: LiveServer, tmp_path
):
    """Lighthouse 12 has no PWA category; its "installable-manifest" audit (Lighthouse 11) asked
    Chromium for the installability errors, which a normal profile reports (a Playwright
    context is incognito, where Chromium installs nothing). With it, what the audit named: a
    manifest with a name, 192 and 512 px PNG icons, a start_url and a standalone display, and
    a service worker with a fetch handler controlling the start page, which answers it offline.
    """
    context = browser_type.launch_persistent_context(
        str(tmp_path / "perfil"),
        **browser_type_launch_args,
        locale="pt-BR",
        viewport={"width": 360, "height": 740},
    )
    try:
        page = context.new_page()
        download(page, live_server.url, KERNELS.slug)  # so that the worker has a page to give
        page.goto(live_server.url + "/")
        page.reload()  # the start page, now under the worker
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        found = cdp.send("Page.getAppManifest")
        assert found["errors"] == []
        manifest = json.loads(found["data"])
        assert manifest["name"] and manifest["short_name"]
        assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
        sizes = set()
        for icon in manifest["icons"]:
            response = page.request.get(live_server.url + icon["src"])
            assert response.headers["content-type"] == "image/png"
            width, height = png_size(response.body())
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add((width, icon["purpose"]))
        assert {(192, "any"), (512, "any"), (512, "maskable")} <= sizes
        worker = page.evaluate("navigator.serviceWorker.controller.scriptURL")
        assert worker == live_server.url + "/sw.js"
        context.set_offline(True)
        page.goto(live_server.url + manifest["start_url"])  # not downloaded: the worker's page
        expect(page.locator("h1")).to_have_text("Sem conexão")
    finally:
        context.close()


# A phone that says it is online while no request gets through (a weak signal): htmx sends,
# the send fails, and the answer is kept all the same.
SAYS_ONLINE = 'Object.defineProperty(Navigator.prototype, "onLine", { get: () => true });'


def kernels_cut_off(new_page, live_server: LiveServer, told: str) -> Page:
    """A phone that downloaded the kernels lesson, then lost the connection and reloaded it;
    the browser says it is ``told`` (``offline``, or ``online`` as a weak signal does)."""
    page = new_page(360, 740)
    if told == "online":
        page.add_init_script(SAYS_ONLINE)
    download(page, live_server.url, KERNELS.slug)
    page.context.set_offline(True)
    page.reload()
    return page


@pytest.mark.parametrize("told", ("offline", "online"))
def test_an_answer_kept_offline_says_only_that_and_keeps_the_focus(
    new_page, live_server: LiveServer, told: str
):
    """No "não foi enviada" for an answer the device keeps; focus stays on the question."""
    page = kernels_cut_off(new_page, live_server, told)
    question = SINGLE[0]
    block = page.locator(f"#pergunta-{question.id}")
    page.locator(f"#op-{question.id}-{question.options[0].id}").check()
    block.get_by_role("button", name="Responder").click()
    kept = block.locator(".offline-kept")
    expect(kept).to_have_text(
        "Resposta guardada neste aparelho; será corrigida quando a internet voltar."
    )
    # The kept answer is in IndexedDB: whatever htmx would have said has had its turn.
    expect(page.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 1")
    expect(page.locator("#aviso-erro")).to_be_hidden()
    assert "não foi enviada" not in page.locator("body").inner_text()
    expect(kept).to_be_focused()


@pytest.mark.parametrize("told", ("offline", "online"))
def test_a_hint_asked_offline_says_hints_need_the_connection(
    new_page, live_server: LiveServer, told: str
):
    page = kernels_cut_off(new_page, live_server, told)
    block = page.locator(".question:has(.hint-button)").first
    block.locator("input[type=radio], input[type=checkbox]").first.check()
    block.locator(".hint-button").click()
    expect(block.locator(".hints .offline-hint")).to_have_text(
        "As dicas precisam de internet; sua resposta continua aqui."
    )
    expect(page.locator("#aviso-erro")).to_be_hidden()
    assert "não foi enviada" not in page.locator("body").inner_text()
    expect(block.locator("input[type=radio], input[type=checkbox]").first).to_be_checked()
    expect(block.locator(".hint-item")).to_have_count(0)


def test_every_verdict_reaches_graded_just_now_when_a_page_is_left_mid_sync(
    new_page, live_server: LiveServer
):
    """Answers kept offline, the waiting list open, the connection back and the lesson opened
    while the list's page is still sending: the verdict it got before it was left is shown on
    the lesson with the others, once."""
    page = new_page(360, 740)
    download(page, live_server.url, KERNELS.slug)
    page.context.set_offline(True)
    page.reload()
    keys = answer_offline(page)
    page.goto(f"{live_server.url}/sem-internet/respostas")
    expect(page.locator("[data-offline-queue] li")).to_have_count(3)
    sent: list[str] = []

    def hold_the_second(route):
        sent.append(route.request.url)
        if len(sent) != 2:  # the second never comes back to the list's page
            route.continue_()

    page.route("**/perguntas/*", hold_the_second)
    page.context.set_offline(False)
    deadline = time.monotonic() + 15
    while len(sent) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert len(sent) == 2, sent
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    expect(page.locator(".offline-graded .offline-verdict")).to_have_count(3)
    expect(page.locator("[data-offline-badge]")).to_be_hidden()
    assert len(attempts_with(live_server, keys)) == 3
    page.goto(f"{live_server.url}/sem-internet/respostas")
    expect(page.locator("[data-offline-none]")).to_be_visible()
    expect(page.locator(".offline-graded")).to_have_count(0)


def test_a_lesson_not_downloaded_offers_no_remover_and_a_downloaded_one_says_when(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    ready(page)
    box = page.locator("[data-offline-lesson]")
    expect(box.get_by_role("button", name="Baixar para ler sem internet")).to_be_visible()
    expect(box.get_by_role("button", name="Remover")).to_be_hidden()
    download(page, live_server.url, KERNELS.slug)
    status = box.locator("[data-offline-status]")
    expect(status).to_have_text(re.compile(r"^Baixada neste aparelho em \d+ de \w+\.?, \d\d:\d\d"))
    expect(status).not_to_contain_text("versão")
    assert re.fullmatch(r"[0-9a-f]{8}", status.get_attribute("data-version") or "")
    expect(box.get_by_role("button", name="Remover")).to_be_visible()


def test_a_downloaded_copy_older_than_the_lesson_says_there_is_a_new_version(
    new_page, live_server: LiveServer
):
    """The copy could not be brought up to date (the download failed): the box says so."""
    page = new_page(360, 740)
    download(page, live_server.url, KERNELS.slug)
    page.evaluate(
        """(url) => {
          const all = JSON.parse(localStorage.getItem("curso-baixadas"));
          all[url].version = "00000000";
          localStorage.setItem("curso-baixadas", JSON.stringify(all));
        }""",
        f"/licoes/{KERNELS.slug}",
    )
    page.route("**/licoes/*?baixar=1", lambda route: route.abort("internetdisconnected"))
    page.reload()
    status = page.locator("[data-offline-status]")
    expect(status).to_have_text(
        re.compile(r"^Baixada neste aparelho em .+, [\d,]+ (kB|MB)\. Há uma versão nova\.$")
    )
    expect(status).to_have_attribute("data-version", "00000000")


def empty_the_browsers_cache(page: Page) -> None:
    """What a phone short of space does to the browser's own HTTP cache (not to the download,
    which is the service worker's Cache API)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.clearBrowserCache")
    cdp.detach()  # left attached, it makes the page say it is online once the context is not


def test_a_downloaded_lesson_keeps_answers_on_a_network_that_carries_nothing(
    new_page, live_server: LiveServer
):
    """The phone says it is online, but nothing gets through: htmx (loaded on the first
    interaction) comes from the download, so the answer is kept and not lost."""
    page = new_page(360, 740)
    download(page, live_server.url, KERNELS.slug)
    page.reload()
    page.context.route("**/*", lambda route: route.abort("internetdisconnected"))
    assert page.evaluate("navigator.onLine")
    answer_offline(page, SINGLE[:1])
    expect(page.locator("[data-offline-badge]")).to_have_text("Respostas esperando: 1")


def test_a_lesson_opened_offline_answers_online_once_the_connection_returns(
    new_page, live_server: LiveServer
):
    """htmx loads on the first interaction (static/htmx-on-demand.js): offline, from the
    download, so the page answers through the server when the connection returns."""
    page = new_page(360, 740)
    download(page, live_server.url, KERNELS.slug)
    cached = sorted(page.evaluate(CACHED))
    assert [url for url in cached if "/static/htmx.min." in url], cached
    empty_the_browsers_cache(page)
    page.context.set_offline(True)
    page.reload()
    answer_offline(page, SINGLE[:1])
    page.context.set_offline(False)
    expect(page.locator(".offline-graded li")).to_have_count(1)
    question = SINGLE[1]
    block = page.locator(f"#pergunta-{question.id}")
    page.locator(f"#op-{question.id}-{question.options[0].id}").check()
    block.get_by_role("button", name="Responder").click()
    expect(block.locator(".verdict")).to_have_text(re.compile(r"Resposta (correta|incorreta)"))


# Every request the service worker is woken for, from now on (a listener added to the running
# worker; a worker stopped and started again has none, and the count reads as missing).
WATCH = "self.woken = []; self.addEventListener('fetch', (e) => self.woken.push(e.request.url))"


def test_online_the_service_worker_is_woken_only_for_pages(new_page, live_server: LiveServer):
    """Online, on a lesson never downloaded, its styles, scripts, images, htmx's requests and
    the answers go straight to the network: the worker is not woken for them (Chromium's
    static routes, declared when it installs)."""
    page = new_page(360, 740)
    page.goto(f"{live_server.url}/")
    ready(page)
    (worker,) = page.context.service_workers
    worker.evaluate(WATCH)
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")
    # Its static files, never downloaded, came from the network (htmx-on-demand.js is not on
    # the home page): htmx loads on the first interaction and the answer is graded.
    styles = page.locator('link[rel="stylesheet"]').first
    assert styles.evaluate("link => !!link.sheet && link.sheet.cssRules.length > 0")
    answer = SINGLE[0]
    block = page.locator(f"#pergunta-{answer.id}")
    page.locator(f"#op-{answer.id}-{answer.options[0].id}").check()
    block.get_by_role("button", name="Responder").click()
    expect(block.locator(".verdict")).to_have_text(re.compile(r"Resposta (correta|incorreta)"))
    woken = worker.evaluate("self.woken")
    assert woken == [f"{live_server.url}/licoes/{KERNELS.slug}"], "\n".join(woken)
