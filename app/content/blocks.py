"""The special blocks of a lesson body: one processor per fence kind, in one registry.

A fenced block whose language is a key of :data:`BLOCKS` is kept out of the rendered HTML
(:func:`app.content.markdown.render_document` leaves a placeholder) and handed to its
processor, which parses it and says what stands in its place, as mkdocs registers one
processor per concern (``mkdocs/structure/pages.py``). A new kind of block is one processor
here, one macro in ``templates/_blocks.html`` (named by its part's ``kind``) and one test.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, NamedTuple, Protocol, TypeVar

from app.content.calculators import Calculator, parse_calculator
from app.content.charts import parse_chart
from app.content.errors import ContentError
from app.content.page_ids import pool_anchor
from app.content.pools import PoolRequest, parse_pool
from app.content.quiz import Question, parse_quiz
from app.content.trees import Tree, parse_tree
from app.i18n import N_, gettext

_ID_RE = re.compile(r'\bid="([^"]+)"')


@dataclass(frozen=True)
class BlockPart:
    """A place in the lesson body where a block stands, drawn by the macro of
    ``templates/_blocks.html`` named :attr:`kind`."""

    kind: ClassVar[str]


@dataclass(frozen=True)
class QuizPart(BlockPart):
    """A quiz block: the ids of its questions, in order."""

    kind: ClassVar[str] = "quiz"
    question_ids: tuple[str, ...]


@dataclass(frozen=True)
class TreePart(BlockPart):
    """A decision tree, by id (empty when the block did not parse)."""

    kind: ClassVar[str] = "tree"
    tree_id: str


@dataclass(frozen=True)
class CalculatorPart(BlockPart):
    """A ``calculadora`` block, by id (empty when the block did not parse)."""

    kind: ClassVar[str] = "calculator"
    calculator_id: str


@dataclass(frozen=True)
class BankPart(BlockPart):
    """A ``bank`` block: the ids of its questions, shown only through pools (and on the
    previews with the key)."""

    kind: ClassVar[str] = "bank"
    question_ids: tuple[str, ...]


@dataclass(frozen=True)
class PoolPart(BlockPart):
    """A ``pool`` block, by id (empty when the block did not parse): each learner's draw
    stands there."""

    kind: ClassVar[str] = "pool"
    pool_id: str


# A part of the body: HTML written as it is (the text around the blocks, a chart), or a block.
Part = str | BlockPart


@dataclass
class Found:
    """What the blocks read so far hold; each processor adds what its block brings.

    Attributes:
        questions: every question, by id, in document order.
        trees: the decision trees, by id.
        calculators: the calculators, by id.
        anchors: the ids the blocks put on the page (charts, calculators), for the clash checks.
        banked: the ids of the questions written in ``bank`` blocks.
        pools: the ``pool`` blocks, in order, resolved once the whole lesson is read
            (:func:`app.content.pools.resolve_pools`).
    """

    questions: dict[str, Question] = field(default_factory=dict)
    trees: dict[str, Tree] = field(default_factory=dict)
    calculators: dict[str, Calculator] = field(default_factory=dict)
    anchors: set[str] = field(default_factory=set)
    banked: set[str] = field(default_factory=set)
    pools: list[PoolRequest] = field(default_factory=list)


class Processed(NamedTuple):
    """What one block gives the lesson: its part, its problems and the ids it puts on the
    page (added to :attr:`Found.anchors` by the loader)."""

    part: Part
    problems: list[ContentError]
    anchors: tuple[str, ...] = ()


# text of the block, file, 1-based file line of its first line, what the blocks before hold.
Processor = Callable[[str, Path, int, Found], Processed]


def _quiz(text: str, path: Path, line: int, found: Found) -> Processed:
    questions, problems = parse_quiz(text, path, line)
    problems = _quiz_found(questions, problems, path, found)
    return Processed(QuizPart(tuple(q.id for q in questions)), problems)


def _quiz_found(
    questions: list[Question], problems: list[ContentError], path: Path, found: Found
) -> list[ContentError]:
    """Add a quiz or bank block's questions to ``found``; a repeated id is a problem."""
    for question in questions:
        if question.id in found.questions:
            msg = gettext("question id repeated in the lesson: `%(id)s`") % {"id": question.id}
            problems.append(ContentError(path, question.line, msg))
        found.questions[question.id] = question
    return problems


def _bank(text: str, path: Path, line: int, found: Found) -> Processed:
    questions, problems = parse_quiz(text, path, line)
    ids = tuple(q.id for q in questions)
    quiz = _quiz_found(questions, problems, path, found)
    found.banked.update(ids)
    return Processed(BankPart(ids), quiz)


def _pool(text: str, path: Path, line: int, found: Found) -> Processed:
    request, problems = parse_pool(text, path, line)
    if request is None:
        return Processed(PoolPart(""), problems)
    found.pools.append(request)
    return Processed(PoolPart(request.spec.id), problems, (pool_anchor(request.spec.id),))


class Widget(Protocol):
    """What a widget block (a tree, a calculator) parses into: a thing with an id of its own."""

    @property
    def id(self) -> str: ...


W = TypeVar("W", bound=Widget)


def _widget_block(
    parsed: tuple[W | None, list[ContentError]],
    kept: dict[str, W],
    part: Callable[[str], BlockPart],
    repeated: str,
    at: tuple[Path, int],
    anchors: Callable[[W], tuple[str, ...]] = lambda _widget: (),
) -> Processed:
    """A widget block whose id a lesson may use once: its part names the widget by id (an empty
    id when the block did not parse), and the widget is kept in ``kept``. A second widget with
    the same id is the problem ``repeated`` (a message id with ``%(id)s``), and the later block
    is the one kept. ``anchors``: the ids the widget puts on the page."""
    widget, problems = parsed
    if widget is None:
        return Processed(part(""), problems)
    if widget.id in kept:
        problems.append(ContentError(*at, gettext(repeated) % {"id": widget.id}))
    kept[widget.id] = widget
    return Processed(part(widget.id), problems, anchors(widget))


def _tree(text: str, path: Path, line: int, found: Found) -> Processed:
    parsed = parse_tree(text, path, line)
    repeated = N_("tree id repeated in the lesson: `%(id)s`")
    return _widget_block(parsed, found.trees, TreePart, repeated, (path, line))


def _chart(text: str, path: Path, line: int, found: Found) -> Processed:
    html, problems = parse_chart(text, path, line)
    chart_id = next(iter(_ID_RE.findall(html)), None)
    if chart_id in found.anchors:
        msg = gettext(
            "another chart of this lesson has the same title, and so the same anchor "
            "`#%(id)s`; give each chart a title of its own"
        ) % {"id": chart_id}
        problems.append(ContentError(path, line, msg))
    return Processed(html, problems, (chart_id,) if chart_id else ())


def _calculator(text: str, path: Path, line: int, found: Found) -> Processed:
    parsed = parse_calculator(text, path, line)
    repeated = N_("calculator id repeated in the lesson: `%(id)s`")
    return _widget_block(
        parsed, found.calculators, CalculatorPart, repeated, (path, line), lambda c: (c.anchor,)
    )


# Fence language → processor. The keys are the only list of special fences: the Markdown
# renderer keeps these out of the HTML, and lessons/README.md documents each (tests/test_docs.py).
BLOCKS: dict[str, Processor] = {
    "quiz": _quiz,
    "decision-tree": _tree,
    "chart": _chart,
    "calculadora": _calculator,
    "bank": _bank,
    "pool": _pool,
}
