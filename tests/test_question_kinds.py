"""The ``numeric`` and ``ordering`` question kinds: parsing pt-BR numbers, grading, partial
credit, the stable shuffle, `curso check` with file:line, and the answer over HTTP with and
without htmx (what the learner reads and what is stored)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from app.content.course import load_course
from app.content.lessons import load_lesson
from app.content.numbers import AnswerError, format_number, parse_number
from app.learning.grading import grade_numeric, grade_order, shuffled_items, validate_order
from tests.support.app import REPO_LESSONS, make_settings, query
from tests.support.cli import run
from tests.support.html import HX, soup, text
from tests.support.learning import answer_form
from tests.support.lessons import GOOD, folder_with

COURSE = load_course(REPO_LESSONS)
KERNELS = COURSE.get("kernels")
SPEEDUP = KERNELS.questions["ganho-3090"]
TREE_ORDER = KERNELS.questions["ordem-da-arvore"]
PIPELINE_SLUG = next(
    lesson.slug for lesson in COURSE.lessons if "ordem-do-pipeline" in lesson.questions
)


# --- parsing numbers as a Brazilian learner types them -------------------------------------


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("4,4", "4.4"),
        ("4.4", "4.4"),
        ("4,41×", "4.41"),
        ("4,41 ×", "4.41"),
        ("≈ 4,4", "4.4"),
        ("1.000", "1000"),
        ("1 000", "1000"),
        ("1\u00a0000", "1000"),
        ("1.000,5", "1000.5"),
        ("-3", "-3"),
        ("0,23", "0.23"),
        ("64 tok/s", "64"),
    ],
)
def test_pt_br_numbers_are_read(typed, value):
    assert parse_number(typed, unit="tok/s") == Decimal(value)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "Digite um número antes de enviar a resposta."),
        ("   ", "Digite um número antes de enviar a resposta."),
        (
            "quatro",
            "“quatro” não é um número. Digite só algarismos, com vírgula para as casas decimais "
            "(ex.: 4,4).",
        ),
        (
            "4,4,4",
            "“4,4,4” não é um número. Digite só algarismos, com vírgula para as casas decimais "
            "(ex.: 4,4).",
        ),
        (
            "NaN",
            "“NaN” não é um número. Digite só algarismos, com vírgula para as casas decimais (ex.: "
            "4,4).",
        ),
        (
            "Infinity",
            "“Infinity” não é um número. Digite só algarismos, com vírgula para as casas decimais "
            "(ex.: 4,4).",
        ),
        (
            "1e999",
            "Esse número está fora do alcance: nenhuma resposta deste curso é tão grande ou tão "
            "pequena.",
        ),
        ("9" * 41, "Essa resposta é longa demais para um número."),
    ],
)
def test_what_is_not_a_number_gets_a_message_in_portuguese(typed, message):
    with pytest.raises(AnswerError) as caught:
        parse_number(typed)
    assert str(caught.value) == message


@hsettings(max_examples=400, deadline=None)
@given(st.text(max_size=60))
def test_fuzz_the_parser_returns_a_finite_number_or_a_clear_message(typed):
    try:
        value = parse_number(typed, unit="×")
    except AnswerError as exc:
        assert str(exc) and "Traceback" not in str(exc)
        return
    assert value.is_finite()
    assert -12 <= value.adjusted() <= 12 or value == 0
    assert format_number(value)  # every accepted number can be shown back


@hsettings(max_examples=300, deadline=None)
@given(
    st.decimals(
        min_value=Decimal("-999999"),
        max_value=Decimal("999999"),
        places=3,
        allow_nan=False,
        allow_infinity=False,
    )
)
def test_fuzz_a_number_written_the_pt_br_way_reads_back_the_same(number):
    assert parse_number(format_number(number)) == number


# --- grading ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "correct", "specific"),
    [
        ("4,4", True, ""),
        ("4.41", True, ""),
        ("4,5", True, ""),
        ("4,3", False, ""),
        ("49,5", False, "Você subtraiu em vez de dividir"),
        ("0,23", False, "Você dividiu ao contrário"),
    ],
)
def test_numeric_grade_within_tolerance_with_specific_wrong_values(typed, correct, specific):
    result = grade_numeric(SPEEDUP, parse_number(typed))
    assert result.correct is correct
    assert (specific in result.wrong_html) if specific else result.wrong_html == ""


def test_relative_tolerance():
    question = KERNELS.questions["ganho-pro-6000"]  # 3,44 ± 3 %
    assert grade_numeric(question, Decimal("3.4")).correct
    assert grade_numeric(question, Decimal("3.54")).correct
    assert not grade_numeric(question, Decimal("3.55")).correct


def test_ordering_partial_credit_but_right_means_fully_right():
    right = TREE_ORDER.order
    assert grade_order(TREE_ORDER, right).correct
    assert grade_order(TREE_ORDER, right).in_place == 6
    swapped = (right[1], right[0], *right[2:])
    result = grade_order(TREE_ORDER, swapped)
    assert (result.correct, result.in_place, result.credit) == (False, 4, 4 / 6)


@pytest.mark.parametrize(
    ("positions", "message"),
    [
        ([], "Dê uma posição a cada etapa antes de enviar a resposta."),
        (
            ["mac=1", "borda=1", "uma-rtx=3", "producao=4", "contexto=5", "cluster=6"],
            "Cada posição só cabe uma etapa: dê às etapas as posições de 1 a 6, sem repetir "
            "nenhuma.",
        ),
        (
            ["mac=1", "borda=2", "uma-rtx=3", "producao=4", "contexto=5", "cluster=9"],
            "Cada posição só cabe uma etapa: dê às etapas as posições de 1 a 6, sem repetir "
            "nenhuma.",
        ),
        (
            ["mac=1", "intrusa=2"],
            "Essas etapas não fazem parte desta pergunta. Recarregue a página e tente de novo.",
        ),
        (["mac=um"], f"Cada posição deve ser um número inteiro de 1 a {len(TREE_ORDER.order)}."),
    ],
)
def test_bad_positions_are_refused_in_portuguese(positions, message):
    with pytest.raises(AnswerError) as caught:
        validate_order(TREE_ORDER, positions)
    assert str(caught.value) == message


def test_items_shuffle_is_stable_per_learner_never_the_key_and_differs_between_learners():
    orders = {
        tuple(i.id for i in shuffled_items(TREE_ORDER, f"learner{n}", "kernels")) for n in range(30)
    }
    assert TREE_ORDER.order not in orders
    assert len(orders) > 5
    once = shuffled_items(TREE_ORDER, "learner1", "kernels")
    assert shuffled_items(TREE_ORDER, "learner1", "kernels") == once
    pipeline = COURSE.get(PIPELINE_SLUG).questions["ordem-do-pipeline"]
    for n in range(30):  # three items: the rotation still keeps the key away
        assert (
            tuple(i.id for i in shuffled_items(pipeline, f"l{n}", PIPELINE_SLUG)) != pipeline.order
        )


def test_versions_follow_the_key_not_the_explanations(tmp_path):
    def version(old: str = "", new: str = "") -> str:
        path = tmp_path / "01-a.md"
        path.write_text(GOOD + "\n" + NUMERIC.replace(old, new), encoding="utf-8")
        return load_lesson(path).questions["ganho"].content_hash

    same = version()
    assert version("Razão do depois pelo antes.", "Outra explicação.") == same
    assert version("64 ÷ 14,5", "64 / 14,5") == same, "a conta é explicação"
    assert version("value: 4.41", "value: 4.42") != same
    assert version("tolerance: 0.1", "tolerance: 0.2") != same


# --- curso check --------------------------------------------------------------------------

NUMERIC = """```quiz
- id: ganho
  kind: numeric
  prompt: Quantas vezes?
  value: 4.41
  tolerance: 0.1
  unit: "×"
  working: "64 ÷ 14,5 ≈ 4,41"
  explanation: "Razão do depois pelo antes."
  wrong:
    - value: 49.5
      explanation: "Você subtraiu."
```
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            NUMERIC.replace("  value: 4.41\n", ""),
            "01-a.md:37:3: error: falta o campo obrigatório: `value` (pergunta `ganho`, `kind: "
            "numeric`)",
        ),
        (
            NUMERIC.replace("tolerance: 0.1", "tolerance: muito"),
            "01-a.md:41:3: error: `tolerance` deve ser um número (absoluta, ex.: `0.05`) ou uma "
            "porcentagem (relativa, ex.: `2%`)",
        ),
        (
            NUMERIC.replace("value: 49.5", "value: 4.45"),
            "01-a.md:46:7: error: o valor errado 4.45 da pergunta `ganho` está dentro da "
            "tolerância do valor certo 4.41: quem digitá-lo recebe a resposta como certa",
        ),
        (
            NUMERIC.replace("  unit:", "  items: [{id: a, text: A}, {id: b, text: B}]\n  unit:"),
            "01-a.md:42:3: error: `items` só vale para perguntas do tipo `ordering` (a pergunta "
            "`ganho` é `numeric`)",
        ),
        (
            "```quiz\n- id: ordem\n  kind: ordering\n  prompt: Ordene.\n  explanation: Porque "
            "sim.\n"
            "  items:\n    - {id: a, text: A}\n    - {id: a, text: B}\n```\n",
            "01-a.md:43:8: error: a pergunta `ordem` repete o id de etapa `a`",
        ),
        (
            "```quiz\n- id: escolha\n  kind: single\n  prompt: Qual?\n  answer: [a]\n"
            "  options:\n    - {id: a, text: A, explanation: E}\n"
            "    - {id: a, text: B, explanation: F}\n```\n",
            "01-a.md:43:8: error: a pergunta `escolha` repete o id de opção `a`",
        ),
        (
            "```quiz\n- id: ordem\n  kind: ordering\n  prompt: Ordene.\n  items:\n    - {id: a, "
            "text: A}\n"
            "    - {id: b, text: B}\n```\n",
            "01-a.md:37:3: error: falta o campo obrigatório: `explanation` (pergunta `ordem`, "
            "`kind: ordering`)",
        ),
        (
            "```quiz\n- id: ordem\n  kind: ordering\n  prompt: Ordene.\n  explanation: Porque.\n"
            "  items:\n    - {id: a, text: A}\n```\n",
            "01-a.md:41:3: error: `items` precisa de pelo menos 2 itens",
        ),
        (
            "```quiz\n- id: escolha\n  kind: single\n  prompt: Qual?\n  answer: [a]\n  value: 3\n"
            "  options:\n    - {id: a, text: A, explanation: E}\n    - {id: b, text: B, "
            "explanation: E}\n```\n",
            "01-a.md:41:3: error: `value` só vale para perguntas do tipo `numeric` (a pergunta "
            "`escolha` é `single`)",
        ),
    ],
)
def test_check_reports_each_problem_with_file_line_and_column(tmp_path, body, expected):
    folder = folder_with(tmp_path, body)
    result = run("check", str(folder))
    assert result.returncode == 1
    assert expected in result.stdout.replace(str(folder) + "/", ""), result.stdout


