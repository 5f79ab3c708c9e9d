"""The lesson editor in Chromium, as an instructor: live check and preview, a click on an
error moves the cursor to its line, line numbers by the text that does not wrap, publish, two
browsers on one lesson (409 with the diff, nothing lost), and restoring an old revision.
"""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import Browser, Page, expect

from app.content.sourcefile import parse_source
from tests.support.app import REPO_LESSONS
from tests.support.browser import ConsoleWatch, axe_violations
from tests.support.lessons import GOOD
from tests.support.server import LiveServer, server_with_instructors

LESSON = GOOD.replace("slug: decode-prefill", "slug: editavel").replace("order: 1", "order: 9")
EDITOR = "/instrutor/licoes/editavel/editar"
INSTRUCTOR = "professora"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("editor")
    lessons = tmp / "lessons"
    shutil.copytree(REPO_LESSONS, lessons)
    (lessons / "09-editavel.md").write_text(LESSON, encoding="utf-8")
    with server_with_instructors(tmp, lessons, INSTRUCTOR) as live:
        yield live


@pytest.fixture
def reset(server):
    """Each test starts from the lesson as written above."""
    (server.lessons_dir / "09-editavel.md").write_text(LESSON, encoding="utf-8")
    return server


def signed_in(
    browser: Browser,
    server: LiveServer,
    width: int = 1280,
    color_scheme: str = "light",
    javascript: bool = True,
) -> Page:
    page = browser.new_context(
        viewport={"width": width, "height": 900},
        locale="pt-BR",
        color_scheme=color_scheme,
        java_script_enabled=javascript,
    ).new_page()
    page.goto(server.url + EDITOR)
    page.fill("#entrar-usuario", INSTRUCTOR)
    page.fill("#entrar-senha", "senha-boa-123")
    page.get_by_role("button", name="Entrar").click()
    expect(page).to_have_url(server.url + EDITOR)
    return page


def publish(page: Page) -> int:
    """Click "Publicar" and return the status of the editor's answer to the POST it sends."""
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith(EDITOR)
    ) as info:
        page.get_by_role("button", name="Publicar").click()
    return info.value.status


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


# Eighty paragraphs and one long line before the quiz, whose option `b` has its `explanation:`
# a space to the left: the YAML error is far down the box, out of sight until the link is used.
FILLER = "".join(f"Parágrafo {n} sobre o decode.\n\n" for n in range(1, 81))
LONG_LINE = "Uma linha longa: " + "prefill e decode " * 40
LONG = LESSON.replace(
    "Cuidado com o Ollama.\n:::\n", f"Cuidado com o Ollama.\n:::\n\n{FILLER}{LONG_LINE}\n"
)
MISINDENTED = LONG.replace(
    "      explanation: Certo, o decode", "     explanation: Certo, o decode"
)
MISINDENTED_LINE = (
    MISINDENTED.split("\n").index("     explanation: Certo, o decode acompanha a banda.") + 1
)

# Where the gutter's number for line N sits, and where line N of the box is: its top
# (border, padding, N - 1 lines, less the scroll), both relative to the viewport. A line's
# height is the box's text height over its lines (Chromium rounds 21.6 px to 1/64 px).
NUMBER_AND_LINE = """n => {
    const box = document.getElementById("editor-texto");
    const number = box.previousElementSibling.children[n - 1];
    const style = getComputedStyle(box), rect = box.getBoundingClientRect();
    const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
    const height = (box.scrollHeight - padding) / box.value.split("\\n").length;
    const top = rect.top + box.clientTop + parseFloat(style.paddingTop) + (n - 1) * height
        - box.scrollTop;
    const shown = number.getBoundingClientRect();
    return {number: number.textContent, numberTop: shown.top, numberHeight: shown.height,
            lineTop: top, lineHeight: height, boxTop: rect.top, boxBottom: rect.bottom};
}"""


# Scroll the box to ``top`` (null: leave it), let the scroll events run (they come before the
# next frames), then read the box's and the gutter's scroll.
SCROLL = """async (box, top) => {
    if (top !== null) box.scrollTop = top;
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    return [box.scrollTop, box.previousElementSibling.scrollTop];
}"""


