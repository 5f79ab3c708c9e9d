"""The notebook of mistakes (issue 39, item 4): "Só as que errei" on /revisar lists exactly the
questions answered wrong and not answered right since, by lesson and concept, each saying why
it is there, and answerable in place (with htmx and without)."""

from __future__ import annotations

from datetime import UTC, datetime

from app.i18n import local_day
from app.learning.rules import HINTED, NO_HELP
from tests.support.app import db_rows
from tests.support.html import HX, csrf_from, soup, text
from tests.support.learning import KERNELS, answer, answer_form, key_of, let_time_pass, version_of

CHOICE = "escolha-self-hosted"


def listed(page) -> list[tuple[str, str]]:
    """``(lesson heading, question id)`` of every entry, in page order."""
    out = []
    for section in page.select(".notebook-lesson:not(.notebook-just)"):
        title = text(section.h2)
        for entry in section.select(".notebook-entry .question"):
            out.append((title, entry["id"].removeprefix("pergunta-")))
    return out


def open_hint(client, qid: str) -> None:
    page = client.get("/licoes/kernels").text
    client.post(
        f"/licoes/kernels/perguntas/{qid}/dica",
        data={"csrftoken": csrf_from(page), "versao": version_of(page, qid), "dica": "1"},
        headers=HX,
    )


def missed_day(settings, qid: str) -> str:
    (created,) = db_rows(
        settings, f"SELECT max(created_at) FROM attempt WHERE question_id = '{qid}'"
    )[0]
    moment = created if isinstance(created, datetime) else datetime.fromisoformat(created)
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return local_day(moment, None)


def answered_in_a_pattern(client, settings) -> None:
    answer(client, "kernels", "troca-de-engine", ["a"])  # wrong: in
    answer(client, "kernels", "mac-e-ollama", ["a"])  # wrong, then right: out
    answer(client, "kernels", "mac-e-ollama", ["c"])
    answer(client, "kernels", "onde-vai-a-gpu", ["d"])  # right, then wrong: in
    answer(client, "kernels", "onde-vai-a-gpu", ["a"])
    answer(client, "kernels", "tp-2", ["c"])  # right: out
    open_hint(client, "teto-do-decode")
    answer(client, "kernels", "teto-do-decode", ["a"])  # wrong after a hint: in
    answer(client, CHOICE, "ordem-das-decisoes", ["a"])  # wrong, another lesson: in
    let_time_pass(settings)  # every card due: "vence hoje" whatever the hour


def test_the_notebook_lists_exactly_the_questions_wrong_and_not_right_since(client, settings):
    answered_in_a_pattern(client, settings)
    page = soup(client.get("/revisar/erradas"))
    kernels = KERNELS.meta.title_text
    choice = text(soup(client.get(f"/licoes/{CHOICE}")).h1)
    assert listed(page) == [
        (kernels, "troca-de-engine"),
        (kernels, "onde-vai-a-gpu"),
        (kernels, "teto-do-decode"),
        (choice, "ordem-das-decisoes"),
    ]
    why = {
        entry.select_one(".question")["id"].removeprefix("pergunta-"): [
            text(span) for span in entry.select(".notebook-why span")
        ]
        for entry in page.select(".notebook-entry")
    }
    day = missed_day(settings, "teto-do-decode")
    assert why["teto-do-decode"] == [f"errada em {day}", "vence hoje", "com dica"]
    assert why["troca-de-engine"] == [
        f"errada em {missed_day(settings, 'troca-de-engine')}",
        "vence hoje",
    ]
    concepts = page.select_one(".notebook-entry:has(#pergunta-teto-do-decode) .notebook-concept")
    assert text(concepts) == "Conceitos: decode"
    assert page.select(".notebook-entry .question form fieldset"), "each one answerable here"


def test_the_notebook_filters_by_concept(client, settings):
    answered_in_a_pattern(client, settings)
    page = soup(client.get("/revisar/erradas"))
    filters = [text(a) for a in page.select(".notebook-concepts a")]
    assert filters[0] == "Todos os conceitos"
    assert "decode (1)" in filters and "kernel (2)" in filters
    kernel = soup(client.get("/revisar/erradas?conceito=kernel"))
    assert [qid for _, qid in listed(kernel)] == ["troca-de-engine", "onde-vai-a-gpu"]
    current = kernel.select_one('.notebook-concepts a[aria-current="page"]')
    assert text(current) == "kernel (2)"
    unknown = soup(client.get("/revisar/erradas?conceito=nada-disso"))
    assert len(listed(unknown)) == 4, "an unknown concept filters nothing"


