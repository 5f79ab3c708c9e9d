"""`curso check` against lessons/engines.yml (app/content/engines.py): no decision-tree result
names an engine reached through a hardware answer that engine does not run on. Each rule on a
small course that breaks it and one that does not, every path of a tree walked, the table's own
errors, the real course silent, and every `fonte` quoting the course's texts word for word."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from app.content.course import load_course, read_engines
from app.content.engines import ENGINES_FILE, check_engines
from app.content.lesson_cache import LessonCache
from app.platform.settings import PROJECT_ROOT
from tests.support.app import REPO_LESSONS
from tests.support.cli import run
from tests.support.lessons import HEADER
from tests.support.seeds import seeds_dir

# The guide's catch-all: datacenter NVIDIA and AMD share one option, then the goal decides.
TREE = """\
```decision-tree
id: guia
title: Guia
source: Teste
start: hardware
questions:
  hardware:
    facet: hardware
    text: Qual hardware?
    options:
      - label: Mac
        value: apple
        next: mlx
      - label: Nenhuma das anteriores
        value: [hopper, amd]
        next: goal
  goal:
    facet: goal
    text: O que o caso pede?
    options:
      - label: Produção geral
        value: general
        next: vllm
      - label: NVIDIA, desempenho máximo
        value: max
        next: depth
  depth:
    facet: budget
    text: Quanto pode gastar?
    options:
      - label: Pouco
        value: low
        next: vllm
      - label: Muito
        value: high
        next: trt
results:
  mlx:
    engines: [MLX]
    verdict: recommended
    why: Metal.
  vllm:
    engines: [vLLM]
    verdict: recommended
    why: Padrão.
  trt:
    engines: [vLLM, TensorRT-LLM]
    verdict: recommended
    why: Compilado.
```
"""

TABLE = """\
hardware:
  apple: apple
  hopper: nvidia
  amd: amd
engines:
  mlx:
    nomes: [MLX]
    roda: [apple]
    roda_fonte: ["Artigo: “MLX é o sistema de array da Apple em Apple Silicon”"]
    indicado:
      apple: ["Guia: “Metal nativo + memória unificada”"]
  vllm:
    nomes: [vLLM]
    roda: [nvidia, amd]
    roda_fonte: ["Documentação do vLLM: https://docs.vllm.ai/en/latest/getting_started/installation/"]
    indicado:
      nvidia: ["Lição 28: “NVIDIA Hopper (H100 / H200) → vLLM, SGLang ou TRT-LLM.”"]
      amd: ["Lição 28: “GPU AMD → vLLM (suporte a AMD ROCm).”"]
  tensorrt-llm:
    nomes: [TensorRT-LLM, TRT-LLM]
    roda: [nvidia]
    roda_fonte: ["Guia: “Compilado para a GPU; NVIDIA-only.”"]
    indicado:
      nvidia: ["Guia: “Compilado para a GPU; NVIDIA-only.”"]
