"""The glossary: the file's validation with file:line, first uses in lessons, the page."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.content.glossary import parse_glossary
from app.content.lessons import load_lesson
from app.content.text import collation_key, text_keys
from tests.support.html import soup
from tests.support.learning import COURSE
from tests.support.lessons import GOOD, VALID
from tests.support.problems import GLOSSARY_PROBLEMS, broken

SEED_TERMS = {
    "kernel",
    "prefill",
    "decode",
    "KV cache",
    "PagedAttention",
    "RadixAttention",
    "tensor parallelism",
    "batching contínuo",
    "chunked prefill",
    "quantização",
    "vazão",
    "MoE",
    "routing",
    "LMCache",
    "arquitetura desagregada",
    "KV em camadas",
}


def glossary_errors(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "glossario.yml"
    _glossary, errors = parse_glossary(text, path)
    return [f"{e.file.name}:{e.line}: {e.message}" for e in errors]


def test_the_terms_the_lessons_used_unexplained_are_defined_and_the_vague_ones_rewritten():
    """Issue 14: MoE, routing, LMCache, disaggregated serving and tiered KV get an entry;
    prefill, decode, quantização, batching contínuo and tensor parallelism say what they are."""
    by_term = {t.term: t for t in COURSE.glossary.terms}
    assert (
        "paralelo" in by_term["prefill"].definition_html
        and "KV cache" in by_term["prefill"].definition_html
    )
    assert "um token por passo" in by_term["decode"].definition_html
    assert "menos bits" in by_term["quantização"].definition_html
    assert "sem esperar o lote inteiro" in by_term["batching contínuo"].definition_html
    assert "entre várias GPUs" in by_term["tensor parallelism"].definition_html
    for term in ("MoE", "routing", "LMCache", "arquitetura desagregada", "KV em camadas"):
        assert "explicação do curso" in by_term[term].definition_html, term
    assert tuple(text_keys("runtime")) in by_term["engine de inferência"].forms


def test_course_knowledge_in_definitions_is_marked_and_the_missing_terms_exist():
    """Issue 25, D16 and M6: what the texts only name is marked as the course's explanation;
    banda de memória, TTFT, speculative decoding, expert parallelism, LoRA and the scheduler
    are defined; routing gets both readings (D4); chunked prefill says who says what (D15)."""
    by_term = {t.term: t for t in COURSE.glossary.terms}
    for term in (
        "prefill",
        "decode",
        "cache de prefixo",
        "tensor parallelism",
        "batching contínuo",
        "quantização",
        "chunked prefill",
        "TTFT",
        "agendador",
        "decodificação especulativa",
        "paralelismo de especialistas",
        "LoRA",
    ):
        assert "explicação do curso" in by_term[term].definition_html, term
    assert "banda de memória" in by_term and "texto-base da Lição 1" in (
        by_term["banda de memória"].definition_html
    )
    routing = by_term["routing"].definition_html
    assert "especialistas" in routing and "réplica" in routing
    assert "Lição 28 da Fase 17" in by_term["chunked prefill"].definition_html
    assert "laptop" not in " ".join(t.definition_html for t in COURSE.glossary.terms)


def test_the_course_glossary_is_valid_and_seeded_with_the_course_terms():
    assert [e for e in COURSE.errors if e.file.name == "glossario.yml"] == []
    terms = [t.term for t in COURSE.glossary.terms]
    assert set(terms) >= SEED_TERMS
    assert terms == sorted(terms, key=collation_key)


@pytest.mark.parametrize(("old", "new", "expected"), GLOSSARY_PROBLEMS)
def test_each_glossary_problem_is_reported_with_its_line(tmp_path, old, new, expected):
    assert expected in glossary_errors(tmp_path, broken(VALID, old, new))


def test_a_valid_glossary_has_no_problem(tmp_path):
    assert glossary_errors(tmp_path, VALID) == []


def test_curso_check_reports_glossary_lines(tmp_path):
    import subprocess
    import sys

    (tmp_path / "01-boa.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "glossario.yml").write_text(
        VALID.replace("- term: KV cache", "- term: kernels"), encoding="utf-8"
    )
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{tmp_path}/glossario.yml:3:1: error: `kernels` já está no glossário, no termo `kernel`"
    ]


def test_first_use_of_a_term_gets_its_definition_and_later_uses_do_not(tmp_path):
    glossary, _ = parse_glossary(VALID, tmp_path / "glossario.yml")
    body = GOOD.replace(
        "O **prefill** processa o prompt.",
        "Os kernels rodam. Um [kernel](#duas-fases-do-kernel) no link e outro kernel depois. O "
        "KV-cache cresce.",
    ).replace("## Duas fases", "## Duas fases do kernel")
    path = tmp_path / "licao.md"
    path.write_text(body, encoding="utf-8")
    lesson = load_lesson(path, glossary)
    html = soup("".join(p for p in lesson.parts if isinstance(p, str)))
    dfns = html.select("dfn.term")
    assert [d.get_text() for d in dfns] == ["kernels", "KV-cache"], (
        "só o primeiro uso, nunca em títulos"
    )
    assert lesson.terms == ("kernel", "kv-cache")
    button = dfns[0].button
    assert button["popovertarget"] == "def-kernel" and button["type"] == "button"
    popover = html.select_one("#def-kernel[popover]")
    assert popover.get_text() == "kernel: Rotina de baixo nível que computa uma operação."
    assert popover.a["href"] == "/glossario#kernel"
    assert not html.select("h2 dfn, a dfn")


def test_glossary_page_lists_terms_in_order_with_where_they_appear(client):
    page = soup(client.get("/glossario").text)
    terms = [dt.get_text() for dt in page.select(".glossary dt")]
    assert terms == [t.term for t in COURSE.glossary.terms]
    assert terms == sorted(terms, key=collation_key)
    kernel = page.select_one("dt#kernel").find_parent(class_="glossary-entry")
    assert "ciclos de GPU" in kernel.dd.get_text()
    first = kernel.select_one(".glossary-where a")["href"]
    assert first == "/licoes/kernels#termo-kernel"
    lesson = soup(client.get("/licoes/kernels").text)
    assert lesson.select_one("#termo-kernel button").get_text() == "kernels"
