"""Issue 22, item 4: renaming a lesson's slug in the editor carries every learner's progress to
the new slug, in the publication's transaction, and the old addresses answer 301.
"""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert

from app.main import create_app
from app.platform.db import make_engine
from app.platform.models import HINT_REVEAL, utcnow
from tests.support.accounts import instructor, sign_up
from tests.support.app import REPO_LESSONS, db_rows, make_settings
from tests.support.html import HX, csrf_from, soup, text
from tests.support.learning import answer, card, key_of, version_of
from tests.support.lessons import GOOD

OLD, NEW = "decode-prefill", "fases-da-inferencia"
QUESTION = "fase-banda"


@pytest.fixture
def school(tmp_path: Path, database_url: str):
    """An instructor, a learner (ana) in a class with a due date, who answered wrong then right."""
    lessons = tmp_path / "lessons"
    shutil.copytree(REPO_LESSONS, lessons)
    (lessons / "09-decode-prefill.md").write_text(
        GOOD.replace("order: 1", "order: 9"), encoding="utf-8"
    )
    settings = make_settings(tmp_path, lessons, database_url=database_url)
    app = create_app(settings)
    with (
        TestClient(app, follow_redirects=False) as teacher,
        TestClient(app, follow_redirects=False) as learner,
    ):
        instructor(teacher, settings, "prof")
        assert answer(learner, OLD, QUESTION, ["a"]).status_code == 200
        assert answer(learner, OLD, QUESTION, ["b"]).status_code == 200
        assert sign_up(learner, "ana").status_code == 303
        token = csrf_from(teacher.get("/conta").text)
        created = teacher.post("/instrutor/turmas", data={"csrftoken": token, "nome": "Turma A"})
        class_url = created.headers["location"]
        code = text(soup(teacher.get(class_url).text).select_one(".join-link")).split("/")[-1]
        token = csrf_from(learner.get("/conta").text)
        assert learner.post(f"/turmas/entrar/{code}", data={"csrftoken": token}).status_code == 303
        due = datetime.now(ZoneInfo("America/Sao_Paulo")) + timedelta(days=3)
        form = {"csrftoken": token, "licao": OLD, "prazo": due.strftime("%Y-%m-%dT%H:%M")}
        token = csrf_from(teacher.get("/conta").text)
        assert (
            teacher.post(f"{class_url}/prazos", data={**form, "csrftoken": token}).status_code
            == 303
        )
        yield settings, teacher, learner, class_url


def editor_form(client: TestClient, slug: str) -> dict[str, str]:
    page = soup(client.get(f"/instrutor/licoes/{slug}/editar").text)
    return {
        "csrftoken": page.select_one('input[name="csrftoken"]')["value"],
        "versao": page.select_one('input[name="versao"]')["value"],
        "texto": page.select_one("#editor-texto").get_text(),
    }


def rename(teacher: TestClient, old: str, new: str):
    form = editor_form(teacher, old)
    renamed = form["texto"].replace(f"slug: {old}", f"slug: {new}")
    return teacher.post(f"/instrutor/licoes/{old}/editar", data={**form, "texto": renamed})


