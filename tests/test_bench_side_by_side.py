"""Issue 38's side-by-side table (bench/side_by_side.py): every row of the issue, each measured
for both sites, the jumps too."""

from __future__ import annotations

from bench.side_by_side import rows, table

FIGURES = {
    "header 360": 48,
    "header 1024": 48,
    "header 1280": 48,
    "paragraph 360": 300,
    "paragraph 1280": 200,
    "height 360": 26_000,
    "search p50": 20,
    "next p50": 60,
    "tbt": 40,
    "lcp": 1100,
    "jumps landed": 51,
    "jumps": 51,
}


def test_every_row_of_the_issue_is_measured_for_both_sites():
    mkdocs = {**FIGURES, "jumps landed": 30, "jumps": 36}
    lines = rows(FIGURES, mkdocs)
    assert [line[0].split(" (")[0] for line in lines] == [
        "altura do cabeçalho, 360 / 1024 / 1280 px",
        "y do primeiro parágrafo, 360 px",
        "y do primeiro parágrafo, 1280 px",
        "altura da lição kernels, 360 px, visitante",
        "busca: última tecla → resultados pintados, p50 de 20",
        "próxima lição: clique → h1 pintado, p50 de 20",
        "Lighthouse celular TBT / LCP, mediana de 3",
        "saltos que caem inteiros abaixo do cabeçalho",
    ]
    assert lines[-1][1:] == ("51 / 51", "30 / 36", "atingida")
    assert "| saltos que caem inteiros abaixo do cabeçalho (todos) | 51 / 51 | 30 / 36 |" in table(
        lines
    )


def test_a_jump_that_misses_is_a_missed_row():
    lines = rows({**FIGURES, "jumps landed": 50}, FIGURES)
    assert lines[-1][1:] == ("50 / 51", "51 / 51", "NÃO")
