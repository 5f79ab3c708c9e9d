"""The lesson loader: the real course, and every validation error with its file:line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.content.blocks import PoolPart, QuizPart
from app.content.course import load_course
from app.content.errors import ContentErrors
from app.content.lessons import load_lesson
from app.content.markdown import slugify
from app.content.yamlsrc import YamlSyntaxError, parse_yaml
from tests.support.app import REPO_LESSONS
from tests.support.lessons import GOOD, PREFILL, broken_lesson
from tests.support.problems import MARKDOWN_AND_YAML_PROBLEMS, QUIZ_AND_HEADER_PROBLEMS, broken


def write(tmp_path: Path, text: str, name: str = "licao.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def errors_of(path: Path) -> list[str]:
    with pytest.raises(ContentErrors) as info:
        load_lesson(path)
    return [str(e) for e in info.value.errors]


def test_real_course_loads_three_lessons_with_quizzes():
    course = load_course(REPO_LESSONS)
    assert course.errors == ()
    assert [lesson.slug for lesson in course.lessons] == [
        "kernels",
        "escolha-self-hosted",
        "alem-do-ollama",
    ]
    for lesson in course.lessons:
        assert len(lesson.questions) >= 5, lesson.slug
        for question in lesson.questions.values():
            assert all(option.explanation_html.strip() for option in question.options)
        assert isinstance(lesson.parts[-1], QuizPart | PoolPart), "as perguntas fecham a lição"


def test_every_lesson_draws_from_a_pool_and_the_course_has_numeric_variants():
    """Issue 39, item 6: the lessons use pools and variants."""
    course = load_course(REPO_LESSONS)
    for lesson in course.lessons:
        assert lesson.pools, f"{lesson.slug}: nenhum sorteio"
        for pool in lesson.pools.values():
            assert len(pool.candidates) > pool.draw, f"{lesson.slug}: o sorteio não sorteia nada"
    variants = [q.id for lesson in course.lessons for q in lesson.questions.values() if q.variants]
    assert len(variants) >= 3, variants


def test_first_lesson_keeps_the_texts_two_questions_and_keys():
    lesson = load_course(REPO_LESSONS).get("kernels")
    first, second = list(lesson.questions.values())[:2]
    assert "14,5" in first.legend_html and "64" in first.legend_html
    assert first.answer == {"b"}
    assert "Mac" in second.legend_html and "Ollama" in second.legend_html
    assert second.answer == {"c"}


def test_good_lesson_renders_body_callout_toc_and_quiz(tmp_path):
    lesson = load_lesson(write(tmp_path, GOOD))
    assert lesson.meta.title == "Decode e prefill"
    assert [(h.level, h.anchor, h.text) for h in lesson.headings] == [
        (2, "duas-fases", "Duas fases")
    ]
    html = "".join(p for p in lesson.parts if isinstance(p, str))
    assert '<h2 id="duas-fases">Duas fases</h2>' in html
    assert '<aside class="callout callout-danger" role="note" aria-label="Não faça isso">' in html
    assert "Certo, o decode" not in html, "explicações não vão no corpo da lição"
    question = lesson.questions["fase-banda"]
    assert question.answer == {"b"} and question.line == 20


def test_crlf_and_bom_load_like_lf(tmp_path):
    plain = load_lesson(write(tmp_path, GOOD, "a.md"))
    crlf = tmp_path / "b.md"
    crlf.write_bytes(b"\xef\xbb\xbf" + GOOD.replace("\n", "\r\n").encode("utf-8"))
    other = load_lesson(crlf)
    assert other.parts == plain.parts and other.meta == plain.meta
    assert other.questions["fase-banda"].line == plain.questions["fase-banda"].line


def test_raw_html_and_javascript_links_are_not_live(tmp_path):
    body = GOOD + (
        "\n<script>alert(1)</script>\n\n[clique](javascript:alert(1)) <img src=x "
        "onerror=alert(1)>\n"
    )
    html = "".join(p for p in load_lesson(write(tmp_path, body)).parts if isinstance(p, str))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<img" not in html
    assert 'href="javascript:' not in html


@pytest.mark.parametrize(("old", "new", "expected"), QUIZ_AND_HEADER_PROBLEMS)
def test_each_problem_is_reported_with_file_and_line(tmp_path, old, new, expected):
    path = write(tmp_path, broken(GOOD, old, new))
    reported = [e.replace(str(tmp_path) + "/", "") for e in errors_of(path)]
    assert expected in reported, reported


@pytest.mark.parametrize(("old", "new", "expected"), MARKDOWN_AND_YAML_PROBLEMS)
def test_markdown_and_yaml_mistakes_are_reported_in_portuguese(tmp_path, old, new, expected):
    path = write(tmp_path, broken(GOOD, old, new))
    reported = [e.replace(str(tmp_path) + "/", "") for e in errors_of(path)]
    assert expected in reported, reported


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        # Misindented: the line PyYAML's problem names, not where the list or mapping starts.
        ("options:\n  - id: a\n    text: A\n  - id: b\n   text: B\n", 5, 4),
        ("a:\n  b: 1\n c: 2\n", 3, 2),
        ("a: 1\n- b\n", 2, 1),
        # Left open: where it was opened, not where the parser gave up.
        ("a: [1, 2\nb: 3\n", 1, 4),
        ('a: "abc\nb: 2\n', 1, 4),
        ("a: 1\nb\nc: 2\n", 2, 1),
    ],
)
def test_a_yaml_syntax_error_names_the_line_to_fix(text, line, col):
    with pytest.raises(YamlSyntaxError) as raised:
        parse_yaml(text)
    assert (raised.value.line + 1, raised.value.col + 1) == (line, col)


def test_missing_front_matter_is_line_one(tmp_path):
    path = write(tmp_path, "# Sem cabeçalho\n")
    assert errors_of(path) == [
        f"{path}:1:1: error: a lição deve começar com o cabeçalho YAML entre linhas `---` (veja "
        "lessons/README.md)"
    ]


def test_broken_lesson_leaves_the_rest_of_the_course(tmp_path):
    write(tmp_path, GOOD, "01-boa.md")
    write(tmp_path, broken_lesson("quebrada", 2), "02-quebrada.md")
    course = load_course(tmp_path)
    assert [lesson.slug for lesson in course.lessons] == ["decode-prefill"]
    assert [(e.file.name, e.line) for e in course.errors] == [("02-quebrada.md", 33)]


def test_a_lesson_file_and_its_slug_are_found_from_each_other(tmp_path):
    """Served, draft or never loaded: the editor and the check panel find the same file."""
    write(tmp_path, GOOD, "01-boa.md")
    draft = GOOD.replace("order: 1", "order: 2\ndraft: true").replace(
        "slug: decode-prefill", "slug: rascunho"
    )
    write(tmp_path, draft, "02-rascunho.md")
    write(tmp_path, broken_lesson("quebrada", 3), "03-quebrada.md")
    course = load_course(tmp_path)
    assert course.get("rascunho") is None and course.get("quebrada") is None
    found = {slug: course.path_of(slug) for slug in ("decode-prefill", "rascunho", "quebrada")}
    assert found == {
        "decode-prefill": tmp_path / "01-boa.md",
        "rascunho": tmp_path / "02-rascunho.md",
        "quebrada": tmp_path / "03-quebrada.md",
    }
    assert {course.slug_of(path): slug for slug, path in found.items()} == {
        slug: slug for slug in found
    }
    assert course.path_of("nenhuma") is None and course.slug_of(tmp_path / "README.md") is None


def test_duplicate_slug_and_order_are_reported(tmp_path):
    write(tmp_path, GOOD, "01-a.md")
    write(tmp_path, GOOD, "02-b.md")
    course = load_course(tmp_path)
    assert [lesson.path.name for lesson in course.lessons] == ["01-a.md"]
    messages = sorted(str(e).replace(str(tmp_path) + "/", "") for e in course.errors)
    assert messages == [
        "02-b.md:3:1: error: `slug: decode-prefill` já é usado por 01-a.md; cada lição precisa de "
        "um `slug` próprio",
        "02-b.md:4:1: error: `order: 1` já é usado por 01-a.md; cada lição precisa de um `order` "
        "próprio",
    ]


def test_slugify_drops_accents_and_ordinals():
    assert slugify("Decodificação e Codificação — 1ª Aula") == "decodificacao-e-codificacao-1a-aula"


def test_content_hash_follows_prompt_options_and_key_only(tmp_path):
    base = load_lesson(write(tmp_path, GOOD)).questions["fase-banda"]
    assert len(base.content_hash) == 16

    def edited(old: str, new: str) -> str:
        assert old in GOOD
        return (
            load_lesson(write(tmp_path, GOOD.replace(old, new)))
            .questions["fase-banda"]
            .content_hash
        )

    assert edited("Qual fase acompanha", "Que fase acompanha") != base.content_hash
    assert edited("text: Decode", "text: Decodificação") != base.content_hash
    assert edited("answer: [b]", "answer: [a]") != base.content_hash
    assert (
        edited("Certo, o decode acompanha a banda.", "Certo; o decode segue a banda.")
        == base.content_hash
    )
    reordered = GOOD.replace(PREFILL, "").replace("  answer: [b]", PREFILL + "  answer: [b]")
    assert (
        load_lesson(write(tmp_path, reordered)).questions["fase-banda"].content_hash
        == base.content_hash
    )


def test_the_errors_of_the_december_review_stay_fixed():
    """Issue 25: E1, E2 (words the article does not say, under "O que o artigo diz"), E4 (an
    invented ordering principle), E5 ("vazão bruto") and E6 ("laptop" against the style sheet)."""
    course = load_course(REPO_LESSONS)
    sources = {p.name: p.read_text(encoding="utf-8") for p in REPO_LESSONS.glob("*.*")}
    said = sources["03-alem-do-ollama.md"].split("O que o artigo diz que ela faz")[1]
    table = said.split("\n\n")[0].splitlines()[2:]
    rows = {line.split("|")[1].strip(): line for line in table}
    assert len(rows) == 6
    assert "proxy" not in rows["llama-swap"] and "comprimir" not in rows["LMDeploy"]
    order = course.get("kernels").questions["ordem-da-arvore"]
    assert "mais específico" not in order.explanation_html
    assert "vazão bruto" not in sources["02-escolha-self-hosted.md"]
    # D19 (issue 37): a quotation keeps the text's own "Laptop"; the course's words never use it.
    unquoted = {n: re.sub(r"“[^”]*”|\"[^\"\n]*\"", "", t) for n, t in sources.items()}
    assert [n for n, t in unquoted.items() if n != "README.md" and "laptop" in t.lower()] == []


def test_the_errors_of_the_second_december_review_stay_fixed():
    """Issue 37: E8 (KTransformers under "Só CPU"), E9 ("qualquer GPU não NVIDIA → só vLLM"
    sends Apple Silicon to vLLM), E10 (160 GB "mais do que cabe numa GPU") and M9 (the guide's
    measurements against its own tree, never said). E7 is guarded in test_trees and
    test_engine_checks."""
    sources = {p.name: p.read_text(encoding="utf-8") for p in REPO_LESSONS.glob("*.md")}
    table = sources["03-alem-do-ollama.md"].split("## O mapa dos engines por alvo")[1]
    rows = {
        cells[0]: cells
        for line in table.split("\n\n")[2].splitlines()[2:]
        for cells in [[c.strip() for c in line.split("|")[1:-1]]]
    }
    assert rows["Só CPU"][3] == "—"
    assert "KTransformers" in rows["CPU e GPU juntas"][3]
    choose = sources["02-escolha-self-hosted.md"]
    assert "qualquer GPU não NVIDIA" not in choose
    box = choose.split("::: tip O texto-base discorda de si mesmo nas duas regras")[1]
    box = box.split("\n:::")[0]
    assert "Apple" in box and "O SGLang também" in box and "Ollama também funciona" in box
    assert "mais do que cabe numa GPU" not in choose
    assert "mais do que cabe numa H100 (80 GB)" in choose
    kernels = sources["01-kernels.md"]
    assert "::: tip As medições do guia não seguem a árvore do próprio guia" in kernels
