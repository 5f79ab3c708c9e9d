"""Every text a learner reads comes from the pt-BR catalog; dates show in the learner's zone."""

from __future__ import annotations

import re
from datetime import datetime
from html.parser import HTMLParser

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app.i18n import CATALOG, gettext, local_datetime, ngettext
from app.settings import PROJECT_ROOT

METHODS = [("app/**.py", "python"), ("templates/**.html", "jinja2")]
VISIBLE_ATTRIBUTES = {"aria-label", "title", "placeholder", "alt", "data-announce"}
LETTER = re.compile(r"[^\W\d_]")
JINJA = re.compile(r"{#.*?#}|{%-?\s*trans\b.*?{%-?\s*endtrans\s*-?%}|{%.*?%}|{{.*?}}", re.S)
DYNAMIC_TAG = re.compile(r"<(/?){{.*?}}")  # <{{ heading }} ...>: a tag whose name is a variable


def used_ids() -> set:
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        PROJECT_ROOT,
        method_map=METHODS,
        keywords={"_": None, "gettext": None, "ngettext": (1, 2), "N_": None},
    ):
        found.add(message if isinstance(message, str) else tuple(message))
    return found


def catalog():
    with CATALOG.open("rb") as handle:
        return read_po(handle)


def test_every_message_in_the_code_has_its_portuguese_text():
    entries = {message.id: message.string for message in catalog() if message.id}
    translated = {
        m
        for m, text in entries.items()
        if text and (all(text) if isinstance(text, tuple) else True)
    }
    assert used_ids() - translated == set()


def test_the_catalog_holds_no_message_the_code_no_longer_uses():
    unused = {message.id for message in catalog() if message.id} - used_ids()
    assert unused == set()


class _BareText(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.found.extend(
            f"{tag}[{k}]={v!r}"
            for k, v in attrs
            if k in VISIBLE_ATTRIBUTES and v and LETTER.search(v)
        )

    def handle_data(self, data):
        if LETTER.search(data):
            self.found.append(data.strip())


def test_templates_have_no_text_outside_the_catalog():
    bare = {}
    for path in sorted((PROJECT_ROOT / "templates").glob("*.html")):
        parser = _BareText()
        source = DYNAMIC_TAG.sub(r"<\1x-tag", path.read_text(encoding="utf-8"))
        parser.feed(JINJA.sub(" ", source))
        if parser.found:
            bare[path.name] = parser.found
    assert bare == {}


def test_messages_read_in_portuguese():
    assert gettext("Skip to content") == "Pular para o conteúdo"
    assert ngettext("%(num)s question", "%(num)s questions", 1) % {"num": 1} == "1 pergunta"
    assert ngettext("%(num)s question", "%(num)s questions", 7) % {"num": 7} == "7 perguntas"


def test_dates_are_stored_in_utc_and_shown_in_the_learners_zone():
    stored = datetime(2026, 3, 5, 17, 5)  # naive, as SQLite returns it: UTC
    assert local_datetime(stored, "America/Sao_Paulo") == "5 de março de 2026, 14:05"
    assert local_datetime(stored, "America/Manaus") == "5 de março de 2026, 13:05"
    assert local_datetime(stored, "Europe/Lisbon") == "5 de março de 2026, 17:05"
    assert local_datetime(stored, "../../etc/passwd") == "5 de março de 2026, 14:05", (
        "zona desconhecida: São Paulo"
    )
    assert local_datetime(stored, None) == "5 de março de 2026, 14:05"


def english_ids() -> set[str]:
    """Message ids (with a space, no placeholder) whose Portuguese text differs from the id."""
    return {
        m.id for m in catalog()
        if isinstance(m.id, str) and m.id and "%" not in m.id and m.id != m.string and " " in m.id
    }


def test_pages_show_no_untranslated_message(client):
    """A message id the extractor missed (say, inside an f-string) would show up in English."""
    english = english_ids()
    pages = ["/", "/licoes/kernels", "/busca?q=kernel", "/glossario", "/arvores", "/arvores/comparar?hardware=apple",
             "/arvores/guia-osman?c=hopper,convenience", "/licoes/nao-existe"]
    for url in pages:
        html = client.get(url).text
        assert [m for m in english if m in html] == [], url


def test_instructor_pages_show_no_untranslated_message(client, settings):
    from tests.test_http import KERNELS, answer
    from tests.test_instructor import instructor

    first = next(iter(KERNELS.questions.values()))
    answer(client, "kernels", first.id, sorted(first.answer))
    teacher = instructor(client, settings)
    english = english_ids()
    for url in ["/instrutor", "/instrutor/licoes/kernels", "/instrutor/licoes/escolha-self-hosted",
                "/licoes/kernels", "/instrutor/licoes/nao-existe"]:
        html = teacher.get(url).text
        assert [m for m in english if m in html] == [], url
    dashboard = teacher.get("/instrutor").text
    assert "Escolhas na primeira tentativa" in dashboard and "1 escolha (100%)" in dashboard
    assert "Lições no ar: 3. Nenhum problema nos arquivos:" in dashboard