def test_the_course_lessons_check_clean_with_the_new_kinds():
    result = run("check", str(REPO_LESSONS))
    assert result.returncode == 0, result.stdout
    kinds = {q.kind for lesson in COURSE.lessons for q in lesson.questions.values()}
    assert {"numeric", "ordering"} <= kinds
    count = sum(
        q.kind == kind
        for lesson in COURSE.lessons
        for q in lesson.questions.values()
        for kind in ("numeric", "ordering")
    )
    assert count >= 4


# --- over HTTP ----------------------------------------------------------------------------


def stored(settings, qid: str) -> list[tuple]:
    rows = query(
        settings,
        "SELECT chosen, correct, credit FROM attempt WHERE question_id = :q ORDER BY id",
        q=qid,
    )
    return [(chosen, int(correct), credit) for chosen, correct, credit in rows]


def post(client, slug: str, qid: str, data: dict, htmx: bool = True):
    page = client.get(f"/licoes/{slug}?refazer={qid}").text
    form = answer_form(page, qid, **data)
    return client.post(
        f"/licoes/{slug}/perguntas/{qid}",
        data=form,
        headers=HX if htmx else {},
        follow_redirects=False,
    )


def test_numeric_form_shows_an_input_with_its_unit_and_no_key(client):
    page = soup(client.get("/licoes/kernels"))
    box = page.select_one("#pergunta-ganho-3090")
    field = box.select_one('input[name="valor"]')
    assert field["inputmode"] == "decimal"
    assert box.select_one(f'label[for="{field["id"]}"]')
    assert text(box.select_one(".unit")) == "×"
    assert "64 ÷ 14,5" not in str(box) and "subtraiu" not in str(box), (
        "nada do gabarito antes de responder"
    )


