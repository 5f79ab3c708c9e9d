"""Passwords are compared in NFKC: the same visible text signs in however it was encoded."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from app.platform.auth import Passwords, argon2_hasher
from tests.support.accounts import new_browser, sign_in, sign_up
from tests.support.app import db_rows
from tests.support.html import soup, text

ACCENTED = "ação café pão"  # every accented letter has a decomposed (NFD) form
FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def form(name: str, value: str) -> str:
    return unicodedata.normalize(name, value)


def stored_hash(settings, username: str) -> str:
    return db_rows(settings, "SELECT password_hash FROM account WHERE username = ?", username)[0][0]


def test_sign_up_in_nfc_and_sign_in_in_nfd(client):
    nfc, nfd = form("NFC", ACCENTED), form("NFD", ACCENTED)
    assert nfc != nfd
    assert sign_up(new_browser(client), "ana", nfc).status_code == 303
    response = sign_in(client, "ana", nfd)
    assert response.status_code == 303
    assert response.headers["location"] == "/progresso"


def test_the_confirmation_may_come_in_another_form(client):
    response = sign_up(client, "ana", form("NFC", ACCENTED), form("NFD", ACCENTED))
    assert response.status_code == 303, text(soup(response).select_one(".form-error"))


@pytest.mark.parametrize("signed_up", FORMS)
@pytest.mark.parametrize("signing_in", FORMS)
def test_every_unicode_form_of_the_password_signs_in(client, signed_up: str, signing_in: str):
    """Sweep: compatibility characters too (ligature "ﬁ", full-width "Ａ", no-break space)."""
    password = "ﬁm da ＡULA\u00a0ação"
    assert sign_up(new_browser(client), "ana", form(signed_up, password)).status_code == 303
    assert sign_in(client, "ana", form(signing_in, password)).status_code == 303


def test_a_wrong_password_stays_wrong_in_any_form(client):
    sign_up(new_browser(client), "ana", ACCENTED)
    for name in FORMS:
        response = sign_in(client, "ana", form(name, "acao cafe pao"))
        assert response.status_code == 401
        assert text(soup(response).select_one(".form-error")) == "Usuário ou senha incorretos."


def test_a_hash_from_before_normalisation_still_signs_in_and_is_rehashed(client, settings):
    """An account whose hash holds the raw NFD text, as stored before this change."""
    nfd = form("NFD", ACCENTED)
    sign_up(new_browser(client), "ana", ACCENTED)
    legacy = argon2_hasher().hash(nfd)
    db_rows(settings, "UPDATE account SET password_hash = ? WHERE username = 'ana'", legacy)
    assert not Passwords().verify(form("NFC", ACCENTED), legacy), "the old hash takes only NFD"

    assert sign_in(client, "ana", nfd).status_code == 303
    rehashed = stored_hash(settings, "ana")
    assert rehashed != legacy
    hasher = argon2_hasher()
    assert hasher.verify(form("NFKC", ACCENTED), rehashed) and not hasher.verify(nfd, rehashed)
    assert sign_in(new_browser(client), "ana", form("NFC", ACCENTED)).status_code == 303


def test_a_current_hash_is_not_rewritten_at_sign_in(client, settings):
    sign_up(new_browser(client), "ana", ACCENTED)
    before = stored_hash(settings, "ana")
    assert sign_in(client, "ana", form("NFD", ACCENTED)).status_code == 303
    assert stored_hash(settings, "ana") == before


def argon2_cost(password_hash: str) -> str:
    """The parameters of an argon2id PHC string: ``m=…,t=…,p=…``."""
    variant, version, cost, *_ = password_hash.split("$")[1:]
    assert (variant, version) == ("argon2id", "v=19"), password_hash
    return cost


def test_a_hash_with_the_old_argon2_cost_is_rewritten_with_owasps(client, settings):
    """Issue 38: argon2 at pwdlib's default cost (64 MiB, 3 iterations, 4 lanes) spent ~190 ms
    of CPU per sign-in. New hashes use OWASP's minimum (19 MiB, 2 iterations, 1 lane), and an
    account hashed the old way signs in as before and gets the new hash."""
    sign_up(new_browser(client), "ana", ACCENTED)
    assert argon2_cost(stored_hash(settings, "ana")) == "m=19456,t=2,p=1"
    old = PasswordHash((Argon2Hasher(time_cost=3, memory_cost=65536, parallelism=4),))
    db_rows(
        settings, "UPDATE account SET password_hash = ? WHERE username = 'ana'", old.hash(ACCENTED)
    )

    assert sign_in(client, "ana", ACCENTED).status_code == 303
    rewritten = stored_hash(settings, "ana")
    assert argon2_cost(rewritten) == "m=19456,t=2,p=1"
    assert argon2_hasher().verify(ACCENTED, rewritten)
    assert sign_in(new_browser(client), "ana", ACCENTED).status_code == 303


@hypothesis_settings(max_examples=15, deadline=None)
@given(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20),
    st.sampled_from(FORMS),
    st.sampled_from(FORMS),
)
def test_any_text_hashed_in_one_form_verifies_in_another(password: str, hashed: str, typed: str):
    passwords = Passwords()  # argon2 at its lowest cost (conftest.py's cheap_password_hashing)
    password_hash = passwords.hash(form(hashed, password))
    assert passwords.check(form(typed, password), password_hash).matched
    assert not passwords.check(password + "x", password_hash).matched
