"""Progressive hints (issue 39, item 3): opened one at a time, stored as events with the answer
that follows them, and counted in review (FSRS) and mastery."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fsrs import Card, Rating
from sqlmodel import Session

from app.content.course import load_course
from app.learning.mastery import concept_tags, learner_mastery, reference_learner_mastery
from app.learning.review import CARD_ID, SCHEDULER
from app.learning.rules import HINT_CREDIT, HINTED, NO_HELP, WORKED, answer_credit
from app.learning.store import LearnerStates, SqlLearnerStore
from app.learning.usecases import Answer, answer_question, reveal_hint
from app.learning.views import Draft
from app.learning.writer import AnswerWriter
from app.platform.db import make_engine
from app.platform.migrate import downgrade, upgrade
from tests.support.accounts import instructor, new_browser, post_form, sign_in, sign_up
from tests.support.app import db_rows
from tests.support.coroutines import run as run_coroutine
from tests.support.html import HX, csrf_from, is_fragment, soup, text
from tests.support.learning import (
    COURSE,
    KERNELS,
    answer,
    key_of,
    let_time_pass,
    right_form,
    version_of,
)
from tests.support.lessons import folder_with, messages

DECODE = KERNELS.questions["teto-do-decode"]  # two hints, the second the worked answer
GAIN = KERNELS.questions["ganho-pro-6000"]  # three hints, the third the worked answer
TAGS = concept_tags(COURSE)


def open_hint(client, question, number: int, htmx: bool = True, page: str | None = None):
    page = page or client.get("/licoes/kernels").text
    return client.post(
        f"/licoes/kernels/perguntas/{question.id}/dica",
        data={
            "csrftoken": csrf_from(page),
            "versao": version_of(page, question.id),
            "dica": str(number),
        },
        headers=HX if htmx else {},
        follow_redirects=False,
    )


def press_hint(client, form, options: list[str] = (), fields: dict | None = None):
    """Press the hint button of a question's answer ``form`` as a browser without JavaScript
    does: the whole form, with what the learner chose, posted to the button's ``formaction``
    with the button's own name and value."""
    button = form.select_one(".hint-button")
    data: dict = {i["name"]: i["value"] for i in form.select('input[type="hidden"]')}
    data |= {"opcao": list(options), button["name"]: button["value"], **(fields or {})}
    return client.post(button["formaction"], data=data, follow_redirects=False)


def reveals(settings) -> list[tuple]:
    return db_rows(
        settings,
        "SELECT question_id, hint, worked, attempt_id FROM hint_reveal ORDER BY id",
    )


def test_the_lessons_have_hints_and_the_last_one_may_be_the_worked_answer():
    assert [h.worked for h in DECODE.hints] == [False, True]
    assert [h.worked for h in GAIN.hints] == [False, False, True]


def test_no_hint_reaches_the_page_before_it_is_opened(client):
    html = client.get("/licoes/kernels").text
    for question in (DECODE, GAIN):
        for hint in question.hints:
            assert hint.html.strip() not in html, (question.id, hint.number)
    block = soup(html).select_one(f"#pergunta-{DECODE.id} .hints")
    assert text(block.select_one("button")) == "Ver a dica 1 de 2"


def test_hints_open_one_at_a_time_and_the_worked_answer_only_when_asked(client, settings):
    first = open_hint(client, DECODE, 1)
    assert first.status_code == 200 and is_fragment(first)
    block = soup(first)
    assert DECODE.hints[0].html.strip() in first.text
    assert DECODE.hints[1].html.strip() not in first.text, "the worked answer stays out"
    assert text(block.select_one(".hint-label")) == "Dica 1"
    assert block.select_one(".hint-item")["data-announce"] == "Dica 1 aberta."
    assert text(block.select_one("button")) == "Ver a resolução"
    assert reveals(settings) == [(DECODE.id, 1, 0, None)]
    page = client.get("/licoes/kernels").text
    assert DECODE.hints[0].html.strip() in page, "the hint stays open after a reload"
    assert DECODE.hints[1].html.strip() not in page
    worked = open_hint(client, DECODE, 2, page=page)
    assert DECODE.hints[1].html.strip() in worked.text
    assert text(soup(worked).select(".hint-label")[-1]) == "Resolução"
    assert not soup(worked).select_one(".hint-form"), "no hint is left to open"
    again = open_hint(client, DECODE, 2)  # a form sent twice opens nothing more
    assert again.status_code == 200
    assert reveals(settings) == [(DECODE.id, 1, 0, None), (DECODE.id, 2, 1, None)]


