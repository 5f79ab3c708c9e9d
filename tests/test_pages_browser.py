"""Every page type in real Chromium, at 360 and 1280 px, light and dark.

For each: axe-core finds no WCAG 2.2 A/AA violation, nothing scrolls sideways on a
phone, and no request leaves for another host. With ``--screenshots`` (``make screenshots``)
a screenshot of each lands in ``test-artifacts/`` (ignored by git). To cover a new page
type, add it to :data:`PAGE_TYPES`; the instructor's pages (:data:`INSTRUCTOR_PAGE_TYPES`)
run against a server of this module's own, with answers stored, a lesson with a warning
and one that never loads, signed in as an instructor.
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.support.accounts import sign_up
from tests.support.app import REPO_LESSONS
from tests.support.browser import (
    FIRST_QUESTION,
    ConsoleWatch,
    axe_violations,
    settle,
)
from tests.support.learning import COURSE, answer
from tests.support.lessons import GOOD
from tests.support.server import LiveServer, grant_instructor

WIDTHS = (360, 1280)
THEMES = ("light", "dark")


def answer_first_question(page: Page) -> None:
    """Answer the first quiz question of the kernels lesson (once; later visits show it graded)."""
    question = page.locator(f"#pergunta-{FIRST_QUESTION.id}")
    if question.locator("form").count():
        question.locator(f"#op-{FIRST_QUESTION.id}-b").check()
        question.get_by_role("button", name="Responder").click()
    expect(question.locator(".verdict")).to_be_visible()
    question.scroll_into_view_if_needed()


def _origin(page: Page) -> str:
    return "/".join(page.url.split("/", 3)[:3])


def with_progress(page: Page) -> None:
    """Answer a question and finish a tree walk, then come back to the page under test."""
    here, origin = page.url, _origin(page)
    page.goto(origin + "/licoes/kernels")
    answer_first_question(page)
    page.goto(origin + "/arvores/guia-osman")
    page.locator(".tree-option").first.click()  # "Apple Silicon" leads straight to a result
    expect(page.locator(".tree-result")).to_be_visible()
    page.goto(here)


def signed_in(page: Page) -> None:
    """Create an account for this browser's learner (once), then come back to the page."""
    here = page.url
    page.goto(_origin(page) + "/conta")
    if not page.locator(".account-name").count():
        form = page.locator("form[action='/conta/criar']")
        form.get_by_label("Nome de usuário").fill(f"axe-{secrets.token_hex(4)}")
        form.get_by_label("Senha", exact=True).fill("senha-bem-longa")
        form.get_by_label("Repita a senha").fill("senha-bem-longa")
        form.get_by_role("button", name="Criar conta").click()
        expect(page).to_have_url(f"{_origin(page)}/progresso")
    page.goto(here)


def sign_up_refused(page: Page) -> None:
    """Send the sign-up form with a confirmation that does not match: the form comes back with its
    error.
    """
    form = page.locator("form[action='/conta/criar']")
    form.get_by_label("Nome de usuário").fill(f"axe-{secrets.token_hex(4)}")
    form.get_by_label("Senha", exact=True).fill("senha-bem-longa")
    form.get_by_label("Repita a senha").fill("outra-senha-longa")
    form.get_by_role("button", name="Criar conta").click()
    expect(page.locator("#erro-criar")).to_be_visible()


@dataclass(frozen=True)
class PageType:
    """A kind of page a learner meets: where it is and how to bring it to the state to check."""

    name: str
    path: str
    prepare: Callable[[Page], None] | None = None
    status: int = 200  # what the page answers (the browser logs a 4xx page as a console error)
    instructor: bool = False  # on the instructor's server, signed in as the instructor
    detail: str | None = None  # an element worth a screenshot of its own


