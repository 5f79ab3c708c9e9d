"""Reading pages: BeautifulSoup trees, the text a reader sees, the CSRF token, htmx headers."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup


def csrf_from(html: str) -> str:
    """The CSRF token a page hands to its forms."""
    match = re.search(r'name="csrftoken" value="([^"]+)"', html) or re.search(
        r'"x-csrftoken": "([^"]+)"', html
    )
    assert match, "a página não trouxe o token CSRF"
    return match.group(1)


HX = {"HX-Request": "true"}


def soup(response) -> BeautifulSoup:
    return BeautifulSoup(response if isinstance(response, str) else response.text, "html.parser")


def text(node) -> str:
    """The text a reader sees in ``node``, with white space folded."""
    return " ".join(node.get_text(" ").split())
