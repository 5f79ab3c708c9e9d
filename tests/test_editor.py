"""The lesson editor over HTTP: check and preview, atomic saves in the file's own format,
409 with a diff on a stale save, drafts for texts with errors, history, restore, new lesson.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content.course import load_course
from app.content.sourcefile import (
    SourceFormat,
    atomic_write,
    content_hash,
    diff_lines,
    encode_source,
    parse_source,
)
from app.main import create_app
from app.platform.settings import Settings
from tests.support.accounts import instructor, sign_up
from tests.support.app import REPO_LESSONS, TEST_SECRET, db_rows, make_settings
from tests.support.cli import curso
from tests.support.html import csrf_from, is_fragment, soup, text
from tests.support.lessons import GOOD, rendered_files

EDITOR = "/instrutor/licoes/decode-prefill/editar"
PREVIEW = "/instrutor/licoes/decode-prefill/previa"
HISTORY = "/instrutor/licoes/decode-prefill/historico"
BROKEN = GOOD.replace("answer: [b]", "answer: [x]")
BROKEN_LINE = GOOD.split("\n").index("  answer: [b]") + 1
# One option's `explanation:` a space to the left: line 29, inside the options list of line 24.
MISINDENTED_LINE = (
    GOOD.split("\n").index("      explanation: Certo, o decode acompanha a banda.") + 1
)
MISINDENTED = GOOD.replace(
    "      explanation: Certo, o decode", "     explanation: Certo, o decode"
)


@pytest.fixture
def lessons(tmp_path: Path) -> Path:
    """A copy of the course plus one small lesson saved with a BOM and CRLF line endings."""
    folder = tmp_path / "lessons"
    shutil.copytree(REPO_LESSONS, folder)
    lesson = GOOD.replace("order: 1", "order: 9")
    (folder / "09-decode-prefill.md").write_bytes(
        encode_source(lesson, SourceFormat(bom=True, crlf=True))
    )
    return folder


@contextmanager
def teacher_site(
    tmp_path: Path, lessons: Path, database_url: str | None = None, shared_cache: bool = True
) -> Iterator[tuple[TestClient, Settings, Path]]:
    """An instructor signed in on a new app, its settings, and the lesson file they edit."""
    settings = make_settings(tmp_path, lessons, database_url, shared_cache)
    with TestClient(create_app(settings), follow_redirects=False) as teacher:
        instructor(teacher, settings, "prof")
        yield teacher, settings, lessons / "09-decode-prefill.md"


@pytest.fixture
def site(tmp_path: Path, lessons: Path):
    with teacher_site(tmp_path, lessons) as opened:
        yield opened


@pytest.fixture
def db_site(tmp_path: Path, lessons: Path, database_url: str):
    """:func:`site` on each database backend, for the tests of what a save stores."""
    with teacher_site(tmp_path, lessons, database_url) as opened:
        yield opened


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """The names of the lesson files rendered from now on (cache hits are not renders)."""
    return rendered_files(monkeypatch)


def editor_form(client: TestClient, url: str = EDITOR) -> dict:
    page = soup(client.get(url).text)
    return {
        "csrftoken": page.select_one('input[name="csrftoken"]')["value"],
        "versao": page.select_one('input[name="versao"]')["value"],
        "texto": page.select_one("#editor-texto").get_text(),
    }


def test_the_editor_shows_the_file_its_check_and_its_preview(site):
    teacher, _, path = site
    page = soup(teacher.get(EDITOR).text)
    source = parse_source(path.read_bytes())
    assert page.select_one("#editor-texto").get_text() == source.text
    assert page.select_one("#editor-texto")["wrap"] == "off", "sem JavaScript também não quebra"
    assert page.select_one('input[name="versao"]')["value"] == content_hash(path.read_bytes())
    assert text(page.select_one(".check-ok")) == "Nenhum problema: o curso check aceita este texto."
    assert text(page.select_one("#editor-resultado #titulo-licao")) == "Decode e prefill"
    assert (
        page.select_one(
            "#editor-resultado #pergunta-fase-banda .graded-option.right code"
        ).get_text()
        == "b"
    )


def test_the_live_check_gives_each_error_its_line_and_the_preview_is_an_htmx_fragment(site):
    teacher, _, path = site
    form = editor_form(teacher)
    before = path.read_bytes()
    response = teacher.post(PREVIEW, data={**form, "texto": BROKEN}, headers={"HX-Request": "true"})
    assert response.status_code == 200 and "HX-Request" in response.headers["vary"]
    fragment = soup(response.text)
    assert is_fragment(response) and fragment.select_one("textarea") is None
    goto = fragment.select_one(".check-error .check-goto")
    assert goto["data-line"] == str(BROKEN_LINE)
    assert text(goto) == f"linha {BROKEN_LINE}, coluna 12"
    assert "`x`" in text(fragment.select_one(".check-error .check-message"))
    assert (
        text(fragment.select_one(".editor-preview p"))
        == "A prévia volta quando os erros forem corrigidos."
    )
    assert path.read_bytes() == before


def test_without_javascript_the_preview_button_renders_the_whole_editor_keeping_the_text(site):
    teacher, _, _ = site
    form = editor_form(teacher)
    changed = form["texto"].replace("## Duas fases", "## Três fases")
    page = soup(teacher.post(PREVIEW, data={**form, "texto": changed}).text)
    assert page.select_one("#editor-texto").get_text() == changed
    assert page.select_one('input[name="versao"]')["value"] == form["versao"]
    assert "Três fases" in [text(h) for h in page.select("#editor-resultado h2")]


def test_a_save_is_atomic_keeps_bom_and_crlf_and_becomes_a_revision(db_site):
    teacher, settings, path = db_site
    os.chmod(path, 0o640)
    form = editor_form(teacher)
    changed = form["texto"].replace(
        "O **prefill** processa o prompt.", "O **prefill** lê o prompt todo."
    )
    response = teacher.post(EDITOR, data={**form, "texto": changed.replace("\n", "\r\n")})
    assert response.status_code == 303
    assert response.headers["location"].startswith(EDITOR + "?publicada=")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf---\r\ntitle: Decode e prefill\r\n")
    assert b"O **prefill** l\xc3\xaa o prompt todo.\r\n" in raw and b"\n" not in raw.replace(
        b"\r\n", b""
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
    rows = db_rows(
        settings,
        "SELECT origin, content_hash, account_id IS NOT NULL FROM lesson_revision ORDER BY id",
    )
    assert rows == [("initial", form["versao"], 0), ("editor", content_hash(raw), 1)]
    shown = soup(teacher.get(response.headers["location"]).text)
    assert text(shown.select_one(".editor-ok")).startswith(
        "Publicado: a revisão 2 é a lição agora."
    )
    assert "O **prefill** lê o prompt todo." in shown.select_one("#editor-texto").get_text()
    assert "lê o prompt todo" in teacher.get("/licoes/decode-prefill").text


def test_a_stale_save_gets_409_with_a_diff_and_overwrites_nothing(db_site):
    teacher, settings, path = db_site
    first, second = editor_form(teacher), editor_form(teacher)
    mine = first["texto"].replace("## Duas fases", "## Fases do primeiro")
    assert teacher.post(EDITOR, data={**first, "texto": mine}).status_code == 303
    on_disk = path.read_bytes()
    theirs = second["texto"].replace("Cuidado com o Ollama.", "Cuidado com o segundo.")
    response = teacher.post(EDITOR, data={**second, "texto": theirs})
    assert response.status_code == 409
    assert path.read_bytes() == on_disk
    page = soup(response.text)
    assert text(page.select_one("#editor-conflito-t")) == "O arquivo mudou desde que você o abriu"
    assert "-## Fases do primeiro" in [text(s) for s in page.select(".diff-del")]
    assert {"+## Duas fases", "+Cuidado com o segundo."} <= {
        text(s) for s in page.select(".diff-add")
    }
    assert page.select_one("#editor-texto").get_text() == theirs
    assert page.select_one('input[name="versao"]')["value"] == second["versao"]
    replace = page.select_one('input[type="checkbox"][name="substituir"]')
    assert replace["value"] == content_hash(on_disk) and "checked" not in replace.attrs
    assert text(page.select_one('label[for="editor-substituir"]')) == "Substituir a versão atual"
    assert db_rows(settings, "SELECT text, base_hash FROM lesson_draft") == [
        (theirs, second["versao"])
    ]
    merged = theirs.replace("## Duas fases", "## Fases do primeiro")
    again = {**second, "texto": merged}
    assert teacher.post(EDITOR, data=again).status_code == 409, "publicar de novo não substitui"
    assert path.read_bytes() == on_disk
    assert teacher.post(EDITOR, data={**again, "substituir": replace["value"]}).status_code == 303
    assert "Fases do primeiro" in path.read_text("utf-8-sig") and "segundo." in path.read_text(
        "utf-8-sig"
    )
    assert db_rows(settings, "SELECT count(*) FROM lesson_draft") == [(0,)]


def test_a_text_with_errors_is_not_published_and_is_kept_as_a_draft(db_site):
    teacher, settings, path = db_site
    form = editor_form(teacher)
    before = path.read_bytes()
    response = teacher.post(EDITOR, data={**form, "texto": BROKEN})
    assert response.status_code == 422
    assert path.read_bytes() == before
    page = soup(response.text)
    assert text(page.select_one(".editor-bad strong")) == "Não publicado: o texto tem erros."
    assert page.select_one(".check-error .check-goto")["data-line"] == str(BROKEN_LINE)
    assert db_rows(settings, "SELECT text, base_hash FROM lesson_draft") == [
        (BROKEN, form["versao"])
    ]
    reopened = soup(teacher.get(EDITOR).text)
    assert reopened.select_one("#editor-texto").get_text() == BROKEN
    assert text(reopened.select_one(".editor-notice p")).startswith(
        "Este é o seu rascunho não publicado"
    )
    token = csrf_from(teacher.get(EDITOR).text)
    discard = teacher.post(
        "/instrutor/licoes/decode-prefill/rascunho/descartar", data={"csrftoken": token}
    )
    assert discard.status_code == 303
    assert (
        soup(teacher.get(EDITOR).text).select_one("#editor-texto").get_text()
        == parse_source(before).text
    )


def test_a_save_renders_the_lesson_once_and_the_editor_it_leads_to_once_more(
    tmp_path, lessons, database_url, renders
):
    """Issue 26: the save checks the text (one render); the editor it redirects to renders the
    file once, as the course served reloads it, and its preview shows that lesson instead of
    rendering the same text a third time. A refused save shows what its check found."""
    # No shared disk cache: the reload after the save renders, whatever ran before.
    with teacher_site(tmp_path, lessons, database_url, shared_cache=False) as (teacher, _, path):
        form = editor_form(teacher)
        renders.clear()
        changed = form["texto"].replace("## Duas fases", "## Fases contadas")
        response = teacher.post(EDITOR, data={**form, "texto": changed})
        assert response.status_code == 303
        assert renders == [path.name], "a gravação confere o texto uma vez"
        page = soup(teacher.get(response.headers["location"]).text)
        assert renders == [path.name] * 2, "o editor depois da gravação renderiza uma vez só"
        assert "Fases contadas" in text(page.select_one(".editor-preview"))
        assert text(page.select_one(".check-ok")) == (
            "Nenhum problema: o curso check aceita este texto."
        )
        renders.clear()
        refused = teacher.post(EDITOR, data={**editor_form(teacher), "texto": BROKEN})
        assert refused.status_code == 422
        assert renders == [path.name], "a gravação recusada confere o texto uma vez"
        shown = soup(refused.text)
        assert [g["data-line"] for g in shown.select(".check-error .check-goto")] == [
            str(BROKEN_LINE)
        ]
        assert text(shown.select_one(".editor-preview .meta")) == (
            "A prévia volta quando os erros forem corrigidos."
        )


def test_a_warning_does_not_block_publishing(site):
    teacher, _, path = site
    form = editor_form(teacher)
    warned = form["texto"] + "\nVeja [isto](#nada).\n"
    assert teacher.post(EDITOR, data={**form, "texto": warned}).status_code == 303
    assert "Veja [isto](#nada)." in path.read_text("utf-8-sig")


def test_history_lists_outside_changes_diffs_and_restores_an_old_revision(db_site):
    teacher, settings, path = db_site
    original = editor_form(teacher)
    edited = original["texto"].replace("## Duas fases", "## Editada no navegador")
    assert teacher.post(EDITOR, data={**original, "texto": edited}).status_code == 303
    by_hand = path.read_bytes().replace(b"Cuidado com o Ollama.", b"Cuidado, mudado no servidor.")
    path.write_bytes(by_hand)
    page = soup(teacher.get(HISTORY).text)
    revisions = page.select(".revision")
    assert [text(r.select_one(".revision-origin")) for r in revisions] == [
        "alterado fora do editor",
        "salva no editor",
        "o arquivo como o editor o encontrou",
    ]
    assert text(revisions[1]).count("por prof") == 1
    assert "+Cuidado, mudado no servidor." in [text(s) for s in revisions[0].select(".diff-add")]
    assert "-Cuidado com o Ollama." in [text(s) for s in revisions[0].select(".diff-del")]
    assert revisions[0].select_one("form") is None
    restore = revisions[2].select_one("form")
    form = {i["name"]: i["value"] for i in restore.select("input")}
    response = teacher.post(restore["action"], data=form)
    assert response.status_code == 303
    assert parse_source(path.read_bytes()).text == original["texto"]
    assert path.read_bytes().startswith(b"\xef\xbb\xbf") and b"\r\n" in path.read_bytes()
    rows = db_rows(settings, "SELECT id, origin, restored_from FROM lesson_revision ORDER BY id")
    assert rows[-1] == (4, "restored", 1)
    newest = soup(teacher.get(HISTORY).text).select_one(".revision")
    assert text(newest.select_one(".revision-origin")) == "restaurada da revisão 1"


def test_opening_the_editor_and_the_history_writes_nothing_the_next_save_records_the_file(db_site):
    teacher, settings, path = db_site
    form = editor_form(teacher)
    page = soup(teacher.get(HISTORY).text)
    assert db_rows(settings, "SELECT count(*) FROM lesson_revision") == [(0,)]
    (pending,) = page.select(".revision")
    assert text(pending.select_one(".revision-title")) == (
        "O arquivo no disco, ainda não registrado atual"
    )
    assert text(pending.select_one(".revision-origin")) == "o arquivo como o editor o encontrou"
    assert pending.select_one("form") is None
    changed = form["texto"].replace("## Duas fases", "## Salva")
    assert teacher.post(EDITOR, data={**form, "texto": changed}).status_code == 303
    path.write_bytes(path.read_bytes().replace(b"## Salva", b"## Mudada no servidor"))
    teacher.get(EDITOR)
    page = soup(teacher.get(HISTORY).text)
    rows = db_rows(settings, "SELECT origin FROM lesson_revision ORDER BY id")
    assert rows == [("initial",), ("editor",)], "as páginas não gravam a mudança de fora"
    assert page.select_one(".revision")["id"] == "revisao-disco"
    assert "+## Mudada no servidor" in [text(s) for s in page.select(".revision-pending .diff-add")]
    again = editor_form(teacher)
    assert teacher.post(EDITOR, data=again).status_code == 303
    rows = db_rows(settings, "SELECT origin FROM lesson_revision ORDER BY id")
    assert rows == [("initial",), ("editor",), ("outside",), ("editor",)]


def test_restoring_a_draft_over_a_published_lesson_is_marked_and_asks_first(site):
    """Issue 38: "Restaurar" of a draft revision put ``draft: true`` back without a word and
    took the published lesson offline. Draft revisions are marked, and such a restore needs
    the box ticked: without it, 422 with the reason and the file as it was."""
    teacher, _, path = site
    form = editor_form(teacher)
    draft = form["texto"].replace("---\n", "---\ndraft: true\n", 1)
    assert teacher.post(EDITOR, data={**form, "texto": draft}).status_code == 303
    assert teacher.post("/instrutor/licoes/decode-prefill/publicar", data=form).status_code == 303
    published = path.read_bytes()
    assert b"draft: true" not in published
    page = soup(teacher.get(HISTORY).text)
    revisions = page.select(".revision")
    assert [bool(r.select_one(".revision-draft")) for r in revisions] == [False, True, False]
    assert text(revisions[1].select_one(".revision-draft")) == "rascunho"
    restore = revisions[1].select_one("form")
    assert text(restore.select_one(".revision-warning")) == (
        "Esta revisão é um rascunho: restaurá-la tira a lição do ar para os alunos."
    )
    box = restore.select_one("input[type=checkbox][name=confirmo]")
    assert box.has_attr("required") and text(restore.select_one("label")) == (
        "Restaurar como rascunho, fora do ar"
    )
    assert revisions[2].select_one("form input[name=confirmo]") is None, "same state: no box"
    fields = {i["name"]: i["value"] for i in restore.select("input[type=hidden]")}
    refused = teacher.post(restore["action"], data=fields)
    assert refused.status_code == 422
    assert path.read_bytes() == published
    again = soup(refused.text)
    assert text(again.select_one(".form-error")).startswith(
        "A revisão 2 é um rascunho: restaurá-la tira a lição do ar para os alunos."
    )
    focused = again.select("[autofocus]")
    assert [f["id"] for f in focused] == ["confirmo-2"]
    assert teacher.post(restore["action"], data={**fields, "confirmo": "sim"}).status_code == 303
    assert b"draft: true" in path.read_bytes()


def test_restoring_from_a_stale_history_page_is_refused_with_409(db_site):
    teacher, _, path = db_site
    editor_form(teacher)
    form = editor_form(teacher)
    assert (
        teacher.post(EDITOR, data={**form, "texto": form["texto"] + "\nMais.\n"}).status_code == 303
    )
    page = soup(teacher.get(HISTORY).text)
    restore = page.select(".revision")[1].select_one("form")
    fields = {i["name"]: i["value"] for i in restore.select("input")}
    path.write_bytes(path.read_bytes() + b"\r\nOutra.\r\n")
    before = path.read_bytes()
    assert teacher.post(restore["action"], data=fields).status_code == 409
    assert path.read_bytes() == before
    assert (
        teacher.post(
            "/instrutor/licoes/decode-prefill/historico/999/restaurar", data=fields
        ).status_code
        == 404
    )


def test_new_lesson_from_the_browser_does_what_curso_nova_does(site):
    teacher, _, path = site
    token = csrf_from(teacher.get("/instrutor/licoes/nova").text)
    response = teacher.post(
        "/instrutor/licoes/nova", data={"csrftoken": token, "titulo": "Decodificação especulativa"}
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/instrutor/licoes/decodificacao-especulativa/editar"
    created = path.parent / "10-decodificacao-especulativa.md"
    assert created.exists()
    course = load_course(path.parent)
    assert (
        course.problems_of(created) == ()
        and course.with_drafts.get("decodificacao-especulativa") is not None
    )
    assert course.get("decodificacao-especulativa") is None, "a new lesson is a draft"
    assert teacher.get(response.headers["location"]).status_code == 200
    bad = teacher.post("/instrutor/licoes/nova", data={"csrftoken": token, "titulo": "?!"})
    assert bad.status_code == 422
    assert (
        text(soup(bad.text).select_one(".form-error"))
        == "O título precisa ter pelo menos uma letra ou um número."
    )


def test_a_misindented_yaml_line_is_named_alike_in_the_editor_the_lesson_page_and_check(site):
    """The live preview, a refused save, the page of a lesson that never loaded and `curso
    check` all name the line out of place, not the start of the list around it."""
    teacher, settings, path = site
    form = editor_form(teacher)
    message = "YAML inválido: a indentação não bate com a das linhas anteriores"
    preview = teacher.post(
        PREVIEW, data={**form, "texto": MISINDENTED}, headers={"HX-Request": "true"}
    )
    saved = teacher.post(EDITOR, data={**form, "texto": MISINDENTED})
    assert (preview.status_code, saved.status_code) == (200, 422)
    for page in (soup(preview.text), soup(saved.text)):
        goto = page.select_one(".check-error .check-goto")
        assert text(goto) == f"linha {MISINDENTED_LINE}, coluna 6"
        assert goto["data-line"] == str(MISINDENTED_LINE)
        assert text(page.select_one(".check-error .check-message")) == message
    broken = path.parent / "10-quebrada.md"
    broken.write_text(
        MISINDENTED.replace("slug: decode-prefill", "slug: quebrada").replace(
            "order: 1", "order: 10"
        ),
        encoding="utf-8",
    )
    unavailable = teacher.get("/licoes/quebrada")
    assert unavailable.status_code == 503
    panel = soup(unavailable.text).select_one(".check-error")
    assert text(panel.select_one(".check-where")) == f"10-quebrada.md:{MISINDENTED_LINE}:6"
    assert text(panel.select_one(".check-message")) == message
    checked = curso(settings, "check", str(broken))
    assert checked.stdout.splitlines() == [f"{broken}:{MISINDENTED_LINE}:6: error: {message}"]


def test_a_lesson_that_never_loaded_can_be_fixed_in_the_editor(site):
    teacher, _, path = site
    broken = BROKEN.replace("slug: decode-prefill", "slug: quebrada").replace(
        "order: 1", "order: 10"
    )
    (path.parent / "10-quebrada.md").write_text(broken, encoding="utf-8")
    assert teacher.get("/licoes/quebrada").status_code == 503
    form = editor_form(teacher, "/instrutor/licoes/quebrada/editar")
    assert form["texto"] == broken
    fixed = form["texto"].replace("answer: [x]", "answer: [b]")
    response = teacher.post("/instrutor/licoes/quebrada/editar", data={**form, "texto": fixed})
    assert response.status_code == 303
    assert teacher.get("/licoes/quebrada").status_code == 200


def test_unknown_lessons_and_files_not_in_utf8_get_4xx_in_portuguese(site):
    teacher, _, path = site
    form = editor_form(teacher)
    gone = "/instrutor/licoes/nao-existe"
    for response in (
        teacher.get(f"{gone}/editar"),
        teacher.get(f"{gone}/historico"),
        teacher.post(f"{gone}/previa", data=form),
        teacher.post(f"{gone}/editar", data=form),
        teacher.post(f"{gone}/publicar", data=form),
        teacher.post(f"{gone}/rascunho/descartar", data=form),
        teacher.post(f"{gone}/historico/1/restaurar", data=form),
    ):
        assert response.status_code == 404, response.url
        assert "Não há lição nem arquivo com esse endereço na pasta de lições." in response.text
    latin1 = path.read_bytes().replace(b"prefill", "pr\xe9fill".encode("latin-1"))
    path.write_bytes(latin1)
    for response in (
        teacher.get(EDITOR),
        teacher.get(HISTORY),
        teacher.post(EDITOR, data={**form, "texto": form["texto"] + "\nMais.\n"}),
    ):
        assert response.status_code == 422
        assert "O arquivo 09-decode-prefill.md não está em UTF-8" in text(soup(response.text))
    assert path.read_bytes() == latin1


def test_learners_cannot_post_to_the_editor(site, lessons):
    _, settings, path = site
    before = path.read_bytes()
    with TestClient(create_app(settings), follow_redirects=False) as learner:
        sign_up(learner, "ana")
        token = csrf_from(learner.get("/conta").text)
        for url in (
            EDITOR,
            PREVIEW,
            "/instrutor/licoes/nova",
            "/instrutor/licoes/decode-prefill/historico/1/restaurar",
        ):
            response = learner.post(
                url, data={"csrftoken": token, "texto": "x", "versao": "x", "titulo": "x"}
            )
            assert response.status_code == 403, url
    assert path.read_bytes() == before
    assert sorted(p.name for p in lessons.iterdir() if p.suffix == ".md")[-1] == "README.md"


def test_the_editor_can_be_switched_off_and_healthz_says_so(tmp_path, lessons):
    settings = make_settings(tmp_path, lessons)
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").json()["web_editor"] == "ligado"
    off = Settings(
        database_url=settings.database_url,
        lessons_dir=lessons,
        var_dir=tmp_path / "var",
        secret_key=TEST_SECRET,
        reload_interval=0,
        web_editor=False,
    )
    with TestClient(create_app(off), follow_redirects=False) as client:
        instructor(client, off, "prof2")
        response = client.get(EDITOR)
        assert response.status_code == 404
        assert "O editor de lições no navegador está desligado neste servidor" in text(
            soup(response.text)
        )
        assert client.get("/healthz").json()["web_editor"] == "desligado"
        assert client.get("/instrutor/licoes/decode-prefill").status_code == 200


def test_encode_and_parse_keep_the_format():
    for fmt in (
        SourceFormat(),
        SourceFormat(bom=True),
        SourceFormat(crlf=True),
        SourceFormat(True, True),
    ):
        raw = encode_source("a\nb ç\n", fmt)
        source = parse_source(raw)
        assert source.text == "a\nb ç\n" and source.format == fmt
        assert encode_source(source.text.replace("\n", "\r\n"), source.format) == raw


def test_atomic_write_replaces_the_file_whole_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "licao.md"
    path.write_bytes(b"velho")
    inode = path.stat().st_ino
    atomic_write(path, b"novo")
    assert path.read_bytes() == b"novo" and path.stat().st_ino != inode
    assert [p.name for p in tmp_path.iterdir()] == ["licao.md"]


def test_diff_lines_mark_additions_and_deletions():
    diff = diff_lines("a\nb\n", "a\nc\n", "antes", "depois")
    assert [(d.kind, d.text) for d in diff] == [
        ("head", "--- antes"),
        ("head", "+++ depois"),
        ("hunk", "@@ -1,3 +1,3 @@"),
        ("same", " a"),
        ("del", "-b"),
        ("add", "+c"),
        ("same", " "),
    ]


IMAGES = "/instrutor/imagens"


def png_bytes(width: int = 2, height: int = 1) -> bytes:
    """A real PNG (RGB, one red row), built by hand as in the PNG spec (RFC 2083)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def upload(client: TestClient, name: str, data: bytes, media_type: str = "image/png", token=True):
    form = {"csrftoken": csrf_from(client.get(IMAGES).text)} if token else {}
    return client.post(IMAGES, data=form, files={"imagem": (name, data, media_type)})


