"""The instructor dashboard's figures against a small cohort computed by hand, and
10,000 learners.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert
from sqlmodel import Session

from app.analytics import dashboard_cache
from app.analytics.dashboard import (
    Activity,
    activity,
    funnel,
    item_stats,
    sync_tally_basis,
    tree_walks,
)
from app.content.course import load_course
from app.learning.instructors import set_instructor
from app.learning.tallies.rebuild import rebuild
from app.learning.tallies.write import record_in_tallies
from app.main import create_app
from app.platform.db import make_engine
from app.platform.models import ATTEMPT, LEARNER, Attempt, ClassMember, Learner
from tests.support.accounts import sign_up
from tests.support.app import db_rows, make_settings
from tests.support.cohort import (
    FIRST_TRIES,
    ITEMS,
    LEARNERS,
    NOW,
    seed_cohort,
    write_cohort_lessons,
)
from tests.support.html import soup, text
from tests.support.statements import counting


@pytest.fixture
def cohort(tmp_path: Path, database_url: str):
    """The cohort above, stored in a fresh database."""
    folder = tmp_path / "lessons"
    write_cohort_lessons(folder)
    settings = make_settings(tmp_path, folder, database_url)
    course = load_course(folder)
    assert course.problems == ()
    engine = make_engine(settings.database_url)
    seed_cohort(engine, course)
    yield settings, course, engine
    engine.dispose()


def test_item_figures_match_the_hand_computed_cohort(cohort):
    _settings, course, engine = cohort
    with Session(engine) as db:
        stats = item_stats(db, course)
    figures = {
        qid: (s.attempts, s.learners, s.first_right, s.upper_right, s.lower_right)
        for (slug, qid), s in stats.items()
        if slug == "itens"
    }
    assert figures == {
        "facil": (10, 10, 10, 3, 3),
        "boa": (11, 10, 6, 3, 1),
        "media": (10, 10, 4, 3, 0),
        "ruim": (11, 10, 4, 0, 2),
        "dificil": (10, 10, 2, 1, 0),
    }
    facility = {qid: stats[("itens", qid)].facility for qid in figures}
    assert facility == {"facil": 1.0, "boa": 0.6, "media": 0.4, "ruim": 0.4, "dificil": 0.2}
    discrimination = {qid: stats[("itens", qid)].discrimination for qid in figures}
    assert discrimination == {
        "facil": 0.0,
        "boa": 2 / 3,
        "media": 1.0,
        "ruim": -2 / 3,
        "dificil": 1 / 3,
    }
    ruim = {o.option_id: (o.chosen, o.upper, o.lower) for o in stats[("itens", "ruim")].options}
    assert ruim == {"a": (4, 0, 2), "b": (1, 0, 1), "c": (5, 3, 0)}


def test_kept_item_figures_read_back_as_computed_in_the_format_already_stored(cohort):
    """The questions tab's kept copy (``report_cache``): rows written before its dump stopped
    calling ``dataclasses.asdict`` (a deep copy of every field) hold the same JSON, and read
    back equal to the figures computed."""
    _settings, course, engine = cohort
    with Session(engine) as db:
        stats = item_stats(db, course)
    assert any(s.options for s in stats.values())
    payload = json.dumps(dashboard_cache.ITEMS.dump(stats))
    assert payload == json.dumps([[slug, qid, asdict(s)] for (slug, qid), s in stats.items()])
    assert dashboard_cache.ITEMS.load(json.loads(payload)) == stats


def test_activity_funnel_and_walks(cohort):
    _settings, course, engine = cohort
    with Session(engine) as db:
        assert activity(db, NOW) == Activity(total=11, last_7_days=8, last_30_days=10)
        steps = {(s.slug, s.started, s.completed) for s in funnel(db, course)}
        assert steps == {("decode-prefill", 4, 3), ("itens", 10, 1)}
        assert tree_walks(db) == {"mini": {"r-cpu": 2, "r-vllm": 1, "r-velho": 1}}


def instructor_client(settings, engine) -> TestClient:
    """A client of a new app, signed in as the instructor ``prof``."""
    client = TestClient(create_app(settings))
    sign_up(client, "prof")
    with Session(engine) as db:
        set_instructor(db, "prof", True)
    return client


@pytest.fixture
def dashboard(cohort):
    """The questions tab, where the item analysis is."""
    settings, _course, engine = cohort
    return soup(instructor_client(settings, engine).get("/instrutor/perguntas"))


def card(page, qid: str):
    return page.select_one(f"#q-itens-{qid}")


def test_dashboard_shows_the_figures_and_says_why_a_question_is_flagged(dashboard):
    shown = {
        qid: (
            text(card(dashboard, qid).select_one(".fig-facility")),
            text(card(dashboard, qid).select_one(".fig-discrimination")),
        )
        for qid in FIRST_TRIES
    }
    assert shown == {
        "facil": ("100%", "0,00"),
        "boa": ("60%", "0,67"),
        "media": ("40%", "1,00"),
        "ruim": ("40%", "−0,67"),
        "dificil": ("20%", "0,33"),
    }
    flags = {qid: [text(li) for li in card(dashboard, qid).select(".flag")] for qid in FIRST_TRIES}
    assert flags == {
        "facil": [
            "Fácil demais: 100% acertam de primeira (acima de 90%), então ela quase não separa "
            "quem entendeu de quem não entendeu."
        ],
        "boa": [],
        "media": [],
        "ruim": [
            "Discrimina ao contrário (D = −0,67): o grupo de baixo acerta mais que o de cima. "
            "Costuma ser gabarito errado ou uma opção errada que convence quem sabe.",
            "A opção `c` atrai os melhores alunos: 100% do grupo de cima a escolheram de primeira, "
            "contra 0% do grupo de baixo. Veja se ela também não está certa, ou se o enunciado "
            "deixa margem.",
        ],
        "dificil": [
            "Difícil demais: só 20% acertam de primeira (abaixo de 30%). Confira o gabarito, o "
            "enunciado e se a lição ensina isso."
        ],
    }
    assert [li["data-pergunta"] for li in dashboard.select(".flagged-list > li")] == [
        "facil",
        "ruim",
        "dificil",
    ]


def test_option_chart_marks_the_key_and_the_distractor_that_attracts_the_top_group(dashboard):
    options = card(dashboard, "ruim").select(".option-chart li.ic-option")
    assert [text(li.select_one(".ic-label")) for li in options] == [
        "a ✓ gabarito · Opção A de ruim · 4 escolhas (40%)",
        "b · Opção B de ruim · 1 escolha (10%)",
        "c atrai os melhores · Opção C de ruim · 5 escolhas (50%)",
    ]
    assert [li["class"] for li in options] == [
        ["ic-option", "ic-key"],
        ["ic-option"],
        ["ic-option", "ic-distractor"],
    ]
    widths = [tuple(rect["width"] for rect in li.select("svg rect")) for li in options]
    assert widths == [("0.30%", "40.00%"), ("0.30%", "20.00%"), ("60.00%", "0.30%")], (
        "em escala: 100% = 60% da largura"
    )
    assert [text(li.select_one("svg title")) for li in options][2] == (
        "Opção c: 100% do grupo de cima e 0% do grupo de baixo a escolheram."
    )


def test_funnel_walks_and_activity_on_their_tabs(cohort):
    settings, _course, engine = cohort
    client = instructor_client(settings, engine)
    funnel = soup(client.get("/instrutor/funil"))
    rows = {
        tr["data-licao"]: (text(tr.select_one(".started")), text(tr.select_one(".completed")))
        for tr in funnel.select("table.funnel tbody tr")
    }
    assert rows == {"decode-prefill": ("4", "3"), "itens": ("10", "1")}
    overview = soup(client.get("/instrutor"))
    assert [text(overview.select_one(s)) for s in (".fig-7", ".fig-30", ".fig-total")] == [
        "8",
        "10",
        "11",
    ]
    tree = soup(client.get("/instrutor/arvores")).select_one('.tree-card[data-arvore="mini"]')
    assert text(tree.select_one(".fig-walks")) == "4"
    counts = {tr["data-resultado"]: text(tr.select_one(".count")) for tr in tree.select("tbody tr")}
    assert counts == {"r-cpu": "2", "r-vllm": "1", "r-velho": "1"}


def test_ten_thousand_learners_are_counted_by_the_database_not_in_python(
    tmp_path: Path, database_url: str
):
    """The dashboard's queries return rows per question and option, not per learner."""
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "02-itens.md").write_text(ITEMS, encoding="utf-8")
    settings = make_settings(tmp_path, folder, database_url)
    course = load_course(folder)
    items = course.get("itens").questions
    learners = [{"id": f"{n:032x}", "created_at": NOW} for n in range(10_000)]
    attempts = [
        {
            "learner_id": row["id"],
            "lesson_slug": "itens",
            "question_id": qid,
            "question_hash": items[qid].content_hash,
            "chosen": "abc"[(n + i) % 3],
            "correct": "abc"[(n + i) % 3] in items[qid].answer,
            "created_at": NOW,
        }
        for n, row in enumerate(learners)
        for i, qid in enumerate(["facil", "boa", "ruim"])
    ]
    engine = make_engine(settings.database_url)
    with engine.begin() as connection:
        connection.execute(insert(LEARNER), learners)
        connection.execute(insert(ATTEMPT), attempts)
        rebuild(connection)  # rows inserted around the app's write path are counted again
    with Session(engine) as db:
        sync_tally_basis(db, course)
    with Session(engine) as db, counting(engine) as statements:
        stats = item_stats(db, course)
        steps = funnel(db, course)
        active = activity(db, NOW)
    # The basis read twice, two tallies and at most two boundary reads per question for the
    # items, one query for the funnel and one for the activity: none grows with the learners.
    assert len(statements) <= 2 + 2 + 2 * len(items) + 1 + 1, statements
    assert active == Activity(10_000, 10_000, 10_000)
    assert [(s.started, s.completed) for s in steps] == [(10_000, 0)]
    assert {qid: (s.learners, s.first_right) for (_, qid), s in stats.items() if s.learners} == {
        "facil": (10_000, 3334),
        "boa": (10_000, 3334),
        "ruim": (10_000, 3333),
    }
    assert stats[("itens", "facil")].group == 2700
    engine.dispose()
    client = TestClient(create_app(settings))
    sign_up(client, "prof")
    with Session(make_engine(settings.database_url)) as db:
        set_instructor(db, "prof", True)
    page = soup(client.get("/instrutor/perguntas"))
    assert text(card(page, "facil").select_one(".fig-learners")) == "10000"


