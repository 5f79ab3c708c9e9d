"""Numeric variants (issue 39, item 2): a numeric question with ``params`` gives each learner
their own numbers (HMAC of the server's secret, the learner, the question and the try), the
same on reload and on a second device; the key and the explanation are worked out on the
server and reach the page only after the answer; the variant is stored with the attempt;
``curso check`` tries every expression on every point of the grid."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content.course import load_course
from app.content.variants import decode, encode, excerpt_html, instance, shown
from app.learning.variants import learner_variant, page_variant
from app.main import create_app
from tests.support.accounts import instructor, new_browser, sign_in, sign_up
from tests.support.app import REPO_LESSONS, db_rows, make_settings
from tests.support.cli import run
from tests.support.html import HX, csrf_from, soup, text
from tests.support.lessons import folder_with, messages
from tests.support.pools import VARIANT, course_folder

SLUG, QID = "decode-prefill", "teto-variante"


def errors_of(tmp_path: Path, body: str) -> list[str]:
    return [m for m in messages(load_course(folder_with(tmp_path, body))) if ": error: " in m]


@pytest.fixture
def varied(tmp_path: Path, database_url: str):
    settings = make_settings(tmp_path, folder_with(tmp_path, VARIANT), database_url)
    with TestClient(create_app(settings)) as client:
        yield client, settings


def question_of(client: TestClient):
    return client.app.state.live_course.current().get(SLUG).questions[QID]


def learner_of(settings) -> str:
    return db_rows(settings, "SELECT id FROM learner ORDER BY created_at DESC")[0][0]


def variant_of_try(client: TestClient, settings, attempt: int) -> tuple:
    """The question and the index of the variant the newest learner gets on try ``attempt``."""
    question = question_of(client)
    secret = client.app.state.secret.encode()
    return question, learner_variant(secret, learner_of(settings), SLUG, question, attempt)


def prompt_of(html: str, qid: str = QID) -> str:
    return text(soup(html).select_one(f"#pergunta-{qid} legend"))


def send(
    client: TestClient,
    value: str,
    token: str | None = None,
    htmx: bool = True,
    query: str = "",
    qid: str = QID,
):
    page = client.get(f"/licoes/{SLUG}{query}").text
    form = soup(page).select_one(f"#pergunta-{qid} form")
    data = {
        "csrftoken": csrf_from(page),
        "chave": form.select_one('input[name="chave"]')["value"],
        "versao": form.select_one('input[name="versao"]')["value"],
        "variante": token or form.select_one('input[name="variante"]')["value"],
        "valor": value,
    }
    return client.post(
        f"/licoes/{SLUG}/perguntas/{qid}",
        data=data,
        headers=HX if htmx else {},
        follow_redirects=False,
    )


def pt(number: Decimal) -> str:
    return str(number.normalize()).replace(".", ",")


# --- curso check ---------------------------------------------------------------------------


def test_the_question_loads_as_its_first_variant_with_twelve_points(tmp_path):
    lesson = load_course(folder_with(tmp_path, VARIANT)).get(SLUG)
    question = lesson.questions[QID]
    assert len(question.variants.grid) == 12, "3 bandwidths × 4 weight sizes (4, 8, 12, 16)"
    assert "936 GB/s" in question.legend_html and "4 GB" in question.legend_html
    assert question.numeric.value == Decimal("234.0")
    assert question.numeric.unit == "tok/s"


def test_curso_check_tries_every_point_of_the_grid_and_names_the_failing_one(tmp_path):
    broken = VARIANT.replace("value: banda / pesos", "value: banda / (pesos - 8)")
    assert errors_of(tmp_path, broken) == [
        "01-a.md:43:3: error: `value` da pergunta `teto-variante` falha em banda = 936, "
        "pesos = 8: divisão por zero"
    ]


def test_curso_check_refuses_unknown_names_and_a_value_expression_without_params(tmp_path):
    unknown = VARIANT.replace("lê {{ pesos }} GB", "lê {{ peso }} GB")
    assert any("`{{ peso }}` em `prompt`" in m for m in errors_of(tmp_path, unknown))
    (tmp_path / "b").mkdir()
    no_params = VARIANT.replace(
        "  params:\n    banda: [936, 1008, 1792]\n    pesos: {min: 4, max: 16, step: 4}\n", ""
    )
    found = errors_of(tmp_path / "b", no_params)
    assert any("é uma expressão mas a pergunta não tem `params`" in m for m in found), found


def test_curso_check_refuses_a_key_larger_than_a_learner_can_type_with_its_line(tmp_path):
    """A key of 27 digits could not even be written with two decimals; one of 14 could not be
    typed in the answer box: both are the lesson's error, with its line, and the command
    fails."""
    huge = folder_with(
        tmp_path, VARIANT.replace("value: banda / pesos", "value: banda / pesos * 1e26")
    )
    expected = (
        "01-a.md:43:3: error: a resposta certa da pergunta `teto-variante` em banda = 936, "
        "pesos = 4 é 23400000000000000000000000000, maior do que um aluno consegue digitar (no "
        "máximo 13 algarismos antes da vírgula): mude as unidades para a resposta ficar menor"
    )
    assert [m for m in messages(load_course(huge)) if ": error: " in m] == [expected]
    checked = run("check", str(huge))
    assert checked.returncode == 1
    assert checked.stdout.splitlines() == [f"{huge}/{expected}"]
    (tmp_path / "b").mkdir()
    typed = VARIANT.replace("value: banda / pesos", "value: banda / pesos * 1e11")
    assert [m.split(" é ")[1][:15] for m in errors_of(tmp_path / "b", typed)] == ["23400000000000,"]
    (tmp_path / "c").mkdir()
    assert errors_of(tmp_path / "c", VARIANT.replace("banda / pesos", "banda / pesos * 1e10")) == []


def test_curso_check_refuses_a_tolerance_that_makes_zero_right(tmp_path):
    wide = VARIANT.replace("tolerance: 2%", "tolerance: banda")
    found = errors_of(tmp_path, wide)
    assert any("0 seria corrigido como certo" in m for m in found), found


# --- who gets which numbers ----------------------------------------------------------------


def test_learners_get_different_variants_and_the_same_one_until_they_answer(tmp_path):
    question = load_course(folder_with(tmp_path, VARIANT)).get(SLUG).questions[QID]
    first_tries = {learner_variant(b"segredo", f"aluno-{n}", SLUG, question, 1) for n in range(20)}
    assert len(first_tries) > 1, "twenty learners do not all get one variant"
    again = learner_variant(b"segredo", "aluno-1", SLUG, question, 1)
    assert again == learner_variant(b"segredo", "aluno-1", SLUG, question, 1)
    tries = {learner_variant(b"segredo", "aluno-1", SLUG, question, n) for n in range(1, 9)}
    assert len(tries) > 1, "a new try brings other numbers"


def test_a_learner_answers_their_own_numbers_stored_with_the_attempt(varied):
    client, settings = varied
    sign_up(client)
    question, index = variant_of_try(client, settings, 1)
    params = question.variants.point(index)
    mine = instance(question, params)
    page = client.get(f"/licoes/{SLUG}").text
    assert prompt_of(page) == text(soup(mine.legend_html)), "the learner's own numbers"
    assert prompt_of(client.get(f"/licoes/{SLUG}").text) == prompt_of(page), "same on reload"
    phone = new_browser(client)
    sign_in(phone)
    assert prompt_of(phone.get(f"/licoes/{SLUG}").text) == prompt_of(page), "same elsewhere"
    response = send(client, pt(mine.numeric.value))
    assert response.status_code == 200
    graded = soup(response.text)
    assert text(graded.select_one(".verdict")) == "✓ Resposta correta"
    assert "(conta secreta)" in response.text, "the working once answered"
    stored = db_rows(settings, "SELECT variant, correct FROM attempt")
    assert stored == [(encode(params), 1)]
    assert instance(question, decode(stored[0][0])).numeric.value == mine.numeric.value, (
        "the key is reproducible from the stored parameters"
    )
    later = client.get(f"/licoes/{SLUG}").text
    assert text(soup(mine.legend_html)) in text(soup(later).select_one(f"#pergunta-{QID}"))


def test_the_answer_is_graded_against_the_variant_shown_not_another(varied):
    client, settings = varied
    sign_up(client)
    question, index = variant_of_try(client, settings, 1)
    other = next(
        i
        for i, point in enumerate(question.variants.grid)
        if instance(question, question.variants.point(i)).numeric.value
        != instance(question, question.variants.point(index)).numeric.value
    )
    wrong_value = instance(question, question.variants.point(other)).numeric.value
    response = send(client, pt(wrong_value))
    assert text(soup(response.text).select_one(".verdict")) == "✗ Resposta incorreta"


def test_a_forged_or_foreign_variant_is_refused_and_nothing_is_stored(varied):
    client, settings = varied
    sign_up(client)
    forged = send(client, "1", token="0.abcdef")
    assert forged.status_code == 422
    assert "Este formulário está desatualizado" in forged.text
    visitor_page = new_browser(client).get(f"/licoes/{SLUG}").text
    page_token = soup(visitor_page).select_one(f'#pergunta-{QID} input[name="variante"]')["value"]
    foreign = send(client, "1", token=page_token)  # a signed-in learner sending the visitors'
    assert foreign.status_code == 422
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(0,)]


def test_a_visitor_sees_the_page_variant_and_keeps_it_when_their_first_answer_counts(varied):
    client, settings = varied
    question = question_of(client)
    params = question.variants.point(page_variant(SLUG, question))
    expected = instance(question, params)
    first = client.get(f"/licoes/{SLUG}").text
    assert prompt_of(first) == prompt_of(new_browser(client).get(f"/licoes/{SLUG}").text)
    assert prompt_of(first) == text(soup(expected.legend_html))
    response = send(client, pt(expected.numeric.value))
    assert text(soup(response.text).select_one(".verdict")) == "✓ Resposta correta"
    assert db_rows(settings, "SELECT variant FROM attempt") == [(encode(params),)]


def test_nothing_of_any_variants_key_is_in_the_page_before_answering(varied):
    client, _ = varied
    question = question_of(client)
    sign_up(client)
    for browser in (client, new_browser(client)):
        html = browser.get(f"/licoes/{SLUG}").text
        assert "conta secreta" not in html and "explicação secreta" not in html
        box = soup(html).select_one(f"#pergunta-{QID}")
        for index in range(len(question.variants.grid)):
            value = instance(question, question.variants.point(index)).numeric.value
            assert f"≈ {pt(value)}" not in str(box)


SAME_FORMULA = """
```calculadora
id: teto
title: o mesmo teto, como calculadora
inputs:
  - name: banda
    label: Banda
    default: 1000
    min: 1
    max: 5000
  - name: pesos
    label: Pesos
    default: 10
    min: 1
    max: 100
outputs:
  - label: Teto
    formula: banda / pesos
    words: banda ÷ pesos
```
"""


def test_the_pages_data_for_offline_reading_holds_nothing_of_a_variants_key(tmp_path):
    """Issue 40: a calculator's data goes in the page, to work it out offline; here one with the
    variant's very formula. Nothing of the question, its key or its explanation goes with it."""
    settings = make_settings(tmp_path, folder_with(tmp_path, VARIANT + SAME_FORMULA))
    with TestClient(create_app(settings)) as client:
        question = question_of(client)
        html = client.get(f"/licoes/{SLUG}").text
    islands = soup(html).select('script[type="application/json"]')
    assert [island["id"] for island in islands] == ["calculadora-teto-dados"]
    data = islands[0].get_text()
    assert QID not in data and "secreta" not in data
    for index in range(len(question.variants.grid)):
        value = instance(question, question.variants.point(index)).numeric.value
        assert pt(value) not in data