def images_in(lessons_dir: Path) -> list[str]:
    folder = lessons_dir / "imagens"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_an_uploaded_png_is_kept_under_a_new_name_and_its_markdown_is_shown(site):
    teacher, settings, _ = site
    before = images_in(settings.lessons_dir)
    data = png_bytes()
    response = upload(teacher, "Diagrama do KV Cache.PNG", data)
    assert response.status_code == 201
    (name,) = sorted(set(images_in(settings.lessons_dir)) - set(before))
    assert name.startswith("diagrama-do-kv-cache-") and name.endswith(".png")
    assert (settings.lessons_dir / "imagens" / name).read_bytes() == data
    page = soup(response.text)
    assert (
        text(page.select_one("#imagem-markdown")) == f"![descreva a imagem](/licoes/imagens/{name})"
    )
    served = teacher.get(f"/licoes/imagens/{name}")
    assert served.status_code == 200 and served.content == data
    assert served.headers["content-type"] == "image/png"
    # The editor links to the upload page.
    assert soup(teacher.get(EDITOR).text).select_one(f'a[href="{IMAGES}"]') is not None


def test_a_path_in_the_file_name_cannot_leave_the_images_folder(site):
    teacher, settings, _ = site
    before = images_in(settings.lessons_dir)
    assert upload(teacher, "../../app/main.png", png_bytes()).status_code == 201
    (name,) = sorted(set(images_in(settings.lessons_dir)) - set(before))
    assert name.startswith("main-") and name.endswith(".png")


