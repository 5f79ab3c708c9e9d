"""One place for URLs (app/web/urls.py): templates hold no literal route path, and every
path the builder gives is the one the site has always served."""

from __future__ import annotations

import re

import pytest

from app.content import paths
from app.main import create_app
from app.platform.settings import PROJECT_ROOT
from tests.support.app import make_settings

# A quoted string that starts with one "/" and then a letter, a quote, "?" or "#": "/",
# "/licoes/", '/busca?q='. Static files come from static_url() and never match.
LITERAL_PATH = re.compile(r"""["']/(?:[a-z]|["'?#])""")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(make_settings(tmp_path_factory.mktemp("urls")))


def test_no_template_holds_a_literal_route_path():
    found = []
    for template in sorted((PROJECT_ROOT / "templates").glob("*.html")):
        for number, line in enumerate(template.read_text(encoding="utf-8").splitlines(), 1):
            found.extend(
                f"{template.name}:{number}: {m.group(0)}" for m in LITERAL_PATH.finditer(line)
            )
    assert found == []


# Other projects' files, served as they come (their licences sit next to them).
VENDORED_SCRIPTS = {"htmx.min.js", "swagger/swagger-ui-bundle.js"}


def test_no_script_of_ours_holds_a_literal_route_path():
    """JavaScript takes its URLs from the page (data-* attributes the URL builder fills)."""
    scripts = sorted((PROJECT_ROOT / "static").rglob("*.js"))
    ours = [
        s
        for s in scripts
        if s.relative_to(PROJECT_ROOT / "static").as_posix() not in VENDORED_SCRIPTS
    ]
    assert len(ours) == len(scripts) - len(VENDORED_SCRIPTS)
    assert any(s.parent.name == "js" for s in ours)
    found = []
    for script in ours:
        for number, line in enumerate(script.read_text(encoding="utf-8").splitlines(), 1):
            found.extend(
                f"{script.name}:{number}: {m.group(0)}" for m in LITERAL_PATH.finditer(line)
            )
    assert found == []


def test_the_scan_catches_each_kind_of_literal():
    for line in (
        '<a href="/">',
        '<a href="/licoes/{{ slug }}">',
        '<form action="/busca">',
        '<div hx-get="/arvores/x">',
        '<button hx-post="/conta/sair">',
        '{% trans url="/licoes/" ~ slug %}',
        '<a href="/glossario#termo">',
        'fetch("/progresso/lugar", { method: "POST" })',
        'new URLSearchParams("/busca?" + query)',
        "link.closest(\"a[href^='/licoes/']\")",
    ):
        assert LITERAL_PATH.search(line), line
    for line in (
        '<link rel="stylesheet" href="{{ static_url(\'app.css\') }}">',
        '<rect rx="3"/>',
        '<input aria-keyshortcuts="/ s">',
    ):
        assert not LITERAL_PATH.search(line), line


