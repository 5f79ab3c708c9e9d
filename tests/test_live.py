"""Live editing: lesson files reloaded while the app runs, the last good version kept."""

from __future__ import annotations

import httpx
import pytest

from app.content.course import load_course
from app.content.live import LiveCourse
from tests.support.app import query
from tests.support.html import csrf_from, soup, text
from tests.support.lessons import (
    GOOD,
    HEADER,
    OTHER,
    SCENARIO,
    TREE,
    lessons,
    messages,
    rendered_files,
    save,
)
from tests.support.server import LiveServer, reloading_server


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """The names of the files read and rendered, in order."""
    return rendered_files(monkeypatch)


def test_a_saved_file_shows_on_the_next_look_and_only_it_is_rendered_again(tmp_path, loads):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    live = LiveCourse(folder, interval_s=0)
    assert loads == ["01-a.md", "02-b.md"]
    first = live.current()
    assert live.current() is first, "nada mudou: o mesmo curso, sem ler os arquivos de novo"
    save(
        folder / "01-a.md",
        GOOD.replace("title: Decode e prefill", "title: Decode e prefill, revisada"),
    )
    second = live.current()
    assert second.get("decode-prefill").meta.title == "Decode e prefill, revisada"
    assert loads == ["01-a.md", "02-b.md", "01-a.md"]
    assert second.get("outra").parts is first.get("outra").parts, (
        "a outra lição não foi renderizada de novo"
    )


def test_checking_a_file_as_it_is_served_renders_nothing_unless_a_file_is_stale(tmp_path, loads):
    """The editor's check of the text on disk is the course served (nothing rendered again),
    except when a file is served in its last good version: the check then says what
    ``curso check`` says, with that file unavailable."""
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    live = LiveCourse(folder, interval_s=0)
    a = folder / "01-a.md"
    assert live.candidate(a, a.read_bytes()) is live.current()
    assert loads == ["01-a.md", "02-b.md"], "o texto igual ao arquivo não é renderizado de novo"
    typed = GOOD.replace("title: Decode e prefill", "title: Digitada").encode()
    assert live.candidate(a, typed).get("decode-prefill").meta.title == "Digitada"
    assert loads[2:] == ["01-a.md"]
    save(folder / "02-b.md", OTHER.replace("answer: [b]", "answer: [z]"))
    assert live.current().stale == {folder / "02-b.md"}
    checked = live.candidate(a, a.read_bytes())
    assert checked.unavailable == {"outra": folder / "02-b.md"}
    assert checked.problems == load_course(folder).problems


def test_files_are_looked_at_at_most_once_per_interval(tmp_path):
    folder = lessons(tmp_path, **{"01-a": GOOD})
    now = [100.0]
    live = LiveCourse(folder, interval_s=5, clock=lambda: now[0])
    save(folder / "01-a.md", GOOD.replace("title: Decode e prefill", "title: Nova"))
    now[0] += 4.9
    assert live.current().get("decode-prefill").meta.title == "Decode e prefill"
    now[0] += 0.1
    assert live.current().get("decode-prefill").meta.title == "Nova"


def test_a_broken_edit_keeps_the_last_good_version_until_it_is_fixed(tmp_path):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    live = LiveCourse(folder, interval_s=0)
    good = live.current().get("decode-prefill")
    save(
        folder / "01-a.md",
        GOOD.replace("title: Decode e prefill", "title: Quebrada").replace(
            "answer: [b]", "answer: [z]"
        ),
    )
    broken = live.current()
    assert broken.get("decode-prefill") == good, "os alunos continuam com a última versão boa"
    assert broken.stale == {folder / "01-a.md"} and broken.unavailable == {}
    assert messages(broken) == [
        "01-a.md:33:12: error: a resposta `z` da pergunta `fase-banda` não é uma opção; opções: a, "
        "b, c"
    ]
    assert broken.get("outra").meta.title == "Outra lição"
    save(folder / "01-a.md", GOOD.replace("title: Decode e prefill", "title: Consertada"))
    fixed = live.current()
    assert fixed.get("decode-prefill").meta.title == "Consertada"
    assert fixed.stale == frozenset() and fixed.problems == ()


def test_a_lesson_that_never_loaded_is_unavailable_under_its_slug(tmp_path):
    broken = OTHER.replace("answer: [b]", "answer: [z]")
    no_header = "# Sem cabeçalho\n"
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": broken, "03-escolha-de-engine": no_header})
    course = LiveCourse(folder, interval_s=0).current()
    assert [lesson.slug for lesson in course.lessons] == ["decode-prefill"]
    assert course.unavailable == {
        "outra": folder / "02-b.md",
        "escolha-de-engine": folder / "03-escolha-de-engine.md",
    }


def test_an_edit_that_breaks_against_the_course_also_keeps_the_last_good_version(tmp_path):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    live = LiveCourse(folder, interval_s=0)
    save(folder / "02-b.md", OTHER.replace("slug: outra", "slug: decode-prefill"))
    course = live.current()
    assert [lesson.slug for lesson in course.lessons] == ["decode-prefill", "outra"]
    assert course.stale == {folder / "02-b.md"}
    assert messages(course) == [
        "02-b.md:3:1: error: `slug: decode-prefill` já é usado por 01-a.md; cada lição precisa de "
        "um `slug` próprio"
    ]