def _new_first_try(engine, course, qid: str = "facil") -> None:
    question = course.get("itens").questions[qid]
    with Session(engine) as db:
        db.add(Learner(id="n" * 32, created_at=NOW))
        db.commit()
        attempt = Attempt(
            learner_id="n" * 32,
            lesson_slug="itens",
            question_id=qid,
            question_hash=question.content_hash,
            chosen="a",
            correct=False,
            created_at=NOW,
        )
        db.add(attempt)
        db.flush()
        record_in_tallies(db, [attempt])
        db.commit()


def test_figures_are_kept_until_recalculated_and_say_when_they_were_computed(cohort):
    settings, course, engine = cohort
    client = instructor_client(settings, engine)
    first = soup(client.get("/instrutor/perguntas"))
    assert text(card(first, "facil").select_one(".fig-learners")) == "10"
    assert text(first.select_one(".computed-at p")).startswith("Números calculados em")
    _new_first_try(engine, course)
    kept = soup(client.get("/instrutor/perguntas"))
    assert text(card(kept, "facil").select_one(".fig-learners")) == "10", (
        "os números guardados são reusados"
    )
    form = {i["name"]: i["value"] for i in kept.select(".computed-at input[type=hidden]")}
    assert form["aba"] == "perguntas"
    again = client.post("/instrutor/recalcular", data=form, follow_redirects=False)
    assert (again.status_code, again.headers["location"]) == (303, "/instrutor/perguntas"), (
        "volta à aba do botão"
    )
    fresh = soup(client.get("/instrutor/perguntas"))
    assert text(card(fresh, "facil").select_one(".fig-learners")) == "11"
    assert text(card(fresh, "facil").select_one(".fig-facility")) == "91%"
    (stored,) = [row for row in db_rows(settings, "SELECT key FROM report_cache")]
    assert stored[0].startswith("painel:perguntas:"), (
        "uma cópia só, a da aba visitada e da versão atual das perguntas"
    )
    unknown = client.post(
        "/instrutor/recalcular", data={**form, "aba": "nada"}, follow_redirects=False
    )
    assert (unknown.status_code, unknown.headers["location"]) == (303, "/instrutor")