def test_a_question_answered_right_in_place_leaves_the_notebook(client, settings):
    answered_in_a_pattern(client, settings)
    page = client.get("/revisar/erradas").text
    fields = answer_form(page, "troca-de-engine", opcao=["b"])
    graded = client.post("/revisar/erradas/kernels/troca-de-engine", data=fields, headers=HX)
    assert graded.status_code == 200
    assert text(soup(graded).select_one(".verdict")) == "✓ Resposta correta"
    # Its "why" line on the page ("errada em…", "vence hoje") is replaced, out of band.
    why = soup(page).select_one(".notebook-entry:has(#pergunta-troca-de-engine) .notebook-why")
    left = soup(graded).select_one(f"#{why['id']}[hx-swap-oob]")
    assert text(left) == "Certa: saiu da sua lista"
    after = soup(client.get("/revisar/erradas"))
    assert "troca-de-engine" not in [qid for _, qid in listed(after)]
    assert db_rows(settings, "SELECT review, correct FROM attempt ORDER BY id DESC LIMIT 1") == [
        (1, 1)
    ]
    wrong = {**fields, "chave": key_of(page, "onde-vai-a-gpu"), "opcao": ["b"]}
    wrong["versao"] = version_of(page, "onde-vai-a-gpu")
    again = client.post("/revisar/erradas/kernels/onde-vai-a-gpu", data=wrong, headers=HX)
    assert again.status_code == 200 and not soup(again).select("[hx-swap-oob]"), "still listed"


def test_without_javascript_an_answer_comes_back_graded_on_the_notebook(client, settings):
    answered_in_a_pattern(client, settings)
    page = client.get("/revisar/erradas").text
    fields = answer_form(page, "teto-do-decode", opcao=["b"])
    response = client.post(
        "/revisar/erradas/kernels/teto-do-decode", data=fields, follow_redirects=False
    )
    assert response.status_code == 303
    assert response.headers["location"] == (
        "/revisar/erradas?licao=kernels&pergunta=teto-do-decode#pergunta-teto-do-decode"
    )
    back = soup(client.get(response.headers["location"]))
    just = back.select_one(".notebook-just")
    assert text(just.h2) == "Você acabou de responder"
    assert text(just.select_one(".verdict")) == "✓ Resposta correta"
    assert "teto-do-decode" not in [qid for _, qid in listed(back)]
    assert db_rows(settings, "SELECT help FROM attempt WHERE question_id = 'teto-do-decode'") == [
        (HINTED,),
        (NO_HELP,),
    ], "the hint went with the wrong answer; the right one had none"


def test_a_refused_answer_in_the_notebook_keeps_the_form_with_the_message(client, settings):
    answered_in_a_pattern(client, settings)
    page = client.get("/revisar/erradas").text
    fields = {"csrftoken": csrf_from(page), "chave": "curta", "versao": "x", "opcao": ["b"]}
    refused = client.post("/revisar/erradas/kernels/tp-2", data=fields, headers=HX)
    assert refused.status_code == 422
    assert soup(refused).select_one(".form-error")


def test_the_review_page_and_the_notebook_link_each_other(client):
    review = soup(client.get("/revisar"))
    modes = review.select(".review-modes a")
    assert [(text(a), a.get("aria-current")) for a in modes] == [
        ("Vencidas", "page"),
        ("Só as que errei", None),
    ]
    notebook = soup(client.get(modes[1]["href"]))
    assert text(notebook.h1) == "Só as que errei"
    assert notebook.select_one('.review-modes a[aria-current="page"]')["href"] == "/revisar/erradas"
    assert text(notebook.select_one(".review-none")) == (
        "Nada aqui ainda: você não respondeu nenhuma pergunta. Uma pergunta que você errar "
        "aparece aqui até você acertá-la."
    )


def test_an_empty_notebook_says_whether_nothing_was_missed_or_every_miss_was_corrected(client):
    def empty_note() -> str:
        return text(soup(client.get("/revisar/erradas")).select_one(".review-none"))

    answer(client, "kernels", "tp-2", ["c"])  # right
    assert empty_note() == (
        "Nada aqui: você ainda não errou nenhuma pergunta. Uma pergunta que você errar "
        "aparece aqui até você acertá-la."
    )
    answer(client, "kernels", "mac-e-ollama", ["a"])  # wrong: in the notebook
    assert listed(soup(client.get("/revisar/erradas")))
    answer(client, "kernels", "mac-e-ollama", ["c"])  # right since: out
    assert empty_note() == "Nada aqui: você já acertou todas as perguntas que errou."