def test_item_analysis_groups_the_variants_with_each_ones_facility(varied):
    client, settings = varied
    question = question_of(client)
    for n in range(3):  # three learners, each their own first variant
        learner = new_browser(client)
        sign_up(learner, f"aluno{n}")
        page = learner.get(f"/licoes/{SLUG}").text
        token = soup(page).select_one(f'#pergunta-{QID} input[name="variante"]')["value"]
        index = int(token.split(".")[0])
        right = instance(question, question.variants.point(index)).numeric.value
        send(learner, pt(right) if n else "1")
    teacher = instructor(new_browser(client), settings)
    card = soup(teacher.get("/instrutor/perguntas")).select_one(f"#q-{SLUG}-{QID}")
    rows = [
        [text(cell) for cell in row.select("td")] for row in card.select(".variant-table tbody tr")
    ]
    stored = db_rows(settings, "SELECT variant, correct FROM attempt ORDER BY id")
    expected: dict[str, list[int]] = {}
    for variant, correct in stored:
        expected.setdefault(variant, []).append(int(correct))
    assert sum(int(answers) for _, answers, _ in rows) == 3
    assert len(rows) == len(expected)
    # Each variant in the prompt's words, not by the YAML ids ("banda = 936, pesos = 4"): the
    # clause of the legend that holds its numbers, the numbers in bold.
    named = {
        f"Uma GPU com {shown(p['banda'])} GB/s lê {shown(p['pesos'])} GB de pesos por token": v
        for v in expected
        for p in [decode(v)]
    }
    for label, answers, facility in rows:
        hits = expected[named[label]]
        assert int(answers) == len(hits)
        assert facility == f"{round(100 * sum(hits) / len(hits))}%"
    bold = [
        [text(b) for b in row.select("td:first-child strong")] for row in card.select("tbody tr")
    ]
    assert all(len(numbers) == 2 for numbers in bold), bold
    # The next visit reads the figures kept in report_cache: the same table (it was gone, the
    # stored variants read back as plain dicts).
    again = teacher.get("/instrutor/perguntas")
    assert again.status_code == 200
    card = soup(again).select_one(f"#q-{SLUG}-{QID}")
    kept = [
        [text(cell) for cell in row.select("td")] for row in card.select(".variant-table tbody tr")
    ]
    assert kept == rows


