"""A decision tree at one point of a walk, as ``_tree.html`` draws it (no HTTP here)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache

from app.content import paths
from app.content.course import Course
from app.content.layout import Layout, layout
from app.content.trees import Tree
from app.content.walk import Walk, WalkError, walk_path
from app.platform.i18n import N_, gettext

TREE_NOT_FOUND = N_("Decision tree not found.")
BAD_PATH = N_("That path does not exist in this tree; we started again from the beginning.")
UNKNOWN_OPTION = N_("That option is not part of this question. Choose one of the options below.")
QUESTION_CHANGED = N_("This question changed; read it again and answer.")
CHANGED_NOTICE = "mudou"  # ``?aviso=mudou``: the no-JavaScript step came from an older tree


@lru_cache(maxsize=256)
def tree_version(tree: Tree) -> str:
    """The version of a tree as a learner walks it: 16 hex characters of a SHA-256.

    It covers what a step depends on: each question's text and options (label, values, where
    they lead) and each result's engines and verdict. Reasons and notes are left out, as
    explanations are for quiz questions. Trees compare by identity, so the cache holds one
    entry per loaded version.

    Args:
        tree: the tree.

    Returns:
        The version, carried by the step form as ``versao``.
    """
    canonical = {
        "start": tree.start,
        "questions": {
            qid: [q.facet, q.text, [[o.label, list(o.values), o.next] for o in q.options]]
            for qid, q in tree.questions.items()
        },
        "results": {rid: [list(r.engines), str(r.verdict)] for rid, r in tree.results.items()},
    }
    encoded = json.dumps(canonical, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]


@dataclass(frozen=True)
class TreeView:
    """Everything ``_tree.html`` needs to draw one tree at one point of a walk.

    Attributes:
        tree: the tree.
        walk: where the learner stands.
        map: the map's layout.
        lesson_slug: the lesson that embeds it ("" on the standalone page).
        error: a message when the requested path was invalid.
    """

    tree: Tree
    walk: Walk
    map: Layout
    lesson_slug: str = ""
    error: str = ""

    @property
    def version(self) -> str:
        """The tree's version (:func:`tree_version`), for the step form."""
        return tree_version(self.tree)

    def url(self, values: tuple[str, ...], notice: str = "") -> str:
        """The page URL that reproduces the walk after ``values`` (``notice``: ``?aviso=``)."""
        extra = {"aviso": notice} if notice else {}
        if self.lesson_slug:
            query = {"arvore": self.tree.id, **({"c": ",".join(values)} if values else {}), **extra}
            return paths.tree_in_lesson(self.lesson_slug, self.tree.id, query)
        query = {**({"c": ",".join(values)} if values else {}), **extra}
        return paths.tree(self.tree.id, query)

    def fragment_url(self, values: tuple[str, ...]) -> str:
        """The URL htmx fetches to swap the widget to the walk after ``values``."""
        query = {"c": ",".join(values), "licao": self.lesson_slug}
        return paths.tree_widget(self.tree.id, query)


def split_path(raw: str | None) -> tuple[str, ...]:
    """Turn ``"a,b"`` from the URL into ``("a", "b")``."""
    return tuple(v for v in (raw or "").split(",") if v)


def tree_view(
    tree: Tree, raw_path: str | None, lesson_slug: str = "", notice: str | None = None
) -> TreeView:
    """Walk ``tree`` along ``raw_path``; an invalid path restarts with a message.

    ``notice`` is the page's ``?aviso=``: ``mudou`` shows that the tree changed under a step
    sent without JavaScript.
    """
    try:
        walk = walk_path(tree, split_path(raw_path))
        error = gettext(QUESTION_CHANGED) if notice == CHANGED_NOTICE else ""
        return TreeView(tree, walk, layout(tree), lesson_slug, error)
    except WalkError:
        return TreeView(tree, walk_path(tree, ()), layout(tree), lesson_slug, gettext(BAD_PATH))


class TreeNotFound(LookupError):
    """No tree with that id in the course."""


def find_tree(course: Course, tree_id: str) -> Tree:
    """Return the tree.

    Raises:
        TreeNotFound: no tree ``tree_id`` in the course.
    """
    tree = course.trees.get(tree_id)
    if tree is None:
        raise TreeNotFound(tree_id)
    return tree


def embedding_lesson(course: Course, tree: Tree, slug: str) -> str:
    """``slug`` when that lesson embeds ``tree``, else ``""`` (the standalone page)."""
    return slug if slug and course.tree_lessons.get(tree.id) == slug else ""