def test_numeric_right_answer_shows_the_working_and_is_stored(client, settings):
    response = post(client, "kernels", "ganho-3090", {"valor": "4,4"})
    assert response.status_code == 200
    box = soup(response).select_one("#pergunta-ganho-3090")
    assert text(box.select_one(".verdict")) == "✓ Resposta correta"
    assert text(box.select_one(".numeric-yours")) == "Sua resposta 4,4 ×"
    assert text(box.select_one(".numeric-key")) == "Valor certo 4,41 × (aceito com ±0,1)"
    assert "64 ÷ 14,5 ≈ 4,41" in text(box.select_one(".working"))
    assert stored(settings, "ganho-3090") == [("4.4", 1, None)]


def test_numeric_foreseen_wrong_value_gets_its_own_explanation(client, settings):
    response = post(client, "kernels", "ganho-3090", {"valor": "49,5"})
    box = soup(response).select_one("#pergunta-ganho-3090")
    assert text(box.select_one(".verdict")) == "✗ Resposta incorreta"
    assert text(box.select_one(".wrong-value")).startswith("Você subtraiu em vez de dividir")
    assert stored(settings, "ganho-3090") == [("49.5", 0, None)]


def test_numeric_not_a_number_is_422_keeps_what_was_typed_and_stores_nothing(client, settings):
    response = post(client, "kernels", "ganho-3090", {"valor": "quatro"})
    assert response.status_code == 422
    box = soup(response).select_one("#pergunta-ganho-3090")
    assert text(box.select_one(".form-error")).startswith("“quatro” não é um número.")
    assert box.select_one('input[name="valor"]')["value"] == "quatro"
    assert stored(settings, "ganho-3090") == []