PAGE_TYPES = [
    PageType("inicio", "/"),
    PageType("licao", "/licoes/kernels"),
    PageType("quiz-respondido", "/licoes/kernels", answer_first_question),
    PageType(
        "arvore-no-meio",
        "/licoes/escolha-self-hosted?arvore=guia-fase17&c=hopper,production#arvore-guia-fase17",
    ),
    PageType(
        "arvore-resultado-na-licao",
        "/licoes/escolha-self-hosted?arvore=guia-fase17&c=hopper,production,code#arvore-guia-fase17",
    ),
    PageType("busca", "/busca?q=decodificacao"),
    PageType("glossario", "/glossario"),
    PageType("arvores", "/arvores"),
    PageType("arvore", "/arvores/guia-osman?c=hopper"),
    PageType("arvore-resultado", "/arvores/guia-osman?c=hopper,convenience"),
    PageType("comparar", "/arvores/comparar?hardware=apple"),
    PageType(
        "comparar-sobreposicao",
        "/arvores/comparar?hardware=hopper&goal=long-context&scale=production&workload=long-context#comparacao",
    ),
    PageType("progresso", "/progresso", with_progress),
    PageType("conta", "/conta"),
    PageType("conta-erro", "/conta", sign_up_refused, status=422),
    PageType("conta-entrou", "/conta", signed_in),
    PageType("meus-dados", "/meus-dados", with_progress),
    PageType("meus-dados-apagados", "/meus-dados?apagado=1"),
    PageType("erro-404", "/licoes/nao-existe", status=404),
]

KERNEL_QUESTIONS = list(COURSE.get("kernels").questions.values())
CHARTED = KERNEL_QUESTIONS[1]


def open_chart_table(page: Page) -> None:
    """Open a question's card and the data table under its option chart, and bring the card
    into view."""
    card = page.locator(f"#q-kernels-{CHARTED.id}")
    card.evaluate("details => { details.open = true; }")  # a card folds unless flagged
    card.locator("details.chart-data").evaluate("details => { details.open = true; }")
    card.scroll_into_view_if_needed()


def conflict(page: Page) -> None:
    """Publish from the editor after the file changed on disk: the 409 page with its diff."""
    box = page.locator("#editor-texto")
    text = box.input_value()
    path = CONFLICT_FILE[0]
    path.write_text(path.read_text(encoding="utf-8") + "\nMudado no servidor.\n", encoding="utf-8")
    box.fill(text.replace("## ", "## Editado: ", 1))
    page.get_by_role("button", name="Publicar").click()
    expect(page.locator(".editor-conflict")).to_be_visible()


CONFLICT_FILE: list = []  # the lesson file the conflict page changes, set by instructor_site
# The dashboard's tabs, each at its own address (issue 27).
DASHBOARD_TABS = {
    "instrutor-painel": "/instrutor",
    "instrutor-funil": "/instrutor/funil",
    "instrutor-perguntas": "/instrutor/perguntas",
    "instrutor-dominio": "/instrutor/dominio",
    "instrutor-arvores": "/instrutor/arvores",
    "instrutor-arquivos": "/instrutor/arquivos",
}
INSTRUCTOR_PAGE_TYPES = [
    *(
        PageType(name, path, instructor=True)
        for name, path in DASHBOARD_TABS.items()
        if name != "instrutor-perguntas"
    ),
    PageType(  # the questions tab, with one question's option chart and its table open
        "instrutor-perguntas",
        f"/instrutor/perguntas#q-kernels-{CHARTED.id}",
        open_chart_table,
        instructor=True,
        detail=f"#q-kernels-{CHARTED.id}",
    ),
    PageType("instrutor-previa", "/instrutor/licoes/escolha-self-hosted", instructor=True),
    PageType("instrutor-lti", "/instrutor/lti", instructor=True),
    PageType("instrutor-previa-aviso", "/instrutor/licoes/com-aviso", instructor=True),
    PageType(
        "instrutor-problemas", "/instrutor/licoes/quebrada", instructor=True, detail=".check-panel"
    ),
    PageType("instrutor-licao-aviso", "/licoes/com-aviso", instructor=True, detail=".check-panel"),
    PageType("instrutor-licao-indisponivel", "/licoes/quebrada", status=503, instructor=True),
    PageType(
        "editor", "/instrutor/licoes/com-aviso/editar", instructor=True, detail=".editor-result"
    ),
    PageType(
        "editor-com-erro",
        "/instrutor/licoes/quebrada/editar",
        instructor=True,
        detail=".check-panel",
    ),
    PageType(
        "editor-conflito",
        "/instrutor/licoes/conflito/editar",
        conflict,
        instructor=True,
        detail=".editor-conflict",
        status=409,
    ),
    PageType("editor-historico", "/instrutor/licoes/com-aviso/historico", instructor=True),
    PageType("editor-nova-licao", "/instrutor/licoes/nova", instructor=True),
    PageType("turmas", "/instrutor/turmas", instructor=True),
    PageType("turma", "/instrutor/turmas/1", instructor=True),
    PageType("instrutor-painel-turma", "/instrutor?turma=1", instructor=True),
    PageType("instrutor-perguntas-turma", "/instrutor/perguntas?turma=1", instructor=True),
    PageType("editor-imagens", "/instrutor/imagens", instructor=True),
    PageType("turma-entrar", "/turmas/entrar/codigo-da-turma-de-teste", instructor=True),
]
INSTRUCTOR = "professora"


