"""The page's ids in one place (app/content/page_ids.py): the chrome's ids and the widgets'."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.content import page_ids
from app.content.markdown import RESERVED_IDS, render_document
from app.content.page_ids import CHROME_IDS
from app.learning.instructors import set_instructor
from app.main import create_app
from app.platform.settings import PROJECT_ROOT
from tests.support.app import make_settings
from tests.support.html import csrf_from, soup

PASSWORD = "uma senha boa"

# The templates that wrap a lesson: every literal id in them is one a heading may not take.
CHROME_TEMPLATES = [
    "base.html",
    "lesson.html",
    "_course_nav.html",
    "_content_problems.html",
    "_resume.html",
    "editor.html",
    "_editor_preview.html",
]


def test_every_literal_id_of_the_page_chrome_is_reserved():
    found = set()
    for name in CHROME_TEMPLATES:
        text = (PROJECT_ROOT / "templates" / name).read_text(encoding="utf-8")
        found.update(re.findall(r'\bid="([a-z][a-z0-9-]*)"', text))
    assert "busca-topo" in found
    assert found <= CHROME_IDS, sorted(found - CHROME_IDS)
    assert RESERVED_IDS == CHROME_IDS


@pytest.mark.parametrize("reserved", sorted(CHROME_IDS))
def test_a_heading_never_takes_an_id_of_the_chrome(reserved):
    text = reserved.replace("-", " ").capitalize()
    rendered = render_document(f"## {text}\n\nTexto.\n")
    assert f'id="{reserved}"' not in rendered.html
    assert f'<h2 id="{reserved}-2">' in rendered.html
    assert rendered.problems == (
        (
            0,
            f"o título gera a âncora `#{reserved}`, que a página já usa; mude o texto do título",
        ),
    )


def test_busca_topo_heading_gets_its_own_id():
    rendered = render_document("## Busca topo\n\n## Busca topo\n")
    assert re.findall(r'<h2 id="([^"]+)"', rendered.html) == ["busca-topo-2", "busca-topo-3"]


def test_widget_ids_keep_their_shapes():
    # ``pergunta-<id>`` is also what the database keeps as a learner's place: never change it.
    assert page_ids.question_anchor("q1") == "pergunta-q1"
    assert page_ids.error_anchor("q1") == "erro-q1"
    assert page_ids.option_anchor("q1", "b") == "op-q1-b"
    assert page_ids.tree_anchor("roteiro") == "arvore-roteiro"
    assert page_ids.term_anchor("kv-cache") == "termo-kv-cache"
    assert page_ids.chart_anchor("vazao") == "grafico-vazao"
    assert page_ids.pool_anchor("fases") == "sorteio-fases"
    assert page_ids.pool_note_anchor("fases") == "nota-sorteio-fases"
    assert page_ids.pool_footer_anchor("fases") == "outras-sorteio-fases"
    assert page_ids.definition_anchor("kv-cache") == "def-kv-cache"


# --- every page type, rendered: no id twice ----------------------------------------------

CHROME_HEADINGS = "\n\n".join(
    f"## {i.replace('-', ' ').capitalize()}\n\nTexto." for i in CHROME_IDS
)


def _ids_twice(html: str) -> list[str]:
    ids = [tag["id"] for tag in soup(html).select("[id]")]
    return sorted({i for i in ids if ids.count(i) > 1})


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, tuple[int, str]]:
    """Every kind of page, as a visitor, a learner with an answer, and an instructor."""
    tmp = tmp_path_factory.mktemp("pages")
    settings = make_settings(tmp)
    app = create_app(settings)
    found: dict[str, tuple[int, str]] = {}
    with TestClient(app) as client:

        def post(url: str, **fields):
            token = csrf_from(client.get("/conta").text)
            return client.post(url, data={"csrftoken": token, **fields}, follow_redirects=False)

        def get(name: str, url: str) -> None:
            response = client.get(url, follow_redirects=False)
            found[name] = (response.status_code, response.text)

        course = app.state.live_course.current()
        lesson = course.lessons[0]
        urls = app.state.urls
        tree_id = sorted(course.trees)[0]
        get("home", urls.path("home"))
        get("lesson", urls.path("lesson", slug=lesson.slug))
        get("trees", urls.path("trees"))
        get("tree", urls.path("tree", tree_id=tree_id))
        get("compare", urls.path("compare"))
        get("glossary", urls.path("glossary"))
        get("search", urls.path("search"))
        get("search results", urls.with_query("search", {"q": "kernel"}))
        get("sign-in", urls.path("account"))
        get("error", "/nao-existe")
        question = next(iter(lesson.questions.values()))
        page = client.get(urls.path("lesson", slug=lesson.slug)).text
        key = re.search(r'name="chave" value="([^"]+)"', page)
        assert key is not None
        answered = post(
            urls.path("question", slug=lesson.slug, question_id=question.id),
            chave=key.group(1),
            opcao=question.options[0].id,
            versao=question.content_hash,
        )
        assert answered.status_code == 303, answered.text
        get("lesson answered", urls.path("lesson", slug=lesson.slug))
        get("progress", urls.path("progress"))
        get("review", urls.path("review"))
        assert post(urls.path("sign_up"), usuario="prof", senha=PASSWORD, confirmacao=PASSWORD)
        with Session(app.state.engine) as db:
            set_instructor(db, "prof", True)
        get("account", urls.path("account"))
        get("my data", urls.path("my_data"))
        for tab in ("dashboard", "funnel", "questions", "mastery", "trees", "files"):
            get(f"instructor {tab}", urls.path(f"instructor_{tab}"))
        get("instructor preview", urls.path("instructor_preview", slug=lesson.slug))
        get("editor", urls.path("lesson_editor", slug=lesson.slug))
        get("lesson history", urls.path("lesson_history", slug=lesson.slug))
        get("new lesson", urls.path("lesson_new"))
        get("image upload", urls.path("image_upload"))
        get("classes", urls.path("classes"))
        created = post(urls.path("class_create"), nome="Turma A", descricao="")
        assert created.status_code == 303
        get("class page", created.headers["location"])
        text = f"---\ntitle: Ids\nslug: {lesson.slug}\n---\n\n## Busca topo\n\n{CHROME_HEADINGS}\n"
        preview = post(urls.path("lesson_editor_preview", slug=lesson.slug), texto=text)
        found["editor preview with the chrome's ids as headings"] = (
            preview.status_code,
            preview.text,
        )
    return found


PAGE_TYPES = [
    "home",
    "lesson",
    "trees",
    "tree",
    "compare",
    "glossary",
    "search",
    "search results",
    "sign-in",
    "error",
    "lesson answered",
    "progress",
    "review",
    "account",
    "my data",
    "instructor dashboard",
    "instructor funnel",
    "instructor questions",
    "instructor mastery",
    "instructor trees",
    "instructor files",
    "instructor preview",
    "editor",
    "lesson history",
    "new lesson",
    "image upload",
    "classes",
    "class page",
    "editor preview with the chrome's ids as headings",
]


@pytest.mark.parametrize("name", PAGE_TYPES)
def test_no_page_carries_an_id_twice(pages, name):
    status, html = pages[name]
    assert status == (404 if name == "error" else 200)
    assert "<main" in html
    assert _ids_twice(html) == []


def test_every_page_type_is_rendered(pages):
    assert sorted(pages) == sorted(PAGE_TYPES)


def test_a_lesson_with_the_chromes_ids_as_headings_gets_its_own_ids():
    rendered = render_document(f"## Busca topo\n\n{CHROME_HEADINGS}\n")
    html = rendered.html
    for reserved in CHROME_IDS:
        assert f'id="{reserved}"' not in html
    assert _ids_twice(html) == []
    assert 'id="busca-topo-2"' in html and 'id="busca-topo-3"' in html
    # Wrapped in the page's chrome, no id is there twice either.
    chrome = "".join(f'<div id="{reserved}"></div>' for reserved in CHROME_IDS)
    assert _ids_twice(chrome + html) == []


def test_a_heading_that_makes_a_glossary_terms_id_is_an_error(tmp_path):
    """The first use of a term is ``<dfn id="termo-<slug>">``: a heading may not take that id."""
    import shutil

    from app.content.course import load_course

    folder = tmp_path / "lessons"
    shutil.copytree(PROJECT_ROOT / "lessons", folder)
    kernels = folder / "01-kernels.md"
    html = "".join(p for p in load_course(folder).get("kernels").parts if isinstance(p, str))
    assert 'id="termo-kernel"' in html
    kernels.write_text(kernels.read_text(encoding="utf-8") + "\n## Termo kernel\n\nTexto.\n")
    found = [f"{p.file.name}:{p.line}: {p.message}" for p in load_course(folder).problems]
    assert any(
        "01-kernels.md" in problem
        and "`#termo-kernel`" in problem
        and "termo do glossário" in problem
        for problem in found
    ), found
