"""Every asset in its place: a stylesheet goes in <head> (base.html's ``stylesheets`` block),
never in a page's body or in a fragment, where it blocks the paint of what follows it."""

from __future__ import annotations

import re

from jinja2 import Environment, nodes

from app.platform.settings import PROJECT_ROOT

TEMPLATES = PROJECT_ROOT / "templates"
STYLESHEET = re.compile(r"""<link\b[^>]*\brel=["']stylesheet["']""")


def _stylesheets_outside_head(name: str, source: str) -> list[str]:
    """The stylesheet links of one template that would land outside <head>.

    A template that writes its own ``<head>`` (base.html, api_docs.html) may link stylesheets
    before ``</head>``; any other template only inside ``{% block stylesheets %}``.
    """
    if "</head>" in source:
        body = source.split("</head>", 1)[1]
        return [f"{name}: {m.group(0)}" for m in STYLESHEET.finditer(body)]
    found: list[str] = []

    def walk(node: nodes.Node, in_head: bool) -> None:
        if isinstance(node, nodes.TemplateData) and not in_head:
            found.extend(f"{name}: {m.group(0)}" for m in STYLESHEET.finditer(node.data))
        for child in node.iter_child_nodes():
            inside = in_head or (isinstance(node, nodes.Block) and node.name == "stylesheets")
            walk(child, inside)

    walk(Environment(extensions=["jinja2.ext.i18n"]).parse(source), False)
    return found


def test_every_stylesheet_is_in_the_head():
    found = []
    templates = sorted(TEMPLATES.rglob("*.html"))
    assert len(templates) > 50
    for template in templates:
        source = template.read_text(encoding="utf-8")
        found += _stylesheets_outside_head(template.relative_to(TEMPLATES).as_posix(), source)
    assert found == []


def test_the_check_finds_a_stylesheet_in_a_body_or_a_fragment():
    page = '{% extends "base.html" %}{% block content %}<link rel="stylesheet" href="x.css">'
    assert _stylesheets_outside_head("page.html", page + "{% endblock %}") != []
    assert _stylesheets_outside_head("_f.html", '<link rel="stylesheet" href="x.css">') != []
    head = '{% block stylesheets %}<link rel="stylesheet" href="x.css">{% endblock %}'
    assert _stylesheets_outside_head("page.html", '{% extends "base.html" %}' + head) == []


# The templates that may name a script: base.html (htmx, then the one bundle of static/js/),
# lesson.html (htmx on demand, the loader ARCHITECTURE.md argues for), the instructor's two
# pages with behaviours of their own (the bundle of static/js/instructor/) and the API's own
# page (Swagger UI's files). Any other behaviour is a file in static/js/, in the bundle.
SCRIPT = re.compile(r"""<script\b[^>]*?\ssrc=["']\{\{ static_url\((?P<name>[^)]*)\) \}\}""")
SCRIPTS = {
    "base.html": ["'htmx.min.js'", "behaviours"],
    "lesson.html": ["'htmx-on-demand.js'"],
    "instructor.html": ["instructor_behaviours"],
    "editor.html": ["instructor_behaviours"],
    "api_docs.html": ["'swagger/swagger-ui-bundle.js'", "'swagger/init.js'"],
}


def test_every_behaviour_is_in_the_bundle():
    found = {}
    for template in sorted(TEMPLATES.rglob("*.html")):
        names = [m["name"] for m in SCRIPT.finditer(template.read_text(encoding="utf-8"))]
        if names:
            found[template.relative_to(TEMPLATES).as_posix()] = names
    assert found == SCRIPTS
    loose = sorted(p.name for p in (PROJECT_ROOT / "static").glob("*.js"))
    assert loose == [
        "htmx-on-demand.js",
        "htmx.min.js",
        "minisearch.min.js",
        "snowball-stemmers.min.js",
        "sw.js",
    ]