@pytest.fixture(scope="module")
def instructor_site(tmp_path_factory, browser):
    """A server with the course, a lesson with a broken link and one that never loads, ten
    learners' answers to two kernels questions, and a browser state signed in as an instructor.
    """
    tmp = tmp_path_factory.mktemp("instrutor-paginas")
    lessons = tmp / "lessons"
    shutil.copytree(REPO_LESSONS, lessons)
    warned = GOOD.replace("slug: decode-prefill", "slug: com-aviso").replace("order: 1", "order: 4")
    (lessons / "04-com-aviso.md").write_text(warned + "\nVeja [isto](#nada).\n", encoding="utf-8")
    broken = GOOD.replace("slug: decode-prefill", "slug: quebrada").replace("order: 1", "order: 5")
    broken = broken.replace("answer: [b]", "answer: [x]")
    (lessons / "05-quebrada.md").write_text(broken, encoding="utf-8")
    conflicted = GOOD.replace("slug: decode-prefill", "slug: conflito").replace(
        "order: 1", "order: 6"
    )
    (lessons / "06-conflito.md").write_text(conflicted, encoding="utf-8")
    CONFLICT_FILE[:] = [lessons / "06-conflito.md"]
    server = LiveServer(tmp, lessons)
    server.start()
    easy, charted = KERNEL_QUESTIONS[0], CHARTED
    wrong = [o.id for o in charted.options if o.id not in charted.answer]
    choices = [sorted(charted.answer)] * 5 + [[wrong[i % len(wrong)]] for i in range(5)]
    for chosen in choices:  # ten learners: all right on the first question, split on the second
        with httpx.Client(base_url=server.url) as learner:
            assert answer(learner, "kernels", easy.id, sorted(easy.answer)).status_code == 200
            assert answer(learner, "kernels", charted.id, chosen).status_code == 200
    with httpx.Client(base_url=server.url) as client:
        assert sign_up(client, INSTRUCTOR).status_code == 303
    grant_instructor(server, INSTRUCTOR, admin=True)  # an admin: /instrutor/lti is theirs
    context = browser.new_context(locale="pt-BR")
    page = context.new_page()
    page.goto(server.url + "/conta")
    page.fill("#entrar-usuario", INSTRUCTOR)
    page.fill("#entrar-senha", "senha-boa-123")
    page.get_by_role("button", name="Entrar").click()
    expect(page.locator(".nav-account")).to_have_text(f"Conta: {INSTRUCTOR}")
    state = context.storage_state()
    context.close()
    _seed_class(server)
    yield server, state
    server.stop()


