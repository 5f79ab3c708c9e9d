"""The paths baked into rendered lesson HTML (``links.py``, ``glossary.py``), without HTTP.

A lesson's Markdown is rendered once, below the web floor, so its links to other lessons,
to trees and to glossary terms cannot ask the web floor's :class:`app.web.urls.Urls`.
Their shapes are spelled here, once, and ``tests/test_urls.py`` checks that each one is
the path of its named route. Everything else links through ``Urls``.
"""

from __future__ import annotations

from urllib.parse import quote

LESSONS_PREFIX = "/licoes/"
TREES_PATH = "/arvores"
GLOSSARY_PATH = "/glossario"


def lesson(slug: str, anchor: str | None = None) -> str:
    """``/licoes/<slug>``, then ``#anchor`` when given (route ``lesson``)."""
    return f"{LESSONS_PREFIX}{quote(slug, safe='')}" + (f"#{anchor}" if anchor else "")


def glossary_term(term_slug: str) -> str:
    """``/glossario#<term_slug>`` (route ``glossary``)."""
    return f"{GLOSSARY_PATH}#{term_slug}"
