"""One place for URLs (app/web/urls.py): templates hold no literal route path, and every
path the builder gives is the one the site has always served."""

from __future__ import annotations

import ast
import re

import pytest
from starlette.routing import Route

from app.content import paths
from app.learning.trees import tree_view
from app.main import create_app
from app.platform.settings import PROJECT_ROOT
from app.web.urls import every_route
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
VENDORED_SCRIPTS = {
    "htmx.min.js",
    "swagger/swagger-ui-bundle.js",
    "minisearch.min.js",
    "snowball-stemmers.min.js",
}


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
        (urls.path("home"), "/"),
        (urls.path("lesson", slug="kernels"), "/licoes/kernels"),
        (urls.with_anchor("lesson", "fusao", slug="kernels"), "/licoes/kernels#fusao"),
        (urls.question("kernels", "q1"), "/licoes/kernels#pergunta-q1"),
        (urls.question("kernels", "q1", retry=True), "/licoes/kernels?refazer=q1#pergunta-q1"),
        (urls.path("question", slug="kernels", question_id="q1"), "/licoes/kernels/perguntas/q1"),
        (
            urls.with_query("question", {"refazer": 1}, slug="kernels", question_id="q1"),
            "/licoes/kernels/perguntas/q1?refazer=1",
        ),
        (
            urls.path("calculator", slug="kernels", calculator_id="vazao"),
            "/licoes/kernels/calculadoras/vazao",
        ),
        (
            urls.with_query("lesson", {"calc": "vazao", "n": 2}, "calc-vazao", slug="kernels"),
            "/licoes/kernels?calc=vazao&n=2#calc-vazao",
        ),
        (urls.path("trees"), "/arvores"),
        (urls.path("tree", tree_id="guia"), "/arvores/guia"),
        (urls.tree_at("guia", ("a", "b")), "/arvores/guia?c=a,b"),
        (urls.tree_at("guia", ()), "/arvores/guia?c="),
        (urls.path("tree_step", tree_id="guia"), "/arvores/guia/passo"),
        (
            urls.with_query("tree_widget", {"c": "a,b", "licao": "k"}, tree_id="guia"),
            "/arvores/guia/widget?c=a%2Cb&licao=k",
        ),
        (urls.path("compare"), "/arvores/comparar"),
        (urls.with_anchor("compare", "comparacao"), "/arvores/comparar#comparacao"),
        (urls.path("glossary"), "/glossario"),
        (urls.with_anchor("glossary", "kv-cache"), "/glossario#kv-cache"),
        (urls.path("search"), "/busca"),
        (urls.with_query("search", {"q": "fusão"}), "/busca?q=fus%C3%A3o"),
        (urls.path("progress"), "/progresso"),
        (urls.path("review"), "/revisar"),
        (urls.path("review_answer", slug="kernels", question_id="q1"), "/revisar/kernels/q1"),
        (
            urls.with_anchor("review_answered", "pergunta-q1", slug="kernels", question_id="q1"),
            "/revisar/kernels/q1#pergunta-q1",
        ),
        (urls.path("account"), "/conta"),
        (urls.with_query("account", {"proximo": "/instrutor"}), "/conta?proximo=%2Finstrutor"),
        (urls.path("my_data"), "/meus-dados"),
        (urls.with_query("my_data", {"apagado": 1}), "/meus-dados?apagado=1"),
        (urls.path("export"), "/meus-dados/exportar"),
        (urls.path("theme"), "/tema"),
        (urls.path("class_join_page", code="AB12"), "/turmas/entrar/AB12"),
        (urls.path("instructor_dashboard"), "/instrutor"),
        (urls.with_query("instructor_dashboard", {"turma": 3}), "/instrutor?turma=3"),
        (urls.with_query("instructor_dashboard", None), "/instrutor"),
        (urls.path("instructor_funnel"), "/instrutor/funil"),
        (urls.with_query("instructor_questions", {"turma": 3}), "/instrutor/perguntas?turma=3"),
        (urls.path("instructor_mastery"), "/instrutor/dominio"),
        (urls.path("instructor_trees"), "/instrutor/arvores"),
        (urls.path("instructor_files"), "/instrutor/arquivos"),
        (urls.path("instructor_preview", slug="kernels"), "/instrutor/licoes/kernels"),
        (
            urls.with_anchor("instructor_preview", "pergunta-q1", slug="kernels"),
            "/instrutor/licoes/kernels#pergunta-q1",
        ),
        (urls.path("lesson_editor", slug="kernels"), "/instrutor/licoes/kernels/editar"),
        (
            urls.with_query("lesson_editor", {"publicada": 7}, slug="kernels"),
            "/instrutor/licoes/kernels/editar?publicada=7",
        ),
        (urls.path("lesson_history", slug="kernels"), "/instrutor/licoes/kernels/historico"),
        (urls.path("lesson_new"), "/instrutor/licoes/nova"),
        (urls.path("image_upload"), "/instrutor/imagens"),
        (urls.path("classes"), "/instrutor/turmas"),
        (urls.path("class_page", class_id=3), "/instrutor/turmas/3"),
        (urls.path("export_attempts"), "/instrutor/exportar/tentativas.csv"),
        (
            urls.with_query("export_attempts", {"turma": 3}),
            "/instrutor/exportar/tentativas.csv?turma=3",
        ),
        (
            urls.with_query("export_progress", {"turma": 3}),
            "/instrutor/exportar/progresso.csv?turma=3",
        ),
        (urls.path("export_gift"), "/instrutor/exportar/questoes.gift"),
        (urls.path("class_due", class_id=3), "/instrutor/turmas/3/prazos"),
        (
            urls.path("lesson_restore", slug="k", revision_id=7),
            "/instrutor/licoes/k/historico/7/restaurar",
        ),
        (urls.path("sign_in"), "/conta/entrar"),
        (urls.path("sign_up"), "/conta/criar"),
        (urls.path("sign_out"), "/conta/sair"),
        (urls.path("my_data_delete"), "/meus-dados/apagar"),
        (urls.with_query("lti_login", {"a": "1"}), "/lti/login?a=1"),
        (urls.path("lesson", slug="a b/c"), "/licoes/a%20b%2Fc"),
        (urls.prefix("lesson"), "/licoes/"),
        (urls.prefix("lesson_editor"), "/instrutor/licoes/"),
        (urls.prefix("class_join_page"), "/turmas/entrar/"),
        (urls.prefix("trees"), "/arvores"),
    ]
    assert [got for got, _ in cases] == [want for _, want in cases]