def test_numeric_without_javascript_redirects_and_shows_the_error_on_the_lesson(client, settings):
    response = post(client, "kernels", "ganho-3090", {"valor": "4,4,4"}, htmx=False)
    assert response.status_code == 303
    page = soup(client.get(response.headers["location"]))
    box = page.select_one("#pergunta-ganho-3090")
    assert text(box.select_one(".form-error")).startswith("“4,4,4” não é um número.")
    assert box.select_one('input[name="valor"]')["value"] == "4,4,4"
    response = post(client, "kernels", "ganho-3090", {"valor": "4,41×"}, htmx=False)
    page = soup(client.get(response.headers["location"]))
    assert text(page.select_one("#pergunta-ganho-3090 .verdict")) == "✓ Resposta correta"


THOUSANDS = (
    "Em “3.438”, o ponto separa os milhares, como se escreve no Brasil: o número é 3438, não "
    "3,438. Se quis dizer 3,438, escreva com vírgula. Se quis dizer 3438, marque a confirmação "
    "e responda de novo."
)


def test_numeric_point_read_as_thousands_asks_to_confirm_instead_of_grading(client, settings):
    response = post(client, "kernels", "ganho-pro-6000", {"valor": "3.438"})
    assert response.status_code == 422
    box = soup(response).select_one("#pergunta-ganho-pro-6000")
    assert text(box.select_one(".form-error")) == THOUSANDS
    assert box.select_one('input[name="valor"]')["value"] == "3.438"
    confirm = box.select_one('input[name="confirmado"]')
    assert confirm["type"] == "checkbox" and confirm["value"] == "3.438"
    label = box.select_one(f'label[for="{confirm["id"]}"]')
    assert text(label) == "Confirmo o número como escrevi: o ponto separa os milhares."
    assert stored(settings, "ganho-pro-6000") == [], "nothing is graded before the learner says"


