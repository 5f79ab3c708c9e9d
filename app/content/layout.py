"""Automatic layout of a decision tree's map, drawn as SVG beside the walk.

Nodes sit in columns by depth (the longest path from the start, so every edge
points right). Question nodes list their options as rows inside the box, so
option labels can never collide with anything; an edge leaves from its option's
row. Within a column, nodes are ordered by the mean height of the option rows
that lead to them, which keeps crossings few, then stacked with a fixed gap, so
boxes never overlap by construction.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache

from app.content.trees import Tree, Verdict

NODE_W = 188
LANE_H = 10
COL_GAP = 40
ROW_GAP = 14
PAD = 8
LINE_H = 15
CHARS_PER_LINE = 25
HEADER_CHARS = 20
HEADER_GAP = 6
OPTION_GAP = 6


@dataclass(frozen=True)
class Row:
    """An option row inside a question box (coordinates relative to the map)."""

    index: int
    y: float
    height: float
    lines: tuple[str, ...]
    target: str

    @property
    def port_y(self) -> float:
        """Where the row's edge leaves the box."""
        return self.y + self.height / 2


@dataclass(frozen=True)
class Box:
    """A placed node. ``x``, ``y``, ``w``, ``h`` are in SVG user units (px at scale 1)."""

    id: str
    kind: str  # "question" or "result"
    column: int
    x: float
    y: float
    w: float
    h: float
    lines: tuple[str, ...]
    rows: tuple[Row, ...]
    verdict_line: bool = False

    def overlaps(self, other: Box) -> bool:
        """True when the two boxes share any area."""
        return not (
            self.x + self.w <= other.x
            or other.x + other.w <= self.x
            or self.y + self.h <= other.y
            or other.y + other.h <= self.y
        )


@dataclass(frozen=True)
class Edge:
    """A connector from an option row to the node it leads to.

    Attributes:
        source / option / target: the question, the option's index, the node it leads to.
        d: the SVG path.
        lanes: ``(column, y)`` of each column the edge crosses between its ends; the lane
            is space reserved in that column, so the edge never runs through a box.
    """

    source: str
    option: int
    target: str
    d: str
    lanes: tuple[tuple[int, float], ...] = ()


@dataclass(frozen=True)
class Layout:
    """The whole map: size, boxes by node id, and edges."""

    width: float
    height: float
    boxes: dict[str, Box]
    edges: tuple[Edge, ...]


def wrap(text: str, width: int = CHARS_PER_LINE) -> tuple[str, ...]:
    """Break ``text`` into lines of at most ``width`` characters (long words are split)."""
    return tuple(textwrap.wrap(text, width=width, break_long_words=True)) or ("",)


def _columns(tree: Tree) -> dict[str, int]:
    order: list[str] = []
    seen: set[str] = set()

    def visit(node: str) -> None:  # post-order DFS gives a reverse topological order
        seen.add(node)
        for option in tree.questions[node].options if node in tree.questions else ():
            if option.next not in seen:
                visit(option.next)
        order.append(node)

    visit(tree.start)
    depth = dict.fromkeys(order, 0)
    for node in reversed(order):
        for option in tree.questions[node].options if node in tree.questions else ():
            depth[option.next] = max(depth[option.next], depth[node] + 1)
    return depth


def _size(
    tree: Tree, node: str
) -> tuple[tuple[str, ...], list[tuple[tuple[str, ...], str]], float]:
    if node in tree.questions:
        question = tree.questions[node]
        lines = wrap(question.text_plain, HEADER_CHARS)
        options = [(wrap("› " + o.label, CHARS_PER_LINE - 1), o.next) for o in question.options]
        height = PAD + len(lines) * LINE_H + HEADER_GAP
        height += sum(len(ls) * LINE_H + OPTION_GAP for ls, _ in options) + PAD
        return lines, options, height
    result = tree.results[node]
    lines = wrap(result.title, HEADER_CHARS)
    if result.verdict != Verdict.RECOMMENDED:
        lines = (*lines, result.verdict.label)
    return lines, [], PAD * 2 + len(lines) * LINE_H