def test_without_javascript_a_hint_is_a_post_and_a_redirect_to_the_form(client, settings):
    response = open_hint(client, DECODE, 1, htmx=False)
    assert response.status_code == 303
    assert response.headers["location"] == (
        f"/licoes/kernels?refazer={DECODE.id}#pergunta-{DECODE.id}"
    )
    page = soup(client.get(response.headers["location"]))
    block = page.select_one(f"#pergunta-{DECODE.id}")
    assert block.select_one("form fieldset"), "the answer form, with the hint under it"
    assert DECODE.hints[0].html.strip() in str(block.select_one(".hints"))


def test_an_answer_after_a_hint_takes_its_events_and_says_it_had_help(client, settings):
    open_hint(client, GAIN, 1)
    response = answer(client, "kernels", GAIN.id, right_form(GAIN))
    graded = soup(response)
    assert text(graded.select_one(".verdict")) == "✓ Resposta correta"
    assert text(graded.select_one(".hint-used .tag")) == "com dica"
    attempt_id, help = db_rows(settings, "SELECT id, help FROM attempt")[0]
    assert help == HINTED
    assert reveals(settings) == [(GAIN.id, 1, 0, attempt_id)]
    retry = soup(client.get(f"/licoes/kernels?refazer={GAIN.id}"))
    block = retry.select_one(f"#pergunta-{GAIN.id}")
    assert not block.select(".hint-item"), "a new try starts with every hint closed"
    assert text(block.select_one(".hint-form button")) == "Ver a dica 1 de 3"
    second = answer(client, "kernels", GAIN.id, right_form(GAIN))
    assert not soup(second).select_one(".hint-used"), "this one had no hint"
    assert db_rows(settings, "SELECT help FROM attempt ORDER BY id") == [(HINTED,), (NO_HELP,)]


def test_a_hint_the_question_does_not_have_is_refused_in_portuguese(client, settings):
    missing = open_hint(client, DECODE, 3)
    assert missing.status_code == 404
    assert "Esta pergunta não tem essa dica. Recarregue a página." in missing.text
    page = client.get("/licoes/kernels").text
    for bad in ("0x1", "²", "-1"):
        refused = client.post(
            f"/licoes/kernels/perguntas/{DECODE.id}/dica",
            data={"csrftoken": csrf_from(page), "versao": DECODE.content_hash, "dica": bad},
            headers=HX,
        )
        assert refused.status_code == 422, bad
    stale = client.post(
        f"/licoes/kernels/perguntas/{DECODE.id}/dica",
        data={"csrftoken": csrf_from(page), "versao": "outra", "dica": "1"},
        headers=HX,
    )
    assert stale.status_code == 409
    assert "Esta pergunta mudou; leia de novo e responda." in stale.text
    assert reveals(settings) == []


def test_only_the_last_hint_may_be_the_worked_answer(tmp_path):
    body = """\
```quiz
- id: com-dicas
  kind: single
  prompt: Qual?
  hints:
    - text: Resolução cedo demais.
      worked: true
    - Uma dica leve.
  options:
    - {id: a, text: "A", explanation: "Certo, porque sim."}
    - {id: b, text: "B", explanation: "Errado, porque não."}
  answer: [a]
```
"""
    course = load_course(folder_with(tmp_path, body))
    assert any(
        "só a última dica da pergunta `com-dicas` pode ser a resolução" in m
        for m in messages(course)
    ), messages(course)


def test_four_hints_are_refused(tmp_path):
    hints = "\n".join(f"    - Dica {n}." for n in range(4))
    body = f"""\
```quiz
- id: dicas-demais
  kind: single
  prompt: Qual?
  hints:
{hints}
  options:
    - {{id: a, text: "A", explanation: "Certo, porque sim."}}
    - {{id: b, text: "B", explanation: "Errado, porque não."}}
  answer: [a]
```
"""
    course = load_course(folder_with(tmp_path, body))
    assert any("hints" in m for m in messages(course)), messages(course)


# The use-case, without HTTP: a real SQLite file, the real writer, the scheduler's own ratings.

AT = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def _due_after(rating: Rating) -> datetime:
    """When a new card falls due after one answer rated ``rating`` (FSRS, as the app runs it)."""
    card, _ = SCHEDULER.review_card(Card(card_id=CARD_ID, due=AT), rating, review_datetime=AT)
    return card.due


