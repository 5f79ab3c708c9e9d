"""An answer kept on a device offline is graded with the time it was given (issue 40, item 4):
``dada_em`` on the answer form, clamped to between 14 days ago and now; a time that is not one
is refused with a message in Portuguese and nothing stored."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.learning.usecases import OFFLINE_WINDOW
from tests.support.app import query
from tests.support.learning import KERNELS, answer, right_form

QUESTION = next(q for q in KERNELS.questions.values() if q.input_type == "radio")


def given_times(settings) -> list[datetime]:
    """The attempts' times, in UTC (SQLite gives naive UTC text, PostgreSQL aware times)."""
    rows = query(settings, "SELECT created_at FROM attempt ORDER BY id")
    times = [at if isinstance(at, datetime) else datetime.fromisoformat(at) for (at,) in rows]
    return [at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC) for at in times]


def send(client, when: str):
    return answer(client, KERNELS.slug, QUESTION.id, {**_fields(), "dada_em": when})


def _fields() -> dict:
    form = right_form(QUESTION)
    return form if isinstance(form, dict) else {"opcao": form}


def test_an_answer_given_offline_is_stored_at_the_time_it_was_given(client, settings):
    given = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
    assert send(client, given.isoformat().replace("+00:00", "Z")).status_code == 200
    assert given_times(settings) == [given]


def test_the_time_given_is_clamped_to_the_offline_window_and_to_now(client, settings):
    before = datetime.now(UTC)
    assert send(client, "2020-01-01T00:00:00Z").status_code == 200
    assert send(client, "2999-01-01T00:00:00+00:00").status_code == 200
    after = datetime.now(UTC)
    old, future = given_times(settings)
    assert before - OFFLINE_WINDOW - timedelta(seconds=1) <= old <= after - OFFLINE_WINDOW
    assert before - timedelta(seconds=1) <= future <= after


def test_a_time_that_is_not_one_is_refused_and_nothing_is_stored(client, settings):
    for bad in ("ontem", "2026-12-01T10:00:00"):  # no offset: whose 10 o'clock?
        response = send(client, bad)
        assert response.status_code == 422
        assert "O horário em que esta resposta foi dada não é válido." in response.text
    assert given_times(settings) == []
