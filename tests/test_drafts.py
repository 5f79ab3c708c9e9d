"""Draft lessons (issue 27): "Nova lição" makes a draft that only instructors see, with a
banner, until one of them publishes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content.course import load_course
from app.main import create_app
from tests.support.accounts import instructor
from tests.support.app import REPO_LESSONS, make_settings
from tests.support.html import csrf_from, soup, text
from tests.support.learning import KERNELS, answer, finish
from tests.support.lessons import GOOD, lessons, messages

SLUG = "zebras-de-inferencia"
TITLE = "Zebras de inferência"
BANNER = "Rascunho: só instrutores veem esta lição"


@pytest.fixture
def site(tmp_path: Path):
    folder = tmp_path / "lessons"
    shutil.copytree(REPO_LESSONS, folder)
    settings = make_settings(tmp_path, folder)
    app = create_app(settings)
    with TestClient(app, follow_redirects=False) as teacher, TestClient(app) as learner:
        instructor(teacher, settings, "prof")
        yield teacher, learner, folder


def create_lesson(teacher: TestClient) -> None:
    token = csrf_from(teacher.get("/instrutor/licoes/nova").text)
    created = teacher.post("/instrutor/licoes/nova", data={"csrftoken": token, "titulo": TITLE})
    assert created.headers["location"] == f"/instrutor/licoes/{SLUG}/editar"


def seen_by_learner(learner: TestClient) -> dict:
    home = soup(learner.get("/"))
    kernels = soup(learner.get("/licoes/kernels"))
    return {
        "home": [text(a) for a in home.select(".lesson-card h2 a")],
        "percent": text(home.select_one(".course-percent")),
        "breadcrumb": text(kernels.select_one(".breadcrumb")),
        "nav": [a["href"] for a in kernels.select(".course-nav a")],
        "search": text(soup(learner.get("/busca", params={"q": "zebras"})).select_one("main")),
        "found": [
            a["href"] for a in soup(learner.get("/busca", params={"q": "zebras"})).select("main a")
        ],
        "sitemap": learner.get("/sitemap.xml").text,
        # The index the header box searches in the browser (issue 38): public, so no draft.
        "index": learner.get(kernels.select_one("#busca-topo")["data-search-index"]).text,
    }


def test_a_new_lesson_is_a_draft_that_learners_never_see(site):
    teacher, learner, folder = site
    finish(learner, KERNELS)
    before = seen_by_learner(learner)
    create_lesson(teacher)

    assert seen_by_learner(learner) == before
    assert SLUG not in before["sitemap"] and "Nenhum resultado" in before["search"]
    assert not any(SLUG in href for href in before["found"])
    assert learner.get(f"/licoes/{SLUG}").status_code == 404
    assert learner.get(f"/licoes/{SLUG}/perguntas/primeira-pergunta").status_code == 404

    page = soup(teacher.get(f"/licoes/{SLUG}"))
    assert text(page.select_one(".draft-banner h2")) == BANNER
    assert text(page.select_one(".draft-banner button")) == "Publicar a lição"
    assert text(page.select_one("h1")) == TITLE
    dashboard = soup(teacher.get("/instrutor/arquivos"))
    row = next(li for li in dashboard.select(".lesson-files li") if SLUG in str(li))
    assert "rascunho: só instrutores a veem" in text(row)


def test_publishing_a_draft_shows_it_to_learners_and_records_a_revision(site):
    teacher, learner, folder = site
    create_lesson(teacher)
    path = folder / f"04-{SLUG}.md"
    assert "draft: true\n" in path.read_text(encoding="utf-8")
    token = csrf_from(teacher.get(f"/licoes/{SLUG}").text)

    published = teacher.post(f"/instrutor/licoes/{SLUG}/publicar", data={"csrftoken": token})

    assert published.status_code == 303
    assert published.headers["location"] == f"/licoes/{SLUG}"
    assert "draft:" not in path.read_text(encoding="utf-8")
    page = soup(teacher.get(f"/licoes/{SLUG}"))
    assert page.select_one(".draft-banner") is None
    # Issue 38: publishing from the banner said nothing; the lesson says it now, once.
    assert text(page.select_one(".lesson-head .notice[role=status]")) == (
        "Lição publicada: os alunos já a veem na lista, na busca e no seu progresso."
    )
    assert soup(teacher.get(f"/licoes/{SLUG}")).select_one(".notice") is None
    assert learner.get(f"/licoes/{SLUG}").status_code == 200
    assert TITLE in [text(a) for a in soup(learner.get("/")).select(".lesson-card h2 a")]
    history = soup(teacher.get(f"/instrutor/licoes/{SLUG}/historico"))
    assert "prof" in text(history.select_one("main"))
    again = teacher.post(f"/instrutor/licoes/{SLUG}/publicar", data={"csrftoken": token})
    assert again.headers["location"] == f"/licoes/{SLUG}"


def test_learners_cannot_publish_and_an_instructor_can_answer_in_a_draft(site):
    teacher, learner, folder = site
    create_lesson(teacher)
    token = csrf_from(learner.get("/").text)
    refused = learner.post(
        f"/instrutor/licoes/{SLUG}/publicar", data={"csrftoken": token}, follow_redirects=False
    )
    assert refused.status_code == 303 and refused.headers["location"].startswith("/conta")
    assert "draft: true" in (folder / f"04-{SLUG}.md").read_text(encoding="utf-8")
    graded = answer(teacher, SLUG, "primeira-pergunta", ["b"])
    assert graded.status_code == 200 and "Certo" in graded.text


def test_every_lesson_of_the_repository_is_published():
    course = load_course(REPO_LESSONS)
    assert course.drafts == () and len(course.lessons) == 3


def test_draft_must_be_true_or_false(tmp_path: Path):
    draft = GOOD.replace("order: 1", "order: 1\ndraft: true")
    assert load_course(lessons(tmp_path, a=draft)).drafts[0].slug == "decode-prefill"
    wrong = GOOD.replace("order: 1", 'order: 1\ndraft: "sim"')
    assert messages(load_course(lessons(tmp_path, a=wrong))) == [
        "a.md:5:1: error: `draft` deve ser `true` ou `false`"
    ]
