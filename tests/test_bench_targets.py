"""Issue 35's table in the benchmark: each target beside its anchor of the same run; a target
whose row or anchor measured nothing is a failure, never "met"."""

from __future__ import annotations

from bench.run import (
    ANONYMOUS_LESSON,
    LEARNER_LESSON,
    POST_ANCHOR,
    RAW_ANCHOR,
    TARGETS,
    Row,
    judge,
    targets_table,
)


def row(name: str, cpu_ms: float, requests: int = 100, errors: int = 0) -> Row:
    measured = Row(name, 1000, 5, 20, errors, requests, cpu_ms=cpu_ms)
    return judge(measured, lambda r: r.errors == 0)


def line(table: str, label: str) -> list[str]:
    found = [x for x in table.splitlines() if x.startswith(f"| {label} |")]
    assert len(found) == 1, table
    return [cell.strip() for cell in found[0].strip("|").split("|")]


ANCHORS = {RAW_ANCHOR: row(RAW_ANCHOR, 0.04), POST_ANCHOR: row(POST_ANCHOR, 0.5)}


def test_each_target_is_judged_beside_its_anchor():
    rows = [row(LEARNER_LESSON, 0.45), row(ANONYMOUS_LESSON, 0.2)]
    table, empty = targets_table(rows, ANCHORS)
    assert line(table, "lição do aluno") == [
        "lição do aluno",
        "0.45 ms de CPU",
        "0.040 ms de CPU (11.2×)",
        "≤ 0,5 ms",
        "sim",
    ]
    # 0.2 ms is 5× the raw ASGI anchor: over the 3× the issue allows
    assert line(table, "lição anônima (comprimida)")[-1] == "não"
    assert "lição do aluno" not in empty and "lição anônima (comprimida)" not in empty


def test_a_target_that_measured_nothing_is_a_failure():
    rows = [row(LEARNER_LESSON, 0.0, requests=0), row(ANONYMOUS_LESSON, 0.01)]
    table, empty = targets_table(rows, {RAW_ANCHOR: row(RAW_ANCHOR, 0.0, errors=100)})
    assert line(table, "lição do aluno")[-1] == "FALHOU (não mediu)"
    assert line(table, "lição anônima (comprimida)")[-1] == "FALHOU (não mediu)", "sem âncora"
    assert set(empty) == {target.label for target in TARGETS}


def test_issue_39s_row_is_the_variant_answers_cpu_over_the_fixed_ones():
    from bench.run import VARIANT_DRAWN, VARIANT_FIXED, variant_table

    table, measured = variant_table([row(VARIANT_FIXED, 0.80), row(VARIANT_DRAWN, 0.84)])
    assert measured
    cells = line(table, "CPU por resposta: pergunta com variantes ÷ numérica fixa")
    assert cells[1:] == [
        "0.80 ms de CPU",
        "0.84 ms de CPU",
        "1.05×",
        "≤ 1,10× (1,0× mais 10% de ruído)",
        "sim",
    ]
    table, _ = variant_table([row(VARIANT_FIXED, 0.80), row(VARIANT_DRAWN, 0.96)])
    assert line(table, "CPU por resposta: pergunta com variantes ÷ numérica fixa")[-1] == "não"
    table, measured = variant_table([row(VARIANT_FIXED, 0.80)])
    assert not measured
    assert line(table, "CPU por resposta: pergunta com variantes ÷ numérica fixa")[-1] == (
        "FALHOU (não mediu)"
    )
