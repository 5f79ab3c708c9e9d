"""The instructor role (CLI and checks), the preview, the check panel and the CSV exports."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from app.analytics.exports import ATTEMPT_COLUMNS, PROGRESS_COLUMNS
from app.main import create_app
from app.platform.settings import PROJECT_ROOT
from tests.support.accounts import (
    INSTRUCTOR_CSVS,
    INSTRUCTOR_TABS,
    PASSWORD,
    instructor,
    new_browser,
    post_form,
    sign_up,
)
from tests.support.app import db_rows, make_settings
from tests.support.cli import curso
from tests.support.html import soup, text
from tests.support.learning import COURSE, KERNELS, answer, read_csv, wrong_option
from tests.support.lessons import GOOD

INSTRUCTOR_PAGES = [*INSTRUCTOR_TABS, *INSTRUCTOR_CSVS]
ONLY_INSTRUCTORS = "Esta página é só para instrutores. Peça o acesso a quem administra o curso."


def test_the_command_grants_and_takes_the_role_of_an_existing_account(client, settings):
    sign_up(client, "ana")
    steps = [
        (("adicionar", "Ana"), 0, "`ana` agora é instrutor."),
        (("adicionar", "ana"), 0, "`ana` já era instrutor."),
        (("remover", "ana"), 0, "`ana` não é mais instrutor."),
        (("remover", "ana"), 0, "`ana` já não era instrutor."),
    ]
    for args, code, said in steps:
        done = curso(settings, "instrutor", *args)
        assert (done.returncode, done.stdout.strip()) == (code, said), done.stderr
    assert db_rows(settings, "SELECT username, is_instructor FROM account") == [("ana", False)]
    missing = curso(settings, "instrutor", "adicionar", "ninguem")
    assert missing.returncode == 1
    assert missing.stderr.strip() == (
        "Não existe conta com o usuário `ninguem`. A pessoa precisa criar a conta em /conta antes."
    )


@pytest.mark.parametrize("url", INSTRUCTOR_PAGES)
def test_instructor_pages_need_a_signed_in_instructor(client, settings, url):
    anonymous = client.get(url, follow_redirects=False)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"] == f"/conta?proximo={quote(url, safe='')}"
    learner = new_browser(client)
    sign_up(learner, "aluna")
    refused = learner.get(url)
    assert refused.status_code == 403
    assert text(soup(refused).select_one(".error-page p")) == ONLY_INSTRUCTORS
    teacher = instructor(new_browser(client), settings)
    assert teacher.get(url).status_code == 200
    curso(settings, "instrutor", "remover", "prof")
    assert teacher.get(url).status_code == 403, "o papel é conferido a cada pedido"


def test_signing_in_from_the_redirect_comes_back_to_the_page(client, settings):
    instructor(client, settings)
    post_form(client, "/conta/sair")
    form = soup(client.get("/instrutor"))  # redirected to /conta?proximo=/instrutor
    assert (
        form.select_one('form[action="/conta/entrar"] input[name="proximo"]')["value"]
        == "/instrutor"
    )
    back = post_form(client, "/conta/entrar", usuario="prof", senha=PASSWORD, proximo="/instrutor")
    assert (back.status_code, back.headers["location"]) == (303, "/instrutor")
    post_form(client, "/conta/sair")
    elsewhere = post_form(
        client, "/conta/entrar", usuario="prof", senha=PASSWORD, proximo="//outro.site/x"
    )
    assert elsewhere.headers["location"] == "/progresso", "só caminhos deste site"
    assert "Painel do instrutor" in text(soup(client.get("/conta")))


def test_every_instructor_tool_is_a_link_away_from_the_dashboard(client, settings):
    """A new instructor found the editor, classes, "Nova lição", images and the LMS page only
    by typing their addresses. The LMS page is a site admin's."""
    teacher = instructor(client, settings, admin=True)
    page = soup(teacher.get("/instrutor"))
    tools = {text(a): a["href"] for a in page.select("nav.instructor-tools a")}
    assert tools == {
        "Turmas": "/instrutor/turmas",
        "Nova lição": "/instrutor/licoes/nova",
        "Enviar uma imagem": "/instrutor/imagens",
        "AVA (LTI 1.3)": "/instrutor/lti",
    }
    for href in tools.values():
        assert teacher.get(href).status_code == 200, href
    files = soup(teacher.get("/instrutor/arquivos"))
    edits = [a["href"] for a in files.select(".lesson-files .edit-link")]
    assert edits == [f"/instrutor/licoes/{lesson.slug}/editar" for lesson in COURSE.lessons]
    preview = soup(teacher.get("/instrutor/licoes/kernels"))
    link = preview.find("a", string="Editar esta lição")
    assert link is not None and link["href"] == "/instrutor/licoes/kernels/editar"
    assert teacher.get(link["href"]).status_code == 200
    other = instructor(TestClient(client.app), settings, "outro")
    tools = [text(a) for a in soup(other.get("/instrutor")).select("nav.instructor-tools a")]
    assert tools == ["Turmas", "Nova lição", "Enviar uma imagem"]