def test_every_page_keeps_its_address(app):
    urls = app.state.urls
    cases = [
        (urls.home(), "/"),
        (urls.lesson("kernels"), "/licoes/kernels"),
        (urls.lesson("kernels", "fusao"), "/licoes/kernels#fusao"),
        (urls.question("kernels", "q1"), "/licoes/kernels#pergunta-q1"),
        (urls.question_retry("kernels", "q1"), "/licoes/kernels?refazer=q1#pergunta-q1"),
        (urls.question_fragment("kernels", "q1"), "/licoes/kernels/perguntas/q1"),
        (
            urls.question_fragment("kernels", "q1", retry=True),
            "/licoes/kernels/perguntas/q1?refazer=1",
        ),
        (urls.calculator("kernels", "vazao"), "/licoes/kernels/calculadoras/vazao"),
        (urls.trees(), "/arvores"),
        (urls.tree("guia"), "/arvores/guia"),
        (urls.tree("guia", ("a", "b")), "/arvores/guia?c=a,b"),
        (urls.tree("guia", ()), "/arvores/guia?c="),
        (urls.tree_step("guia"), "/arvores/guia/passo"),
        (urls.compare(), "/arvores/comparar"),
        (urls.compare("comparacao"), "/arvores/comparar#comparacao"),
        (urls.glossary(), "/glossario"),
        (urls.glossary_term("kv-cache"), "/glossario#kv-cache"),
        (urls.search(), "/busca"),
        (urls.search("fusão"), "/busca?q=fus%C3%A3o"),
        (urls.progress(), "/progresso"),
        (urls.review(), "/revisar"),
        (urls.review_answer("kernels", "q1"), "/revisar/kernels/q1"),
        (urls.account(), "/conta"),
        (urls.account(next_page="/instrutor"), "/conta?proximo=%2Finstrutor"),
        (urls.my_data(), "/meus-dados"),
        (urls.my_data_export(), "/meus-dados/exportar"),
        (urls.theme(), "/tema"),
        (urls.class_join("AB12"), "/turmas/entrar/AB12"),
        (urls.instructor(), "/instrutor"),
        (urls.instructor({"turma": 3}), "/instrutor?turma=3"),
        (urls.instructor_lesson("kernels"), "/instrutor/licoes/kernels"),
        (urls.instructor_lesson("kernels", "pergunta-q1"), "/instrutor/licoes/kernels#pergunta-q1"),
        (urls.lesson_editor("kernels"), "/instrutor/licoes/kernels/editar"),
        (urls.lesson_history("kernels"), "/instrutor/licoes/kernels/historico"),
        (urls.lesson_new(), "/instrutor/licoes/nova"),
        (urls.image_upload(), "/instrutor/imagens"),
        (urls.classes(), "/instrutor/turmas"),
        (urls.class_page(3), "/instrutor/turmas/3"),
        (urls.export_attempts(), "/instrutor/exportar/tentativas.csv"),
        (urls.export_attempts({"turma": 3}), "/instrutor/exportar/tentativas.csv?turma=3"),
        (urls.export_progress({"turma": 3}), "/instrutor/exportar/progresso.csv?turma=3"),
        (urls.export_gift(), "/instrutor/exportar/questoes.gift"),
        (urls.path("class_due", class_id=3), "/instrutor/turmas/3/prazos"),
        (
            urls.path("lesson_restore", slug="k", revision_id=7),
            "/instrutor/licoes/k/historico/7/restaurar",
        ),
        (urls.path("sign_in"), "/conta/entrar"),
        (urls.path("sign_up"), "/conta/criar"),
        (urls.path("sign_out"), "/conta/sair"),
        (urls.path("my_data_delete"), "/meus-dados/apagar"),
    ]
    assert [got for got, _ in cases] == [want for _, want in cases]


def test_an_unknown_route_name_fails_loudly(app):
    from starlette.routing import NoMatchFound

    with pytest.raises(NoMatchFound):
        app.state.urls.path("no_such_page")


def test_the_shapes_content_spells_are_the_named_routes(app):
    urls = app.state.urls
    assert (
        paths.lesson("kernels")
        == urls.lesson("kernels")
        == app.url_path_for("lesson", slug="kernels")
    )
    assert paths.lesson("kernels", "fusao", {"a": "1"}) == urls.lesson(
        "kernels", "fusao", {"a": "1"}
    )
    assert paths.question("kernels", "q1") == urls.question("kernels", "q1")
    assert paths.tree("guia") == urls.tree("guia") == app.url_path_for("tree", tree_id="guia")
    assert paths.tree_widget("guia") == app.url_path_for("tree_widget", tree_id="guia")
    assert paths.tree_in_lesson("kernels", "guia") == urls.lesson("kernels", "arvore-guia")
    assert paths.glossary_term("kv-cache") == urls.glossary_term("kv-cache")
    assert app.url_path_for("lesson", slug="x")[:-1] == paths.LESSONS_PREFIX


@pytest.mark.parametrize(
    ("path", "section"),
    [
        ("/", "lessons"),
        ("/licoes/kernels", "lessons"),
        ("/arvores", "trees"),
        ("/arvores/comparar", "trees"),
        ("/glossario", "glossary"),
        ("/revisar", "review"),
        ("/progresso", "progress"),
        ("/conta", "account"),
        ("/meus-dados", "account"),
        ("/busca", ""),
        ("/instrutor", ""),
    ],
)
def test_the_nav_marks_the_section_of_each_page(app, path, section):
    assert app.state.urls.nav_section(path) == section