def test_the_notebook_asks_a_missed_variant_again_with_new_numbers_graded_against_them(varied):
    client, settings = varied
    sign_up(client)
    send(client, "1")  # wrong: the question goes to the notebook of mistakes
    page = client.get("/revisar/erradas").text
    box = soup(page).select_one(f"#pergunta-{QID}")
    form = box.select_one("form")
    token = form.select_one('input[name="variante"]')["value"]
    question, index = variant_of_try(client, settings, 2)
    assert int(token.split(".")[0]) == index, "the second try's variant"
    right = instance(question, question.variants.point(index)).numeric.value
    response = client.post(
        form["action"],
        data={
            "csrftoken": csrf_from(page),
            "chave": form.select_one('input[name="chave"]')["value"],
            "versao": form.select_one('input[name="versao"]')["value"],
            "variante": token,
            "valor": pt(right),
        },
        headers=HX,
    )
    assert response.status_code == 200
    assert db_rows(settings, "SELECT correct FROM attempt ORDER BY id") == [(0,), (1,)]


def test_lists_name_a_question_with_variants_by_the_values_it_takes(tmp_path, database_url):
    """/progresso and the dashboard name a question with variants by the values each
    parameter takes ("936 a 1.792 GB/s"), never by one variant's numbers ("Uma GPU com 936
    GB/s lê 4 GB…"), which not every learner was asked."""
    body = VARIANT.replace("  kind: numeric\n", "  kind: numeric\n  concepts: [decode]\n")
    settings = make_settings(tmp_path, course_folder(tmp_path, body), database_url)
    named = (
        "Uma GPU com 936 a 1.792 GB/s lê 4 a 16 GB de pesos por token. Qual o teto do decode?"
        " (12 variantes)"
    )
    first_numbers = "Uma GPU com 936 GB/s lê 4 GB"
    with TestClient(create_app(settings)) as client:
        send(client, "1")
        mastery = soup(client.get("/progresso")).select_one('.mastery-item[data-conceito="decode"]')
        link = text(mastery.select_one(".mastery-questions a"))
        assert link.startswith("Uma GPU com 936 a 1.792 GB/s lê 4 a 16 GB de pesos") and (
            first_numbers not in link
        )
        teacher = instructor(new_browser(client), settings)
        card = soup(teacher.get("/instrutor/perguntas")).select_one(f"#q-{SLUG}-{QID}")
        assert text(card.select_one("h4")) == named


