"""The app that tests share (tests/support/shared_app.py): what one test stored or made the app
keep is gone for the next, and a test that changed the app itself leaves it for a new one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.support.accounts import instructor, sign_in
from tests.support.app import database_dump
from tests.support.learning import KERNELS, answer, card, right_form
from tests.support.shared_app import SharedApps

QUESTION = next(iter(KERNELS.questions.values()))


@pytest.fixture
def apps(backend: str, tmp_path_factory, request: pytest.FixtureRequest) -> Iterator[SharedApps]:
    """Shared apps of this test alone (the process's own serve the other tests)."""
    postgres = request.getfixturevalue("postgres_databases") if backend != "sqlite" else None
    made = SharedApps(tmp_path_factory.mktemp, postgres)
    yield made
    made.close()


def rows(settings) -> dict[str, list[str]]:
    return {table: sorted(found) for table, found in database_dump(settings).items()}


def test_what_a_test_stored_or_the_app_kept_is_gone_for_the_next(apps, backend):
    with apps.for_one_test(backend) as shared:
        fresh = rows(shared.settings)
        with TestClient(shared.app) as client:
            assert client.get("/licoes/kernels").status_code == 200  # a visitor's page
            assert answer(client, "kernels", QUESTION.id, right_form(QUESTION)).status_code == 200
            assert client.get("/licoes/kernels").status_code == 200  # a learner's page
            teacher = instructor(client, shared.settings)
            assert teacher.get("/instrutor").status_code == 200  # the dashboard's kept figures
            wrong = sign_in(TestClient(shared.app), "prof", "errada")
            assert wrong.status_code != 303  # a failed sign-in, counted
        state = shared.app.state
        stored = rows(shared.settings)
        for table in ("learner", "attempt", "account", "websession", "report_cache", "rate_limit"):
            assert stored[table] != fresh[table], table
        assert state.visitor_pages.pages and state.learner_pages.pages
        assert state.learner_states._kept and state.sessions._cache
        assert state.answer_writer.batches > 0
    with apps.for_one_test(backend) as again:
        assert again is shared, "the same app"
        assert rows(again.settings) == fresh, "every table as a new migrated database"
        assert not state.visitor_pages.pages and not state.learner_pages.pages
        assert not state.learner_states._kept and not state.sessions._cache
        assert state.answer_writer.batches == 0
        with TestClient(again.app) as client:
            assert card(client, "kernels")["attempts"] == "0"


def test_a_test_that_changes_a_setting_or_a_piece_of_the_app_leaves_it(apps, backend):
    with apps.for_one_test(backend) as shared:
        shared.settings.web_editor = False
    with apps.for_one_test(backend) as second:
        assert second is not shared and second.settings.web_editor
        second.app.state.search = None
    with apps.for_one_test(backend) as third:
        assert third is not second
        third.app.dependency_overrides[print] = print
    with apps.for_one_test(backend) as fourth:
        assert fourth is not third
    with apps.for_one_test(backend) as fifth:
        assert fifth is fourth, "an app nobody changed is kept"
