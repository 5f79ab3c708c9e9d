"""The decode ceiling calculator in real Chromium: updated as the learner types (htmx, with
debounce, announced in the live region, the address bar shareable) and by the GET form
without JavaScript; axe at 360 px in both themes."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser import ConsoleWatch, axe_violations
from tests.support.server import LiveServer

BOX = "#calculadora-teto-do-decode"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_calculator_updates_as_the_learner_types(
    new_page, live_server: LiveServer, artifacts, theme: str
):
    page = new_page(360, 800, color_scheme=theme)
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/licoes/kernels" + BOX)
    box = page.locator(BOX)
    outputs = box.locator(".calculator-value")
    expect(outputs).to_have_text(["Estimativa: ≈ 20 GB", "Estimativa: ≈ 50 tokens/s"])
    field = box.get_by_label("Bytes por parâmetro (bytes)")
    field.fill("1")
    expect(outputs).to_have_text(["Estimativa: ≈ 10 GB", "Estimativa: ≈ 100 tokens/s"])
    expect(field).to_be_focused()  # typing keeps the focus in the box
    expect(page.locator("#anuncio")).to_have_text(
        "Pesos lidos por token (sem o KV cache): estimativa ≈ 10 GB. Teto do decode: estimativa "
        "≈ 100 tokens/s."
    )
    assert "bytes_por_parametro=1" in page.url
    field.fill("9")
    expect(box.locator(".calculator-problems")).to_have_text(
        "Bytes por parâmetro: Digite um valor de 0,25 a 4."
    )
    field.fill("0,5")
    expect(outputs).to_have_text(["Estimativa: ≈ 5 GB", "Estimativa: ≈ 200 tokens/s"])
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert axe_violations(page) == []
    box.screenshot(path=str(artifacts / f"calculadora-{theme}-360.png"))
    assert watch.errors == []


def test_the_calculator_without_javascript(new_page, live_server: LiveServer):
    page = new_page(360, 800, javascript=False)
    page.goto(live_server.url + "/licoes/kernels" + BOX)
    box = page.locator(BOX)
    box.get_by_label("Banda de memória (GB/s)").fill("2.000")
    box.get_by_role("button", name="Calcular").click()
    expect(page).to_have_url(
        live_server.url + "/licoes/kernels?calculadora=teto-do-decode&parametros=10"
        "&bytes_por_parametro=2&banda=2.000" + BOX
    )
    expect(page.locator(BOX).locator(".calculator-value")).to_have_text(
        ["Estimativa: ≈ 20 GB", "Estimativa: ≈ 100 tokens/s"]
    )
    expect(page.locator(BOX).get_by_label("Banda de memória (GB/s)")).to_have_value("2.000")