def test_preview_shows_every_key_and_explanation_with_the_check_results(client, settings):
    page = soup(instructor(client, settings).get("/instrutor/licoes/kernels"))
    assert (
        text(page.select_one(".check-panel .check-ok"))
        == "Nenhum problema: curso check aceita este arquivo."
    )
    for question in KERNELS.questions.values():
        node = page.select_one(f"#pergunta-{question.id}")
        if question.kind == "numeric":
            wrong = [
                text(li.select_one(".option-label"))
                for li in node.select(".preview-wrong-values > li")
            ]
            assert wrong == [
                f"Errada {format(v.normalize(), 'f').replace('.', ',')}"
                for v, _ in question.numeric.wrong
            ]
            assert question.numeric.working_html.strip() in str(node.select_one(".working"))
            continue
        if question.kind == "ordering":
            shown = [li.select_one("code").get_text() for li in node.select(".right-order > li")]
            assert tuple(shown) == question.order
            continue
        options = node.select(".preview-options > li")
        assert len(options) == len(question.options)
        right = {o.select_one("code").get_text() for o in options if o.select_one(".tag-right")}
        assert right == question.answer
        for shown, option in zip(options, question.options, strict=True):
            assert (
                shown.select_one(".explanation").decode_contents().strip()
                == option.explanation_html.strip()
            )
    assert not page.select("main form"), "a prévia não tem formulários de resposta"


def test_preview_shows_trees_whole_and_where_each_scenario_leads(client, settings):
    page = soup(instructor(client, settings).get("/instrutor/licoes/escolha-self-hosted"))
    tree = COURSE.trees["guia-fase17"]
    section = page.select_one("#arvore-guia-fase17")
    shown = [text(dt.code) for dt in section.select(".preview-results dt")]
    assert shown == list(tree.results)
    assert len(section.select(".tree-outline-list li")) >= len(tree.questions)
    fleet = COURSE.get("escolha-self-hosted").questions["frota-mista"]
    walk = page.select_one("#pergunta-frota-mista .scenario-walk").get_text()
    situation = "; ".join(f"{facet}: {label}" for facet, label in fleet.scenario.situation)
    expected = f"Cenário na árvore guia-fase17: {situation} → {fleet.scenario.result_title}."
    assert (
        " ".join(walk.split())
        == expected
        == (
            "Cenário na árvore guia-fase17: Hardware: GPU AMD; Escala: 100–10 mil usuários / "
            "produção; Workload: Chat geral / perguntas e respostas → vLLM."
        )
    )


@pytest.fixture
def course_with_problems(tmp_path: Path, database_url: str):
    """A good lesson with a broken link, and one that never loads."""
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "01-boa.md").write_text(GOOD + "\nVeja [isto](#nada).\n", encoding="utf-8")
    broken = GOOD.replace("slug: decode-prefill", "slug: quebrada").replace("order: 1", "order: 2")
    (folder / "02-quebrada.md").write_text(
        broken.replace("answer: [b]", "answer: [x]"), encoding="utf-8"
    )
    settings = make_settings(tmp_path, folder, database_url)
    return settings, TestClient(create_app(settings))


def panel_lines(response) -> list[str]:
    return [text(li) for li in soup(response).select(".check-panel .check-list li")]


