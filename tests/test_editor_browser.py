"""The lesson editor in Chromium, as an instructor: live check and preview, a click on an
error moves the cursor to its line, publish, two browsers on one lesson (409 with the diff,
nothing lost), and restoring an old revision.
"""

from __future__ import annotations

import shutil

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from app.content.sourcefile import parse_source
from tests.support.accounts import sign_up
from tests.support.app import REPO_LESSONS
from tests.support.browser import ConsoleWatch
from tests.support.lessons import GOOD
from tests.support.server import LiveServer, grant_instructor

LESSON = GOOD.replace("slug: decode-prefill", "slug: editavel").replace("order: 1", "order: 9")
EDITOR = "/instrutor/licoes/editavel/editar"
INSTRUCTOR = "professora"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("editor")
    lessons = tmp / "lessons"
    shutil.copytree(REPO_LESSONS, lessons)
    (lessons / "09-editavel.md").write_text(LESSON, encoding="utf-8")
    live = LiveServer(tmp, lessons)
    live.start()
    with httpx.Client(base_url=live.url) as client:
        assert sign_up(client, INSTRUCTOR).status_code == 303
    grant_instructor(live, INSTRUCTOR)
    yield live
    live.stop()


@pytest.fixture
def reset(server):
    """Each test starts from the lesson as written above."""
    (server.lessons_dir / "09-editavel.md").write_text(LESSON, encoding="utf-8")
    return server


def signed_in(browser: Browser, server: LiveServer) -> Page:
    page = browser.new_context(viewport={"width": 1280, "height": 900}, locale="pt-BR").new_page()
    page.goto(server.url + EDITOR)
    page.fill("#entrar-usuario", INSTRUCTOR)
    page.fill("#entrar-senha", "senha-boa-123")
    page.get_by_role("button", name="Entrar").click()
    expect(page).to_have_url(server.url + EDITOR)
    return page


def caret_line(page: Page) -> int:
    return page.evaluate(
        "() => { const box = document.getElementById('editor-texto');"
        " return box.value.slice(0, box.selectionStart).split('\\n').length; }"
    )


def test_edit_see_the_preview_and_an_error_at_its_line_fix_it_and_publish(
    reset, browser, artifacts
):
    server = reset
    page = signed_in(browser, server)
    watch = ConsoleWatch(page)
    box = page.locator("#editor-texto")
    expect(page.locator("#editor-resultado #titulo-licao")).to_have_text("Decode e prefill")
    box.fill(LESSON.replace("title: Decode e prefill", "title: Decode, prefill e KV cache"))
    expect(page.locator("#editor-resultado #titulo-licao")).to_have_text(
        "Decode, prefill e KV cache"
    )
    box.fill(LESSON.replace("answer: [b]", "answer: [x]"))
    error = page.locator("#editor-resultado .check-error .check-goto")
    wrong_line = LESSON.split("\n").index("  answer: [b]") + 1
    expect(error).to_have_text(f"linha {wrong_line}, coluna 12")
    expect(page.locator("#editor-resultado .editor-preview")).to_contain_text("A prévia volta")
    page.screenshot(path=artifacts / "editor-erro-1280.png", full_page=True)
    page.locator("#editor-texto").evaluate("box => box.setSelectionRange(0, 0)")
    error.click()
    expect(box).to_be_focused()
    assert caret_line(page) == wrong_line
    page.keyboard.press("End")
    for _ in range(2):
        page.keyboard.press("Backspace")
    page.keyboard.type("b]")
    expect(page.locator("#editor-resultado .check-ok")).to_be_visible()
    expect(page.locator("#editor-resultado #pergunta-fase-banda")).to_be_visible()
    page.get_by_role("button", name="Publicar").click()
    expect(page.locator(".editor-ok")).to_contain_text("Publicado")
    on_disk = (server.lessons_dir / "09-editavel.md").read_text(encoding="utf-8")
    assert "answer: [b]" in on_disk and on_disk == LESSON
    page.goto(server.url + "/licoes/editavel")
    expect(page.locator("h1")).to_have_text("Decode e prefill")
    assert watch.errors == []