def test_numeric_thousands_confirmed_is_graded_as_typed_and_a_comma_as_decimals(client, settings):
    confirmed = post(client, "kernels", "ganho-pro-6000", {"valor": "3.438", "confirmado": "3.438"})
    box = soup(confirmed).select_one("#pergunta-ganho-pro-6000")
    assert text(box.select_one(".verdict")) == "✗ Resposta incorreta"
    comma = post(client, "kernels", "ganho-pro-6000", {"valor": "3,438"})
    assert text(soup(comma).select_one("#pergunta-ganho-pro-6000 .verdict")) == (
        "✓ Resposta correta"
    )
    assert stored(settings, "ganho-pro-6000") == [("3438", 0, None), ("3.438", 1, None)]


def test_numeric_thousands_that_are_right_or_a_changed_number_are_not_confirmed(client, settings):
    # A confirmation of another text does not count: "4.410" is asked about again.
    other = post(client, "kernels", "ganho-3090", {"valor": "4.410", "confirmado": "3.438"})
    assert other.status_code == 422
    assert text(soup(other).select_one(".form-error")).startswith("Em “4.410”, o ponto separa")
    # "4.4" has no thousands: it is graded at once.
    plain = post(client, "kernels", "ganho-3090", {"valor": "4.4"})
    assert text(soup(plain).select_one(".verdict")) == "✓ Resposta correta"
    assert stored(settings, "ganho-3090") == [("4.4", 1, None)]


def test_numeric_thousands_without_javascript_keeps_the_question_on_the_lesson(client, settings):
    response = post(client, "kernels", "ganho-pro-6000", {"valor": "3.438"}, htmx=False)
    assert response.status_code == 303
    page = soup(client.get(response.headers["location"]))
    box = page.select_one("#pergunta-ganho-pro-6000")
    assert text(box.select_one(".form-error")) == THOUSANDS
    assert box.select_one('input[name="confirmado"]')["value"] == "3.438"
    assert stored(settings, "ganho-pro-6000") == []


def test_ordering_form_has_a_position_select_per_item_in_the_learner_order(client):
    page = soup(client.get("/licoes/kernels"))
    box = page.select_one("#pergunta-ordem-da-arvore")
    items = [li["data-item"] for li in box.select(".ordering-item")]
    assert sorted(items) == sorted(TREE_ORDER.order) and tuple(items) != TREE_ORDER.order
    for position, li in enumerate(box.select(".ordering-item"), start=1):
        select = li.select_one('select[name="posicao"]')
        assert box.select_one(f'label[for="{select["id"]}"]')
        assert select.select_one("option[selected]")["value"] == f"{li['data-item']}={position}"
        assert len(select.select("option")) == 6
    again = soup(client.get("/licoes/kernels")).select("#pergunta-ordem-da-arvore .ordering-item")
    assert [li["data-item"] for li in again] == items, "a mesma ordem a cada visita"


def test_ordering_partial_answer_shows_credit_and_right_order_and_stores_credit(client, settings):
    order = TREE_ORDER.order
    swapped = (order[1], order[0], *order[2:])
    positions = [f"{item}={n}" for n, item in enumerate(swapped, start=1)]
    response = post(client, "kernels", "ordem-da-arvore", {"posicao": positions})
    box = soup(response).select_one("#pergunta-ordem-da-arvore")
    assert text(box.select_one(".verdict")) == "✗ Resposta incorreta"
    assert text(box.select_one(".ordering-credit")) == "4 de 6 na posição certa"
    assert [text(li) for li in box.select(".right-order li")][0].startswith(
        "Fluxos de ML/LLM centrados no Mac"
    )
    assert text(box.select(".graded-step")[0]).startswith("Vai na posição 2")
    assert stored(settings, "ordem-da-arvore") == [(",".join(swapped), 0, 4 / 6)]
    response = post(
        client,
        "kernels",
        "ordem-da-arvore",
        {"posicao": [f"{item}={n}" for n, item in enumerate(order, start=1)]},
    )
    box = soup(response).select_one("#pergunta-ordem-da-arvore")
    assert text(box.select_one(".verdict")) == "✓ Resposta correta"
    assert text(box.select_one(".ordering-credit")) == "6 de 6 na posição certa"
    assert not box.select_one(".right-order")
    assert stored(settings, "ordem-da-arvore")[-1] == (",".join(order), 1, 1.0)