@pytest.mark.parametrize(("width", "theme"), [(360, "dark"), (1280, "light")])
def test_line_numbers_stay_by_their_lines_the_text_does_not_wrap_and_errors_jump_there(
    reset, browser, artifacts, width, theme
):
    server = reset
    page = signed_in(browser, server, width, theme)
    watch = ConsoleWatch(page)
    box = page.locator("#editor-texto")
    gutter = page.locator(".editor-gutter")
    box.fill(MISINDENTED)
    lines = MISINDENTED.count("\n") + 1
    expect(gutter.locator("span")).to_have_count(lines)
    expect(gutter).to_have_attribute("aria-hidden", "true")
    long_at = MISINDENTED.split("\n").index(LONG_LINE) + 1
    sizes = box.evaluate("b => [b.scrollWidth, b.clientWidth, b.scrollHeight, b.clientHeight]")
    assert sizes[0] > sizes[1], "a linha longa rola para o lado, não quebra"
    assert sizes[2] > sizes[3], "o texto é mais alto que a caixa"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Scrolled to the long line, then to the very end: each number stays by its line.
    for scroll, line in ((long_at * 20, long_at), (10**6, lines)):
        tops = box.evaluate(SCROLL, scroll)
        assert tops[0] == tops[1] > 0, "os números rolam com o texto"
        at = page.evaluate(NUMBER_AND_LINE, line)
        assert at["number"] == str(line)
        assert abs(at["numberTop"] - at["lineTop"]) < 1, at
        assert abs(at["numberHeight"] - at["lineHeight"]) < 0.05, at
        assert at["boxTop"] <= at["lineTop"] < at["boxBottom"], (at, sizes)
    # The check names the misindented line; its number turns red; the link goes there.
    error = page.locator("#editor-resultado .check-error .check-goto")
    # The check is the server's preview of the whole lesson, 600 ms after the last keystroke;
    # with both cores busy (the suite on two workers) it took more than expect's 5 s once.
    expect(error).to_have_text(f"linha {MISINDENTED_LINE}, coluna 6", timeout=20_000)
    expect(gutter.locator("span.has-problem")).to_have_text([str(MISINDENTED_LINE)])
    box.evaluate("b => { b.setSelectionRange(0, 0); b.scrollTop = 0; }")
    error.click()
    expect(box).to_be_focused()
    assert caret_line(page) == MISINDENTED_LINE
    tops = box.evaluate(SCROLL, None)
    assert tops[0] == tops[1] > 0, "o link rolou a caixa até a linha, e os números com ela"
    at = page.evaluate(NUMBER_AND_LINE, MISINDENTED_LINE)
    assert abs(at["numberTop"] - at["lineTop"]) < 1, at
    assert at["boxTop"] < at["lineTop"] < at["boxBottom"] - at["lineHeight"], "a linha está à vista"
    page.screenshot(path=artifacts / f"editor-linhas-{width}-{theme}.png", full_page=True)
    assert axe_violations(page) == []
    assert watch.errors == []


def test_without_javascript_the_box_has_no_numbers_fills_its_column_and_does_not_wrap(
    reset, browser
):
    page = signed_in(browser, reset, 360, javascript=False)
    expect(page.locator(".editor-gutter")).to_have_count(0)
    widths = page.locator("#editor-texto").evaluate(
        "b => [b.offsetWidth, b.form.clientWidth, b.scrollWidth, b.clientWidth]"
    )
    assert widths[0] == widths[1], "a caixa ocupa a coluna toda"
    assert widths[2] > widths[3], "as linhas longas rolam para o lado"


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
    assert publish(second) == 409
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
    assert publish(second) == 409, "publicar de novo sem confirmar não substitui a outra versão"
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
    # Issue 38: the diff was double-spaced (a newline between the rows' blocks). Row after
    # row, each starts where the one before ends, one line high.
    rows = revisions.first.locator(".diff span").evaluate_all(
        "spans => spans.map(s => [s.getBoundingClientRect().top, s.getBoundingClientRect().height])"
    )
    line = rows[0][1]
    assert 10 < line < 30
    tops = [top for top, _ in rows]
    assert all(abs(top - (above + line)) < 1 for above, top in zip(tops, tops[1:], strict=False))
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