@pytest.mark.parametrize(
    ("name", "data", "media_type"),
    [
        (
            "desenho.png",
            b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            "image/png",
        ),
        (
            "desenho.svg",
            b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>',
            "image/svg+xml",
        ),
        ("pagina.png", b"<!doctype html><html><script>alert(1)</script></html>", "image/png"),
        ("binario.gif", b"\x7fELF" + bytes(100), "image/gif"),
    ],
)
def test_files_that_are_not_png_jpeg_webp_or_gif_are_refused_whatever_their_name(
    site, name, data, media_type
):
    teacher, settings, _ = site
    before = images_in(settings.lessons_dir)
    response = upload(teacher, name, data, media_type)
    assert response.status_code == 415
    assert text(soup(response.text).select_one("#imagem-erro")) == (
        "Este arquivo não é uma imagem PNG, JPEG, WebP ou GIF (foi verificado o conteúdo, "
        "não o nome). SVG e outros tipos não são aceitos."
    )
    assert images_in(settings.lessons_dir) == before


def test_an_image_over_2_mb_is_refused(site):
    teacher, settings, _ = site
    before = images_in(settings.lessons_dir)
    just_over = png_bytes() + bytes(2 * 1024 * 1024 + 1 - len(png_bytes()))
    response = upload(teacher, "grande.png", just_over)
    assert response.status_code == 413
    assert text(soup(response.text).select_one("#imagem-erro")) == (
        "A imagem tem mais de 2 MB. Reduza-a e envie de novo."
    )
    # A much larger body is refused by the request guard before it is read in full.
    huge = upload(teacher, "enorme.png", png_bytes() + bytes(3 * 1024 * 1024))
    assert huge.status_code == 413
    assert "O formulário enviado é grande demais." in huge.text
    assert images_in(settings.lessons_dir) == before


