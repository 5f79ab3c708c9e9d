"""Load lesson files: front matter, Markdown body, special blocks.

Loading follows mkdocs' pages: find the files, read the source, split the front
matter, render the body, extract the headings. Each special block (quiz, tree, chart,
calculator) goes to its processor in :data:`app.content.blocks.BLOCKS`. Every problem is
collected with its ``file:line`` before the lesson is given up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pydantic import Field, ValidationError

from app.content.blocks import BLOCKS, Found, Part, QuizPart
from app.content.calculators import Calculator
from app.content.errors import ContentError, ContentErrors
from app.content.links import Link, extract_links
from app.content.markdown import (
    PLACEHOLDER_RE,
    Heading,
    TermFinder,
    inline_text,
    plain_text,
    render_document,
    render_inline,
)
from app.content.page_ids import (
    definition_anchor,
    error_anchor,
    option_anchor,
    question_anchor,
    term_anchor,
    tree_anchor,
)
from app.content.pools import Pool, resolve_pools
from app.content.quiz import ID_PATTERN, Question
from app.content.text import nfc
from app.content.trees import Tree
from app.content.yamlsrc import (
    YamlSpec,
    YamlSyntaxError,
    parse_yaml,
    syntax_problem,
    validation_problems,
)
from app.i18n import gettext

FRONT_MATTER_FENCE = "---"


class FrontMatter(YamlSpec):
    """The YAML header of a lesson (documented in ``lessons/README.md``)."""

    title: str = Field(min_length=1)
    slug: str = Field(pattern=ID_PATTERN, max_length=100)
    order: int = Field(ge=1, strict=True)
    summary: str = Field(min_length=1)
    minutes: int = Field(ge=1, strict=True)
    objectives: list[str] = Field(min_length=1)
    source: str | None = None
    draft: bool = Field(default=False, strict=True)

    # The texts above are inline Markdown. Pages show the ``_html`` forms; labels, the
    # page title, links, search and JSON use the ``_text`` forms, the plain text of the
    # rendered HTML (so `**x**` is never read aloud and `a < b` keeps its `<`).

    @cached_property
    def title_html(self) -> str:
        """The title as inline HTML."""
        return render_inline(self.title)

    @cached_property
    def title_text(self) -> str:
        return plain_text(self.title_html)

    @cached_property
    def summary_text(self) -> str:
        """The summary's plain text (the page's meta description, the index)."""
        return inline_text(self.summary)

    @cached_property
    def objectives_html(self) -> tuple[str, ...]:
        """Each objective as inline HTML."""
        return tuple(render_inline(objective) for objective in self.objectives)

    @cached_property
    def source_text(self) -> str:
        """The source's plain text (empty when there is none)."""
        return inline_text(self.source) if self.source else ""


# What :attr:`Block.kind` says of an HTML part; a block part says its own kind.
HTML = "html"


@dataclass(frozen=True)
class Block:
    """One part of a lesson's body as the pages walk it (``templates/_lesson_parts.html``).

    Attributes:
        kind: ``html``, or the kind of the block part (the name of its macro in
            ``templates/_blocks.html``).
        part: the HTML string, or the block's part.
        number: for a quiz block, its place among the lesson's quiz blocks (from 1); else 0.
        total: for a quiz block, how many quiz blocks the lesson has; else 0.
    """

    kind: str
    part: Part
    number: int = 0
    total: int = 0


@dataclass(frozen=True)
class Lesson:
    """A loaded lesson, rendered once per file version.

    Attributes:
        meta: the validated front matter.
        parts: the body in order: HTML strings and the blocks' parts (:mod:`app.content.blocks`).
        headings: the table of contents (``##`` and ``###``).
        questions: every question, by id, in document order.
        trees: the decision trees written in this lesson, by id.
        links: the links and images of the body, for the course's link check.
        terms: slugs of the glossary terms the lesson defines on first use, in order.
        calculators: the ``calculadora`` blocks, by id.
        pools: the ``pool`` blocks, by id (their questions are in :attr:`questions`, from
            the ``bank`` blocks).
    """

    path: Path
    meta: FrontMatter
    parts: tuple[Part, ...]
    headings: tuple[Heading, ...]
    questions: dict[str, Question] = field(hash=False)
    trees: dict[str, Tree] = field(hash=False, default_factory=dict)
    links: tuple[Link, ...] = ()
    terms: tuple[str, ...] = ()
    calculators: dict[str, Calculator] = field(hash=False, default_factory=dict)
    pools: dict[str, Pool] = field(hash=False, default_factory=dict)

    @property
    def pooled(self) -> frozenset[str]:
        """The ids of the questions a learner sees only when a pool draws them."""
        return frozenset(qid for pool in self.pools.values() for qid in pool.candidates)

    @property
    def slug(self) -> str:
        """The lesson's slug (its URL segment)."""
        return self.meta.slug

    @property
    def blocks(self) -> tuple[Block, ...]:
        """The body's parts with their kind, quiz blocks numbered (the lesson page and the
        previews with the key render them, each in its own way)."""
        total = sum(isinstance(part, QuizPart) for part in self.parts)
        blocks, number = [], 0
        for part in self.parts:
            if isinstance(part, str):
                blocks.append(Block(HTML, part))
            elif isinstance(part, QuizPart):
                number += 1
                blocks.append(Block(part.kind, part, number, total))
            else:
                blocks.append(Block(part.kind, part))
        return tuple(blocks)


