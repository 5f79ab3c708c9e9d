"""A decision tree at one point of a walk, as ``_tree.html`` draws it (no HTTP here)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from app.content.course import Course
from app.content.layout import Layout, layout
from app.content.trees import Tree
from app.content.walk import Walk, WalkError, walk_path
from app.i18n import N_, gettext, ngettext
from app.learning.state import WalkRow

TREE_NOT_FOUND = N_("Decision tree not found.")
BAD_PATH = N_("That path does not exist in this tree; we started again from the beginning.")
UNKNOWN_OPTION = N_("That option is not part of this question. Choose one of the options below.")
# A form showed another version of its question: a tree step's here, an answer's in
# app/web/forms.py (the use-case's reason code ``usecases.QUESTION_CHANGED``).
QUESTION_CHANGED = N_("This question changed; read it again and answer.")
CHANGED_NOTICE = "mudou"  # ``?aviso=mudou``: the no-JavaScript step came from an older tree


@lru_cache(maxsize=256)
def tree_version(tree: Tree) -> str:
    """The version of a tree as a learner walks it: 16 hex characters of a SHA-256.

    It covers what a step depends on: each question's text and options (label, values, where
    they lead) and each result's engines and verdict. Reasons and notes are left out, as
    explanations are for quiz questions. Trees compare by identity, so the cache holds one
    entry per loaded version.

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
        walk: where the learner stands.
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

    def page_query(self, values: tuple[str, ...], notice: str = "") -> dict[str, str]:
        """The query that reproduces the walk after ``values`` on the page showing the tree
        (``notice``: ``?aviso=``); the web floor adds the path (``Urls.walk``)."""
        query = {"arvore": self.tree.id} if self.lesson_slug else {}
        if values:
            query["c"] = ",".join(values)
        return {**query, **({"aviso": notice} if notice else {})}

    def widget_query(self, values: tuple[str, ...]) -> dict[str, str]:
        """The query htmx sends to swap the widget to the walk after ``values``."""
        return {"c": ",".join(values), "licao": self.lesson_slug}

    @property
    def map_view(self) -> TreeMap:
        """The SVG map at this point of the walk (:func:`tree_map`)."""
        return tree_map(self.tree, self.walk, self.map)


MAP_MARGIN = 2  # the SVG's view box reaches this far past the layout on every side


@dataclass(frozen=True)
class MapRow:
    """One option's row inside a question's box on the map.

    Attributes:
        index: the option's index in its question.
        taken: the walk took this option.
        y, height: where the row sits.
        lines: its label, wrapped.
    """

    index: int
    taken: bool
    y: float
    height: float
    lines: tuple[str, ...]


@dataclass(frozen=True)
class MapBox:
    """One node of the map: a question (with a row per option) or a result.

    Attributes:
        classes: its CSS classes (kind, ``visited``, ``current``, ``verdict-<v>``).
        x, y, w, h: where the box sits.
        lines: its text, wrapped.
        verdict_line: for a result, its last line is the verdict.
        rows: a question's options.
    """

    id: str
    classes: str
    x: float
    y: float
    w: float
    h: float
    lines: tuple[str, ...]
    verdict_line: bool
    rows: tuple[MapRow, ...]


@dataclass(frozen=True)
class MapEdge:
    """One arrow of the map, from a question's option to the next node.

    Attributes:
        option: the option's index.
        d: the SVG path.
        classes: its CSS classes (``tree-edge``, ``taken``, ``latest``).
    """

    source: str
    option: int
    d: str
    classes: str


@dataclass(frozen=True)
class TreeMap:
    """Everything ``_tree_map.html`` draws: the tree's SVG map at one point of a walk.

    Attributes:
        dom_id: the prefix of every id in the widget (``arvore-<tree id>``).
        title: the tree's title, for the SVG's ``<title>``.
        description: the SVG's ``<desc>`` in pt-BR: how many questions and results, and the
            path so far.
        width, height: the SVG's size, margins included.
        view_box: the SVG's ``viewBox``.
        edges: the arrows, drawn first.
        boxes: the nodes, in layout order.
    """

    dom_id: str
    title: str
    description: str
    width: float
    height: float
    view_box: str
    edges: tuple[MapEdge, ...]
    boxes: tuple[MapBox, ...]


def _map_description(tree: Tree, walk: Walk) -> str:
    """What the map shows, in words: "2 perguntas, 9 resultados. Caminho: GPU → Muitos."."""
    questions = ngettext("%(num)s question", "%(num)s questions", len(tree.questions))
    results = ngettext("%(num)s result", "%(num)s results", len(tree.results))
    if walk.steps:
        path = " → ".join(step.option.label for step in walk.steps)
        where = gettext("Path: %(path)s.") % {"path": path}
    else:
        where = gettext("You are at the first question.")
    return "{}, {}. {}".format(
        questions % {"num": len(tree.questions)}, results % {"num": len(tree.results)}, where
    )