def test_a_visitor_who_got_an_id_before_answering_can_answer_the_page_variant(varied):
    """Found by a new-user walk with JavaScript: the reading place's POST gives a visitor their
    id before they answer (and stores nothing), and the form still on their page, of the
    visitors' variant, was refused as out of date. Until something is stored it may be the
    visitors' variant; after that, the learner's own."""
    client, settings = varied
    page = client.get(f"/licoes/{SLUG}").text
    form = soup(page).select_one(f"#pergunta-{QID} form")
    fields = {i["name"]: i["value"] for i in form.select('input[type="hidden"]')}
    placed = client.post(
        "/progresso/lugar", data={"licao": SLUG}, headers={"x-csrftoken": csrf_from(page)}
    )
    assert placed.status_code == 204
    question = question_of(client)
    shown = question.variants.point(page_variant(SLUG, question))
    right = instance(question, shown).numeric.value
    first = client.post(
        f"/licoes/{SLUG}/perguntas/{QID}", data={**fields, "valor": pt(right)}, headers=HX
    )
    assert first.status_code == 200
    assert text(soup(first.text).select_one(".verdict")) == "✓ Resposta correta"
    assert decode(db_rows(settings, "SELECT variant FROM attempt")[0][0]) == shown
    fields["chave"] = "outra-chave-do-formulario-0001"
    again = client.post(
        f"/licoes/{SLUG}/perguntas/{QID}", data={**fields, "valor": pt(right)}, headers=HX
    )
    assert again.status_code == 422, "a second try is the learner's own variant"
    assert len(db_rows(settings, "SELECT id FROM attempt")) == 1