def normalize_source(raw: bytes | str) -> str:
    """Decode a lesson file and normalise it: UTF-8 BOM dropped, CRLF/CR → LF, Unicode NFC."""
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    return nfc(text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n"))


def load_lesson(path: Path, glossary: TermFinder | None = None, raw: bytes | None = None) -> Lesson:
    """Read and validate one lesson file.

    Args:
        path: a ``.md`` file.
        glossary: the course glossary; each term's first use in the body gets its definition.
        raw: the file's bytes, when they are not (yet) on disk: the web editor checks a text
            before it is saved. ``None`` reads ``path``.

    Raises:
        ContentErrors: every problem found, each with its file and line.
    """
    try:
        text = normalize_source(path.read_bytes() if raw is None else raw)
    except UnicodeDecodeError as exc:
        msg = gettext("the file is not in UTF-8 (%(reason)s)") % {"reason": exc.reason}
        raise ContentErrors([ContentError(path, 1, msg)]) from exc
    meta, body, body_line, errors = _split_front_matter(text, path)
    slug = meta.slug if meta else _raw_slug(text)
    if body_line == 0:  # no front matter at all: the body cannot be located reliably
        raise ContentErrors(errors, slug)
    rendered = render_document(body, glossary, BLOCKS)
    errors.extend(
        ContentError(path, body_line + line, message) for line, message in rendered.problems
    )
    found = Found()
    replacements: list[Part] = []
    for fence in rendered.fences:
        first_line = body_line + fence.line
        if fence.nested:
            msg = gettext(
                "the `%(kind)s` block must stay at the top level (outside lists, quotes or boxes)"
            ) % {"kind": fence.kind}
            errors.append(ContentError(path, first_line - 1, msg))
        part, problems, anchors = BLOCKS[fence.kind](fence.content, path, first_line, found)
        replacements.append(part)
        found.anchors.update(anchors)
        errors.extend(problems)
    pools, pool_problems = resolve_pools(found.pools, found.questions, found.banked, path)
    errors.extend(pool_problems)
    for term in rendered.terms:  # the glossary's marks: a <dfn> and its definition's popover
        found.anchors.update((term_anchor(term), definition_anchor(term)))
    errors.extend(
        _widget_clashes(
            rendered.headings, found.questions, found.trees, found.anchors, path, body_line
        )
    )
    if errors or meta is None:
        raise ContentErrors(errors, slug)
    parts = _split_parts(rendered.html, replacements)
    links = extract_links(body, body_line, rendered.tokens)
    return Lesson(
        path,
        meta,
        parts,
        rendered.headings,
        found.questions,
        found.trees,
        links,
        rendered.terms,
        found.calculators,
        pools,
    )


def _widget_clashes(
    headings: tuple[Heading, ...],
    questions: dict[str, Question],
    trees: dict[str, Tree],
    anchors: set[str],
    path: Path,
    body_line: int,
) -> list[ContentError]:
    """Headings whose id is one a question, tree, chart or glossary term of the page carries.

    ``anchors`` holds the ids the blocks put on the page (charts, calculators) and the
    glossary terms'.
    """
    taken = {anchor(qid) for qid in questions for anchor in (question_anchor, error_anchor)}
    taken.update(anchors)
    taken.update(option_anchor(q.id, o.id) for q in questions.values() for o in q.options)
    out = []
    for heading in headings:
        tree = next((tid for tid in trees if heading.anchor.startswith(tree_anchor(tid))), None)
        if heading.anchor in taken or tree is not None:
            msg = gettext(
                "the heading makes the anchor `#%(id)s`, which a question, tree, chart or "
                "glossary term of this page already uses; change the heading's text"
            ) % {"id": heading.anchor}
            out.append(ContentError(path, body_line + heading.line, msg))
    return out


def _raw_slug(text: str) -> str | None:
    """The ``slug:`` of a front matter that did not validate, when it is a valid slug."""
    for line in text.split("\n")[1:]:
        if line.strip() == FRONT_MATTER_FENCE:
            break
        name, _, value = line.partition(":")
        value = value.strip().strip("\"'")
        if name == "slug" and re.fullmatch(ID_PATTERN, value):
            return value
    return None


def _split_front_matter(
    text: str, path: Path
) -> tuple[FrontMatter | None, str, int, list[ContentError]]:
    lines = text.split("\n")
    if not lines or lines[0].strip() != FRONT_MATTER_FENCE:
        msg = gettext(
            "the lesson must start with the YAML header between `---` lines (see lessons/README.md)"
        )
        return None, text, 0, [ContentError(path, 1, msg)]
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FRONT_MATTER_FENCE)
    except StopIteration:
        msg = gettext("the YAML header has no closing `---` line")
        return None, "", 0, [ContentError(path, 1, msg)]
    header = "\n".join(lines[1:end])
    body = "\n".join(lines[end + 1 :])
    body_line = end + 2  # 1-based file line of the body's first line
    try:
        source = parse_yaml(header)
    except YamlSyntaxError as exc:
        return None, body, body_line, [syntax_problem(path, 2, exc)]
    if not isinstance(source.data, dict):
        msg = gettext("the header must be a YAML mapping (`field: value`)")
        return None, body, body_line, [ContentError(path, 2, msg)]
    try:
        return FrontMatter.model_validate(source.data), body, body_line, []
    except ValidationError as exc:
        return None, body, body_line, validation_problems(path, 2, source, exc)


def _split_parts(html: str, replacements: list[Part]) -> tuple[Part, ...]:
    parts: list[Part] = []
    position = 0
    for match in PLACEHOLDER_RE.finditer(html):
        parts.append(html[position : match.start()])
        parts.append(replacements[int(match.group(1))])
        position = match.end()
    parts.append(html[position:])
    merged: list[Part] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        elif not isinstance(part, str) or part.strip():
            merged.append(part)
    return tuple(merged)