"""

# Lines in the lesson file: the header, then the tree.
RESULT_TRT_LINE = HEADER.count("\n") + TREE.splitlines().index("  trt:") + 2  # its `engines`
RESULT_VLLM_LINE = HEADER.count("\n") + TREE.splitlines().index("  vllm:") + 2
OPTION_LINE = (
    HEADER.count("\n") + TREE.splitlines().index("      - label: Nenhuma das anteriores") + 1
)


def course_with(tmp_path: Path, table: str | None = TABLE, tree: str = TREE) -> list[str]:
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "01-arvore.md").write_text(HEADER + tree, encoding="utf-8")
    if table is not None:
        (folder / ENGINES_FILE).write_text(table, encoding="utf-8")
    course = load_course(folder)
    return [str(p).replace(f"{folder}/", "") for p in course.problems]


def test_a_result_reached_through_hardware_its_engine_does_not_run_on_is_an_error(tmp_path):
    assert course_with(tmp_path) == [
        f"01-arvore.md:{RESULT_TRT_LINE}:1: error: a árvore `guia` leva a `TensorRT-LLM` "
        "(resultado `trt`) pelo caminho hardware=amd → goal=max → budget=high, mas engines.yml "
        "diz que TensorRT-LLM só roda em nvidia, não em amd"
    ]


def test_every_tree_is_walked(tmp_path):
    second = TREE.replace("id: guia", "id: outro").replace("value: [hopper, amd]", "value: amd")
    problems = course_with(tmp_path, tree=TREE + "\n" + second)
    assert [p.split(": ", 2)[2].split(" (resultado")[0] for p in problems] == [
        "a árvore `guia` leva a `TensorRT-LLM`",
        "a árvore `outro` leva a `TensorRT-LLM`",
    ]


def test_a_tree_whose_engines_all_run_on_the_paths_hardware_says_nothing(tmp_path):
    split = TREE.replace("        value: [hopper, amd]", "        value: hopper")
    assert course_with(tmp_path, tree=split) == []


def test_without_a_table_there_is_no_check(tmp_path):
    assert course_with(tmp_path, table=None) == []


def test_an_engine_or_a_hardware_value_the_table_does_not_know_warns(tmp_path):
    table = (
        TABLE.replace("  amd: amd\n", "")
        .replace("    nomes: [TensorRT-LLM, TRT-LLM]", "    nomes: [TRT-LLM]")
        .replace('      amd: ["Lição 28: “GPU AMD → vLLM (suporte a AMD ROCm).”"]\n', "")
    )
    assert course_with(tmp_path, table=table.replace("[nvidia, amd]", "[nvidia]")) == [
        f"01-arvore.md:{OPTION_LINE}:1: warning: a árvore `guia` tem o valor de hardware `amd`, "
        "que engines.yml não associa a nenhum tipo de hardware",
        f"01-arvore.md:{RESULT_TRT_LINE}:1: warning: o resultado `trt` da árvore `guia` indica "
        "`TensorRT-LLM`, que não está em engines.yml; acrescente-o com o hardware em que ele "
        "roda (`roda`, `roda_fonte`)",
    ]


def test_the_tables_own_mistakes_are_errors_at_their_lines(tmp_path):
    table = (
        TABLE.replace("roda: [apple]", "roda: [apple, risc-v]")
        .replace(
            'roda_fonte: ["Documentação do vLLM: https://docs.vllm.ai/en/latest/getting_started/installation/"]',
            "roda_fonte: [vLLM roda na AMD]",
        )
        .replace('      amd: ["Lição 28', '      amd: ["Lição 28 sem aspas", "Lição 28')
        .replace("nomes: [TensorRT-LLM, TRT-LLM]", "nomes: [TensorRT-LLM, vllm]")
        .replace(
            '      nvidia: ["Guia: “Compilado',
            '      amd: ["Guia: “x”"]\n      nvidia: ["Guia: “Compilado',
        )
    )
    assert course_with(tmp_path, table=table) == [
        f"01-arvore.md:{RESULT_TRT_LINE}:1: error: a árvore `guia` leva a `TensorRT-LLM` "
        "(resultado `trt`) pelo caminho hardware=amd → goal=max → budget=high, mas engines.yml "
        "diz que TensorRT-LLM só roda em nvidia, não em amd",
        "engines.yml:8:1: error: o engine `mlx` roda em `risc-v`, que não é um tipo de hardware "
        "desta tabela (o `hardware:` só leva a amd, apple, nvidia)",
        "engines.yml:15:1: error: a `roda_fonte` de `vllm` não cita nada: dê o endereço da "
        "documentação do engine, ou as palavras de um texto do curso entre “ ”",
        "engines.yml:18:1: error: o `indicado` de `vllm` não cita o texto: escreva as palavras do "
        "texto entre “ ” e diga de qual texto elas vêm",
        "engines.yml:20:1: error: o nome `vllm` já é de `vllm`",
        "engines.yml:24:1: error: `tensorrt-llm` é indicado para `amd`, mas `roda` não lista esse "
        "hardware: um texto só pode indicar um engine no hardware em que ele roda",
    ]


def test_a_recommendation_no_text_gives_is_only_a_note(tmp_path):
    """Runs on AMD, but no text recommends vLLM there: a note, and `--strict` still passes."""
    table = TABLE.replace(
        '      amd: ["Lição 28: “GPU AMD → vLLM (suporte a AMD ROCm).”"]\n', ""
    ).replace("    roda: [nvidia]\n", "    roda: [nvidia, amd]\n")
    note = (
        "a árvore `guia` indica `vLLM` (resultado `vllm`) pelo caminho hardware=amd → "
        "goal=general; vLLM roda em amd, mas nenhum texto em engines.yml o indica ali (só em "
        "nvidia): diga no resultado de quem é o conselho"
    )
    problems = course_with(tmp_path, table=table)
    assert problems[0] == f"01-arvore.md:{RESULT_VLLM_LINE}:1: note: {note}"
    assert all(": note: " in p for p in problems), problems
    done = run("check", "--strict", str(tmp_path / "lessons"))
    assert done.returncode == 0
    assert f"note: {note}" in done.stdout


def test_a_note_is_not_counted_as_a_warning_of_the_course(tmp_path):
    table = TABLE.replace(
        '      amd: ["Lição 28: “GPU AMD → vLLM (suporte a AMD ROCm).”"]\n', ""
    ).replace("    roda: [nvidia]\n", "    roda: [nvidia, amd]\n")
    problems = course_with(tmp_path, table=table)
    course = load_course(tmp_path / "lessons")
    assert problems and course.warnings == () and course.errors == ()


def test_an_engine_the_tree_advises_against_gets_no_note(tmp_path):
    table = TABLE.replace(
        '      amd: ["Lição 28: “GPU AMD → vLLM (suporte a AMD ROCm).”"]\n', ""
    ).replace("    roda: [nvidia]\n", "    roda: [nvidia, amd]\n")
    tree = TREE
    for why in ("Padrão.", "Compilado."):
        tree = tree.replace(f"recommended\n    why: {why}", f"avoid\n    why: {why}")
    assert course_with(tmp_path, table=table, tree=tree) == []


def test_curso_check_strict_fails_on_the_warning(tmp_path):
    course_with(tmp_path)
    done = run("check", "--strict", str(tmp_path / "lessons"))
    assert done.returncode == 1
    assert "error: a árvore `guia` leva a `TensorRT-LLM`" in done.stdout


def test_the_table_is_read_from_the_disk_cache_the_second_time(tmp_path):
    course_with(tmp_path)
    cache = LessonCache(tmp_path / "cache")
    first = read_engines(tmp_path / "lessons", cache)
    assert len(cache.used) == 1
    again = read_engines(tmp_path / "lessons", LessonCache(tmp_path / "cache"))
    assert (
        again == first
        and again.table is not None
        and set(again.table.engines)
        == {
            "mlx",
            "vllm",
            "tensorrt-llm",
        }
    )


def test_the_course_trees_send_no_engine_to_hardware_it_does_not_run_on():
    course = load_course(REPO_LESSONS)
    engines = read_engines(REPO_LESSONS)
    assert engines.problems == () and engines.table is not None
    assert check_engines(course.trees.values(), engines.table) == []
    named = {
        name for tree in course.trees.values() for r in tree.results.values() for name in r.engines
    }
    assert all(engines.table.find(name) for name in named), "every engine of a tree is in the table"


def test_every_fonte_quotes_the_course_texts_word_for_word():
    """The source texts: ../shared/seeds or CURSO_SEEDS_DIR (skipped without them, outside CI)."""
    seeds = seeds_dir()
    texts = " ".join(" ".join(p.read_text(encoding="utf-8").split()) for p in seeds.glob("*.txt"))
    assert len(list(seeds.glob("*.txt"))) == 3
    table = yaml.safe_load((REPO_LESSONS / ENGINES_FILE).read_text(encoding="utf-8"))
    said_by_texts = [
        (eid, said)
        for eid, entry in table["engines"].items()
        for said in [
            *entry["roda_fonte"],
            *(q for quotes in entry.get("indicado", {}).values() for q in quotes),
            entry.get("nota") or "",
        ]
    ]
    quotes = [(eid, q) for eid, said in said_by_texts for q in re.findall(r"“([^”]+)”", said)]
    assert len(quotes) >= 20
    assert [(eid, q) for eid, q in quotes if " ".join(q.split()) not in texts] == []


def test_every_recommendation_names_its_text_and_every_fact_its_source():
    """`indicado` is a text's advice (named, quoted); `roda` cites documentation or a text."""
    table = yaml.safe_load((REPO_LESSONS / ENGINES_FILE).read_text(encoding="utf-8"))
    texts = ("Guia de Ahmad Osman", "Lição 28 da Fase 17", "Artigo")
    for eid, entry in table["engines"].items():
        for quotes in entry.get("indicado", {}).values():
            assert all(q.startswith(texts) and "“" in q for q in quotes), eid
        assert all("“" in f or "https://" in f for f in entry["roda_fonte"]), eid
        assert set(entry.get("indicado", {})) <= set(entry["roda"]), eid
    assert "amd" in table["engines"]["ollama"]["roda"], "E7: o Ollama roda em GPUs AMD"
    assert "amd" not in table["engines"]["ollama"].get("indicado", {})


def test_without_the_source_texts_the_test_is_skipped_with_where_to_put_them(tmp_path, monkeypatch):
    monkeypatch.setenv("CURSO_SEEDS_DIR", str(tmp_path / "nada"))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        seeds_dir()
    assert str(skipped.value) == (
        f"os textos-fonte do curso não estão em {tmp_path / 'nada'}: ponha-os em "
        f"{PROJECT_ROOT.parent / 'shared' / 'seeds'} (ao lado do clone) ou aponte "
        "CURSO_SEEDS_DIR para a pasta deles"
    )
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception):
        seeds_dir()
    (tmp_path / "nada").mkdir()
    assert seeds_dir() == tmp_path / "nada"
