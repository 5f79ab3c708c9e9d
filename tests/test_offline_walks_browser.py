"""A decision tree walked with no network (issue 40), in Chromium at 360 px: the walk the
page worked out is kept on the device and stored by the server when the connection returns,
as a walk finished online is (once, however often it is sent); the learner finds it on
/progresso. A finishing step whose answer the network lost is not stored twice."""

from __future__ import annotations

from urllib.parse import parse_qs

from playwright.sync_api import Page, expect

from app.content.trees import Tree
from tests.support.app import query
from tests.support.learning import KERNELS
from tests.support.offline import download, new_account_in_page
from tests.support.server import LiveServer

TREE: Tree = next(iter(KERNELS.trees.values()))
WIDGET = f"#arvore-{TREE.id}"

# True once the device's queue (static/js/offline-answers.js: IndexedDB "curso", store
# "respostas") holds nothing; the store is made as that file makes it when it is not there yet.
QUEUE_EMPTY = """() => new Promise((done, fail) => {
  const request = indexedDB.open("curso", 1);
  request.onupgradeneeded = () =>
    request.result.createObjectStore("respostas", { keyPath: "chave" });
  request.onerror = () => fail(request.error);
  request.onsuccess = () => {
    const db = request.result;
    const all = db.transaction("respostas").objectStore("respostas").getAll();
    all.onsuccess = () => { db.close(); done(all.result.length === 0); };
  };
})"""


def walk_to_a_result(page: Page) -> str:
    """Walk the lesson's tree to a result (the fifth option, then the fourth): its engine."""
    widget = page.locator(WIDGET)
    first = TREE.questions[TREE.start].options[4]
    second = TREE.questions[first.next].options[3]
    widget.locator(".tree-option", has_text=first.label).click()
    expect(widget.locator(".tree-question-heading")).to_contain_text("Pergunta 2")
    widget.locator(".tree-option", has_text=second.label).click()
    main = TREE.results[second.next].main
    expect(widget.locator(".tree-result-engines")).to_have_text(main)
    return main


def test_a_tree_walked_offline_is_stored_once_when_the_connection_returns(
    new_page, live_server: LiveServer
):
    page = new_page(360, 740)
    new_account_in_page(page, live_server)
    download(page, live_server.url, KERNELS.slug)
    page.context.set_offline(True)
    page.reload()
    main = walk_to_a_result(page)
    # Waiting on the device: listed with the answers, not counted as one in the header.
    expect(page.locator("[data-offline-badge]")).to_be_hidden()
    page.goto(f"{live_server.url}/sem-internet/respostas")
    expect(page.locator("[data-offline-queue] li a")).to_have_text(TREE.title)
    expect(page.locator("[data-offline-queue] li a")).to_have_attribute(
        "href", f"/licoes/{KERNELS.slug}#arvore-{TREE.id}"
    )

    sent = []
    page.on("request", lambda r: sent.append(r) if r.url.endswith("/passo") else None)
    page.context.set_offline(False)
    page.wait_for_function(QUEUE_EMPTY)
    page.goto(f"{live_server.url}/progresso")
    walks = page.locator(".walk-list .walk")
    expect(walks).to_have_count(1)
    expect(walks.locator(".walk-tree")).to_have_text(TREE.title)
    expect(walks.locator(".walk-result")).to_have_text(main)

    # The same walk sent again (a sync cut before its answer arrived): stored once.
    assert len(sent) == 1
    key = parse_qs(sent[0].post_data)["chave"][0]
    again = page.request.post(
        sent[0].url, data=sent[0].post_data, headers=sent[0].headers, max_redirects=0
    )
    assert again.status == 200
    stored = query(
        live_server.settings, "SELECT tree_id FROM walk WHERE idempotency_key = :k", k=key
    )
    assert stored == [(TREE.id,)]
    page.reload()
    expect(walks).to_have_count(1)


def test_a_finishing_step_whose_answer_the_network_lost_is_stored_once(
    new_page, live_server: LiveServer
):
    """The server took the last step and stored the walk, but its answer never reached the
    phone: the page works the walk out, keeps it, and sends it again later, stored once."""
    page = new_page(360, 740)
    new_account_in_page(page, live_server)
    page.goto(f"{live_server.url}/licoes/{KERNELS.slug}")

    def answer_lost(route):
        route.fetch()
        route.abort("internetdisconnected")

    page.route("**/arvores/*/passo", answer_lost)
    main = walk_to_a_result(page)
    page.unroute("**/arvores/*/passo")
    page.goto(f"{live_server.url}/progresso")  # the next page load sends what waits
    page.wait_for_function(QUEUE_EMPTY)
    page.reload()
    walks = page.locator(".walk-list .walk")
    expect(walks).to_have_count(1)
    expect(walks.locator(".walk-result")).to_have_text(main)
