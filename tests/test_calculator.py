"""``calculadora`` blocks: formulas checked at load with file:line, evaluated by simpleeval with
a whitelist, pt-BR input, clear messages instead of 500s, the GET form and the htmx fragment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.content.calculators import compute, offline_calculator, parse_calculator
from app.content.course import load_course
from tests.support.cli import run
from tests.support.html import HX, soup, text
from tests.support.learning import COURSE, KERNELS
from tests.support.lessons import folder_with

DECODE = KERNELS.calculators["teto-do-decode"]
BLOCK = """\
id: razao
title: Uma razão
inputs:
  - name: a
    label: A
    default: 10
    min: 0
    max: 100
  - name: b
    label: B
    default: 2
    min: 0
    max: 100
outputs:
  - label: A sobre B
    formula: {formula}
    words: A ÷ B
"""


def calculator(formula: str = "a / b"):
    return parse_calculator(BLOCK.format(formula=formula), Path("licao.md"), 10)


def test_the_lesson_calculator_gives_the_round_numbers_of_the_text():
    result = compute(DECODE, {})
    assert result.values == ("20", "50")  # 10 bilhões × 2 bytes = 20 GB; 1.000 ÷ 20 = 50
    assert compute(DECODE, {"bytes_por_parametro": "1"}).values == ("10", "100")


def test_pt_br_input_and_three_significant_figures():
    typed = {"parametros": "70", "bytes_por_parametro": "0,5", "banda": "3.350 GB/s"}
    assert compute(DECODE, typed).values == ("35", "95,7")


def test_out_of_range_and_not_a_number_are_messages_not_errors():
    result = compute(DECODE, {"parametros": "0", "banda": "muito"})
    assert result.values == (None, None)
    assert result.errors["parametros"] == "Digite um valor de 0,1 a 2.000."
    assert result.errors["banda"].startswith("“muito” não é um número.")


def test_division_by_zero_is_a_message():
    calc, problems = calculator()
    assert problems == []
    result = compute(calc, {"b": "0"})
    assert result.values == (None,)
    assert result.problem == "Com esses valores a fórmula divide por zero; mude um valor."


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("a / c", "a fórmula `a / c` usa `c`, que não é uma entrada da calculadora"),
        ("__import__('os')", "a fórmula `__import__('os')` chama `__import__`; as funções"),
        ("a.__class__", "a fórmula `a.__class__` não dá um número com os valores padrão"),
        ("a / (b - 2)", "a fórmula `a / (b - 2)` divide por zero com os valores padrão"),
        ("a +", "a fórmula `a +` não é uma expressão válida"),
        ("a < b", "a fórmula `a < b` não dá um número com os valores padrão"),
    ],
)
def test_bad_formulas_are_errors_at_their_line(formula, message):
    calc, problems = calculator(formula)
    assert calc is None
    (problem,) = problems
    assert problem.line == 10 + 15  # the `formula:` line of the block
    assert problem.message.startswith(message)


def test_curso_check_reports_a_bad_formula_with_file_and_line(tmp_path):
    body = "```calculadora\n" + BLOCK.format(formula="a * x") + "```\n"
    folder = folder_with(tmp_path, body)
    result = run("check", str(folder))
    assert result.returncode == 1
    line = (folder / "01-a.md").read_text(encoding="utf-8").splitlines().index(
        "    formula: a * x"
    ) + 1
    assert f"01-a.md:{line}:" in result.stdout
    assert "usa `x`, que não é uma entrada da calculadora" in result.stdout


def test_a_calculator_id_used_twice_in_a_lesson_is_an_error_at_the_second(tmp_path):
    block = "```calculadora\n" + BLOCK.format(formula="a / b") + "```\n"
    folder = folder_with(tmp_path, block + "\n" + block)
    lines = (folder / "01-a.md").read_text(encoding="utf-8").splitlines()
    second = [n + 1 for n, line in enumerate(lines, 1) if line == "```calculadora"][
        1
    ]  # its 1st line
    errors = [str(e).replace(f"{folder}/", "") for e in load_course(folder).errors]
    assert errors == [f"01-a.md:{second}:1: error: id de calculadora repetido na lição: `razao`"]


def test_the_get_form_shows_the_result_in_the_page(client):
    page = soup(
        client.get(
            "/licoes/kernels?calculadora=teto-do-decode&parametros=70&bytes_por_parametro=0,5&banda=3350"
        )
    )
    box = page.select_one("#calculadora-teto-do-decode")
    form = box.select_one("form")
    assert (form["method"], form["action"]) == ("get", "/licoes/kernels#calculadora-teto-do-decode")
    # Issue 38: the result waited 500 ms after the last key (about 470 ms a step in the walk);
    # the wait before asking is now under the 200 ms a step may take.
    delay = re.search(r"input changed delay:(\d+)ms", form["hx-trigger"])
    assert delay and int(delay.group(1)) <= 150, form["hx-trigger"]
    assert box.select_one("#calculadora-teto-do-decode-parametros")["value"] == "70"
    outputs = [text(dd) for dd in box.select(".calculator-output dd")]
    assert outputs == [
        "Estimativa: ≈ 35 GB Fórmula: parâmetros lidos por token (em bilhões) × bytes por "
        "parâmetro",
        "Estimativa: ≈ 95,7 tokens/s Fórmula: banda de memória ÷ pesos lidos por token",
    ]


def test_a_refused_value_in_the_page_marks_its_input(client):
    page = soup(client.get("/licoes/kernels?calculadora=teto-do-decode&banda=0"))
    field = page.select_one("#calculadora-teto-do-decode-banda")
    assert field["aria-invalid"] == "true"
    assert text(page.select_one("#calculadora-teto-do-decode-banda-erro")) == (
        "Digite um valor de 1 a 20.000."
    )
    assert "Banda de memória: Digite um valor de 1 a 20.000." in text(
        page.select_one(".calculator-problems")
    )


def test_the_htmx_fragment_announces_and_keeps_a_shareable_url(client):
    response = client.get(
        "/licoes/kernels/calculadoras/teto-do-decode?parametros=10&bytes_por_parametro=1&banda=1000",
        headers=HX,
    )
    assert response.status_code == 200
    result = soup(response).select_one("#calculadora-teto-do-decode-resultado")
    assert result["data-announce"] == (
        "Pesos lidos por token (sem o KV cache): estimativa ≈ 10 GB. Teto do decode: estimativa "
        "≈ 100 tokens/s."
    )
    assert response.headers["HX-Replace-Url"] == (
        "/licoes/kernels?calculadora=teto-do-decode&parametros=10&bytes_por_parametro=1"
        "&banda=1000#calculadora-teto-do-decode"
    )
    bad = client.get("/licoes/kernels/calculadoras/teto-do-decode?banda=1e999", headers=HX)
    assert bad.status_code == 200
    assert "fora do alcance" in text(soup(bad))
    assert client.get("/licoes/kernels/calculadoras/nao-existe", headers=HX).status_code == 404


@pytest.mark.parametrize(
    "minus",
    ["\u2212", "\u2013", "\ufe63", "\u2010", "\uff0d"],
    ids=["U+2212", "U+2013", "U+FE63", "U+2010", "U+FF0D"],
)
def test_a_calculator_reads_a_minus_sign_or_a_dash_as_a_minus(tmp_path, minus):
    from fastapi.testclient import TestClient

    from app.main import create_app
    from tests.support.app import make_settings

    block = BLOCK.format(formula="a / b").replace("min: 0", "min: -100")
    folder = folder_with(tmp_path, f"```calculadora\n{block}```\n")
    with TestClient(create_app(make_settings(tmp_path, folder))) as client:
        response = client.get(
            f"/licoes/decode-prefill/calculadoras/razao?a={minus}5&b=2", headers=HX
        )
    assert response.status_code == 200
    result = soup(response).select_one("#calculadora-razao-resultado")
    assert result["data-announce"] == "A sobre B: estimativa ≈ -2,5."


def test_every_calculator_of_the_course_works_out_offline_from_its_page():
    """Issue 40: a downloaded lesson's calculators work with no network (static/js/calculator.js,
    tests/test_offline_reading.py); a formula the page could not work out would lose that."""
    found = [c for lesson in COURSE.lessons for c in lesson.calculators.values()]
    assert found and [c.id for c in found if offline_calculator(c) is None] == []
    assert offline_calculator(DECODE)["o"][1][0] == [
        "div", "banda", ["mul", "parametros", "bytes_por_parametro"]
    ]  # fmt: skip


@pytest.mark.parametrize(
    "formula", ["a if a > b else b", "round(a, 1 + 1)", "12345678901234567 * a"]
)
def test_a_formula_the_page_cannot_work_out_as_the_server_stays_online_only(formula):
    found, problems = calculator(formula)
    assert problems == [] and found is not None
    assert offline_calculator(found) is None
