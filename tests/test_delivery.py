"""Light pages over HTTP: fingerprinted static files, ETag on HTML, compression, the
theme cookie.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rjsmin import jsmin  # type: ignore[import-untyped]  # rjsmin ships no type hints

from app.platform.settings import PROJECT_ROOT
from app.web import assets as assets_module
from app.web.assets import IMMUTABLE, Assets, split_fingerprint
from tests.support.html import csrf_from, soup
from tests.support.learning import KERNELS, answer, right_form

GZIP = {"Accept-Encoding": "gzip"}


def asset_urls(html: str) -> list[str]:
    page = soup(html)
    return [
        tag.get("href") or tag.get("src")
        for tag in page.select("link[rel=stylesheet], link[rel=icon], script[src]")
    ]


def test_pages_link_fingerprinted_static_files_cached_for_a_year(client):
    urls = asset_urls(client.get("/licoes/kernels").text)
    # the icon, the two style sheets, htmx (on demand on a lesson) and the behaviours
    assert len(urls) == 5
    for url in urls:
        assert re.fullmatch(r"/static/[\w.-]+\.[0-9a-f]{10}\.(css|js|svg|png)", url), url
        response = client.get(url)
        assert response.status_code == 200
        assert (
            response.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
        )


@pytest.mark.parametrize(
    ("path", "loader"),
    [("/", "htmx.min.js"), ("/licoes/kernels", "htmx-on-demand.js")],  # a lesson: htmx on demand
)
def test_the_behaviours_are_one_deferred_script_holding_every_file_in_order(client, path, loader):
    """One source file per behaviour (static/js/), one script on the page, shared helpers first."""
    page = soup(client.get(path).text)
    scripts = page.select("head script[src]")
    assert all(tag.has_attr("defer") for tag in scripts)
    names = [split_fingerprint(tag["src"].removeprefix("/static/"))[0] for tag in scripts]
    assert names == [loader, "behaviours.js"]
    # No script in the body but data, which never runs (a tree's: static/js/tree-walk.js).
    assert page.select("body script:not([type='application/json'])") == []
    if loader == "htmx-on-demand.js":  # it loads the fingerprinted htmx when the reader acts
        src = scripts[0]["data-src"].removeprefix("/static/")
        assert split_fingerprint(src)[0] == "htmx.min.js"

    bundle = client.get(scripts[1]["src"], headers=GZIP)
    assert bundle.status_code == 200
    assert bundle.headers["cache-control"] == IMMUTABLE
    assert bundle.headers["content-type"].startswith("text/javascript")
    assert bundle.headers["content-encoding"] == "gzip"
    folder = PROJECT_ROOT / "static" / "js"
    behaviours = sorted(p.name for p in folder.glob("*.js") if p.name != "core.js")
    assert len(behaviours) >= 10
    starts = [  # each file minified (rjsmin), under a comment naming it
        bundle.text.index(f"/* js/{name} */\n" + jsmin((folder / name).read_text("utf-8")))
        for name in ["core.js", *behaviours]
    ]
    assert starts == sorted(starts)  # core.js (curso.*) before the behaviours that use it


def test_no_field_on_a_lesson_drops_keystrokes_typed_before_htmx(client):
    """htmx-on-demand.js replays the keystrokes typed before htmx arrived, but htmx takes a
    field's value when it sets the field up: a field whose own trigger says "changed" would see
    the replay as no change and send nothing (a lesson with a slow htmx: no suggestions)."""
    page = soup(client.get("/licoes/kernels").text)
    fields = page.select("input[hx-trigger], textarea[hx-trigger], select[hx-trigger]")
    assert fields, "a caixa de busca do cabeçalho é um campo com hx-trigger"
    assert [f["id"] for f in fields if "changed" in f["hx-trigger"]] == []


def test_the_bundle_answers_304_to_its_etag_and_a_head_without_its_body(client):
    src = soup(client.get("/").text).select("script[src*=behaviours]")[0]
    first = client.get(src["src"])
    again = client.get(src["src"], headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["cache-control"] == IMMUTABLE
    plain = client.get("/static/behaviours.js")
    assert plain.headers["cache-control"] == "no-cache" and plain.content == first.content
    stale = client.get("/static/behaviours.0000000000.js")
    assert stale.headers["cache-control"] == "no-cache" and stale.content == first.content
    head = client.head(src["src"], headers={"Accept-Encoding": "identity"})
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(first.content))


def behaviour_folder(root: Path) -> Path:
    (root / "js").mkdir()
    (root / "js" / "core.js").write_text("window.curso = {};\n")
    (root / "js" / "b.js").write_text("(function () { curso.b = 1; })();")
    (root / "js" / "a.js").write_text("(function () { curso.a = 1; })();\n")
    return root


def test_the_bundle_joins_the_files_in_order_each_closed(tmp_path):
    assets = Assets(behaviour_folder(tmp_path))
    name = assets.bundle("behaviours.js", assets.scripts("js", first="core.js"))
    assert assets.bundled(name) == (
        b"/* js/core.js */\nwindow.curso={};\n;\n"
        b"/* js/a.js */\n(function(){curso.a=1;})();\n;\n"
        b"/* js/b.js */\n(function(){curso.b=1;})();\n;\n"
    )
    assert re.fullmatch(r"/static/behaviours\.[0-9a-f]{10}\.js", assets.url(name))
    assert assets.bundled("js/a.js") is None


def test_editing_a_behaviour_changes_the_bundles_fingerprint(tmp_path, monkeypatch):
    folder = behaviour_folder(tmp_path)
    before = Assets(folder)
    url = before.url(before.bundle("behaviours.js", before.scripts("js", first="core.js")))
    # a new length: two writes within one tick of the file system clock share their time
    (folder / "js" / "b.js").write_text("(function () { curso.b = 22; })();")
    after = Assets(folder)  # the next start of the app
    edited = after.url(after.bundle("behaviours.js", after.scripts("js", first="core.js")))
    assert edited != url
    assert b"curso.b=22" in (after.bundled("behaviours.js") or b"")
    monkeypatch.setattr(assets_module, "RECHECK_S", 0.0)  # a running app sees it too
    assert before.url("behaviours.js") == edited


def test_a_bundle_cannot_hide_a_file_or_lose_one(tmp_path):
    assets = Assets(behaviour_folder(tmp_path))
    with pytest.raises(ValueError, match="bundle name is a static file: js/a.js"):
        assets.bundle("js/a.js", ["js/core.js"])
    with pytest.raises(FileNotFoundError, match="static files not found for x.js: js/nada.js"):
        assets.bundle("x.js", ["js/core.js", "js/nada.js"])


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


def test_an_answer_fragment_has_no_etag_a_post_is_never_revalidated(client):
    question = next(q for q in KERNELS.questions.values() if q.options)
    answered = answer(client, "kernels", question.id, right_form(question))
    assert answered.status_code == 200 and "is-correct" in answered.text
    assert "etag" not in answered.headers
    assert answered.headers["vary"].startswith("HX-Request, HX-History-Restore-Request")
    assert "etag" in client.get("/glossario").headers


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