@pytest.mark.parametrize(
    ("hints", "right", "rating"),
    [
        (0, True, Rating.Good),
        (1, True, Rating.Hard),
        (2, True, Rating.Again),  # after the worked answer
        (0, False, Rating.Again),
        (1, False, Rating.Again),
    ],
)
def test_hints_change_the_next_review_date(settings, monkeypatch, hints, right, rating):
    import app.learning.writer as writer_module

    monkeypatch.setattr(writer_module, "utcnow", lambda: AT)
    engine = make_engine(settings.database_url)
    learner = "f" * 32
    try:
        store = SqlLearnerStore(engine, AnswerWriter(engine, lambda: TAGS), LearnerStates())
        for number in range(1, hints + 1):
            reveal_hint(store, KERNELS, DECODE, learner, number, DECODE.content_hash)
        chosen = sorted(DECODE.answer) if right else ["a"]
        page = run_coroutine(
            answer_question(
                store,
                COURSE,
                KERNELS,
                DECODE,
                learner,
                Answer("k" * 22, DECODE.content_hash, options=chosen),
            )
        )
        assert page.state is not None
        [card] = page.state.cards
        assert card.due == _due_after(rating)
        assert page.view.help == [NO_HELP, HINTED, WORKED][hints]
    finally:
        engine.dispose()
    assert _due_after(Rating.Good) > _due_after(Rating.Hard) > _due_after(Rating.Again)


def test_mastery_counts_a_right_answer_after_a_hint_as_partial(client, settings):
    assert answer_credit(True, HINTED) == HINT_CREDIT
    assert answer_credit(True, WORKED) == 0 and answer_credit(True, NO_HELP) == 1
    open_hint(client, DECODE, 1)
    answer(client, "kernels", DECODE.id, right_form(DECODE))
    [(learner,)] = db_rows(settings, "SELECT id FROM learner")
    engine = make_engine(settings.database_url)
    try:
        with Session(engine) as db:
            kept = {m.concept.term.slug: m for m in learner_mastery(db, COURSE, learner)}
            reference = {
                m.concept.term.slug: m for m in reference_learner_mastery(db, COURSE, learner)
            }
    finally:
        engine.dispose()
    assert kept["decode"].mastery == pytest.approx(HINT_CREDIT)
    assert reference["decode"].mastery == pytest.approx(HINT_CREDIT)
    assert kept["decode"].percent == 50


def test_the_migration_gives_every_earlier_answer_no_help_and_walks_down_and_up(client, settings):
    answer(client, "kernels", DECODE.id, right_form(DECODE))
    open_hint(client, GAIN, 1)
    url = settings.database_url
    downgrade(url, "0014")
    assert db_rows(settings, "SELECT count(*) FROM attempt") == [(1,)]
    upgrade(url)
    assert db_rows(settings, "SELECT help FROM attempt") == [(NO_HELP,)]
    assert reveals(settings) == [], "the reveals went with the table the revision made"


def test_the_dashboard_shows_hint_use_beside_facility_and_discrimination(client, settings):
    open_hint(client, GAIN, 1)
    answer(client, "kernels", GAIN.id, right_form(GAIN))
    other = new_browser(client)
    answer(other, "kernels", GAIN.id, right_form(GAIN))
    teacher = instructor(new_browser(client), settings)
    page = soup(teacher.get("/instrutor/perguntas"))
    figures = page.select_one(f"#q-kernels-{GAIN.id} .figures")
    labels = [text(label) for label in figures.select(".fig-label")]
    assert labels[-3:] == ["Facilidade", "Discriminação (D)", "Com dica"]
    assert text(figures.select_one(".fig-hints")) == "50%"
    untouched = page.select_one(f"#q-kernels-{DECODE.id} .fig-hints")
    assert text(untouched) == "—", "nobody answered it"


def test_on_the_review_page_a_hint_opens_in_place_and_its_answer_is_hinted(client, settings):
    answer(client, "kernels", DECODE.id, ["a"])  # wrong: the card falls due
    let_time_pass(settings)
    page = client.get("/revisar").text
    form = soup(page).select_one(f"#pergunta-{DECODE.id} form")
    assert form.select_one('.hint-form input[name="origem"]')["value"] == "revisar"
    response = press_hint(client, form, ["b"])
    assert response.status_code == 303
    assert response.headers["location"] == f"/revisar#pergunta-{DECODE.id}"
    review = client.get(response.headers["location"]).text
    assert DECODE.hints[0].html.strip() in review
    kept = soup(review).select(f'#pergunta-{DECODE.id} input[name="opcao"][checked]')
    assert [i["value"] for i in kept] == ["b"], "the choice made before the hint is kept"
    assert DECODE.hints[1].html.strip() not in review
    fields = {
        "csrftoken": csrf_from(review),
        "chave": key_of(review, DECODE.id),
        "versao": DECODE.content_hash,
        "opcao": sorted(DECODE.answer),
    }
    graded = client.post(f"/revisar/kernels/{DECODE.id}", data=fields, headers=HX)
    assert text(soup(graded).select_one(".hint-used .tag")) == "com dica"
    assert db_rows(settings, "SELECT review, help FROM attempt ORDER BY id") == [
        (0, NO_HELP),
        (1, HINTED),
    ]