def _seed_class(server: LiveServer) -> None:
    """A class taught by the instructor, with a known join code, a learner and a due date, and
    an LMS waiting for the admin's confirmation."""
    from sqlalchemy import text

    from app.platform.db import make_engine

    engine = make_engine(server.settings.database_url)
    with engine.begin() as db:
        db.execute(
            text(
                "INSERT INTO classroom (id, name, description, join_code, time_zone, created_at)"
                " VALUES (1, 'Turma da noite', 'Terças', 'codigo-da-turma-de-teste',"
                " 'America/Sao_Paulo', CURRENT_TIMESTAMP)"
            )
        )
        db.execute(
            text(
                "INSERT INTO class_staff (class_id, account_id)"
                " SELECT 1, id FROM account WHERE username = :name"
            ),
            {"name": INSTRUCTOR},
        )
        db.execute(
            text(
                "INSERT INTO class_member (class_id, learner_id, joined_at)"
                " SELECT 1, learner_id, CURRENT_TIMESTAMP FROM account WHERE username = :name"
            ),
            {"name": INSTRUCTOR},
        )
        db.execute(
            text(
                "INSERT INTO class_due (class_id, lesson_slug, due_at)"
                " VALUES (1, 'kernels', '2026-01-01 12:00:00.000000')"
            )
        )
        db.execute(
            text(
                "INSERT INTO lti_platform (issuer, client_id, auth_url, token_url, jwks_url,"
                " created_at) VALUES ('https://moodle.example.edu.br', 'abc',"
                " 'https://moodle.example.edu.br/mod/lti/auth.php',"
                " 'https://moodle.example.edu.br/mod/lti/token.php',"
                " 'https://moodle.example.edu.br/mod/lti/certs.php', CURRENT_TIMESTAMP)"
            )
        )
    engine.dispose()


# Tables fit the width: a table that scrolls sideways (app.css lets it) hides columns on a phone.
TABLES_THAT_SCROLL = """[...document.querySelectorAll("table")]
    .filter(t => t.offsetParent !== null && t.scrollWidth > t.clientWidth + 1)
    .map(t => `${t.className || t.parentElement.className}: ${t.scrollWidth} > ${t.clientWidth}`)"""


# A stylesheet in <body> holds up the paint of everything after it (base.html, stylesheets).
STYLESHEETS_IN_BODY = """[...document.querySelectorAll("link[rel=stylesheet]")]
    .filter(link => !document.head.contains(link)).map(link => link.href)"""


@pytest.mark.parametrize("kind", PAGE_TYPES + INSTRUCTOR_PAGE_TYPES, ids=lambda kind: kind.name)
def test_page_type_is_accessible_fits_a_phone_and_stays_on_our_host(
    request, new_page, artifacts, kind: PageType
):
    """At each width the page is opened and brought to its state once, then checked in the
    light theme and in the dark one: the browser's colour scheme is switched on the same page,
    and static/dark.css follows it at once, as it does for a reader whose system turns dark."""
    if kind.instructor:
        live_server, state = request.getfixturevalue("instructor_site")
        page = new_page(storage_state=state)
    else:
        live_server = request.getfixturevalue("live_server")
        page = new_page()
    watch = ConsoleWatch(page)
    hosts: set[str] = set()
    page.on("request", lambda r: hosts.add(r.url.split("/")[2]))
    problems = {}
    for width in WIDTHS:
        page.emulate_media(color_scheme=THEMES[0])
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(live_server.url + kind.path)
        if kind.prepare:
            kind.prepare(page)
        assert page.evaluate(STYLESHEETS_IN_BODY) == [], f"{kind.name}: folha de estilo no <body>"
        for theme in THEMES:
            page.emulate_media(color_scheme=theme)
            assert page.evaluate(f"matchMedia('(prefers-color-scheme: {theme})').matches")
            settle(page)  # a colour that changes with the theme may be in transition
            overflow = page.evaluate("document.documentElement.scrollWidth")
            assert overflow <= width, f"{kind.name} rola para o lado em {width} px ({overflow} px)"
            if kind.instructor:  # our own tables; a lesson's wide table may scroll in its box
                cut = page.evaluate(TABLES_THAT_SCROLL)
                assert cut == [], f"{kind.name}: tabela cortada em {width} px"
            if request.config.getoption("screenshots"):  # nothing here looks at them: on request
                name = f"{kind.name}-{width}-{theme}"
                page.screenshot(path=artifacts / f"{name}.png", full_page=True)
                if kind.detail:
                    page.locator(kind.detail).screenshot(path=artifacts / f"{name}-detalhe.png")
            violations = axe_violations(page)
            if violations:
                problems[f"{width} {theme}"] = violations
    assert problems == {}
    assert hosts == {f"127.0.0.1:{live_server.port}"}, "nenhum pedido a outro host"
    expected = f"status of {kind.status}"
    assert [e for e in watch.errors if kind.status == 200 or expected not in e] == []