def test_two_browsers_on_one_lesson_the_second_save_gets_the_diff_and_nothing_is_lost(
    reset, browser
):
    server = reset
    first, second = signed_in(browser, server), signed_in(browser, server)
    first.locator("#editor-texto").fill(LESSON.replace("## Duas fases", "## Fases, pela primeira"))
    first.get_by_role("button", name="Publicar").click()
    expect(first.locator(".editor-ok")).to_be_visible()
    mine = LESSON.replace("Cuidado com o Ollama.", "Cuidado, disse a segunda.")
    second.locator("#editor-texto").fill(mine)
    with second.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith(EDITOR)
    ) as info:
        second.get_by_role("button", name="Publicar").click()
    assert info.value.status == 409
    expect(second.locator("#editor-conflito-t")).to_have_text(
        "O arquivo mudou desde que você o abriu"
    )
    expect(second.locator(".diff-del").filter(has_text="## Fases, pela primeira")).to_be_visible()
    expect(second.locator(".diff-add").filter(has_text="Cuidado, disse a segunda.")).to_be_visible()
    assert second.locator("#editor-texto").input_value() == mine
    path = server.lessons_dir / "09-editavel.md"
    assert "Fases, pela primeira" in path.read_text(encoding="utf-8")
    merged = mine.replace("## Duas fases", "## Fases, pela primeira")
    second.locator("#editor-texto").fill(merged)
    with second.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith(EDITOR)
    ) as info:
        second.get_by_role("button", name="Publicar").click()
    assert info.value.status == 409, "publicar de novo sem confirmar não substitui a outra versão"
    assert "Fases, pela primeira" in path.read_text(encoding="utf-8")
    assert "disse a segunda" not in path.read_text(encoding="utf-8")
    second.get_by_role("checkbox", name="Substituir a versão atual").check()
    second.get_by_role("button", name="Publicar").click()
    expect(second.locator(".editor-ok")).to_be_visible()
    assert parse_source(path.read_bytes()).text == merged


def test_restore_an_old_revision(reset, browser):
    server = reset
    page = signed_in(browser, server)
    page.locator("#editor-texto").fill(LESSON.replace("## Duas fases", "## Uma versão ruim"))
    page.get_by_role("button", name="Publicar").click()
    expect(page.locator(".editor-ok")).to_be_visible()
    page.get_by_role("link", name="Histórico").click()
    revisions = page.locator(".revision")
    expect(revisions.first.locator(".revision-origin")).to_have_text("salva no editor")
    expect(revisions.first.locator(".diff-add")).to_contain_text(["+## Uma versão ruim"])
    original = revisions.filter(has_text="o arquivo como o editor o encontrou").last
    original.get_by_role("button", name="Restaurar").click()
    expect(page.locator(".editor-ok")).to_contain_text("Publicado")
    path = server.lessons_dir / "09-editavel.md"
    assert path.read_text(encoding="utf-8") == LESSON
    page.get_by_role("link", name="Histórico").click()
    expect(page.locator(".revision").first.locator(".revision-origin")).to_contain_text(
        "restaurada da revisão"
    )


def test_a_text_over_a_million_characters_is_not_sent_and_stays_in_the_box(reset, browser):
    server = reset
    page = signed_in(browser, server)
    watch = ConsoleWatch(page)
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    huge = LESSON + "x" * (1_000_001 - len(LESSON))
    page.locator("#editor-texto").evaluate("(box, text) => { box.value = text; }", huge)
    page.get_by_role("button", name="Publicar").click()
    expect(page.locator("#editor-grande")).to_have_text(
        "O texto tem 1.000.001 caracteres e uma lição pode ter até 1.000.000. Nada foi "
        "publicado: o texto continua na caixa; encurte-o (divida a lição em duas, por exemplo) "
        "e publique de novo."
    )
    assert page.locator("#editor-texto").input_value() == huge
    assert posts == []
    assert (server.lessons_dir / "09-editavel.md").read_text(encoding="utf-8") == LESSON
    page.locator("#editor-texto").evaluate("(box, text) => { box.value = text; }", LESSON)
    page.get_by_role("button", name="Publicar").click()
    expect(page.locator(".editor-ok")).to_be_visible()
    expect(page.locator("#editor-grande")).to_be_hidden()
    assert watch.errors == []


def test_a_sending_refused_before_the_editor_leaves_a_copy_in_the_browser(reset, browser):
    server = reset
    page = signed_in(browser, server)
    mine = LESSON.replace("## Duas fases", "## Texto que não pode se perder")
    page.locator("#editor-texto").fill(mine)
    # A CSRF cookie that no longer matches the form, as after the session expired: 403.
    page.context.add_cookies([{"name": "csrftoken", "value": "vencido", "url": server.url}])
    with page.expect_response(lambda r: r.request.method == "POST") as info:
        page.get_by_role("button", name="Publicar").click()
    assert info.value.status == 403
    page.goto(server.url + EDITOR)
    notice = page.locator("#editor-copia")
    expect(notice).to_be_visible()
    assert page.locator("#editor-texto").input_value() == LESSON
    notice.get_by_role("button", name="Recuperar esse texto").click()
    assert page.locator("#editor-texto").input_value() == mine
    page.get_by_role("button", name="Publicar").click()
    expect(page.locator(".editor-ok")).to_be_visible()
    assert (server.lessons_dir / "09-editavel.md").read_text(encoding="utf-8") == mine
    page.reload()
    expect(page.locator("#editor-copia")).to_be_hidden()
