"""`curso check`: link, anchor and image rules, levels, --strict, --format json, CRLF and BOM;
`curso nova`. The rules for front matter, quizzes and trees are in test_content and test_trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.content.course import load_course
from app.content.scaffold import TitleError, unique_slug
from app.platform.settings import PROJECT_ROOT
from tests.support.cli import run
from tests.support.lessons import GOOD, folder_with
from tests.support.lessons import SECOND_LESSON as OTHER
from tests.support.problems import LINK_PROBLEMS


@pytest.mark.parametrize(
    ("body", "expected"),
    LINK_PROBLEMS,
)
def test_each_link_and_image_rule_with_its_message_line_and_column(tmp_path, body, expected):
    folder = folder_with(tmp_path, body)
    course = load_course(folder, PROJECT_ROOT / "static")
    assert [str(p).replace(f"{folder}/", "") for p in course.problems] == [expected]
    assert course.get("decode-prefill") is not None, "um aviso não tira a lição do ar"


def test_links_that_resolve_say_nothing(tmp_path):
    body = (
        "[a](#duas-fases) [b](#pergunta-fase-banda) [c](/licoes/outra) "
        "[d](/licoes/outra#duas-fases)\n"
        "[e](outra#duas-fases) [f](/arvores/mini) [g](/licoes/arvore-teste#arvore-mini) "
        "[h](/arvores/comparar)\n"
        "[i](https://exemplo.org) [j](mailto:a@b.c) [k](/progresso) [l](#titulo-licao)\n\n"
        "![img](imagens/grafico.png) ![logo](/static/favicon.svg) ![x](<imagens/grafico.png>)\n"
    )
    assert load_course(folder_with(tmp_path, body), PROJECT_ROOT / "static").problems == ()


def test_images_in_lessons_imagens_are_served(tmp_path, database_url):
    from fastapi.testclient import TestClient

    from app.main import create_app
    from tests.support.app import make_settings

    folder = folder_with(tmp_path, "![Gráfico](imagens/grafico.png)")
    client = TestClient(create_app(make_settings(tmp_path, folder, database_url)))
    page = client.get("/licoes/decode-prefill").text
    assert '<img src="imagens/grafico.png" alt="Gráfico"' in page
    image = client.get("/licoes/imagens/grafico.png")
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    assert client.get("/licoes/imagens/../01-a.md").status_code == 404


BROKEN = GOOD.replace("  answer: [b]", "  answer: [x]") + "\nVeja [isto](#nada).\n"


def test_output_levels_strict_and_exit_codes(tmp_path):
    (tmp_path / "01-a.md").write_text(GOOD + "\nVeja [isto](#nada).\n", encoding="utf-8")
    warned = run("check", str(tmp_path))
    assert warned.returncode == 0, "avisos sozinhos não reprovam"
    assert warned.stdout.splitlines() == [
        f"{tmp_path}/01-a.md:36:13: warning: o link `#nada` não leva a nenhum título desta lição"
    ]
    assert warned.stderr.strip() == "1 aviso encontrado."
    strict = run("check", str(tmp_path), "--strict")
    assert strict.returncode == 1
    assert strict.stdout.splitlines() == [
        f"{tmp_path}/01-a.md:36:13: error: o link `#nada` não leva a nenhum título desta lição"
    ]
    assert strict.stderr.strip() == "1 erro encontrado."


def test_json_gives_the_same_data(tmp_path):
    (tmp_path / "01-a.md").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "02-b.md").write_text(OTHER + "\n[x](/licoes/sumiu)\n", encoding="utf-8")
    text_out = run("check", str(tmp_path))
    json_out = run("check", str(tmp_path), "--format", "json")
    assert json_out.returncode == text_out.returncode == 1
    report = json.loads(json_out.stdout)
    assert report == {
        "lessons": 1,
        "errors": 1,
        "warnings": 1,
        "notes": 0,
        "problems": [
            {
                "file": f"{tmp_path}/01-a.md",
                "line": 33,
                "col": 12,
                "level": "error",
                "message": (
                    "a resposta `x` da pergunta `fase-banda` não é uma opção; opções: a, b, c"
                ),
            },
            {
                "file": f"{tmp_path}/02-b.md",
                "line": 36,
                "col": 5,
                "level": "warning",
                "message": "o link `/licoes/sumiu` não leva a nenhuma lição do curso",
            },
        ],
    }
    as_text = [
        f"{p['file']}:{p['line']}:{p['col']}: {p['level']}: {p['message']}"
        for p in report["problems"]
    ]
    assert as_text == text_out.stdout.splitlines()


def test_crlf_and_bom_files_check_exactly_like_lf(tmp_path):
    files = {
        "01-a.md": GOOD.replace("slug: decode-prefill", "slug: a") + "\nVeja [isto](#nada).\n",
        "02-b.md": OTHER.replace("answer: [b]", "answer: [x]"),
        "03-c.md": GOOD.replace("slug: decode-prefill", "slug: c"),
    }
    outputs = []
    for name, encode in [
        ("lf", lambda t: t.encode("utf-8")),
        ("crlf", lambda t: t.replace("\n", "\r\n").encode("utf-8")),
        ("bom", lambda t: b"\xef\xbb\xbf" + t.encode("utf-8")),
        ("bom-crlf", lambda t: b"\xef\xbb\xbf" + t.replace("\n", "\r\n").encode("utf-8")),
    ]:
        folder = tmp_path / name
        folder.mkdir()
        for file_name, content in files.items():
            (folder / file_name).write_bytes(encode(content))
        result = run("check", str(folder), "--format", "json")
        problems = json.loads(result.stdout)["problems"]
        outputs.append([{**p, "file": Path(p["file"]).name} for p in problems])
    assert outputs[0] == [
        {
            "file": "01-a.md",
            "line": 36,
            "col": 13,
            "level": "warning",
            "message": "o link `#nada` não leva a nenhum título desta lição",
        },
        {
            "file": "02-b.md",
            "line": 33,
            "col": 12,
            "level": "error",
            "message": "a resposta `x` da pergunta `fase-banda` não é uma opção; opções: a, b, c",
        },
        {
            "file": "03-c.md",
            "line": 4,
            "col": 1,
            "level": "error",
            "message": (
                "`order: 1` já é usado por 01-a.md; cada lição precisa de um `order` próprio"
            ),
        },
    ]
    assert outputs[1] == outputs[2] == outputs[3] == outputs[0]


def test_a_single_file_is_checked_within_its_folder(tmp_path):
    folder = folder_with(tmp_path, "[b](/licoes/outra)")
    (folder / "02-b.md").write_text(OTHER + "\n[x](#nada)\n", encoding="utf-8")
    alone = run("check", str(folder / "01-a.md"))
    assert (alone.returncode, alone.stdout.strip()) == (
        0,
        "1 lição válida, nenhum problema.",
    )


def test_nova_creates_a_lesson_that_passes_the_check_with_a_unique_slug(tmp_path):
    folder = folder_with(tmp_path, "")
    created = run("nova", "Decodificação especulativa: na prática", "--pasta", str(folder))
    assert created.returncode == 0, created.stderr
    path = folder / "04-decodificacao-especulativa-na-pratica.md"
    assert created.stdout.strip() == (
        f"Lição criada como rascunho: {path} (endereço "
        "/licoes/decodificacao-especulativa-na-pratica; só instrutores a veem até ela ser "
        "publicada). Edite o arquivo, rode `curso check` e apague a linha `draft: true` para "
        "publicá-la."
    )
    again = run("nova", "Decodificação Especulativa — na prática!", "--pasta", str(folder))
    assert (folder / "05-decodificacao-especulativa-na-pratica-2.md").exists(), again.stdout
    check = run("check", str(folder))
    assert (check.returncode, check.stdout.strip()) == (
        0,
        "5 lições válidas, nenhum problema.",
    )
    course = load_course(folder)
    assert course.get("decodificacao-especulativa-na-pratica") is None, "a draft"
    lesson = course.with_drafts.get("decodificacao-especulativa-na-pratica")
    assert (lesson.meta.title, lesson.meta.order) == ("Decodificação especulativa: na prática", 4)
    bad = run("nova", "!!!", "--pasta", str(folder))
    assert (bad.returncode, bad.stderr.strip()) == (
        2,
        "O título precisa ter pelo menos uma letra ou um número.",
    )


def test_unique_slug_folds_accents_and_never_collides():
    assert unique_slug("Decodificação", set()) == "decodificacao"
    assert unique_slug("Decodificação", {"decodificacao", "decodificacao-2"}) == "decodificacao-3"
    assert unique_slug("Atenção à KV-cache: paginação", set()) == "atencao-a-kv-cache-paginacao"
    assert len(unique_slug("palavra " * 40, set())) <= 80
    with pytest.raises(TitleError):
        unique_slug(" — ", set())


def test_the_summary_line_agrees_in_number():
    from app.cli.authoring import summary

    assert summary(1, 0) == "1 erro encontrado."
    assert summary(3, 0) == "3 erros encontrados."
    assert summary(0, 1) == "1 aviso encontrado."
    assert summary(0, 2) == "2 avisos encontrados."
    assert summary(2, 1) == "2 erros e 1 aviso encontrados."