def test_a_visitor_who_opened_a_hint_first_can_answer_the_variant_they_see(client):
    """Found by a new-user walk with JavaScript: opening a hint gave the visitor their id (and
    stored the hint), and the answer to the visitors' variant on their page was refused as out
    of date."""
    qid = "teto-do-decode-variante"  # kernels: a numeric question with variants and hints
    page = client.get("/licoes/kernels").text
    form = soup(page).select_one(f"#pergunta-{qid} form")
    fields = {i["name"]: i["value"] for i in form.select('input[type="hidden"]')}
    hint = client.post(
        f"/licoes/kernels/perguntas/{qid}/dica", data={**fields, "dica": "1"}, headers=HX
    )
    assert hint.status_code == 200
    answer = client.post(
        f"/licoes/kernels/perguntas/{qid}", data={**fields, "valor": "100"}, headers=HX
    )
    assert answer.status_code == 200
    assert soup(answer.text).select_one(".verdict")
    assert text(soup(answer.text).select_one(".hint-used .tag")) == "com dica"


# --- what a learner and an instructor read (the new-user walk of issue 39's variants) ---------


BYTES_QUESTION = """
- id: QUESTION
  kind: numeric
  params:
    banda: [1000]
    bytes: SIZES
  value: banda / bytes
  tolerance: 2%
  unit: tok/s
  prompt: Com {{ banda }} GB/s e {{ bytes }} {{ bytes | byte, bytes }} por parâmetro, qual o teto?
  working: "{{ banda }} ÷ {{ bytes }} {{ bytes | byte, bytes }} ≈ {{ value }} tokens/s"
  explanation: O teto é a banda dividida pelos bytes lidos por token.
"""