def test_scenarios_follow_trees_of_other_lessons_across_reloads(tmp_path):
    quiz_lesson = GOOD.replace("slug: decode-prefill", "slug: cenarios").replace(
        "order: 1", "order: 2"
    )
    quiz_lesson += SCENARIO
    folder = lessons(tmp_path, **{"01-arvore": HEADER + TREE, "02-cenario": quiz_lesson})
    live = LiveCourse(folder, interval_s=0)
    before = live.current().get("cenarios").questions["cenario"]
    assert before.answer == {"a"}
    save(folder / "02-cenario.md", quiz_lesson.replace("Certo, o decode", "Certo; o decode"))
    course = live.current()
    again = course.get("cenarios").questions["cenario"]
    assert course.problems == () and course.stale == frozenset()
    assert again.content_hash == before.content_hash, (
        "resolver de novo não muda a versão da pergunta"
    )
    save(
        folder / "01-arvore.md",
        HEADER + TREE.replace("engines: [vLLM, SGLang]", "engines: [llama.cpp]"),
    )
    moved = live.current().get("cenarios").questions["cenario"]
    assert moved.answer == {"b"} and moved.content_hash != before.content_hash
    save(folder / "01-arvore.md", HEADER + TREE.replace("start: hw", "start: nada"))
    course = live.current()
    assert course.stale == {folder / "01-arvore.md"}
    assert course.get("cenarios").questions["cenario"].answer == {"b"}, (
        "o cenário usa a árvore ainda servida"
    )
    assert [p.file.name for p in course.problems] == ["01-arvore.md"]


def test_warnings_leave_the_lesson_served(tmp_path):
    folder = lessons(tmp_path, **{"01-a": GOOD + "\nVeja [isto](#nada).\n"})
    course = LiveCourse(folder, interval_s=0).current()
    assert course.get("decode-prefill") is not None and course.errors == ()
    assert messages(course) == [
        "01-a.md:36:13: warning: o link `#nada` não leva a nenhum título desta lição"
    ]


def test_files_added_and_deleted_come_and_go(tmp_path):
    folder = lessons(tmp_path, **{"01-a": GOOD})
    live = LiveCourse(folder, interval_s=0)
    save(folder / "02-b.md", OTHER)
    assert [lesson.slug for lesson in live.current().lessons] == ["decode-prefill", "outra"]
    (folder / "01-a.md").unlink()
    assert [lesson.slug for lesson in live.current().lessons] == ["outra"]


def signed_in(server: LiveServer, username: str) -> httpx.Client:
    """An HTTP client signed in as ``username``."""
    client = httpx.Client(base_url=server.url)
    token = csrf_from(client.get("/conta").text)
    form = {"csrftoken": token, "usuario": username, "senha": "senha-boa-123"}
    assert client.post("/conta/entrar", data=form).status_code == 303
    return client


def look(client: httpx.Client) -> tuple[str, list[str]]:
    """The lesson's title and the check panel's lines, as the client sees them."""
    page = soup(client.get("/licoes/decode-prefill").text)
    return text(page.h1), [text(li) for li in page.select(".check-panel li")] + [
        text(p) for p in page.select(".check-panel .check-ok, .check-panel .check-stale")
    ]


def test_hot_reload_on_a_live_server_good_broken_good(tmp_path, monkeypatch):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    with reloading_server(tmp_path, folder, monkeypatch) as server:
        learner = httpx.Client(base_url=server.url)
        teacher = signed_in(server, "professora")
        page = learner.get("/licoes/decode-prefill").text
        key = soup(page).select_one('#pergunta-fase-banda input[name="chave"]')["value"]
        version = soup(page).select_one('#pergunta-fase-banda input[name="versao"]')["value"]
        answer = {"csrftoken": csrf_from(page), "opcao": "b", "chave": key, "versao": version}
        assert (
            learner.post("/licoes/decode-prefill/perguntas/fase-banda", data=answer).status_code
            == 303
        )
        assert look(learner) == ("Decode e prefill", [])
        assert look(teacher) == (
            "Decode e prefill",
            ["Nenhum problema: curso check aceita este arquivo."],
        )

        save(
            folder / "01-a.md",
            GOOD.replace("title: Decode e prefill", "title: Decode e prefill, revisada"),
        )
        assert look(learner) == ("Decode e prefill, revisada", [])

        save(
            folder / "01-a.md",
            GOOD.replace("title: Decode e prefill", "title: Quebrada").replace(
                "answer: [b]", "answer: [z]"
            ),
        )
        assert look(learner) == ("Decode e prefill, revisada", []), "o aluno não vê nada quebrar"
        assert look(teacher) == (
            "Decode e prefill, revisada",
            [
                "01-a.md:33:12 erro a resposta `z` da pergunta `fase-banda` não é uma opção; "
                "opções: a, b, c",
                "O arquivo atual tem erros: os alunos continuam vendo a última versão boa desta "
                "lição, que é a que aparece abaixo.",
            ],
        )
        assert text(soup(learner.get("/licoes/outra").text).h1) == "Outra lição"

        save(
            folder / "01-a.md",
            GOOD.replace("title: Decode e prefill", "title: Decode e prefill, terceira"),
        )
        assert look(learner) == ("Decode e prefill, terceira", [])
        assert look(teacher)[1] == ["Nenhum problema: curso check aceita este arquivo."]
    settings_url = f"sqlite:///{server.database}"
    from app.platform.settings import Settings

    stored = query(
        Settings(database_url=settings_url), "SELECT lesson_slug, question_id, chosen FROM attempt"
    )
    assert stored == [("decode-prefill", "fase-banda", "b")], (
        "editar lições não toca nos dados dos alunos"
    )
