"""The shapes of the public pages' paths that content and learning code need, without HTTP.

The web floor builds every URL from its named routes (:class:`app.web.urls.Urls`); the floors
below it cannot import it, yet a search hit, a learner's place or a decision tree's walk
links to a lesson or a tree. Those shapes are spelled here, once, and
``tests/test_urls.py`` checks that each one is the path of its named route.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from app.content.page_ids import question_anchor, tree_anchor

LESSONS_PREFIX = "/licoes/"
TREES_PATH = "/arvores"
GLOSSARY_PATH = "/glossario"


def _segment(value: str) -> str:
    return quote(str(value), safe="")


def _tail(query: dict[str, str] | None, anchor: str | None) -> str:
    return (f"?{urlencode(query)}" if query else "") + (f"#{anchor}" if anchor else "")


def lesson(slug: str, anchor: str | None = None, query: dict[str, str] | None = None) -> str:
    """The path of a lesson's page (route ``lesson``).

    Args:
        slug: the lesson's slug.
        anchor: an id on the page to scroll to (without ``#``), or ``None``.
        query: query parameters, encoded with :func:`urllib.parse.urlencode`, or ``None``.

    Returns:
        ``/licoes/<slug>``, then ``?query`` and ``#anchor`` when given.
    """
    return f"{LESSONS_PREFIX}{_segment(slug)}{_tail(query, anchor)}"


def question(slug: str, question_id: str) -> str:
    """The path of a question on its lesson's page.

    Args:
        slug: the lesson's slug.
        question_id: the question's id.

    Returns:
        ``/licoes/<slug>#pergunta-<question_id>``.
    """
    return lesson(slug, question_anchor(question_id))


def tree_in_lesson(slug: str, tree_id: str, query: dict[str, str] | None = None) -> str:
    """The path of a decision tree's widget on a lesson page.

    Args:
        slug: the lesson's slug.
        tree_id: the tree's id.
        query: query parameters (the walk), or ``None``.

    Returns:
        ``/licoes/<slug>?query#arvore-<tree_id>``.
    """
    return lesson(slug, tree_anchor(tree_id), query)


def tree(tree_id: str, query: dict[str, str] | None = None) -> str:
    """The path of a decision tree's own page (route ``tree``).

    Args:
        tree_id: the tree's id.
        query: query parameters (the walk, a notice), or ``None``.

    Returns:
        ``/arvores/<tree_id>``, then ``?query`` when given.
    """
    return f"{TREES_PATH}/{_segment(tree_id)}{_tail(query, None)}"


def tree_widget(tree_id: str, query: dict[str, str] | None = None) -> str:
    """The path htmx fetches to swap a tree's widget (route ``tree_widget``).

    Args:
        tree_id: the tree's id.
        query: query parameters (the walk, the lesson), or ``None``.

    Returns:
        ``/arvores/<tree_id>/widget``, then ``?query`` when given.
    """
    return f"{TREES_PATH}/{_segment(tree_id)}/widget{_tail(query, None)}"


def glossary_term(term_slug: str) -> str:
    """The path of a term's entry on the glossary page (route ``glossary``).

    Args:
        term_slug: the term's slug (its id on the glossary page).

    Returns:
        ``/glossario#<term_slug>``.
    """
    return f"{GLOSSARY_PATH}#{term_slug}"
