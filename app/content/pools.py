"""Question pools: a ``bank`` block holds questions no page shows as they are, and a ``pool``
block draws some of them for each learner.

A ``pool`` block is a YAML mapping (format in ``lessons/README.md``)::

    id: decode-basico
    draw: 2
    from: [banda-decode, gargalo-decode, lote-decode]   # or: concept: decode

``from`` names questions of the lesson's ``bank`` blocks; ``concept`` takes every bank
question tagged with that glossary term; with neither, every bank question of the lesson.
Which questions a learner sees is decided in :mod:`app.learning.draws`; this module only
parses and checks (no HTTP, no database).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ConfigDict, Field, TypeAdapter

from app.content.errors import ContentError
from app.content.quiz import ID_PATTERN, Question
from app.content.yamlsrc import (
    YamlSpec,
    is_mapping,
    read_block,
)
from app.i18n import gettext

MAX_DRAW = 10


class PoolSpec(YamlSpec):
    """A ``pool`` block as written in YAML."""

    model_config = ConfigDict(populate_by_name=True)
    id: str = Field(pattern=ID_PATTERN)
    draw: int = Field(ge=1, le=MAX_DRAW)
    from_: list[str] | None = Field(default=None, alias="from", min_length=1)
    concept: str | None = Field(default=None, min_length=1)


_POOL = TypeAdapter(PoolSpec)


@dataclass(frozen=True)
class Pool:
    """A pool, checked against the lesson's banks.

    Attributes:
        id: unique in its lesson.
        draw: how many questions each learner gets at a time.
        candidates: the ids of the bank questions it draws from, in document order.
        line: 1-based line of the block's first YAML line, for error reports.
        concept: the glossary term it draws by, when written (``""`` otherwise).
    """

    id: str
    draw: int
    candidates: tuple[str, ...]
    line: int
    concept: str = ""


@dataclass(frozen=True)
class PoolRequest:
    """A parsed ``pool`` block, before the lesson's banks are known."""

    spec: PoolSpec
    line: int
    at_from: tuple[tuple[int, int], ...]


def parse_pool(
    text: str, file: Path, first_line: int
) -> tuple[PoolRequest | None, list[ContentError]]:
    """Parse one ``pool`` block; its candidates are resolved by :func:`resolve_pools`."""
    msg = gettext(
        "the `pool` block must be a YAML mapping with `id`, `draw` and `from` or `concept`"
    )
    read = read_block(text, file, first_line, _POOL.validate_python, (is_mapping, msg))
    if isinstance(read, list):
        return None, read
    spec, at = read
    problems = []
    if spec.from_ is not None and spec.concept is not None:
        msg = gettext("the pool `%(pool)s` has both `from` and `concept`; keep one of them") % {
            "pool": spec.id
        }
        problems.append(ContentError.at(file, at("concept"), msg))
    at_from = tuple(at("from", i) for i in range(len(spec.from_ or ())))
    return PoolRequest(spec, first_line, at_from), problems


def resolve_pools(
    requests: list[PoolRequest],
    questions: dict[str, Question],
    banked: set[str],
    file: Path,
) -> tuple[dict[str, Pool], list[ContentError]]:
    """Find each pool's candidates among the lesson's bank questions and check them.

    Args:
        requests: the lesson's ``pool`` blocks, in document order.
        questions: every question of the lesson, by id (quiz and bank blocks).
        banked: the ids of the questions written in ``bank`` blocks.

    Returns:
        The pools by id and the problems: an id that is no bank question, a pool with fewer
        candidates than it draws, two pools with one id, a bank question in no pool or in two.
    """
    pools: dict[str, Pool] = {}
    problems: list[ContentError] = []
    bank_order = [qid for qid in questions if qid in banked]
    taken: dict[str, str] = {}  # bank question → the first pool that draws it
    for request in requests:
        spec = request.spec
        if spec.id in pools:
            msg = gettext("pool id repeated in the lesson: `%(id)s`") % {"id": spec.id}
            problems.append(ContentError(file, request.line, msg))
            continue
        if spec.from_ is not None:
            candidates = []
            for qid, position in zip(spec.from_, request.at_from, strict=True):
                if qid in banked:
                    candidates.append(qid)
                    continue
                if qid in questions:
                    msg = gettext(
                        "the pool `%(pool)s` names `%(question)s`, a question of a `quiz` "
                        "block, which every learner sees anyway; move it to a `bank` block"
                    ) % {"pool": spec.id, "question": qid}
                else:
                    msg = gettext(
                        "the pool `%(pool)s` names `%(question)s`, which is no question of "
                        "this lesson's `bank` blocks"
                    ) % {"pool": spec.id, "question": qid}
                problems.append(ContentError.at(file, position, msg))
        elif spec.concept is not None:
            candidates = [qid for qid in bank_order if spec.concept in questions[qid].concepts]
        else:
            candidates = list(bank_order)
        unique = tuple(dict.fromkeys(candidates))
        if len(unique) < spec.draw:
            msg = gettext(
                "the pool `%(pool)s` draws %(draw)s questions but has only %(found)s to draw "
                "from; lower `draw` or add questions to a `bank` block"
            ) % {"pool": spec.id, "draw": spec.draw, "found": len(unique)}
            problems.append(ContentError(file, request.line, msg))
        for qid in unique:
            if qid in taken:
                msg = gettext(
                    "the question `%(question)s` is in the pools `%(first)s` and `%(second)s`; "
                    "a question belongs to one pool, so that each pool counts as its draw"
                ) % {"question": qid, "first": taken[qid], "second": spec.id}
                problems.append(ContentError(file, request.line, msg))
            taken.setdefault(qid, spec.id)
        pools[spec.id] = Pool(spec.id, spec.draw, unique, request.line, spec.concept or "")
    reached = {qid for pool in pools.values() for qid in pool.candidates}
    for qid in bank_order:
        if qid not in reached:
            msg = gettext(
                "the question `%(question)s` of a `bank` block is in no pool: no learner "
                "would ever see it"
            ) % {"question": qid}
            problems.append(ContentError(file, questions[qid].line, msg))
    return pools, problems