def test_hints_opened_follow_the_learner_into_their_account_are_exported_and_erased(
    client, settings
):
    assert sign_up(client, "ana").status_code == 303
    laptop = new_browser(client)
    open_hint(laptop, GAIN, 1)  # an anonymous learner, merged at sign-in
    assert sign_in(laptop, "ana").status_code == 303
    ((mine,),) = db_rows(settings, "SELECT learner_id FROM account")
    assert db_rows(settings, "SELECT learner_id, hint FROM hint_reveal") == [(mine, 1)]
    exported = laptop.get("/meus-dados/exportar").json()
    assert [(h["question_id"], h["hint"], h["answered"]) for h in exported["hints"]] == [
        (GAIN.id, 1, False)
    ]
    assert post_form(laptop, "/meus-dados/apagar", confirmo="sim").status_code == 303
    assert db_rows(settings, "SELECT count(*) FROM hint_reveal") == [(0,)]


def test_a_class_sees_the_hint_use_of_its_own_learners(client, settings):
    teacher = instructor(new_browser(client), settings)
    created = post_form(teacher, "/instrutor/turmas", nome="Turma das dicas")
    assert created.status_code == 303
    class_id = created.headers["location"].rsplit("/", 1)[1]
    link = text(soup(teacher.get(created.headers["location"])).select_one(".join-link"))
    code = link.split("/turmas/entrar/")[1]
    answer(client, "kernels", DECODE.id, ["a"])  # a learner row first, then the class
    assert sign_up(client, "ana").status_code == 303
    joined = post_form(client, f"/turmas/entrar/{code}")
    assert joined.status_code == 303, joined.text
    answer(client, "kernels", GAIN.id, right_form(GAIN))  # no hint, in the class
    outsider = new_browser(client)
    open_hint(outsider, GAIN, 1)
    answer(outsider, "kernels", GAIN.id, right_form(GAIN))  # a hint, outside the class
    everyone = soup(teacher.get("/instrutor/perguntas"))
    mine = soup(teacher.get(f"/instrutor/perguntas?turma={class_id}"))
    assert text(everyone.select_one(f"#q-kernels-{GAIN.id} .fig-hints")) == "50%"
    assert text(mine.select_one(f"#q-kernels-{GAIN.id} .fig-hints")) == "0%"


def test_without_javascript_a_hint_keeps_what_the_learner_had_chosen(client):
    """Found by a learner walk without JavaScript: opening a hint lost the option already
    ticked (the hint was a form of its own). The hint button now posts the answer form."""
    page = soup(client.get("/licoes/kernels").text)
    form = page.select_one(f"#pergunta-{DECODE.id} form")
    button = form.select_one(".hint-button")
    assert button.get("formnovalidate") is not None, "no choice is needed to open a hint"
    response = press_hint(client, form, ["b"])
    assert response.status_code == 303
    shown = soup(client.get(response.headers["location"]).text)
    box = shown.select_one(f"#pergunta-{DECODE.id}")
    assert [i["value"] for i in box.select('input[name="opcao"][checked]')] == ["b"]
    assert len(box.select(".hint-item")) == 1
    again = soup(client.get("/licoes/kernels").text).select_one(f"#pergunta-{DECODE.id}")
    assert not again.select('input[name="opcao"][checked]'), "kept for the next page only"


def test_without_javascript_a_hint_keeps_a_typed_number(client):
    page = soup(client.get("/licoes/kernels").text)
    form = page.select_one(f"#pergunta-{GAIN.id} form")
    response = press_hint(client, form, fields={"valor": "4,4"})
    shown = soup(client.get(response.headers["location"]).text)
    assert shown.select_one(f'#pergunta-{GAIN.id} input[name="valor"]')["value"] == "4,4"
    assert not shown.select_one(f"#pergunta-{GAIN.id} .form-error"), "no refusal to show"


def test_without_javascript_a_hint_in_the_notebook_keeps_the_choice_there(client):
    answer(client, "kernels", DECODE.id, ["a"])  # wrong: in the notebook
    page = soup(client.get("/revisar/erradas").text)
    form = page.select_one(f"#pergunta-{DECODE.id} form")
    response = press_hint(client, form, ["b"])
    assert response.headers["location"] == f"/revisar/erradas#pergunta-{DECODE.id}"
    box = soup(client.get(response.headers["location"]).text).select_one(f"#pergunta-{DECODE.id}")
    assert [i["value"] for i in box.select('input[name="opcao"][checked]')] == ["b"]
    assert len(box.select(".hint-item")) == 1


def test_a_kept_order_puts_each_step_back_where_the_learner_had_it():
    draft = Draft(positions=("b=1", "a=2", "c=x", "d=99999"))
    assert [draft.position_of(item, 9) for item in "abcde"] == [2, 1, 9, 9, 9]