def test_a_zero_max_age_computes_the_figures_on_every_visit(cohort):
    settings, course, engine = cohort
    client = instructor_client(settings.model_copy(update={"dashboard_max_age": 0}), engine)
    client.get("/instrutor/perguntas")
    _new_first_try(engine, course)
    page = soup(client.get("/instrutor/perguntas"))
    assert text(card(page, "facil").select_one(".fig-learners")) == "11"


def test_only_instructors_may_recalculate(cohort):
    settings, _course, _engine = cohort
    app = create_app(settings)
    learner = TestClient(app, follow_redirects=False)
    sign_up(learner, "ana")
    token = learner.cookies.get("csrftoken")
    refused = learner.post("/instrutor/recalcular", data={"csrftoken": token})
    assert refused.status_code == 403
    anonymous = TestClient(app, follow_redirects=False)
    anonymous.get("/")
    sent = anonymous.post(
        "/instrutor/recalcular", data={"csrftoken": anonymous.cookies.get("csrftoken")}
    )
    assert sent.status_code == 303 and sent.headers["location"].startswith("/conta?proximo=")


def test_question_kinds_read_in_portuguese(dashboard):
    meta = text(card(dashboard, "facil").select_one(".meta"))
    assert meta.startswith("Pergunta facil (escolha única)"), meta


