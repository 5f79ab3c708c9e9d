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

from app.content.trees import Tree

NODE_W = 188
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

    def overlaps(self, other: Box) -> bool:
        """True when the two boxes share any area."""
        return not (
            self.x + self.w <= other.x or other.x + other.w <= self.x
            or self.y + self.h <= other.y or other.y + other.h <= self.y
        )


@dataclass(frozen=True)
class Edge:
    """A connector from an option row to the node it leads to."""

    source: str
    option: int
    target: str
    d: str


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


def _size(tree: Tree, node: str) -> tuple[tuple[str, ...], list[tuple[tuple[str, ...], str]], float]:
    if node in tree.questions:
        question = tree.questions[node]
        lines = wrap(_plain(question.text), HEADER_CHARS)
        options = [(wrap("› " + o.label, CHARS_PER_LINE - 1), o.next) for o in question.options]
        height = PAD + len(lines) * LINE_H + HEADER_GAP
        height += sum(len(ls) * LINE_H + OPTION_GAP for ls, _ in options) + PAD
        return lines, options, height
    result = tree.results[node]
    lines = (*wrap(result.title, HEADER_CHARS), result.verdict.label)
    return lines, [], PAD * 2 + len(lines) * LINE_H


def _plain(markdown: str) -> str:
    return markdown.replace("**", "").replace("*", "").replace("`", "")


@lru_cache(maxsize=256)
def layout(tree: Tree) -> Layout:
    """Place every node reachable from the start and route the edges.

    Args:
        tree: a validated tree (acyclic, every node reachable).

    Returns:
        The layout; boxes never overlap.
    """
    depth = _columns(tree)
    columns: dict[int, list[str]] = {}
    for node in depth:
        columns.setdefault(depth[node], []).append(node)
    boxes: dict[str, Box] = {}
    port_of: dict[str, list[float]] = {}
    for column in sorted(columns):
        nodes = sorted(columns[column], key=lambda n: _mean(port_of.get(n), _stable_rank(tree, n)))
        y = 0.0
        for node in nodes:
            box = _place(tree, node, column, y)
            boxes[node] = box
            y += box.h + ROW_GAP
            for row in box.rows:
                port_of.setdefault(row.target, []).append(row.port_y)
    edges = tuple(
        Edge(box.id, row.index, row.target, _curve(box, row, boxes[row.target]))
        for box in boxes.values()
        for row in box.rows
    )
    width = (max(depth.values()) + 1) * (NODE_W + COL_GAP) - COL_GAP
    height = max(b.y + b.h for b in boxes.values())
    return Layout(width, height, boxes, edges)


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
    return Box(node, kind, column, x, y, NODE_W, height, lines, tuple(rows))


def _curve(source: Box, row: Row, target: Box) -> str:
    x1, y1 = source.x + source.w, row.port_y
    x2, y2 = target.x, target.y + min(target.h / 2, PAD + LINE_H)
    mid = (x1 + x2) / 2
    return f"M{x1:.1f},{y1:.1f} C{mid:.1f},{y1:.1f} {mid:.1f},{y2:.1f} {x2:.1f},{y2:.1f}"