def bytes_question(qid: str, sizes: str) -> str:
    """A question whose parameter ``bytes`` takes ``sizes`` (YAML), with a plural slot."""
    return BYTES_QUESTION.replace("QUESTION", qid).replace("SIZES", sizes)


# One variant of 1 byte, one of 2 bytes (every learner gets each), and both in one question.
BYTES = (
    "\n```quiz\n"
    + bytes_question("um-byte", "[1]")
    + bytes_question("dois-bytes", "[2]")
    + bytes_question(QID, "[1, 2]")
    + "```\n"
)


def test_a_plural_slot_gives_the_word_that_agrees_with_each_variants_number(tmp_path, database_url):
    """``{{ bytes | byte, bytes }}`` writes "1 byte" or "2 bytes", never "byte(s)", in the
    prompt and in the working; the dashboard names a question of both "1 ou 2 bytes"."""
    settings = make_settings(tmp_path, folder_with(tmp_path, BYTES), database_url)
    with TestClient(create_app(settings)) as client:
        sign_up(client)
        page = client.get(f"/licoes/{SLUG}").text
        for qid, word, key in (("um-byte", "1 byte", "1.000"), ("dois-bytes", "2 bytes", "500")):
            assert prompt_of(page, qid) == f"Com 1.000 GB/s e {word} por parâmetro, qual o teto?"
            graded = soup(send(client, key, qid=qid).text)
            assert text(graded.select_one(".verdict")) == "✓ Resposta correta"
            assert text(graded.select_one(".working p:not(.working-label)")) == (
                f"1.000 ÷ {word} ≈ {key} tokens/s"
            )
        teacher = instructor(new_browser(client), settings)
        card = soup(teacher.get("/instrutor/perguntas")).select_one(f"#q-{SLUG}-{QID}")
        assert text(card.select_one("h4")) == (
            "Com 1.000 GB/s e 1 ou 2 bytes por parâmetro, qual o teto? (2 variantes)"
        )


def test_the_kernels_lesson_never_writes_a_word_with_s_in_brackets():
    """Every variant of the kernels lesson writes the word that agrees with its number ("1
    byte", "2 bytes", "1 sequência", "8 sequências"), never "(s)", in its legend and its
    working."""
    lesson = load_course(REPO_LESSONS).get("kernels")
    read: set[str] = set()
    for question in lesson.questions.values():
        if question.variants is None:
            continue
        for index in range(len(question.variants.grid)):
            shown = instance(question, question.variants.point(index))
            said = text(soup(shown.legend_html + shown.numeric.working_html))
            assert "(s)" not in said, said
            read.add(said)
    said = " ".join(read)
    for phrase in (
        "com 1 byte por",
        "com 2 bytes por",
        "de 1 sequência com",
        "de 8 sequências com",
    ):
        assert phrase in said, phrase


def test_curso_check_refuses_a_slot_it_cannot_read_with_its_line(tmp_path):
    one_form = VARIANT.replace("lê {{ pesos }} GB", "lê {{ pesos }} {{ pesos | GB }}")
    assert errors_of(tmp_path, one_form) == [
        "01-a.md:46:3: error: `{{ pesos | GB }}` em `prompt` da pergunta `teto-variante` não é "
        "uma lacuna: escreva `{{ nome }}` para um número, ou `{{ nome | singular, plural }}` "
        "para a palavra que concorda com ele (por exemplo, `{{ bytes | byte, bytes }}`)"
    ]
    (tmp_path / "b").mkdir()
    capital = VARIANT.replace("≈ {{ value }} tokens/s", "≈ {{ Value }} tokens/s")
    assert [m.split(": error: ")[1][:40] for m in errors_of(tmp_path / "b", capital)] == [
        "`{{ Value }}` em `working` da pergunta `"
    ]


GAIN = """
```quiz
- id: teto-variante
  kind: numeric
  params:
    antes: [24]
    depois: [64]
  value: depois / antes
  tolerance: 3%
  unit: "×"
  prompt: De {{ antes }} para {{ depois }} tok/s, quantas vezes? Uma ou duas casas decimais.
  working: "{{ depois }} ÷ {{ antes }} ≈ **{{ value }}×**."
  explanation: O ganho é a razão entre as vazões.
```
"""


