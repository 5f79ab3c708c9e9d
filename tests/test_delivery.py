"""Light pages over HTTP: fingerprinted static files, ETag on HTML, compression, the
theme cookie.
"""

from __future__ import annotations

import re

import pytest

from app.platform.settings import PROJECT_ROOT
from app.web.assets import IMMUTABLE, split_fingerprint
from tests.support.html import csrf_from, soup

GZIP = {"Accept-Encoding": "gzip"}


def asset_urls(html: str) -> list[str]:
    page = soup(html)
    return [
        tag.get("href") or tag.get("src")
        for tag in page.select("link[rel=stylesheet], link[rel=icon], script[src]")
    ]


def test_pages_link_fingerprinted_static_files_cached_for_a_year(client):
    urls = asset_urls(client.get("/licoes/kernels").text)
    behaviours = sorted(p.name for p in (PROJECT_ROOT / "static" / "js").glob("*.js"))
    assert len(urls) == 4 + len(behaviours)
    for url in urls:
        assert re.fullmatch(r"/static/(js/)?[\w.-]+\.[0-9a-f]{10}\.(css|js|svg)", url), url
        response = client.get(url)
        assert response.status_code == 200
        assert (
            response.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
        )


@pytest.mark.parametrize(
    ("path", "loader"),
    [("/", "htmx.min.js"), ("/licoes/kernels", "htmx-on-demand.js")],  # a lesson: htmx on demand
)
def test_every_behaviour_script_is_on_the_page_deferred_after_htmx_and_the_shared_helpers(
    client, path, loader
):
    """One file per behaviour (static/js/): each one on the page, none holding up the paint."""
    page = soup(client.get(path).text)
    scripts = [tag for tag in page.select("head script[src]")]
    assert all(tag.has_attr("defer") for tag in scripts)
    names = [split_fingerprint(tag["src"].removeprefix("/static/"))[0] for tag in scripts]
    behaviours = sorted(p.name for p in (PROJECT_ROOT / "static" / "js").glob("*.js"))
    assert names[:2] == [loader, "js/core.js"]
    assert sorted(names[2:]) == [f"js/{name}" for name in behaviours if name != "core.js"]
    assert len(behaviours) >= 10
    assert page.select("body script") == []
    if loader == "htmx-on-demand.js":  # it loads the fingerprinted htmx when the reader acts
        src = scripts[0]["data-src"].removeprefix("/static/")
        assert split_fingerprint(src)[0] == "htmx.min.js"


def test_plain_and_stale_static_names_still_work_but_revalidate(client):
    plain = client.get("/static/htmx.min.js")
    assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache"
    stale = client.get("/static/app.0000000000.css")
    assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"
    assert stale.content == client.get("/static/app.css").content
    assert client.get("/static/nada.0123456789.css").status_code == 404


def test_split_fingerprint():
    assert split_fingerprint("htmx.min.0123456789.js") == ("htmx.min.js", "0123456789")
    assert split_fingerprint("app.css") == ("app.css", None)


def test_html_has_an_etag_and_answers_304_when_unchanged(client):
    first = client.get("/licoes/kernels")
    etag = first.headers["etag"]
    assert first.headers["cache-control"] == "private, no-cache"
    again = client.get("/licoes/kernels", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/licoes/alem-do-ollama", headers={"If-None-Match": etag}).status_code == 200


def test_responses_are_compressed(client):
    for url in ("/licoes/kernels", *asset_urls(client.get("/").text)[1:]):
        response = client.get(url, headers=GZIP)
        assert response.headers.get("content-encoding") == "gzip", url


def test_theme_choice_is_remembered_in_a_cookie_without_javascript(client):
    page = client.get("/glossario")
    assert "data-theme" not in page.text.split(">", 2)[1], "sem escolha, o tema segue o sistema"
    token = csrf_from(page.text)
    response = client.post(
        "/tema",
        data={"csrftoken": token, "tema": "escuro", "voltar": "/glossario?x=1"},
        follow_redirects=False,
    )
    assert response.status_code == 303 and response.headers["location"] == "/glossario?x=1"
    assert '<html lang="pt-BR" data-theme="dark">' in client.get("/glossario").text
    client.post("/tema", data={"csrftoken": token, "tema": "claro", "voltar": "/"})
    assert '<html lang="pt-BR" data-theme="light">' in client.get("/").text


def test_theme_form_never_sends_the_learner_to_another_host(client):
    token = csrf_from(client.get("/").text)
    for target in ("//exemplo.org/x", "https://exemplo.org", "/\\exemplo.org"):
        response = client.post(
            "/tema",
            data={"csrftoken": token, "tema": "escuro", "voltar": target},
            follow_redirects=False,
        )
        assert response.headers["location"] == "/", target