# Each tab, its address, its link's text and the sections it shows: each shows its own
# sections and none of another tab's.
TABS = {
    "/instrutor": ("Visão geral", {"alunos", "ava", "exportar", "abas"}),
    "/instrutor/funil": ("Funil", {"funil"}),
    "/instrutor/perguntas": ("Perguntas", {"revisar", "perguntas", "como-calculamos"}),
    "/instrutor/dominio": ("Domínio", {"conceitos"}),
    "/instrutor/arvores": ("Árvores", {"arvores"}),
    "/instrutor/arquivos": ("Arquivos", {"arquivos"}),
}


def tab_links(page) -> list[tuple[str, str, str | None]]:
    nav = page.select_one('nav.dashboard-tabs[aria-label="Seções do painel"]')
    return [(text(a), a["href"], a.get("aria-current")) for a in nav.select("a")]


def test_each_tab_has_its_own_address_and_shows_only_its_sections(cohort):
    settings, _course, engine = cohort
    client = instructor_client(settings, engine)
    for url, (label, sections) in TABS.items():
        response = client.get(url)
        assert response.status_code == 200, url
        page = soup(response)
        assert {s["id"] for s in page.select("main section[id]")} == sections, url
        assert tab_links(page) == [
            (name, href, "page" if href == url else None) for href, (name, _) in TABS.items()
        ], url
        title = text(page.select_one("title"))
        assert title.startswith("Painel do instrutor" if url == "/instrutor" else f"{label} ·")
    overview = soup(client.get("/instrutor"))
    assert [(text(a), a["href"]) for a in overview.select("#abas li > a")] == [
        (label, url) for url, (label, _) in TABS.items() if url != "/instrutor"
    ], "a visão geral diz o que há em cada aba"


def test_the_class_filter_is_kept_across_the_tabs(cohort):
    settings, _course, engine = cohort
    client = instructor_client(settings, engine)
    token = client.cookies.get("csrftoken")
    made = client.post(
        "/instrutor/turmas",
        data={"csrftoken": token, "nome": "Noite"},
        follow_redirects=False,
    )
    assert made.status_code == 303
    class_id = made.headers["location"].rsplit("/", 1)[1]
    with Session(engine) as db:
        db.add(ClassMember(class_id=int(class_id), learner_id=LEARNERS[0], joined_at=NOW))
        db.commit()
    for url in TABS:
        page = soup(client.get(f"{url}?turma={class_id}"))
        assert [href for _, href, _ in tab_links(page)] == [
            f"{tab}?turma={class_id}" for tab in TABS
        ], url
        picker = page.select_one("form.class-filter")
        assert picker["action"] == url, "escolher outra turma fica na mesma aba"
        assert picker.select_one(f'option[value="{class_id}"]').has_attr("selected")
        assert text(page.select_one(".class-scope")).startswith("Só os alunos da turma Noite")
        assert page.select_one(".computed-at input[name=aba]") is None
    funnel = soup(client.get(f"/instrutor/funil?turma={class_id}"))
    rows = {
        tr["data-licao"]: text(tr.select_one(".started"))
        for tr in funnel.select("table.funnel tbody tr")
    }
    assert rows == {"decode-prefill": "1", "itens": "1"}, "só o aluno L0, o da turma"
    trees = soup(client.get(f"/instrutor/arvores?turma={class_id}"))
    assert text(trees.select_one('.tree-card[data-arvore="mini"] .fig-walks')) == "1"
    questions = soup(client.get(f"/instrutor/perguntas?turma={class_id}"))
    assert text(card(questions, "facil").select_one(".fig-learners")) == "1"
    assert client.get("/instrutor/dominio?turma=abc").status_code == 422
    assert client.get("/instrutor/arvores?turma=999").status_code == 404


def test_a_tab_stores_only_its_own_figures(cohort):
    settings, _course, engine = cohort
    client = instructor_client(settings, engine)
    stored = []
    for url in ("/instrutor/arquivos", "/instrutor/dominio", "/instrutor/funil", "/instrutor"):
        client.get(url)
        keys = db_rows(settings, "SELECT key FROM report_cache ORDER BY key")
        stored.append(sorted(key.split(":")[1] for (key,) in keys))
    assert stored == [[], [], ["funil"], ["alunos", "funil"]]