def dashboard_figures(teacher: TestClient, slug: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    funnel = soup(teacher.get("/instrutor/funil").text)
    row = funnel.select_one(f'#funil table.funnel tbody tr[data-licao="{slug}"]')
    item = soup(teacher.get("/instrutor/perguntas").text).select_one(f"#q-{slug}-{QUESTION}")
    assert row is not None and item is not None, slug
    return (
        (text(row.select_one(".started")), text(row.select_one(".completed"))),
        tuple(text(item.select_one(s)) for s in (".fig-attempts", ".fig-learners")),
    )


def test_the_preview_warns_how_many_learners_have_progress_before_publishing(school):
    _, teacher, _, _ = school
    form = editor_form(teacher, OLD)
    renamed = form["texto"].replace(f"slug: {OLD}", f"slug: {NEW}")
    response = teacher.post(
        f"/instrutor/licoes/{OLD}/previa", data={**form, "texto": renamed}, headers=HX
    )
    assert response.status_code == 200
    notice = soup(response.text).select_one(".editor-rename")
    assert text(notice.select_one(".editor-rename-learners")) == (
        "1 aluno tem progresso nesta lição; o progresso será levado para o novo endereço."
    )
    assert f"“{OLD}” para “{NEW}”" in text(notice)
    same = teacher.post(f"/instrutor/licoes/{OLD}/previa", data=form, headers=HX)
    assert soup(same.text).select_one(".editor-rename") is None


def test_a_renamed_lesson_keeps_every_learners_progress_and_its_old_addresses_redirect(school):
    settings, teacher, learner, class_url = school
    before = card(learner, OLD)
    assert before["status"] != "não iniciada"
    figures = dashboard_figures(teacher, OLD)
    assert figures == (("1", "1"), ("2", "1"))

    response = rename(teacher, OLD, NEW)
    assert response.status_code == 303
    assert response.headers["location"].startswith(f"/instrutor/licoes/{NEW}/editar?publicada=")
    published = soup(teacher.get(response.headers["location"]).text)
    assert f"de “{OLD}” para “{NEW}”" in text(published.select_one(".editor-ok"))
    assert "o progresso de 1 aluno veio junto" in text(published.select_one(".editor-ok"))

    # The learner sees the same progress under the new lesson, and nothing left under the old.
    assert card(learner, NEW) == before
    assert soup(learner.get("/progresso").text).select_one(f'[data-licao="{OLD}"]') is None
    for table in ("attempt", "review_card", "class_due", "first_try", "question_tally"):
        assert db_rows(settings, f"SELECT DISTINCT lesson_slug FROM {table}") == [(NEW,)], table
    assert db_rows(settings, "SELECT place_lesson FROM learner WHERE place_lesson IS NOT NULL") == [
        (NEW,)
    ]
    assert db_rows(settings, "SELECT old_slug, new_slug, learners FROM lesson_rename") == [
        (OLD, NEW, 1)
    ]
    # The dashboard still counts the answers, and the class its due date.
    assert dashboard_figures(teacher, NEW) == figures
    assert soup(teacher.get(class_url).text).select_one(f'tr[data-licao="{NEW}"]') is not None

    # Old addresses: 301 to the same page of the new slug, query string kept.
    moved = learner.get(f"/licoes/{OLD}?refazer={QUESTION}")
    assert moved.status_code == 301
    assert moved.headers["location"] == f"/licoes/{NEW}?refazer={QUESTION}"
    fragment = learner.get(f"/licoes/{OLD}/perguntas/{QUESTION}", headers=HX)
    assert fragment.status_code == 301
    assert fragment.headers["location"] == f"/licoes/{NEW}/perguntas/{QUESTION}"
    editor = teacher.get(f"/instrutor/licoes/{OLD}/editar")
    assert (editor.status_code, editor.headers["location"]) == (
        301,
        f"/instrutor/licoes/{NEW}/editar",
    )
    # An answer posted from a page opened before the rename keeps its form (308).
    posted = answer(learner, NEW, QUESTION, ["b"])
    assert posted.status_code == 200
    page = learner.get(f"/licoes/{NEW}?refazer={QUESTION}").text
    form = {"csrftoken": csrf_from(page), "opcao": "b", "chave": key_of(page, QUESTION)}
    form["versao"] = version_of(page, QUESTION)
    stale = learner.post(f"/licoes/{OLD}/perguntas/{QUESTION}", data=form, headers=HX)
    assert (stale.status_code, stale.headers["location"]) == (
        308,
        f"/licoes/{NEW}/perguntas/{QUESTION}",
    )
    assert learner.post(stale.headers["location"], data=form, headers=HX).status_code == 200
    assert db_rows(settings, "SELECT lesson_slug, count(*) FROM attempt GROUP BY lesson_slug") == [
        (NEW, 4)
    ]
    assert learner.get("/licoes/nunca-existiu").status_code == 404


def test_renaming_back_leads_the_newer_slug_to_the_older_and_never_loops(school):
    settings, teacher, learner, _ = school
    before = card(learner, OLD)
    assert rename(teacher, OLD, NEW).status_code == 303
    assert rename(teacher, NEW, OLD).status_code == 303
    assert card(learner, OLD) == before
    assert learner.get(f"/licoes/{OLD}").status_code == 200
    back = learner.get(f"/licoes/{NEW}")
    assert (back.status_code, back.headers["location"]) == (301, f"/licoes/{OLD}")
    assert db_rows(settings, "SELECT DISTINCT lesson_slug FROM attempt") == [(OLD,)]


def test_hints_opened_and_not_yet_answered_follow_the_lesson_to_its_new_slug(school):
    settings, teacher, _, _ = school
    ((learner_id,),) = db_rows(settings, "SELECT learner_id FROM account WHERE username = 'ana'")
    engine = make_engine(settings.database_url)
    try:
        with engine.begin() as connection:  # what the hint route stores (tests/test_hints.py)
            connection.execute(
                insert(HINT_REVEAL).values(
                    learner_id=learner_id,
                    lesson_slug=OLD,
                    question_id=QUESTION,
                    question_hash="h",
                    hint=1,
                    worked=False,
                    created_at=utcnow(),
                )
            )
    finally:
        engine.dispose()
    assert rename(teacher, OLD, NEW).status_code == 303
    assert db_rows(settings, "SELECT DISTINCT lesson_slug FROM hint_reveal") == [(NEW,)]
