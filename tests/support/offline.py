"""Studying without a connection in Chromium (issue 40): download a lesson from its page,
answer its questions with the connection cut, read what the device's cache and the database
hold. Shared by the offline browser tests."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import Locator, Page, expect

from app.content.trees import Tree
from tests.support import browser
from tests.support.app import query
from tests.support.learning import KERNELS
from tests.support.server import LiveServer

# The kernels lesson's decision tree and its widget on the lesson page.
TREE: Tree = next(iter(KERNELS.trees.values()))
WIDGET = f"#arvore-{TREE.id}"


def walk_to_a_result(page: Page) -> str:
    """Walk the lesson's tree to a result (the fifth option, then the fourth), online, offline
    or without JavaScript: the result's engines, once shown."""
    widget = page.locator(WIDGET)
    first = TREE.questions[TREE.start].options[4]
    second = TREE.questions[first.next].options[3]
    widget.locator(".tree-option", has_text=first.label).click()
    expect(widget.locator(".tree-question-heading")).to_contain_text("Pergunta 2")
    widget.locator(".tree-option", has_text=second.label).click()
    main = TREE.results[second.next].main
    expect(widget.locator(".tree-result-engines")).to_have_text(main)
    return main


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


def confirm_download(box: Locator) -> None:
    """Wait until the download ``box`` says the size and asks, then confirm."""
    expect(box.locator("[data-offline-status]")).to_have_text(
        re.compile(r"^Tamanho: [\d,]+ (kB|MB)\. Confirme para baixar\.$")
    )
    box.get_by_role("button", name="Confirmar o download").click()


def download(page: Page, base: str, slug: str) -> None:
    page.goto(f"{base}/licoes/{slug}")
    ready(page)
    box = page.locator("[data-offline-lesson]")
    box.get_by_role("button", name="Baixar para ler sem internet").click()
    confirm_download(box)
    expect(box.locator("[data-offline-status]")).to_have_text(
        re.compile(r"^Baixada neste aparelho em \d+ de \w+\.?,? \d\d:\d\d, [\d,]+ (kB|MB)\.$")
    )


SINGLE = [q for q in KERNELS.questions.values() if q.input_type == "radio"][:3]


def answer_offline(page: Page, questions=SINGLE) -> list[str]:
    """Answer ``questions`` (the first option of each) on the downloaded page with no
    connection; their forms' keys."""
    keys = []
    for question in questions:
        block = page.locator(f".question:has(#op-{question.id}-{question.options[0].id})")
        page.locator(f"#op-{question.id}-{question.options[0].id}").check()
        block.get_by_role("button", name="Responder").click()
        expect(block.locator(".offline-kept")).to_have_text(
            "Resposta guardada neste aparelho; será corrigida quando a internet voltar."
        )
        keys.append(block.locator('input[name="chave"]').get_attribute("value"))
    return keys


def attempts_with(live_server: LiveServer, keys: list[str]) -> list[tuple]:
    marks = ", ".join(f":k{n}" for n in range(len(keys)))
    return query(
        live_server.settings,
        f"SELECT question_id, idempotency_key FROM attempt WHERE idempotency_key IN ({marks})",
        **{f"k{n}": key for n, key in enumerate(keys)},
    )


def new_account_in_page(page: Page, live_server: LiveServer) -> str:
    """A new account (a name of its own), signed up in ``page``: its username."""
    username = f"sem-rede-{secrets.token_hex(3)}"
    browser.sign_up_in_page(page, live_server.url, username)
    return username


def answered_offline(page: Page, base: str) -> list[str]:
    """Download the ``kernels`` lesson on ``page``, lose the connection, reload it and answer
    :data:`SINGLE` there: the keys of the three answers waiting on the device."""
    download(page, base, KERNELS.slug)
    page.context.set_offline(True)
    page.reload()
    return answer_offline(page)
