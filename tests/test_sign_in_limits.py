"""Sign-in and sign-up limits: guesses from elsewhere never lock a learner out of a known device.

Each browser is a ``TestClient`` with its own client address, as uvicorn reports it.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.platform.auth import FAILS_PER_PAIR, FAILS_PER_USERNAME, SIGN_UPS_PER_IP, SignInLimiter
from app.platform.settings import PROJECT_ROOT
from app.web.routes.account import DEVICE_COOKIE
from tests.support.accounts import post_form as post
from tests.support.accounts import sign_in, sign_up
from tests.support.html import soup, text

BLOCKED = (
    "Muitas tentativas de entrar sem sucesso. Por segurança, espere 15 minutos e tente de novo."
)
SIGN_UP_BLOCKED = "Contas demais criadas a partir desta rede. Espere 60 minutos e tente de novo."


def browser(client: TestClient, ip: str) -> TestClient:
    """A new browser (no cookies) at address ``ip``."""
    return TestClient(client.app, client=(ip, 50000))


def sign_out(browser_: TestClient) -> None:
    assert post(browser_, "/conta/sair").status_code == 303


def limits(client: TestClient, **rules: str) -> None:
    client.app.state.sign_in_limiter = SignInLimiter(
        "database", engine=client.app.state.engine, **rules
    )


def error(response) -> str:
    return text(soup(response).select_one(".form-error"))


def test_guesses_from_another_address_do_not_lock_the_learner_out(client):
    assert FAILS_PER_PAIR == "5 per 15 minutes"
    assert sign_up(browser(client, "198.51.100.7")).status_code == 303
    attacker = browser(client, "203.0.113.5")
    for _ in range(5):
        assert sign_in(attacker, password="senha errada").status_code == 401
    blocked = sign_in(attacker)
    assert blocked.status_code == 429, "o par (usuário, IP) do atacante fica bloqueado"
    assert error(blocked) == BLOCKED
    learner = browser(client, "192.0.2.44")  # a new browser, elsewhere: no device cookie
    assert sign_in(learner).status_code == 303, "quem erra em outro IP não bloqueia a aluna"


def test_an_ipv6_client_counts_by_its_64(client):
    sign_up(browser(client, "198.51.100.7"))
    for n in range(5):
        assert (
            sign_in(browser(client, f"2001:db8:0:1::{n + 1:x}"), password="errada").status_code
            == 401
        )
    assert sign_in(browser(client, "2001:db8:0:1::ffff")).status_code == 429, "a mesma /64"
    assert sign_in(browser(client, "2001:db8:0:2::1")).status_code == 303, "outra /64"


def test_the_username_ceiling_slows_unknown_devices_but_not_a_known_one(client):
    assert FAILS_PER_USERNAME == "50 per 15 minutes"
    limits(client, per_username="3 per 15 minutes")
    phone = browser(client, "198.51.100.7")
    assert sign_up(phone).status_code == 303
    assert phone.cookies.get(DEVICE_COOKIE), (
        "entrar (ou criar a conta) marca o aparelho como conhecido"
    )
    sign_out(phone)
    for n in range(3):  # a guessing attack spread over three addresses
        assert sign_in(browser(client, f"203.0.113.{n + 1}"), password="errada").status_code == 401
    laptop = browser(client, "192.0.2.44")
    assert sign_in(laptop).status_code == 429, "um aparelho novo espera o teto por usuário"
    response = sign_in(phone)
    assert response.status_code == 303, "o aparelho conhecido entra mesmo durante o ataque"
    renewed = response.headers.get_list("set-cookie")
    device = next(c for c in renewed if c.startswith(f"{DEVICE_COOKIE}="))
    assert "HttpOnly" in device and "Path=/conta" in device and "SameSite=lax" in device


def test_a_known_device_has_its_own_limit(client):
    phone = browser(client, "198.51.100.7")
    sign_up(phone)
    sign_out(phone)
    for _ in range(5):
        assert sign_in(phone, password="errada").status_code == 401
    assert sign_in(phone).status_code == 429, "cinco erros bloqueiam o próprio aparelho"
    assert sign_in(browser(client, "198.51.100.7")).status_code == 303, (
        "os erros do aparelho conhecido não contam para o IP nem para o usuário"
    )


@pytest.mark.parametrize("cookie", ["forjado", "outra-conta", "adulterado"])
def test_a_forged_or_foreign_device_cookie_is_an_unknown_device(client, cookie):
    limits(client, per_username="1 per 15 minutes")
    bia = browser(client, "198.51.100.8")
    sign_up(bia, "bia")
    ana = browser(client, "198.51.100.7")
    sign_up(ana, "ana")
    values = {
        "forjado": "eyJ1IjoiYW5hIiwiZCI6Inh5eiJ9.ZZZZZZ.assinatura-falsa",
        "outra-conta": bia.cookies[DEVICE_COOKIE],
        "adulterado": ana.cookies[DEVICE_COOKIE][:-2] + "xx",
    }
    assert sign_in(browser(client, "203.0.113.1"), password="errada").status_code == 401
    stranger = browser(client, "203.0.113.9")
    stranger.cookies.set(DEVICE_COOKIE, values[cookie], path="/conta")
    assert sign_in(stranger).status_code == 429


def test_sign_up_is_limited_per_address_and_per_ipv6_64(client):
    assert SIGN_UPS_PER_IP == "20 per hour"
    limits(client, sign_ups_per_ip="3 per hour")
    for n in range(3):
        assert sign_up(browser(client, "198.51.100.7"), f"aluno{n}").status_code == 303
    blocked = sign_up(browser(client, "198.51.100.7"), "aluno9")
    assert blocked.status_code == 429
    assert error(blocked) == SIGN_UP_BLOCKED
    assert 3000 < int(blocked.headers["retry-after"]) <= 3600
    assert sign_up(browser(client, "198.51.100.8"), "aluno9").status_code == 303, (
        "outro IP segue livre"
    )
    for n in range(3):
        assert sign_up(browser(client, f"2001:db8:0:1::{n + 1}"), f"seis{n}").status_code == 303
    assert sign_up(browser(client, "2001:db8:0:1::abcd"), "seis9").status_code == 429, "a mesma /64"
    assert sign_up(browser(client, "2001:db8:0:2::1"), "seis9").status_code == 303, "outra /64"


LIMITS = {  # rule -> (limits for the test, how to use it up, who is still free afterwards)
    "per (username, IP)": {"per_pair": "2 per 15 minutes"},
    "per IP": {"per_ip": "2 per 15 minutes"},
    "per username": {"per_username": "2 per 15 minutes"},
}


@pytest.mark.parametrize("rule", LIMITS)
def test_each_sign_in_limit_blocks_only_its_own_scope(client, rule):
    """Sweep over the sign-in limits: each one blocks what it counts, and nothing else."""
    limits(client, **LIMITS[rule])
    for name in ("ana", "bia"):
        sign_up(browser(client, "198.51.100.1"), name)
    known = browser(client, "203.0.113.1")
    assert sign_in(known, "bia").status_code == 303
    sign_out(known)
    attacker = "203.0.113.1"
    targets = {
        "per (username, IP)": ["ana", "ana"],
        "per IP": ["ana", "bia"],
        "per username": ["ana", "ana"],
    }[rule]
    for n, name in enumerate(targets):
        ip = attacker if rule != "per username" else f"192.0.2.{n + 1}"
        assert sign_in(browser(client, ip), name, "errada").status_code == 401
    blocked_ip = attacker if rule != "per username" else "192.0.2.99"
    assert sign_in(browser(client, blocked_ip), "ana").status_code == 429, rule
    free = {
        "per (username, IP)": [(attacker, "bia"), ("192.0.2.50", "ana")],
        "per IP": [("192.0.2.50", "ana"), ("192.0.2.51", "bia")],
        "per username": [("192.0.2.50", "bia")],
    }[rule]
    for ip, name in free:
        assert sign_in(browser(client, ip), name).status_code == 303, (rule, ip, name)
    assert sign_in(known, "bia").status_code == 303, "o aparelho conhecido sempre entra"


def test_the_readme_states_the_limits_the_code_uses():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    for phrase in (
        "5 por par (usuário, IP)",
        "20 por IP",
        "50 por usuário",
        "5 por aparelho conhecido",
        "20 contas por hora",
    ):
        assert phrase in readme, phrase
