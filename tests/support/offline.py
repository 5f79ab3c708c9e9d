"""Studying without a connection (issue 40) in Chromium: the service worker made ready, a
lesson downloaded from its page (size first, then "Confirmar o download"), and the device's
cache read back."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

# Every cached response's text, read in the page (the Cache API is the service worker's store).
CACHED = """async () => {
  const cache = await caches.open("curso-sem-internet");
  const out = {};
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    out[request.url] = (response.headers.get("content-type") || "").startsWith("image/")
      ? "" : await response.text();
  }
  return out;
}"""


def ready(page: Page) -> None:
    """Wait until the service worker, registered after the page's load, is active."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")


def download(page: Page, base: str, slug: str) -> None:
    """Open the lesson ``slug`` on the server at ``base`` and download it to the device."""
    page.goto(f"{base}/licoes/{slug}")
    ready(page)
    box = page.locator("[data-offline-lesson]")
    box.get_by_role("button", name="Baixar para ler sem internet").click()
    expect(box.locator("[data-offline-status]")).to_have_text(
        re.compile(r"^Tamanho: [\d,]+ (kB|MB)\. Confirme para baixar\.$")
    )
    box.get_by_role("button", name="Confirmar o download").click()
    expect(box.locator("[data-offline-status]")).to_have_text(
        re.compile(r"^Baixada neste aparelho: versão [0-9a-f]{8}, [\d,]+ (kB|MB)\.$")
    )
