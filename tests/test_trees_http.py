"""Decision trees over HTTP: the widget, steps, stored walks, comparison, JSON API, chart."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from tests.support.accounts import new_browser, sign_in, sign_up
from tests.support.app import query
from tests.support.html import csrf_from, is_fragment, soup
from tests.support.learning import COURSE

HX = {"HX-Request": "true"}


def text(node) -> str:
    return " ".join(node.get_text(" ").split())


def walks(settings) -> list[tuple]:
    return query(settings, "SELECT tree_id, path, result_id FROM walk ORDER BY id")


def step(
    client,
    tree_id: str,
    path: str,
    choice: str,
    lesson: str = "",
    htmx: bool = True,
    **offline: str,
):
    """Post one step as the tree's page would; ``offline``: the fields a device adds to the
    last step of a walk finished offline (``chave``, ``dada_em``)."""
    page = client.get(f"/arvores/{tree_id}").text
    version = soup(page).select_one('form.tree-step input[name="versao"]')["value"]
    data = {
        "csrftoken": csrf_from(page),
        "c": path,
        "escolha": choice,
        "licao": lesson,
        "versao": version,
        **offline,
    }
    return client.post(
        f"/arvores/{tree_id}/passo", data=data, headers=HX if htmx else {}, follow_redirects=False
    )


def test_lesson_shows_the_tree_at_its_start_with_the_whole_map(client):
    page = soup(client.get("/licoes/escolha-self-hosted").text)
    widget = page.select_one("#arvore-guia-fase17")
    tree = COURSE.trees["guia-fase17"]
    assert text(widget.select_one("legend .tree-question-text")) == tree.questions["hardware"].text
    assert [text(b) for b in widget.select("button.tree-option")] == [
        o.label for o in tree.questions["hardware"].options
    ]
    nodes = widget.select("g.tree-node")
    assert len(nodes) == len(tree.questions) + len(tree.results)
    assert widget.select_one("g.tree-node.current")["id"] == "arvore-guia-fase17-n-hardware"
    assert widget.select_one("svg title") and widget.select_one("details.tree-outline")


def test_path_in_the_url_reproduces_the_walk(client):
    url = "/licoes/escolha-self-hosted?arvore=guia-fase17&c=hopper,production"
    widget = soup(client.get(url).text).select_one("#arvore-guia-fase17")
    assert [text(li) for li in widget.select(".tree-path li")] == [
        "Hardware: NVIDIA Hopper (H100 / H200)",
        "Escala: 100–10 mil usuários / produção",
    ]
    assert widget.select_one("g.tree-node.current")["id"].endswith("-n-workload")
    taken = {p["id"] for p in widget.select("path.tree-edge.taken")}
    assert taken == {"arvore-guia-fase17-e-hardware-3", "arvore-guia-fase17-e-scale-2"}
    back = widget.select_one(".tree-controls a")
    assert (
        back["href"] == "/licoes/escolha-self-hosted?arvore=guia-fase17&c=hopper#arvore-guia-fase17"
    )


def test_a_bad_path_restarts_with_a_message(client):
    widget = soup(client.get("/arvores/guia-fase17?c=hopper,nada").text).select_one(".tree-widget")
    assert (
        text(widget.select_one(".form-error"))
        == "Esse caminho não existe nesta árvore; recomeçamos do início."
    )
    assert widget.select_one("g.tree-node.current")["id"].endswith("-n-hardware")


def test_htmx_step_returns_the_widget_and_pushes_the_url(client, settings):
    response = step(client, "guia-fase17", "", "hopper", lesson="escolha-self-hosted")
    assert response.status_code == 200
    assert (
        response.headers["HX-Push-Url"]
        == "/licoes/escolha-self-hosted?arvore=guia-fase17&c=hopper#arvore-guia-fase17"
    )
    fragment = soup(response.text)
    assert is_fragment(response) and fragment.select_one(".tree-widget")
    assert text(fragment.select_one("legend .tree-question-text")).startswith("Em Hopper")
    assert walks(settings) == [], "só caminhos que chegam a um resultado são guardados"


def test_reaching_a_result_stores_the_walk(client, settings):
    response = step(client, "guia-fase17", "hopper,production", "agents")
    result = soup(response.text).select_one(".tree-result")
    assert text(result.select_one(".tree-result-engines")) == "SGLang"
    assert text(result.select_one(".tree-verdict")) == "Recomendado"
    assert walks(settings) == [("guia-fase17", "hopper,production,agents", "agents")]


def test_plain_form_step_redirects_to_the_path(client, settings):
    response = step(client, "guia-osman", "hopper", "convenience", htmx=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/arvores/guia-osman?c=hopper%2Cconvenience"
    page = soup(client.get(response.headers["location"]).text)
    assert text(page.select_one(".tree-result .tree-verdict")) == "Não use"
    assert page.select_one(".tree-result .verdict-badge-avoid .verdict-icon")
    assert "Outra visão" in text(page.select_one(".tree-result"))
    assert walks(settings) == [("guia-osman", "hopper,convenience", "ollama")]


def test_unknown_option_is_422_and_no_csrf_is_403(client, settings):
    bad = step(client, "guia-osman", "", "tpu")
    assert bad.status_code == 422
    assert "Essa opção não existe nesta pergunta" in bad.text
    client.get("/arvores/guia-osman")
    forged = client.post("/arvores/guia-osman/passo", data={"escolha": "apple"})
    assert forged.status_code == 403 and "Sessão expirada" in forged.text
    assert walks(settings) == []


def test_back_and_restart_fragments(client):
    fragment = soup(
        client.get("/arvores/guia-osman/widget?c=hopper&licao=kernels", headers=HX).text
    )
    assert fragment.select_one(".tree-widget")["id"] == "arvore-guia-osman"
    links = fragment.select(".tree-controls a")
    assert [a["hx-push-url"] for a in links] == [
        "/licoes/kernels?arvore=guia-osman#arvore-guia-osman",
        "/licoes/kernels?arvore=guia-osman#arvore-guia-osman",
    ]


def test_tree_pages_and_404(client):
    index = soup(client.get("/arvores").text)
    assert [a["href"] for a in index.select(".lesson-card h2 a")] == [
        "/arvores/guia-osman",
        "/arvores/guia-fase17",
    ]
    for url in ("/arvores/nao-existe", "/arvores/nao-existe/widget?c=hopper"):
        missing = client.get(url)
        assert missing.status_code == 404 and "Árvore de decisão não encontrada." in missing.text
    for url in ("/arvores/guia-osman", "/arvores/guia-osman/widget"):
        too_long = client.get(url, params={"c": "h" * 2001})
        assert too_long.status_code == 422
        assert "O formulário enviado está incompleto ou malformado" in too_long.text


def test_compare_shows_both_guides_and_where_they_differ(client):
    page = soup(client.get("/arvores/comparar?hardware=apple&scale=team").text)
    cards = page.select(".compare-card")
    assert [text(c.select_one(".tree-result-engines")) for c in cards] == [
        "MLX / MLX-LM",
        "llama.cpp",
    ]
    assert text(page.select_one(".compare-agreement")) == (
        "Os guias divergem. guia de Ahmad Osman: MLX / MLX-LM (recomendado) × Lição 28 da Fase 17: "
        "llama.cpp (recomendado). Veja o porquê de cada um e a “Outra visão”."
    )
    assert all("Outra visão" in text(c) for c in cards)


def test_compare_asks_for_missing_facets_and_names_uncovered_cases(client):
    page = soup(client.get("/arvores/comparar?hardware=hopper").text)
    assert [text(c.select_one(".compare-missing")) for c in page.select(".compare-card")] == [
        "Responda também: Objetivo.",
        "Responda também: Escala.",
    ]
    page = soup(client.get("/arvores/comparar?hardware=rtx-1").text)
    missing = page.select(".compare-card")[1].select_one(".compare-missing")
    assert text(missing) == "Este guia não trata o caso “Hardware: Uma RTX só (single-GPU)”."
    same = soup(
        client.get(
            "/arvores/comparar?hardware=hopper&goal=general-production&scale=production&workload=chat"
        ).text
    )
    assert text(same.select_one(".compare-agreement")) == "Os guias concordam: vLLM (recomendado)."
    ollama = soup(
        client.get("/arvores/comparar?hardware=hopper&goal=convenience&scale=one-user").text
    )
    assert text(ollama.select_one(".compare-agreement")).startswith(
        "Os guias divergem no veredito."
    )
    overlap = soup(
        client.get(
            "/arvores/comparar?hardware=hopper&goal=long-context&scale=production&workload=long-context"
        ).text
    )
    assert text(overlap.select_one(".compare-agreement")).startswith(
        "Os guias se sobrepõem: os dois incluem SGLang"
    )


def test_compare_shows_the_long_context_disagreement_and_walks_amd_and_blackwell(client):
    url = (
        "/arvores/comparar?hardware=hopper&goal=long-context&scale=production&workload=long-context"
    )
    cards = soup(client.get(url).text).select(".compare-card")
    notes = [text(card.select_one("aside")) for card in cards]
    assert "a Lição 28 da Fase 17 (base da Lição 2) aceita vLLM + chunked prefill" in notes[0]
    assert (
        "O guia de Ahmad Osman (citado na base da Lição 1) manda contexto longo só para o SGLang"
        in notes[1]
    )
    amd = soup(
        client.get(
            "/arvores/comparar?hardware=amd&goal=general-production&scale=production&workload=chat"
        ).text
    )
    assert [text(c.select_one(".tree-result-engines")) for c in amd.select(".compare-card")] == [
        "vLLM",
        "vLLM",
    ]
    blackwell = soup(
        client.get(
            "/arvores/comparar?hardware=blackwell&goal=cluster&scale=production&workload=agents"
        ).text
    )
    cards = blackwell.select(".compare-card")
    assert [text(c.select_one(".tree-result-engines")) for c in cards] == [
        "NVIDIA Dynamo",
        "SGLang",
    ]
    assert "Na Blackwell, o TRT-LLM lidera em vazão" in text(cards[1])


def test_json_api_lists_and_returns_trees(client):
    listed = client.get("/api/arvores").json()
    assert listed == [
        {"id": t.id, "title": t.title, "source": t.source, "lesson_slug": COURSE.tree_lessons[t.id]}
        for t in COURSE.trees.values()
    ]
    tree = client.get("/api/arvores/guia-fase17").json()
    assert tree["start"] == "hardware"
    assert [o["values"] for o in tree["questions"][0]["options"]][:2] == [["cpu"], ["amd"]]
    engines = {r["id"]: r["engines"] for r in tree["results"]}
    assert engines["amd-agents"] == ["vLLM", "SGLang"] and engines["bw-chat"] == [
        "vLLM",
        "TensorRT-LLM",
    ]
    assert client.get("/api/arvores/nada").json() == {"detail": "Árvore de decisão não encontrada."}
    schema = client.get("/api/openapi.json").json()
    assert {"TreePublic", "TreeSummary", "ResultPublic"} <= set(schema["components"]["schemas"])
    assert "/api/arvores/{tree_id}" in schema["paths"]


def test_scenario_question_shows_the_situation_and_is_graded_from_the_tree(client):
    lesson = COURSE.get("escolha-self-hosted")
    question = lesson.questions["rag-em-producao"]
    page = client.get("/licoes/escolha-self-hosted").text
    node = soup(page).select_one("#pergunta-rag-em-producao")
    assert [text(d) for d in node.select(".scenario-facts dd")] == [
        "NVIDIA Hopper (H100 / H200)",
        "100–10 mil usuários / produção",
        "RAG com forte reuso de prefixo",
    ]
    assert "chega a" not in text(node)
    token = csrf_from(page)
    key = node.select_one('input[name="chave"]')["value"]
    response = client.post(
        "/licoes/escolha-self-hosted/perguntas/rag-em-producao",
        data={
            "csrftoken": token,
            "opcao": next(iter(question.answer)),
            "chave": key,
            "versao": node.select_one('input[name="versao"]')["value"],
        },
        headers=HX,
    )
    graded = soup(response.text)
    assert text(graded.select_one(".verdict")) == "✓ Resposta correta"
    assert "este caminho chega a SGLang" in text(graded.select_one(".scenario-walk"))


def test_chart_is_an_accessible_svg_with_bars_to_scale(client):
    figure = soup(client.get("/licoes/kernels").text).select_one("figure.chart")
    svg = figure.select_one("svg[role=img]")
    assert svg.title and "tokens/s" in text(svg.title)
    widths = [float(r["width"].rstrip("%")) for r in svg.select("rect")]
    before_a, after_a, before_b, after_b = widths
    assert abs(after_a / before_a - 64 / 14.5) < 0.01 and abs(after_b / before_b - 110 / 32) < 0.01
    assert [r["class"] for r in svg.select("rect")] == [["chart-before"], ["chart-after"]] * 2
    rows = [[text(c) for c in tr.select("th, td")] for tr in figure.select("tbody tr")]
    assert rows == [
        ["2× RTX 3090 → vLLM com TP=2", "~14,5", "~64", "~4,4×"],
        ["RTX PRO 6000 → SGLang", "32", "110", "~3,4×"],
    ]
    assert re.search(r"~64 tok/s \(depois\)", text(svg))


def test_a_reused_widget_carries_each_learners_own_csrf_token(client):
    """The widget is rendered once per point of the walk; the token in it is per learner."""
    from fastapi.testclient import TestClient

    other = TestClient(client.app)
    url = "/arvores/guia-fase17/widget?c=hopper&licao=escolha-self-hosted"
    tokens = []
    for who in (client, other):
        who.get("/licoes/escolha-self-hosted")
        page = soup(who.get(url, headers={"HX-Request": "true"}).text)
        (field,) = {i["value"] for i in page.select("input[name=csrftoken]")}
        assert field == who.cookies.get("csrftoken")
        tokens.append(field)
    assert tokens[0] != tokens[1]
    assert "curso-csrf-token-placeholder" not in client.get("/licoes/escolha-self-hosted").text
    answered = step(other, "guia-fase17", "hopper", "production", lesson="escolha-self-hosted")
    assert answered.status_code == 200


def test_a_walk_finished_offline_sent_twice_is_stored_once_when_it_was_finished(client, settings):
    finished = (datetime.now(UTC) - timedelta(hours=3)).replace(microsecond=0)
    key = "7f1c2a9e-1b2c-4d5e-8f90-0a1b2c3d4e5f"
    for _ in range(2):
        sent = step(
            client,
            "guia-fase17",
            "hopper,production",
            "agents",
            chave=key,
            dada_em=finished.isoformat(),
        )
        assert sent.status_code == 200
        assert text(soup(sent.text).select_one(".tree-result-engines")) == "SGLang"
    rows = query(settings, "SELECT tree_id, path, result_id, created_at FROM walk")
    assert [row[:3] for row in rows] == [("guia-fase17", "hopper,production,agents", "agents")]
    stored = rows[0][3]
    stored = stored if isinstance(stored, datetime) else datetime.fromisoformat(stored)
    assert stored.replace(tzinfo=UTC) == finished
    # Another walk of the same path, another key: stored too.
    step(client, "guia-fase17", "hopper,production", "agents", chave=key.replace("7", "8"))
    assert len(walks(settings)) == 2


def test_a_walk_finished_offline_off_the_tree_or_at_no_time_is_refused(client, settings):
    off_tree = step(client, "guia-osman", "hopper", "tpu", chave="a" * 36)
    assert off_tree.status_code == 422
    assert "Essa opção não existe nesta pergunta" in off_tree.text
    no_time = step(client, "guia-osman", "hopper", "convenience", chave="b" * 36, dada_em="ontem")
    assert no_time.status_code == 422
    assert walks(settings) == []


def test_signing_in_keeps_once_a_walk_both_the_account_and_the_phone_sent(client, settings):
    """The same walk finished offline, sent once signed in and once anonymous (a phone that
    lost its session): signing in on the phone keeps it once, the account's."""
    sign_up(client)
    key = "c0ffee00-1b2c-4d5e-8f90-0a1b2c3d4e5f"
    step(client, "guia-osman", "hopper", "convenience", chave=key)
    phone = new_browser(client)
    step(phone, "guia-osman", "hopper", "convenience", chave=key)
    step(phone, "guia-fase17", "hopper,production", "agents", chave=key.replace("c", "d"))
    assert sign_in(phone).status_code == 303
    walked = client.get("/api/progresso").json()["walks"]
    assert sorted(w["tree_id"] for w in walked) == ["guia-fase17", "guia-osman"]