def read(node) -> str:
    """The text of ``node`` as it reads, inline tags joined without a space."""
    return " ".join(node.get_text().split())


def test_the_key_reads_with_two_decimals_wherever_it_is_shown(tmp_path, database_url):
    """A key of 64/24 reads "2,67" in the "Valor certo", in the working's ``{{ value }}`` and
    in the instructor's preview, as the prompt asks for one or two decimals; "2,6667" and
    "2,666667" appear nowhere."""
    settings = make_settings(tmp_path, folder_with(tmp_path, GAIN), database_url)
    with TestClient(create_app(settings)) as client:
        sign_up(client)
        graded = soup(send(client, "2,67").text)
        assert text(graded.select_one(".verdict")) == "✓ Resposta correta"
        assert text(graded.select_one(".numeric-key strong")) == "2,67 ×"
        assert read(graded.select_one(".working p:not(.working-label)")) == "64 ÷ 24 ≈ 2,67×."
        teacher = instructor(new_browser(client), settings)
        preview = soup(teacher.get(f"/instrutor/licoes/{SLUG}").text)
        box = preview.select_one(f"#pergunta-{QID}") or preview
        assert text(box.select_one(".numeric-key strong")) == "2,67 ×"
        assert read(box.select_one(".working p:not(.working-label)")) == "64 ÷ 24 ≈ 2,67×."
    assert "2,6667" not in str(graded) and "2,666667" not in str(box)


def test_curso_check_refuses_a_key_that_two_decimals_put_outside_its_tolerance(tmp_path):
    tiny = VARIANT.replace("value: banda / pesos", "value: banda / pesos / 100000")
    found = errors_of(tmp_path, tiny)
    assert found == [
        "01-a.md:43:3: error: a resposta certa da pergunta `teto-variante` em banda = 936, "
        "pesos = 4 é 0.00234, que a página escreve com no máximo 2 casas decimais como 0, fora "
        "da tolerância: mude as unidades para a resposta precisar de menos casas"
    ]


def test_a_variant_is_named_by_the_clauses_holding_its_numbers_else_by_its_ids():
    """The clauses that hold a parameter, a gap marked "…", and a parameter no text uses
    written with its id last (it could not be named otherwise)."""
    prompt = (
        "Com {{ a }} {{ a | byte, bytes }} por peso, num dia de sol, "
        "e {{ b }} GB/s. Quanto dá? Responda com vírgula."
    )
    named = excerpt_html(("a", "b", "c"), prompt, None, {"a": 1.0, "b": 1500.0, "c": 0.5})
    assert named == (
        "Com <strong>1</strong> byte por peso … e <strong>1.500</strong> GB/s; "
        "c = <strong>0,5</strong>"
    )


def test_parameters_of_equal_value_each_name_their_own_clause():
    """Each parameter is its own number, whatever its value: the clause holding the second 2
    is kept, and a third 2 no text uses is written with its id. A clause left out before
    the first one kept is marked "…", as one left out between two."""
    prompt = (
        "Um modelo de {{ a }} bilhões de parâmetros, guardado com {{ b }} "
        "{{ b | byte, bytes }} por parâmetro, roda…"
    )
    twos = {"a": 2.0, "b": 2.0, "c": 2.0}
    assert excerpt_html(("a", "b", "c"), prompt, None, twos) == (
        "Um modelo de <strong>2</strong> bilhões de parâmetros, guardado com "
        "<strong>2</strong> bytes por parâmetro; c = <strong>2</strong>"
    )
    later = "Numa conta de bolso, " + prompt[0].lower() + prompt[1:]
    assert excerpt_html(("a", "b"), later, None, {"a": 40.0, "b": 1.0}) == (
        "… um modelo de <strong>40</strong> bilhões de parâmetros, guardado com "
        "<strong>1</strong> byte por parâmetro"
    )