@lru_cache(maxsize=256)
def layout(tree: Tree) -> Layout:
    """Place every node reachable from the start and route the edges.

    An edge that skips columns gets a lane (reserved space) in each column it
    crosses, like the dummy nodes of a layered (Sugiyama) layout. Each item is put
    as close as it can to the height of what leads to it, never above the item
    before it in its column, so boxes and lanes never overlap.

    Args:
        tree: a validated tree (acyclic, every node reachable).
    """
    depth = _columns(tree)
    columns: dict[int, list[tuple[str, str | tuple[str, int]]]] = {}
    for node in depth:
        columns.setdefault(depth[node], []).append(("node", node))
    for node, column in depth.items():
        for index, option in enumerate(
            tree.questions[node].options if node in tree.questions else ()
        ):
            for lane_column in range(column + 1, depth[option.next]):
                columns.setdefault(lane_column, []).append(("lane", (node, index)))
    boxes: dict[str, Box] = {}
    lane_y: dict[tuple[str, int], list[tuple[int, float]]] = {}
    wanted: dict[object, list[float]] = {}
    for column in sorted(columns):
        items = sorted(columns[column], key=lambda item: _mean(wanted.get(item), _rank(tree, item)))
        cursor = 0.0
        for kind, key in items:
            if isinstance(key, tuple):  # kind "lane": the edge (source, option index) it carries
                top = max(cursor, _mean(wanted.get((kind, key)), 0.0) - LANE_H / 2)
                lane_y.setdefault(key, []).append((column, top + LANE_H / 2))
                cursor = top + LANE_H + ROW_GAP
                _pass_on(tree, depth, key, column, top + LANE_H / 2, wanted)
                continue
            box = _place(tree, key, column, 0.0)
            top = max(cursor, _mean(wanted.get((kind, key)), 0.0) - _entry(box))
            box = _place(tree, key, column, top)
            boxes[key] = box
            cursor = top + box.h + ROW_GAP
            for row in box.rows:
                _pass_on(tree, depth, (key, row.index), column, row.port_y, wanted)
    edges = tuple(
        Edge(
            box.id,
            row.index,
            row.target,
            _path(box, row, boxes[row.target], lane_y.get((box.id, row.index), [])),
            tuple(lane_y.get((box.id, row.index), [])),
        )
        for box in boxes.values()
        for row in box.rows
    )
    width = (max(depth.values()) + 1) * (NODE_W + COL_GAP) - COL_GAP
    lanes_bottom = max((y + LANE_H / 2 for ys in lane_y.values() for _, y in ys), default=0.0)
    height = max(max(b.y + b.h for b in boxes.values()), lanes_bottom)
    return Layout(width, height, boxes, edges)


def _pass_on(
    tree: Tree,
    depth: dict[str, int],
    edge: tuple[str, int],
    column: int,
    y: float,
    wanted: dict[object, list[float]],
) -> None:
    """Record that ``edge`` leaves ``column`` at height ``y``: its next lane or its
    target wants it.
    """
    source, index = edge
    target = tree.questions[source].options[index].next
    key = ("node", target) if depth[target] == column + 1 else ("lane", edge)
    wanted.setdefault(key, []).append(y)


def _entry(box: Box) -> float:
    """How far below the box's top incoming edges arrive."""
    return min(box.h / 2, PAD + LINE_H)


def _rank(tree: Tree, item: tuple[str, str | tuple[str, int]]) -> float:
    _kind, key = item
    return _stable_rank(tree, key) if isinstance(key, str) else 0.0  # a node, not a lane


def _mean(values: list[float] | None, fallback: float) -> float:
    return sum(values) / len(values) if values else fallback


def _stable_rank(tree: Tree, node: str) -> float:
    return float(list(tree.questions).index(node)) if node in tree.questions else 0.0


def _place(tree: Tree, node: str, column: int, y: float) -> Box:
    lines, options, height = _size(tree, node)
    x = column * (NODE_W + COL_GAP)
    rows = []
    row_y = y + PAD + len(lines) * LINE_H + HEADER_GAP
    for index, (option_lines, target) in enumerate(options):
        row_h = len(option_lines) * LINE_H + OPTION_GAP
        rows.append(Row(index, row_y, row_h, option_lines, target))
        row_y += row_h
    kind = "question" if node in tree.questions else "result"
    flagged = kind == "result" and tree.results[node].verdict != Verdict.RECOMMENDED
    return Box(node, kind, column, x, y, NODE_W, height, lines, tuple(rows), flagged)


def _path(source: Box, row: Row, target: Box, lanes: list[tuple[int, float]]) -> str:
    x, y = source.x + source.w, row.port_y
    d = [f"M{x:.1f},{y:.1f}"]
    for column, lane in lanes:
        left = column * (NODE_W + COL_GAP)
        d.append(_bezier(x, y, left, lane))
        d.append(f"L{left + NODE_W:.1f},{lane:.1f}")
        x, y = left + NODE_W, lane
    d.append(_bezier(x, y, target.x, target.y + _entry(target)))
    return " ".join(d)


def _bezier(x1: float, y1: float, x2: float, y2: float) -> str:
    mid = (x1 + x2) / 2
    return f"C{mid:.1f},{y1:.1f} {mid:.1f},{y2:.1f} {x2:.1f},{y2:.1f}"