def test_ordering_repeated_position_is_422_without_js_a_flash(client, settings):
    positions = ["mac=1", "borda=1", "uma-rtx=3", "producao=4", "contexto=5", "cluster=6"]
    response = post(client, "kernels", "ordem-da-arvore", {"posicao": positions}, htmx=False)
    assert response.status_code == 303
    page = soup(client.get(response.headers["location"]))
    assert text(page.select_one("#pergunta-ordem-da-arvore .form-error")).startswith(
        "Cada posição só cabe uma etapa"
    )
    response = post(client, "kernels", "ordem-da-arvore", {"posicao": positions})
    assert response.status_code == 422
    assert stored(settings, "ordem-da-arvore") == []


def test_kind_labels_know_the_new_kinds():
    from app.web.templating import kind_label

    assert kind_label("numeric") == "numérica"
    assert kind_label("ordering") == "ordenação"


def test_export_lists_the_numeric_value_and_the_order(client, settings):
    # "1.000" reads as one thousand (wrong here), so the learner confirms it before grading.
    post(client, "kernels", "ganho-3090", {"valor": "1.000", "confirmado": "1.000"})
    rows = query(settings, "SELECT chosen FROM attempt WHERE question_id = 'ganho-3090'")
    assert rows == [("1000",)]


@pytest.mark.parametrize(
    "position",
    ["²", "①", "٣", "1" * 5000, "+1", " 1", "1_0"],
    ids=["superscript", "circled", "arabic-indic", "5000-digits", "plus", "space", "underscore"],
)
def test_an_ordering_position_that_is_not_ascii_digits_is_a_422_in_portuguese(
    client, settings, position
):
    """``str.isdigit()`` takes "²" and "①", which ``int()`` refuses (a 500 before)."""
    positions = [f"{item}={n}" for n, item in enumerate(TREE_ORDER.order, start=1)]
    positions[0] = f"{TREE_ORDER.order[0]}={position}"
    response = post(client, "kernels", "ordem-da-arvore", {"posicao": positions})
    assert response.status_code == 422
    assert text(soup(response).select_one("#pergunta-ordem-da-arvore .form-error")) == (
        f"Cada posição deve ser um número inteiro de 1 a {len(TREE_ORDER.order)}."
    )
    response = post(client, "kernels", "ordem-da-arvore", {"posicao": positions}, htmx=False)
    assert response.status_code == 303
    page = soup(client.get(response.headers["location"]))
    assert text(page.select_one("#pergunta-ordem-da-arvore .form-error")) == (
        f"Cada posição deve ser um número inteiro de 1 a {len(TREE_ORDER.order)}."
    )
    assert stored(settings, "ordem-da-arvore") == []


NEGATIVE = """
```quiz
- id: variacao
  kind: numeric
  prompt: Quanto a vazão variou, em tokens/s?
  value: -4.4
  tolerance: 0.05
  working: "32 − 36,4 = −4,4"
  explanation: "Caiu 4,4 tokens/s."
```
"""


@pytest.mark.parametrize(
    "minus",
    ["-", "\u2212", "\u2013", "\ufe63", "\u2010", "\uff0d"],
    ids=["hyphen", "U+2212", "U+2013", "U+FE63", "U+2010", "U+FF0D"],
)
def test_a_minus_typed_as_a_minus_sign_or_a_dash_is_read_as_a_minus(tmp_path, minus):
    from fastapi.testclient import TestClient

    from app.main import create_app

    settings = make_settings(tmp_path, folder_with(tmp_path, NEGATIVE))
    with TestClient(create_app(settings)) as client:
        response = post(client, "decode-prefill", "variacao", {"valor": f"{minus}4,4"})
    assert response.status_code == 200
    box = soup(response).select_one("#pergunta-variacao")
    assert text(box.select_one(".verdict")) == "✓ Resposta correta"
    assert text(box.select_one(".numeric-yours")) == "Sua resposta -4,4"
    assert stored(settings, "variacao") == [("-4.4", 1, None)]