def test_only_instructors_see_the_check_panel_on_lesson_pages(course_with_problems):
    settings, learner = course_with_problems
    teacher = instructor(new_browser(learner), settings)
    assert not soup(learner.get("/licoes/decode-prefill")).select(".check-panel")
    assert panel_lines(teacher.get("/licoes/decode-prefill")) == [
        "01-boa.md:36:13 aviso o link `#nada` não leva a nenhum título desta lição"
    ]
    unavailable = learner.get("/licoes/quebrada")
    assert unavailable.status_code == 503 and not soup(unavailable).select(".check-panel")
    seen = teacher.get("/licoes/quebrada")
    assert seen.status_code == 503
    assert panel_lines(seen) == [
        "02-quebrada.md:33:12 erro a resposta `x` da pergunta `fase-banda` não é uma opção; "
        "opções: a, b, c"
    ]
    preview = teacher.get("/instrutor/licoes/quebrada")
    assert preview.status_code == 200 and panel_lines(preview) == panel_lines(seen)
    assert text(soup(preview).select_one(".check-stale")) == (
        "Esta lição nunca carregou sem erros: os alunos veem a página “Lição indisponível”."
    )
    assert teacher.get("/instrutor/licoes/nada").status_code == 404
    files = text(soup(teacher.get("/instrutor/arquivos")).select_one("#arquivos"))
    assert (
        "Nos arquivos: 1 erro e 1 aviso" in files
        and "indisponível: nunca carregou sem erros" in files
    )


def test_csv_exports_one_row_per_attempt_and_per_learner_and_lesson(client, settings):
    first = list(KERNELS.questions.values())[0]
    answer(client, "kernels", first.id, [wrong_option(first)])
    answer(client, "kernels", first.id, sorted(first.answer))
    other = new_browser(client)
    answer(other, "kernels", first.id, sorted(first.answer))
    teacher = instructor(new_browser(client), settings)
    attempts = read_csv(teacher.get("/instrutor/exportar/tentativas.csv"))
    assert list(attempts[0]) == list(ATTEMPT_COLUMNS)
    assert attempts[0]["correta"] == "não", "o BOM faz o Excel ler UTF-8, não 'nÃ£o'"
    assert [
        (a["licao"], a["pergunta"], a["correta"], a["primeira_tentativa"], a["versao_atual"])
        for a in attempts
    ] == [
        ("kernels", first.id, "não", "sim", "sim"),
        ("kernels", first.id, "sim", "não", "sim"),
        ("kernels", first.id, "sim", "sim", "sim"),
    ]
    assert attempts[0]["aluno"] == attempts[1]["aluno"] != attempts[2]["aluno"]
    assert attempts[0]["opcoes"] == wrong_option(first) and attempts[0]["data_utc"].endswith(
        "+00:00"
    )
    learner_ids = {row[0] for row in db_rows(settings, "SELECT id FROM learner")}
    assert not {a["aluno"] for a in attempts} & learner_ids, "pseudônimos, nunca o id do aluno"
    progress = read_csv(teacher.get("/instrutor/exportar/progresso.csv"))
    assert list(progress[0]) == list(PROGRESS_COLUMNS)
    assert len(progress) == len(learner_ids) * 3, (
        "uma linha por aluno e lição (o instrutor também é aluno)"
    )
    mine = [p for p in progress if p["aluno"] == attempts[0]["aluno"]]
    assert [
        (p["licao"], p["situacao"], p["acertos"], p["certas_primeira"], p["tentativas"])
        for p in mine
    ] == [
        ("kernels", "em andamento", "1", "0", "2"),
        ("escolha-self-hosted", "não iniciada", "0", "0", "0"),
        ("alem-do-ollama", "não iniciada", "0", "0", "0"),
    ]
    assert mine[0]["total"] == str(len(KERNELS.questions)) and mine[1]["ultima_atividade_utc"] == ""


def test_export_columns_are_documented_in_the_readme():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    for column in (*ATTEMPT_COLUMNS, *PROGRESS_COLUMNS):
        assert f"`{column}`" in readme, column


def test_question_cards_label_attempts_and_learners_for_their_count(client, settings):
    """In pt-BR only 1 is singular: "0 tentativas" and "0 alunos", like 2 (issue #15)."""
    singles = [q for q in KERNELS.questions.values() if q.kind == "single"]
    none, once, twice = singles[:3]
    answer(client, "kernels", once.id, [wrong_option(once)])
    answer(client, "kernels", twice.id, [wrong_option(twice)])
    answer(new_browser(client), "kernels", twice.id, [wrong_option(twice)])
    page = soup(instructor(new_browser(client), settings).get("/instrutor/perguntas"))

    def figures(question) -> list[str]:
        card = page.select_one(f"#q-kernels-{question.id}")
        return [text(figure) for figure in card.select(".figures > .figure")][:2]

    assert figures(none) == ["Tentativas 0", "Alunos 0"]
    assert figures(once) == ["Tentativa 1", "Aluno 1"]
    assert figures(twice) == ["Tentativas 2", "Alunos 2"]
