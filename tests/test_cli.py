"""The `curso` command line: checks run as a real process, the tree walk in this process too."""

from __future__ import annotations

import subprocess

from tests.support.app import REPO_LESSONS
from tests.support.cli import CURSO, cli_runner, run
from tests.support.lessons import GOOD


def test_check_passes_on_the_course():
    result = run("check", str(REPO_LESSONS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "3 lições válidas, nenhum problema."


def test_check_points_at_the_line_of_a_broken_quiz(tmp_path):
    (tmp_path / "01-boa.md").write_text(GOOD, encoding="utf-8")
    broken = GOOD.replace("slug: decode-prefill", "slug: quebrada").replace("order: 1", "order: 2")
    broken = broken.replace("  answer: [b]", "  answer: [x]").replace("      text: Prefill\n", "")
    (tmp_path / "02-quebrada.md").write_text(broken, encoding="utf-8")
    result = run("check", str(tmp_path))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{tmp_path}/02-quebrada.md:24:7: error: campo obrigatório ausente: `text`",
    ]
    assert result.stderr.strip() == "1 erro encontrado."


def test_check_reports_every_problem_before_exiting(tmp_path):
    broken = GOOD.replace("  answer: [b]", "  answer: [x]").replace("minutes: 10", "minutes: dez")
    (tmp_path / "a.md").write_text(broken, encoding="utf-8")
    result = run("check", str(tmp_path))
    assert result.returncode == 1
    lines = [line.replace(f"{tmp_path}/", "") for line in result.stdout.splitlines()]
    assert lines == [
        "a.md:6:1: error: `minutes` deve ser um número inteiro",
        "a.md:33:12: error: a resposta `x` da pergunta `fase-banda` não é uma opção; "
        "opções: a, b, c",
    ]


def test_arvore_walks_like_the_web_and_prints_json():
    """In this process (Typer's CliRunner); the test below runs the same walk as a real process."""
    curso = cli_runner()
    walked = curso("arvore", "guia-fase17", input="4\n3\n2\n")
    assert walked.exit_code == 0, walked.output
    assert (
        "Caminho: NVIDIA Hopper (H100 / H200) → 100–10 mil usuários / produção → Agentes de vários "
        "turnos" in walked.stdout
    )
    assert "Resultado: SGLang — Recomendado" in walked.stdout
    assert (
        "Por quê: Em vários turnos de agentes, o RadixAttention do SGLang domina." in walked.stdout
    )
    retry = curso("arvore", "guia-osman", input="9\nx\n1\n")
    assert (
        retry.stdout.count("Digite um número de 1 a 6.") == 2
        and "Resultado: MLX / MLX-LM" in retry.stdout
    )
    odd = curso("arvore", "guia-osman", input="²\n①\n" + "1" * 5000 + "\n1\n")
    assert odd.exit_code == 0, odd.output
    assert odd.stdout.count("Digite um número de 1 a 6.") == 3  # the guide's six hardware answers
    import json

    printed = curso("arvore", "guia-osman", "--json")
    tree = json.loads(printed.stdout)
    assert tree["id"] == "guia-osman" and len(tree["results"]) == 9
    missing = curso("arvore", "--json")
    assert missing.exit_code == 2 and "Informe o id da árvore" in missing.stderr


def test_arvore_walks_as_a_real_process():
    walked = subprocess.run(
        [*CURSO, "arvore", "guia-fase17"],
        input="4\n3\n2\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert walked.returncode == 0, walked.stderr
    assert "Resultado: SGLang — Recomendado" in walked.stdout
