"""An answer kept on a device offline is graded with the time it was given (issue 40, item 4):
``dada_em`` on the answer form, clamped to between the time the form's page was sent
(``emitida``, signed by the server) and now, and never more than 14 days back; a time that is
not one is refused with a message in Portuguese and nothing stored."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient
from itsdangerous import TimestampSigner

from app.learning import usecases
from app.learning.usecases import (
    OFFLINE_WINDOW,
    Answer,
    AnswerPlace,
    answer_question,
    issued_time,
    issued_token,
)
from app.main import create_app
from tests.support.accounts import instructor, sign_up
from tests.support.app import query
from tests.support.coroutines import run as run_coroutine
from tests.support.html import csrf_from, soup, text
from tests.support.learning import COURSE, KERNELS, answer, right_form
from tests.support.memory_store import MemoryStore

QUESTION = next(q for q in KERNELS.questions.values() if q.input_type == "radio")
SECRET = b"segredo-de-teste"
OTHER = next(lesson for lesson in COURSE.lessons if lesson.slug != KERNELS.slug)


def given_times(settings) -> list[datetime]:
    """The attempts' times, in UTC (SQLite gives naive UTC text, PostgreSQL aware times)."""
    rows = query(settings, "SELECT created_at FROM attempt ORDER BY id")
    times = [at if isinstance(at, datetime) else datetime.fromisoformat(at) for (at,) in rows]
    return [at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC) for at in times]


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def send(client, when: str, issued: str | None = None):
    fields = {**_fields(), "dada_em": when}
    if issued is not None:
        fields["emitida"] = issued
    return answer(client, KERNELS.slug, QUESTION.id, fields)


def _fields() -> dict:
    form = right_form(QUESTION)
    return form if isinstance(form, dict) else {"opcao": form}


def _stored_at(given: datetime | None, issued: str | None) -> datetime | None:
    """The time the answer use-case gives the store for an answer kept offline."""
    store = MemoryStore()
    options = sorted(QUESTION.answer)
    sent = Answer("k" * 22, QUESTION.content_hash, options, given_at=given, issued=issued)
    where = AnswerPlace(draw_key=SECRET)
    run_coroutine(answer_question(store, COURSE, KERNELS, QUESTION, "a" * 32, sent, where))
    (stored,) = store.sent
    return stored.at


# --- the use-case, without HTTP ----------------------------------------------------------------


def test_an_answer_is_never_given_before_its_page_was_sent():
    now = datetime.now(UTC).replace(microsecond=0)
    page_sent = now - timedelta(hours=2)
    token = issued_token(SECRET, KERNELS.slug, page_sent)
    assert issued_time(SECRET, token, KERNELS.slug) == page_sent
    # Backdated to before the page reached the device: it counts from the page.
    assert _stored_at(now - timedelta(days=3), token) == page_sent
    # Given after the page was sent: at the time given.
    assert _stored_at(now - timedelta(hours=1), token) == now - timedelta(hours=1)
    # An answer sent when given carries no time: the writer stamps it when it commits.
    assert _stored_at(None, token) is None


def test_the_page_time_is_checked_only_for_an_answer_that_says_when_it_was_given(monkeypatch):
    checked = []

    def recorded(*args):
        checked.append(args)
        return issued_time(*args)

    monkeypatch.setattr(usecases, "issued_time", recorded)
    now = datetime.now(UTC)
    token = issued_token(SECRET, KERNELS.slug, now - timedelta(hours=2))
    assert _stored_at(None, token) is None  # sent when given: no signature to check
    assert checked == []
    assert _stored_at(now - timedelta(hours=1), token) is not None
    assert checked == [(SECRET, token, KERNELS.slug)]


def test_a_page_older_than_the_window_counts_from_the_window():
    now = datetime.now(UTC)
    page_sent = issued_token(SECRET, KERNELS.slug, now - timedelta(days=30))
    at = _stored_at(now - timedelta(days=40), page_sent)
    assert at is not None
    assert now - OFFLINE_WINDOW - timedelta(seconds=1) <= at <= datetime.now(UTC) - OFFLINE_WINDOW


@pytest.mark.parametrize(
    "issued",
    [
        None,  # a form from before pages said when they were sent
        "p.x.y",
        TimestampSigner(b"outro-segredo", salt=f"curso-emitida/{KERNELS.slug}").sign("p").decode(),
        # another lesson's page (a tab opened last week) says nothing of when this one came
        issued_token(SECRET, OTHER.slug, datetime.now(UTC) - timedelta(days=7)),
    ],
)
def test_without_a_genuine_page_time_the_answer_counts_when_it_arrives(issued):
    assert _stored_at(datetime.now(UTC) - timedelta(days=3), issued) is None