def test_an_upload_without_the_csrf_token_is_refused(site):
    teacher, settings, _ = site
    before = images_in(settings.lessons_dir)
    assert upload(teacher, "foto.png", png_bytes(), token=False).status_code == 403
    token = csrf_from(teacher.get(IMAGES).text)
    wrong = teacher.post(
        IMAGES,
        data={"csrftoken": token + "x"},
        files={"imagem": ("f.png", png_bytes(), "image/png")},
    )
    assert wrong.status_code == 403
    assert images_in(settings.lessons_dir) == before


def test_multipart_bodies_are_still_refused_everywhere_else(site):
    teacher, _, _ = site
    token = csrf_from(teacher.get(IMAGES).text)
    response = teacher.post(
        PREVIEW, data={"csrftoken": token, "texto": "x"}, files={"f": ("a.png", png_bytes())}
    )
    assert response.status_code == 415


def test_a_text_over_a_million_characters_gets_the_editor_back_with_the_text_and_the_reason(site):
    teacher, settings, path = site
    form = editor_form(teacher)
    before = path.read_bytes()
    huge = form["texto"] + "x" * (1_000_001 - len(form["texto"]))
    response = teacher.post(EDITOR, data={**form, "texto": huge})
    assert response.status_code == 422
    page = soup(response.text)
    assert page.select_one("#editor-texto").get_text() == huge
    assert page.select_one('input[name="versao"]')["value"] == form["versao"]
    assert text(page.select_one("#editor-grande")) == (
        "O texto tem 1.000.001 caracteres e uma lição pode ter até 1.000.000. Nada foi "
        "publicado: o texto continua na caixa; encurte-o (divida a lição em duas, por exemplo) "
        "e publique de novo."
    )
    assert path.read_bytes() == before
    preview = teacher.post(PREVIEW, data={**form, "texto": huge}, headers={"HX-Request": "true"})
    assert preview.status_code == 422
    assert text(soup(preview.text).select_one(".check-oversized")).startswith(
        "O texto tem 1.000.001 caracteres"
    )
    # A body too large to read at all is refused before the route, saying so.
    refused = teacher.post(EDITOR, data={**form, "texto": "ç" * 800_000})
    assert refused.status_code == 413
    assert text(soup(refused.text).select_one("main")).startswith(
        "Envio grande demais O texto da lição enviado passa de 4 MB e por isso não pôde ser lido:"
    )
    assert path.read_bytes() == before
    assert db_rows(settings, "SELECT count(*) FROM lesson_draft") == [(0,)]