def test_a_walk_links_to_the_page_that_shows_its_tree(app):
    course = app.state.live_course.current()
    tree = next(iter(course.trees.values()))
    urls = app.state.urls
    alone = tree_view(tree, None)
    in_lesson = tree_view(tree, None, "kernels")
    assert urls.walk(alone, ()) == f"/arvores/{tree.id}"
    assert urls.walk(alone, ("a", "b"), "mudou") == f"/arvores/{tree.id}?c=a%2Cb&aviso=mudou"
    assert urls.walk(in_lesson, ("a",)) == (
        f"/licoes/kernels?arvore={tree.id}&c=a#arvore-{tree.id}"
    )


def test_an_unknown_route_name_fails_loudly(app):
    from starlette.routing import NoMatchFound

    with pytest.raises(NoMatchFound):
        app.state.urls.path("no_such_page")
    with pytest.raises(NoMatchFound):
        app.state.urls.prefix("no_such_page")


def test_the_shapes_content_spells_are_the_named_routes(app):
    urls = app.state.urls
    assert paths.lesson("kernels") == urls.path("lesson", slug="kernels")
    assert paths.lesson("kernels", "fusao") == urls.with_anchor("lesson", "fusao", slug="kernels")
    assert paths.glossary_term("kv-cache") == urls.with_anchor("glossary", "kv-cache")
    assert urls.prefix("lesson") == paths.LESSONS_PREFIX
    assert urls.path("trees") == paths.TREES_PATH
    assert urls.path("glossary") == paths.GLOSSARY_PATH


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


# The web kit: app/web/*.py, which are not routers (those declare the route table itself).
WEB_KIT = sorted((PROJECT_ROOT / "app" / "web").glob("*.py"))


def route_literals(app, source: str) -> list[str]:
    """String constants in ``source`` that are a route's path, or the start of one."""
    routes = [route for route in every_route(app.routes) if isinstance(route, Route)]
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if not re.match(r"/[a-z]", node.value):
            continue
        path = re.split(r"[?#]", node.value)[0]
        if any(r.path_format.startswith(path) or r.path_regex.match(path) for r in routes):
            found.append((node.lineno, node.col_offset, node.value))
    return [value for _, _, value in sorted(found)]


def test_no_web_kit_module_holds_a_literal_route_path(app):
    assert len(WEB_KIT) > 10
    found = {module.name: route_literals(app, module.read_text("utf-8")) for module in WEB_KIT}
    assert {name: literals for name, literals in found.items() if literals} == {}


def test_the_kit_scan_catches_route_paths_and_nothing_else(app):
    source = """
EDITOR_PATHS = "/instrutor/licoes/"
UPLOAD_PATH = "/instrutor/imagens"
POSTS = ("/lti/login", "/lti/launch")
api = path.startswith("/api/")
at = "/licoes/kernels#fusao"
"""
    assert route_literals(app, source) == [
        "/instrutor/licoes/",
        "/instrutor/imagens",
        "/lti/login",
        "/lti/launch",
        "/api/",
        "/licoes/kernels#fusao",
    ]
    others = 'a = "/static"\nb = "/"\nc = "text/html"\nd = "/nowhere"\n'
    assert route_literals(app, others) == []


def test_only_the_lesson_html_spells_paths_below_the_web_floor():
    importing = re.compile(
        r"^(from app\.content import paths|from app\.content\.paths import)", re.M
    )
    users = sorted(
        str(module.relative_to(PROJECT_ROOT))
        for module in (PROJECT_ROOT / "app").rglob("*.py")
        if importing.search(module.read_text("utf-8"))
    )
    assert users == ["app/content/glossary.py", "app/content/links.py"]
