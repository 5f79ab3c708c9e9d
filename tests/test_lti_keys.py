"""The id_token's checks and the platform's keys (issue 34, items 6 and 7), against the real test
platform (lti1p3platform on uvicorn) and the course on another uvicorn.

The launches here are written by the test and signed with the platform's own key
(:func:`tests.support.lti_platform.signed_launch`), through the tool's real OIDC login: a
platform whose clock runs ahead, a token without ``exp``, forged key ids.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import httpx
import jwt
import pytest

from tests.support.app import db_rows
from tests.support.html import soup, text
from tests.support.lti_platform import (
    launch,
    launch_form,
    launch_page,
    lms_fixture,
    post_launch_form,
    signed_launch,
)

REFUSED = "Esta entrada LTI foi recusada"
REPLAYED = "Esta entrada já foi usada"


lms = lms_fixture("lti-keys")


def seconds_from_now(value) -> float:
    """Seconds from now to a stored UTC time (SQLite gives it back naive, or as text)."""
    moment = datetime.fromisoformat(str(value)) if not isinstance(value, datetime) else value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - datetime.now(UTC)).total_seconds()


def test_iat_and_nbf_have_a_minute_of_leeway_for_a_platform_clock_ahead(lms):
    """Without leeway, an ``iat`` even 2 s ahead is refused (whole seconds: 0.3 s ahead was
    refused in 7 of 30 launches, when the clock's fraction crossed a second); 30 s ahead is
    accepted, three minutes ahead is not."""
    tool, platform = lms
    for ahead_s in (2, 30):
        soon = int(time.time()) + ahead_s
        with httpx.Client(timeout=30) as browser:
            opened = signed_launch(browser, tool.url, platform, {"iat": soon, "nbf": soon})
        assert opened.status_code == 303, (ahead_s, opened.text[:500])
        assert opened.headers["location"] == "/licoes/kernels"
    later = int(time.time()) + 180
    with httpx.Client(timeout=30) as browser:
        refused = signed_launch(browser, tool.url, platform, {"iat": later})
    assert refused.status_code == 400
    assert REFUSED in refused.text and "iat" in refused.text


@pytest.mark.parametrize("claim", ["exp", "iat"])
def test_a_token_without_exp_or_iat_is_refused(lms, claim):
    tool, platform = lms
    with httpx.Client(timeout=30) as browser:
        refused = signed_launch(browser, tool.url, platform, drop=(claim,))
        assert refused.status_code == 400
        assert REFUSED in refused.text and claim in refused.text
        account = soup(browser.get(tool.url + "/conta").text).select_one(".nav-account")
        assert text(account) == "Entrar"  # nobody signed in


def test_the_used_nonce_is_kept_until_the_token_expires_and_a_replay_is_refused(lms):
    tool, platform = lms
    with httpx.Client(timeout=30) as browser:
        start = launch_page(browser, platform, user="eva-r", licao="kernels")
        assert post_launch_form(browser, start.text).status_code == 303
        token = jwt.decode(
            launch_form(start.text)[1]["id_token"], options={"verify_signature": False}
        )
        rows = db_rows(
            tool.settings,
            "SELECT value, expires_at FROM lti_state WHERE key = ?",
            "lti1p3-nonce-" + token["nonce"],
        )
        assert [value for value, _ in rows] == ['"used"']
        # until the token's exp, plus the minute of leeway
        left = seconds_from_now(rows[0][1])
        wanted = token["exp"] + 60 - time.time()
        assert wanted - 5 < left <= wanted + 1
        again = post_launch_form(browser, start.text)
    assert again.status_code == 403 and REPLAYED in again.text


def test_forty_forged_launches_with_unknown_key_ids_fetch_the_keys_at_most_once(lms):
    tool, platform = lms
    with httpx.Client(timeout=30) as browser:  # the platform's keys are cached
        assert signed_launch(browser, tool.url, platform).status_code == 303
    before = platform.jwks_fetches()
    for number in range(40):
        with httpx.Client(timeout=30) as forger:
            header = {"kid": f"chave-forjada-{number}"}
            refused = signed_launch(forger, tool.url, platform, header=header)
            assert refused.status_code == 400 and REFUSED in refused.text
    assert platform.jwks_fetches() - before <= 1
    # No bad token dropped the cached keys: a real launch fetches nothing.
    with httpx.Client(timeout=30) as browser:
        assert launch(browser, platform, user="ana-k", licao="kernels").status_code == 303
    assert platform.jwks_fetches() - before <= 1


@pytest.mark.parametrize(
    "control, kept_s", [("public, max-age=900", 900), ("no-store", 60), ("max-age=9999999", 86400)]
)
def test_the_platform_keys_are_kept_as_long_as_their_cache_control_says(lms, control, kept_s):
    tool, platform = lms
    db_rows(tool.settings, "DELETE FROM lti_state WHERE key LIKE 'key-set-%'")
    platform.set_jwks_cache_control(control)
    try:
        with httpx.Client(timeout=30) as browser:
            assert signed_launch(browser, tool.url, platform).status_code == 303
    finally:
        platform.set_jwks_cache_control(None)
    rows = db_rows(tool.settings, "SELECT expires_at FROM lti_state WHERE key LIKE 'key-set-url-%'")
    assert len(rows) == 1
    assert kept_s - 15 < seconds_from_now(rows[0][0]) <= kept_s