# --- over HTTP ---------------------------------------------------------------------------------


def secret_of(settings) -> bytes:
    return settings.resolved_secret_key().encode()


def test_an_answer_given_offline_is_stored_at_the_time_it_was_given(client, settings):
    given = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
    downloaded = issued_token(secret_of(settings), KERNELS.slug, given - timedelta(hours=1))
    assert send(client, iso(given), downloaded).status_code == 200
    assert given_times(settings) == [given]


def test_the_time_given_is_clamped_to_the_page_and_to_now(client, settings):
    before = datetime.now(UTC).replace(microsecond=0)
    # the page the form came from, as the server sent it to this client just now
    assert send(client, "2020-01-01T00:00:00Z").status_code == 200
    assert send(client, "2999-01-01T00:00:00+00:00").status_code == 200
    after = datetime.now(UTC)
    old, future = given_times(settings)
    assert before <= old <= after
    assert before <= future <= after


def test_a_time_that_is_not_one_is_refused_and_nothing_is_stored(client, settings):
    for bad in ("ontem", "2026-12-01T10:00:00"):  # no offset: whose 10 o'clock?
        response = send(client, bad)
        assert response.status_code == 422
        assert "O horário em que esta resposta foi dada não é válido." in response.text
    assert given_times(settings) == []


def test_each_response_of_a_cached_page_says_when_it_was_sent(client, settings, monkeypatch):
    def issued_on_page() -> datetime | None:
        page = soup(client.get(f"/licoes/{KERNELS.slug}").text)
        field = page.select_one(f'#pergunta-{QUESTION.id} input[name="emitida"]')
        return issued_time(secret_of(settings), field["value"], KERNELS.slug)

    first = issued_on_page()  # renders the visitors' page into the cache
    assert first is not None
    later = int(first.timestamp()) + 3600
    monkeypatch.setattr(usecases, "time", SimpleNamespace(time=lambda: later))  # an hour on
    assert issued_on_page() == datetime.fromtimestamp(later, UTC)


def test_a_page_time_copied_from_another_lesson_does_not_backdate_an_answer(
    client, settings, monkeypatch
):
    # A tab of another lesson, opened a week ago: its forms' ``emitida``.
    week_ago = int(datetime.now(UTC).timestamp()) - 7 * 24 * 3600
    monkeypatch.setattr(usecases, "time", SimpleNamespace(time=lambda: week_ago))
    page = soup(client.get(f"/licoes/{OTHER.slug}").text)
    copied = page.select_one('input[name="emitida"]')["value"]
    monkeypatch.undo()
    # Posted with a lesson 1 answer that says it was given then: it counts when it arrives.
    before = datetime.now(UTC).replace(microsecond=0)
    given = datetime.fromtimestamp(week_ago, UTC)
    assert send(client, iso(given), copied).status_code == 200
    (stored,) = given_times(settings)
    assert stored >= before


def test_an_answer_backdated_to_before_a_due_date_is_late(settings):
    app = create_app(settings)
    teacher = instructor(TestClient(app, follow_redirects=False), settings, "prof")
    learner = TestClient(app, follow_redirects=False)
    answer(learner, KERNELS.slug, QUESTION.id, ["b"])
    sign_up(learner, "ana")
    token = csrf_from(teacher.get("/conta").text)
    created = teacher.post("/instrutor/turmas", data={"csrftoken": token, "nome": "Turma A"})
    link = text(soup(teacher.get(created.headers["location"]).text).select_one(".join-link"))
    learner_token = csrf_from(learner.get("/conta").text)
    code = link.split("/turmas/entrar/")[1]
    learner.post(f"/turmas/entrar/{code}", data={"csrftoken": learner_token})
    due = datetime.now(ZoneInfo("America/Sao_Paulo")) - timedelta(hours=1)
    teacher.post(
        created.headers["location"] + "/prazos",
        data={"csrftoken": token, "licao": KERNELS.slug, "prazo": due.strftime("%Y-%m-%dT%H:%M")},
    )
    # The page reached the learner after the due date; the answer says it was given before.
    backdated = datetime.now(UTC) - timedelta(days=1)
    graded = soup(send(learner, iso(backdated)).text)
    assert text(graded.select_one(".answered-late")) == "atrasada: depois do prazo"
    stored = given_times(settings)[-1]
    assert stored > due.astimezone(UTC)
