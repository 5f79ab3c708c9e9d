"""Spaced review (``/revisar``): FSRS due dates with a frozen clock, review answers stored as
attempts marked ``review`` (once per form), merge, LGPD export and delete, edited questions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event

from app.content.quiz import Question
from app.learning import review
from app.learning.learners import learner_data, merge_learner
from app.learning.state import CardRow
from app.main import create_app
from app.platform.auth import Passwords
from app.platform.db import make_engine
from app.platform.migrate import upgrade
from app.platform.models import REVIEW_CARD, ReviewCard
from tests.support.accounts import (
    PASSWORD,
    instructor,
    new_browser,
    post_form,
    sign_in,
    sign_up,
)
from tests.support.answers import answer_writer, record_choice, session_of, writer_settled
from tests.support.app import db_rows, make_settings
from tests.support.html import HX, soup, text
from tests.support.learning import (
    COURSE,
    answer,
    answer_form,
    let_time_pass,
    read_csv,
    right_form,
    wrong_form,
)

KERNELS = COURSE.get("kernels")
Q = KERNELS.questions["qual-fase-domina"]
NUMERIC = KERNELS.questions["ganho-3090"]
T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def db(settings):
    with session_of(settings) as session:
        yield session


def store(db, learner: str, correct: bool, at: datetime, key: str, question=Q):
    return record_choice(db, learner, question, correct, at, key)


def due_reviews(db, learner: str, at: datetime) -> list[review.DueReview]:
    """What ``/revisar`` would list for ``learner`` at ``at``, from the stored cards."""
    cards = review.learner_cards(db, learner)
    rows = [CardRow(c.lesson_slug, c.question_id, c.question_hash, c.due) for c in cards]
    return review.due_of(rows, COURSE, at)


def due_ids(db, learner: str, at: datetime) -> list[str]:
    return [item.question.id for item in due_reviews(db, learner, at)]


@pytest.fixture
def frozen(monkeypatch):
    """Freeze the review clock at ``T0`` (move it with ``frozen[0] = ...``)."""
    now = [T0]
    monkeypatch.setattr(review, "now", lambda: now[0])
    return now


# --- the schedule, with a frozen clock --------------------------------------------------------


def test_a_first_try_miss_is_due_in_ten_minutes(db):
    store(db, "a" * 32, False, T0, "k" * 16)
    assert due_ids(db, "a" * 32, T0 + timedelta(minutes=9)) == []
    assert due_ids(db, "a" * 32, T0 + timedelta(minutes=10)) == [Q.id]


def test_a_right_first_try_moves_out_by_fsrs_intervals(db):
    store(db, "a" * 32, True, T0, "k" * 16)
    (card,) = db.exec(REVIEW_CARD.select()).all()
    assert card.due.replace(tzinfo=UTC) == T0 + timedelta(days=2)
    assert due_ids(db, "a" * 32, T0 + timedelta(days=1, hours=23)) == []
    store(db, "a" * 32, True, T0 + timedelta(days=2), "l" * 16)
    db.expire_all()
    card = db.get(ReviewCard, ("a" * 32, "kernels", Q.id))
    assert card.due.replace(tzinfo=UTC) == T0 + timedelta(days=2 + 11)  # FSRS's next interval


def test_ratings_follow_the_grade_and_the_retry():
    assert review.rating_for(False, None) == review.Rating.Again
    assert review.rating_for(True, None) == review.Rating.Good
    assert review.rating_for(True, False) == review.Rating.Hard
    assert review.rating_for(True, True) == review.Rating.Good


def test_right_after_a_retry_once_due_is_rated_hard(db):
    store(db, "a" * 32, False, T0, "k" * 16)
    store(db, "a" * 32, True, T0 + timedelta(minutes=10), "l" * 16)
    card = db.get(ReviewCard, ("a" * 32, "kernels", Q.id))
    # Hard in the learning step: 1.5 × 10 minutes after the retry.
    assert card.due.replace(tzinfo=UTC) == T0 + timedelta(minutes=10 + 15)


def test_an_answer_before_the_card_is_due_reviews_nothing(db):
    """A card is reviewed at most once per due period: a retry a minute after a miss, or a
    second tab, is stored and graded, but neither moves the card nor graduates it."""
    store(db, "a" * 32, False, T0, "k" * 16)
    for minutes, key in ((1, "l"), (2, "m"), (9, "n")):
        store(db, "a" * 32, True, T0 + timedelta(minutes=minutes), key * 16)
    db.expire_all()
    card = db.get(ReviewCard, ("a" * 32, "kernels", Q.id))
    assert (card.state, card.due.replace(tzinfo=UTC)) == (1, T0 + timedelta(minutes=10))
    assert card.last_review.replace(tzinfo=UTC) == T0
    store(db, "a" * 32, True, T0 + timedelta(minutes=10), "o" * 16)
    db.expire_all()
    card = db.get(ReviewCard, ("a" * 32, "kernels", Q.id))
    # Still a retry of the miss that last reviewed it (the right answers in between reviewed
    # nothing): Hard, 1.5 × 10 minutes, not Good (which would graduate it for a day).
    assert (card.state, card.due.replace(tzinfo=UTC)) == (1, T0 + timedelta(minutes=10 + 15))


def test_an_edited_question_resets_its_card_to_new(db):
    store(db, "a" * 32, True, T0, "k" * 16)
    db_card = db.get(ReviewCard, ("a" * 32, "kernels", Q.id))
    db_card.question_hash = "versao-antiga"
    db.add(db_card)
    db.commit()
    (item,) = due_reviews(db, "a" * 32, T0 + timedelta(minutes=1))
    assert item.changed
    store(db, "a" * 32, True, T0 + timedelta(minutes=2), "l" * 16)
    db.expire_all()
    card = db.get(ReviewCard, ("a" * 32, "kernels", Q.id))
    assert card.question_hash == Q.content_hash
    assert card.due.replace(tzinfo=UTC) == T0 + timedelta(minutes=2, days=2)  # a new card's Good


# --- the page, over HTTP ----------------------------------------------------------------------


def review_form(client, htmx: bool = False, **fields):
    page = client.get("/revisar").text
    qid = soup(page).select_one("#revisao .question")["id"].removeprefix("pergunta-")
    data = answer_form(page, qid, **fields)
    return qid, data


def test_a_missed_question_comes_back_on_revisar_after_the_interval(client, settings):
    answer(client, "kernels", Q.id, wrong_form(Q))
    assert "Nada para revisar agora" in text(soup(client.get("/revisar")))
    assert "para revisar" not in text(soup(client.get("/")).select_one(".resume"))
    let_time_pass(settings)
    home = soup(client.get("/"))
    assert text(home.select_one(".review-due")) == "1 pergunta para revisar"
    lesson = soup(client.get("/licoes/kernels"))
    assert text(lesson.select_one("#navegacao-curso .review-due")) == "1 pergunta para revisar"
    page = soup(client.get("/revisar"))
    assert text(page.select_one(".review-count")) == "1 pergunta para revisar"
    assert page.select_one("#revisao h3").get_text(" ", strip=True)  # the question itself
    qid, data = review_form(client, opcao=right_form(Q))
    assert qid == Q.id
    response = client.post(f"/revisar/kernels/{Q.id}", data=data, follow_redirects=False)
    assert response.status_code == 303
    graded = soup(client.get(response.headers["location"]))
    assert "Resposta correta" in text(graded.select_one("#revisao .verdict"))
    assert "Essa era a última pergunta" in text(graded.select_one(".review-next"))
    rows = db_rows(settings, "SELECT correct, review FROM attempt ORDER BY id")
    assert [(bool(c), bool(r)) for c, r in rows] == [(False, False), (True, True)]
    assert "para revisar" not in text(soup(client.get("/")).select_one(".resume"))


def test_answering_in_revisar_leaves_continue_where_i_left_off_alone(client, settings):
    """Issue 38: review is not reading. An answer in /revisar moved the place to the
    question's lesson; the reader's place stays in the lesson they were reading."""
    answer(client, "kernels", Q.id, wrong_form(Q))
    client.get("/licoes/escolha-self-hosted")
    writer_settled(answer_writer(client))
    let_time_pass(settings)
    before = db_rows(settings, "SELECT place_lesson, place_section FROM learner")
    assert before[0][0] == "escolha-self-hosted"
    qid, data = review_form(client, opcao=right_form(Q))
    response = client.post(f"/revisar/kernels/{qid}", data=data, follow_redirects=False)
    assert response.status_code == 303
    assert db_rows(settings, "SELECT correct, review FROM attempt ORDER BY id")[-1] == (1, 1)
    assert db_rows(settings, "SELECT place_lesson, place_section FROM learner") == before
    resume = soup(client.get("/")).select_one(".resume-link")
    assert resume["href"].startswith("/licoes/escolha-self-hosted")


def test_a_review_answered_twice_with_the_same_key_counts_once(client, settings):
    answer(client, "kernels", Q.id, wrong_form(Q))
    let_time_pass(settings)
    _, data = review_form(client, opcao=right_form(Q))
    first = client.post(f"/revisar/kernels/{Q.id}", data=data, headers=HX)
    assert first.status_code == 200
    assert "Resposta correta" in text(soup(first).select_one(".verdict"))
    before = db_rows(settings, "SELECT due, last_review, stability FROM review_card")
    again = client.post(f"/revisar/kernels/{Q.id}", data=data, headers=HX)
    assert again.status_code == 200
    assert db_rows(settings, "SELECT COUNT(*) FROM attempt WHERE review = true") == [(1,)]
    assert db_rows(settings, "SELECT due, last_review, stability FROM review_card") == before


def test_a_second_tab_answering_the_same_due_card_reviews_it_once(client, settings):
    """Two tabs show the same due card; both answers are stored, only the first reviews it (the
    second, seconds later, would have graduated the learning card for a day)."""
    answer(client, "kernels", Q.id, wrong_form(Q))
    let_time_pass(settings)
    _, tab1 = review_form(client, opcao=right_form(Q))
    _, tab2 = review_form(client, opcao=right_form(Q))
    assert tab1["chave"] != tab2["chave"]
    assert client.post(f"/revisar/kernels/{Q.id}", data=tab1, headers=HX).status_code == 200
    reviewed = db_rows(settings, "SELECT state, step, due, last_review FROM review_card")
    second = client.post(f"/revisar/kernels/{Q.id}", data=tab2, headers=HX)
    assert second.status_code == 200
    assert "Resposta correta" in text(soup(second).select_one(".verdict"))
    assert db_rows(settings, "SELECT COUNT(*) FROM attempt WHERE review = true") == [(2,)]
    assert db_rows(settings, "SELECT state, step, due, last_review FROM review_card") == reviewed
    assert reviewed[0][0] == 1, "o cartão continua aprendendo (Difícil, 15 minutos)"


def test_a_refused_review_answer_shows_the_message_and_stores_nothing(client, settings, frozen):
    frozen[0] = datetime.now(UTC)
    answer(client, "kernels", NUMERIC.id, wrong_form(NUMERIC))
    frozen[0] += timedelta(minutes=11)
    _, data = review_form(client, valor="quatro")
    response = client.post(f"/revisar/kernels/{NUMERIC.id}", data=data)
    assert response.status_code == 422
    assert "não é um número" in text(soup(response).select_one("#revisao .form-error"))
    assert db_rows(settings, "SELECT COUNT(*) FROM attempt") == [(1,)]


ORDER = KERNELS.questions["ordem-da-arvore"]


@pytest.mark.parametrize("position", ["²", "①", "1" * 5000], ids=["superscript", "circled", "5000"])
def test_a_review_ordering_position_that_is_not_ascii_digits_is_a_422_in_portuguese(
    client, settings, frozen, position
):
    frozen[0] = datetime.now(UTC)
    answer(client, "kernels", ORDER.id, wrong_form(ORDER))
    frozen[0] += timedelta(minutes=11)
    positions = [f"{item}={n}" for n, item in enumerate(ORDER.order, start=1)]
    positions[0] = f"mac={position}"
    qid, data = review_form(client, posicao=positions)
    assert qid == ORDER.id
    response = client.post(f"/revisar/kernels/{ORDER.id}", data=data)
    assert response.status_code == 422
    assert text(soup(response).select_one("#revisao .form-error")) == (
        f"Cada posição deve ser um número inteiro de 1 a {len(ORDER.order)}."
    )
    assert db_rows(settings, "SELECT COUNT(*) FROM attempt") == [(1,)]


def test_a_review_answer_read_in_thousands_asks_to_confirm_then_is_graded(client, settings, frozen):
    frozen[0] = datetime.now(UTC)
    answer(client, "kernels", NUMERIC.id, wrong_form(NUMERIC))
    frozen[0] += timedelta(minutes=11)
    _, data = review_form(client, valor="4.410")
    asked = client.post(f"/revisar/kernels/{NUMERIC.id}", data=data)
    assert asked.status_code == 422
    box = soup(asked).select_one("#revisao")
    assert text(box.select_one(".form-error")).startswith("Em “4.410”, o ponto separa os milhares")
    assert box.select_one('input[name="confirmado"]')["value"] == "4.410"
    assert db_rows(settings, "SELECT COUNT(*) FROM attempt") == [(1,)]
    _, data = review_form(client, valor="4.410", confirmado="4.410")
    graded = client.post(f"/revisar/kernels/{NUMERIC.id}", data=data, headers=HX)
    assert "Resposta incorreta" in text(soup(graded).select_one(".verdict"))
    assert db_rows(settings, "SELECT chosen FROM attempt WHERE review = true") == [("4410",)]


# --- merge, export, delete --------------------------------------------------------------------


def test_merge_moves_cards_and_the_most_recent_review_wins(db):
    q2 = KERNELS.questions["teto-do-decode"]
    store(db, "a" * 32, True, T0, "k" * 16)  # account: older review of Q
    store(db, "b" * 32, False, T0 + timedelta(hours=1), "l" * 16)  # anonymous: newer, wrong
    store(db, "a" * 32, False, T0 + timedelta(hours=2), "m" * 16, question=q2)  # account: newer
    store(db, "b" * 32, True, T0, "n" * 16, question=q2)  # anonymous: older
    merge_learner(db, "b" * 32, "a" * 32, None)
    db.expire_all()
    cards = {c.question_id: c for c in review.learner_cards(db, "a" * 32)}
    assert set(cards) == {Q.id, q2.id}
    assert cards[Q.id].last_review.replace(tzinfo=UTC) == T0 + timedelta(hours=1)
    assert cards[q2.id].last_review.replace(tzinfo=UTC) == T0 + timedelta(hours=2)
    assert review.learner_cards(db, "b" * 32) == []


def test_signing_in_merges_the_anonymous_cards(client, settings):
    sign_up(client)
    phone = new_browser(client)
    answer(phone, "kernels", Q.id, wrong_form(Q))
    assert sign_in(phone).status_code == 303
    (account_learner,) = db_rows(settings, "SELECT learner_id FROM account")
    assert db_rows(settings, "SELECT learner_id, question_id FROM review_card") == [
        (account_learner[0], Q.id)
    ]


def test_export_and_delete_include_the_cards(client, settings):
    answer(client, "kernels", Q.id, wrong_form(Q))
    exported = client.get("/meus-dados/exportar").json()
    (card,) = exported["review_cards"]
    assert (card["lesson_slug"], card["question_id"]) == ("kernels", Q.id)
    assert card["question_hash"] == Q.content_hash and card["due"]
    assert text(soup(client.get("/meus-dados")).select_one(".stored-review-cards")) == "1"
    assert post_form(client, "/meus-dados/apagar", confirmo="sim").status_code == 303
    assert db_rows(settings, "SELECT COUNT(*) FROM review_card") == [(0,)]


def test_export_of_a_learner_without_cards_has_an_empty_list(db):
    data = learner_data(db, "z" * 32)
    assert data is not None and data.review_cards == []


def test_the_attempts_csv_tells_review_answers_apart(client, settings, frozen):
    frozen[0] = datetime.now(UTC)
    answer(client, "kernels", Q.id, wrong_form(Q))
    frozen[0] += timedelta(minutes=11)
    _, data = review_form(client, opcao=right_form(Q))
    client.post(f"/revisar/kernels/{Q.id}", data=data)
    teacher = instructor(new_browser(client), settings)
    rows = read_csv(teacher.get("/instrutor/exportar/tentativas.csv"))
    assert [(r["pergunta"], r["correta"], r["revisao"]) for r in rows] == [
        (Q.id, "não", "não"),
        (Q.id, "sim", "sim"),
    ]


def test_a_lesson_page_spends_no_statement_of_its_own_on_review_or_mastery(client, frozen):
    frozen[0] = datetime.now(UTC)
    answer(client, "kernels", Q.id, wrong_form(Q))
    frozen[0] += timedelta(minutes=11)
    client.get("/licoes/kernels")  # the place is stored; the next visit only reads
    statements: list[str] = []

    def seen(conn, cursor, statement, parameters, context, executemany):
        statements.append(" ".join(statement.split()))

    event.listen(Engine, "after_cursor_execute", seen)
    try:
        page = soup(client.get("/licoes/kernels"))
    finally:
        event.remove(Engine, "after_cursor_execute", seen)
    assert text(page.select_one("#navegacao-curso .review-due")) == "1 pergunta para revisar"
    with_cards = [s for s in statements if "review_card" in s]
    assert len(with_cards) == 1, "o total a revisar vem na consulta das tentativas"
    assert "FROM attempt" in with_cards[0]
    assert not [s for s in statements if "row_number" in s.lower()], "nada de domínio na lição"


# --- answers given before spaced review existed (migration 0011) ------------------------------


def seed_at_0009(url: str, learner: str, answers: list[tuple[Question, bool, datetime]]) -> None:
    """A learner with an account and ``answers`` stored as the app at revision 0009 stored them
    (no review cards: migration 0009 made the table empty)."""
    when = sa.DateTime(timezone=True)
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.table("learner", sa.column("id"), sa.column("created_at", when)).insert(),
            {"id": learner, "created_at": answers[0][2]},
        )
        account = sa.table(
            "account",
            *(sa.column(name) for name in ("learner_id", "username", "password_hash")),
            *(sa.column(name) for name in ("is_instructor", "is_admin")),
            sa.column("created_at", when),
        )
        connection.execute(
            account.insert(),
            {
                "learner_id": learner,
                "username": "antiga",
                "password_hash": Passwords().hash(PASSWORD),
                "created_at": answers[0][2],
                "is_instructor": False,
                "is_admin": False,
            },
        )
        names = ("learner_id", "lesson_slug", "question_id", "question_hash", "chosen", "correct")
        attempt = sa.table(
            "attempt",
            *(sa.column(name) for name in (*names, "review", "idempotency_key")),
            sa.column("created_at", when),
        )
        connection.execute(
            attempt.insert(),
            [
                {
                    "learner_id": learner,
                    "lesson_slug": "kernels",
                    "question_id": question.id,
                    "question_hash": question.content_hash,
                    "chosen": "x",
                    "correct": correct,
                    "review": False,
                    "idempotency_key": f"chave-{n:02d}" + "0" * 8,
                    "created_at": at,
                }
                for n, (question, correct, at) in enumerate(answers)
            ],
        )
    engine.dispose()


def test_the_replay_makes_the_cards_the_app_kept_answer_by_answer(db):
    """The migration's replay and the app's scheduling of each new answer are one rule."""
    q2 = KERNELS.questions["teto-do-decode"]
    history = [
        ("a", Q, False, 0),
        ("a", Q, True, 3),  # before its due date
        ("a", Q, True, 11),  # a retry once due: Hard
        ("a", Q, True, 60 * 24 * 3),
        ("a", q2, True, 5),
        ("b", Q, True, 1),
        ("b", q2, False, 2),
        ("b", q2, False, 20),
    ]
    for n, (who, question, correct, minutes) in enumerate(history):
        at = T0 + timedelta(minutes=minutes)
        store(db, who * 32, correct, at, f"{n:02d}" + "k" * 14, question=question)

    def cards() -> list[tuple]:
        rows = db.exec(sa.select(REVIEW_CARD).order_by("learner_id", "question_id"))
        return [tuple(row) for row in rows]

    kept = cards()
    assert len(kept) == 4
    connection = db.connection()
    connection.execute(sa.delete(REVIEW_CARD))
    assert review.replay(connection, batch=3) == 4
    db.commit()
    assert cards() == kept


def test_answers_given_before_spaced_review_get_their_cards_on_upgrade(
    tmp_path, empty_database_url
):
    database_url = empty_database_url
    now = datetime.now(UTC).replace(microsecond=0)
    t0 = now - timedelta(days=3)
    recent = now - timedelta(minutes=2)
    q2, q3 = KERNELS.questions["teto-do-decode"], NUMERIC
    upgrade(database_url, "0009")
    seed_at_0009(
        database_url,
        "c" * 32,
        [
            (Q, False, t0),  # Again: due ten minutes later
            (q2, False, t0),
            (q2, True, t0 + timedelta(minutes=1)),  # before its due date: reviews nothing
            (q2, True, t0 + timedelta(hours=1)),  # a retry once due: Hard, 15 minutes
            (q3, False, recent),  # not due yet
        ],
    )
    settings = make_settings(tmp_path, database_url=database_url)  # upgrades to head

    client = TestClient(create_app(settings), follow_redirects=False)
    assert sign_in(client, "antiga").status_code == 303
    page = soup(client.get("/revisar"))
    assert text(page.select_one(".review-count")) == "2 perguntas para revisar"
    assert page.select_one("#revisao .question")["id"] == f"pergunta-{Q.id}"  # the oldest due
    cards = client.get("/meus-dados/exportar").json()["review_cards"]
    due = {card["question_id"]: datetime.fromisoformat(card["due"]) for card in cards}
    assert due == {
        Q.id: t0 + timedelta(minutes=10),
        q2.id: t0 + timedelta(hours=1, minutes=15),
        q3.id: recent + timedelta(minutes=10),
    }