def tree_map(tree: Tree, walk: Walk, plan: Layout) -> TreeMap:
    """The map of ``tree`` laid out as ``plan``, with the nodes and arrows ``walk`` went by."""
    here = walk.current.id if walk.current else walk.result.id if walk.result else ""
    taken = walk.edges
    edges = tuple(
        MapEdge(
            edge.source,
            edge.option,
            edge.d,
            " ".join(
                ["tree-edge"]
                + (["taken"] if (edge.source, edge.option) in taken else [])
                + (
                    ["latest"]
                    if walk.steps and (edge.source, edge.option) == walk.last_edge
                    else []
                )
            ),
        )
        for edge in plan.edges
    )
    boxes = []
    for box in plan.boxes.values():
        classes = ["tree-node", f"tree-node-{box.kind}"]
        if box.id in walk.visited:
            classes.append("visited")
        if box.id == here:
            classes.append("current")
        if box.kind == "result":
            classes.append(f"verdict-{tree.results[box.id].verdict.value}")
        rows = tuple(
            MapRow(row.index, (box.id, row.index) in taken, row.y, row.height, row.lines)
            for row in box.rows
        )
        boxes.append(
            MapBox(
                box.id, " ".join(classes), box.x, box.y, box.w, box.h, box.lines,
                box.kind == "result" and box.verdict_line, rows,
            )
        )  # fmt: skip
    width, height = plan.width + 2 * MAP_MARGIN, plan.height + 2 * MAP_MARGIN
    return TreeMap(
        f"arvore-{tree.id}",
        tree.title,
        _map_description(tree, walk),
        width,
        height,
        f"{-MAP_MARGIN} {-MAP_MARGIN} {width} {height}",
        edges,
        tuple(boxes),
    )


PATH_SLOT = "__c__"  # where a walk's values go in the URLs of :func:`offline_tree`'s page


@lru_cache(maxsize=256)
def offline_tree(tree: Tree) -> dict[str, Any]:
    """The tree as ``static/js/tree-walk.js`` walks it when the server cannot be reached.

    Only what a visitor reads anyway (the outline under the widget shows every question,
    option and result): a tree has no key. Short keys keep the page light:

    - ``s``: the first question's id;
    - ``q``: question id → ``[facet's name, question HTML, [[option HTML, value, next], ...]]``;
    - ``r``: result id → ``[main engine, [the others], verdict, verdict's label, why HTML,
      note HTML]``;
    - ``n``: the map's count of questions and results ("2 perguntas, 9 resultados.");
    - ``m``: the widget's texts in pt-BR, with ``{name}`` where a value goes.

    The page adds its URLs (``_tree_data.html``). Cached per loaded tree (trees compare by
    identity).
    """
    questions = ngettext("%(num)s question", "%(num)s questions", len(tree.questions))
    results = ngettext("%(num)s result", "%(num)s results", len(tree.results))
    return {
        "s": tree.start,
        "q": {
            qid: [
                tree.facet_label(q.facet),
                q.text_html,
                [[o.label_html, o.value, o.next] for o in q.options],
            ]
            for qid, q in tree.questions.items()
        },
        "r": {
            rid: [r.main, list(r.also), r.verdict.value, r.verdict.label, r.why_html, r.note_html]
            for rid, r in tree.results.items()
        },
        "n": "{}, {}.".format(
            questions % {"num": len(tree.questions)}, results % {"num": len(tree.results)}
        ),
        "m": {
            "step": gettext("Question %(number)s") % {"number": "{n}"},
            "ask": gettext("Question %(number)s: %(text)s") % {"number": "{n}", "text": "{text}"},
            "result": gettext("Result"),
            "news": gettext("Result: %(engines)s. %(verdict)s.")
            % {"engines": "{main}", "verdict": "{verdict}"},
            "newsAlso": gettext("Result: %(engines)s, also %(also)s. %(verdict)s.")
            % {"engines": "{main}", "also": "{also}", "verdict": "{verdict}"},
            "also": gettext("Also named in the text: %(engines)s") % {"engines": "{also}"},
            "other": gettext("Another view"),
            "path": gettext("Your path so far"),
            "controls": gettext("Tree controls"),
            "back": gettext("Back one step"),
            "again": gettext("Start over"),
            "mapPath": gettext("Path: %(path)s.") % {"path": "{path}"},
            "mapStart": gettext("You are at the first question."),
        },
    }


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


@dataclass(frozen=True)
class WalkSummary:
    """A finished walk as ``/progresso`` lists it.

    Attributes:
        tree: the tree's title (its id when the tree is gone from the course).
        result: the result's engine (its id when the tree or the path changed since).
        choices: the labels of the options chosen, in order (the stored values when the
            path no longer leads through the tree).
        created_at: when it was finished (UTC).
    """

    tree: str
    result: str
    choices: tuple[str, ...]
    created_at: datetime


def walk_summary(course: Course, walk: WalkRow) -> WalkSummary:
    """What a learner reads of a stored walk: titles and labels, not ids."""
    tree = course.trees.get(walk.tree_id)
    if tree is None:
        return WalkSummary(walk.tree_id, walk.result_id, walk.values, walk.created_at)
    try:
        replay = walk_path(tree, walk.values)
    except WalkError:
        replay = None
    if replay is None or replay.result is None or replay.result.id != walk.result_id:
        result = tree.results.get(walk.result_id)
        return WalkSummary(
            tree.title, result.main if result else walk.result_id, walk.values, walk.created_at
        )
    labels = tuple(step.option.label for step in replay.steps)
    return WalkSummary(tree.title, replay.result.main, labels, walk.created_at)