TAB_HEIGHT = 6_000  # px at 1280: the one-page dashboard was 17,000 (issue 27)
# The questions tab lists every question of the course, folded: 38 before the pools and
# variants of issue 39 (item 6), 53 since.
QUESTIONS_TAB_HEIGHT = 8_000


def test_each_dashboard_tab_is_short_enough_to_read(instructor_site, new_page):
    """With the repo's lessons and ten learners' answers, at 1280 px each tab is less than
    6,000 px tall, and at 360 px the tabs' nav fits the width with every link in view."""
    live_server, state = instructor_site
    page = new_page(storage_state=state)
    heights = {}
    for name, path in DASHBOARD_TABS.items():
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(live_server.url + path)
        expect(page.locator('.dashboard-tabs a[aria-current="page"]')).to_have_count(1)
        heights[name] = page.evaluate("document.documentElement.scrollHeight")
        page.set_viewport_size({"width": 360, "height": 800})
        links = page.locator(".dashboard-tabs a")
        assert links.count() == len(DASHBOARD_TABS)
        for i in range(links.count()):
            box = links.nth(i).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, name
    budget = {name: TAB_HEIGHT for name in heights} | {"instrutor-perguntas": QUESTIONS_TAB_HEIGHT}
    assert {name: h for name, h in heights.items() if h >= budget[name]} == {}, heights


# Each word's box: a heading broken inside a word ("Alu|nos") has more boxes than words.
WORD_BROKEN_HEADINGS = """[...document.querySelectorAll(".concept-mastery thead th")].filter(th => {
    const range = document.createRange(); range.selectNodeContents(th);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    return lines.size > th.textContent.trim().split(/\\s+/).length;
}).map(th => th.textContent.trim())"""


def test_on_a_phone_the_dashboard_tabs_are_on_the_first_screen_and_nothing_breaks_a_word(
    instructor_site, new_page
):
    """At 360 × 740 the tabs come before the figures' notes, the mastery table's column
    headings break only between words, and a question card's title sits beside its arrow."""
    live_server, state = instructor_site
    page = new_page(360, 740, storage_state=state)
    page.goto(live_server.url + DASHBOARD_TABS["instrutor-perguntas"])
    last_tab = page.locator(".dashboard-tabs a").last.bounding_box()
    assert last_tab is not None and last_tab["y"] + last_tab["height"] <= 740
    card = page.locator(".item-card > summary").first
    title = card.locator("h4").bounding_box()
    summary = card.bounding_box()
    assert title is not None and summary is not None
    assert title["y"] - summary["y"] < 8, "o título da pergunta foi para baixo da seta"
    page.goto(live_server.url + DASHBOARD_TABS["instrutor-dominio"])
    assert page.evaluate(WORD_BROKEN_HEADINGS) == []
    # Issue 38: on a phone the dashboard showed no figure on the first screen.
    page.goto(live_server.url + DASHBOARD_TABS["instrutor-painel"])
    figure = page.locator(".figures dd").first.bounding_box()
    assert figure is not None and figure["y"] + figure["height"] <= 740, figure
