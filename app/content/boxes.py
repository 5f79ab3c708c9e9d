"""The ``:::`` boxes (callouts) of lessons: a markdown-it block rule that knows about code.

A box opens with ``::: kind Title`` and closes with a line of colons alone. Unlike the
markdown-it-container plugin, whose closing search only looks at colons, this rule

- skips every line that sits inside fenced code (so a ``:::`` written in a code example
  never closes the box around it), using the fences CommonMark itself finds: the text is
  parsed once without boxes (:func:`code_lines`), and the lines of each fence are skipped;
- counts nested boxes whatever markers they use: ``::: tip`` inside ``::: warning`` is
  closed by the first bare ``:::``, and the next one closes the outer box (markers of
  different lengths, ``::::`` outside and ``:::`` inside, work the same way).

Where the author's structure cannot be read one way only, the rule records a problem
(``env["box_problems"]``: ``(0-based line, message)``) that ``curso check`` reports with
file:line: a box with no closing line (often because a code fence inside it was left
open), or a closing line whose number of colons differs from its opening line's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping
from functools import cache
from typing import TYPE_CHECKING, Any

from app.i18n import gettext

if TYPE_CHECKING:  # imported where used: a lesson read from the disk cache needs no parser
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock

MARKER = ":"
MIN_MARKERS = 3
CODE_LINES_KEY = "curso_code_lines"
PROBLEMS_KEY = "box_problems"


@cache
def _plain_parser() -> MarkdownIt:
    """CommonMark + tables without boxes, block rules only: finds where fences really are."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def code_lines(src: str) -> tuple[frozenset[int], dict[int, int]]:
    """Where fenced code is, as CommonMark reads ``src`` without boxes.

    Returns:
        The 0-based lines inside a fence (its opening and closing lines included), and
        for each fence that is never closed, its opening line → its last line.
    """
    if "```" not in src and "~~~" not in src:  # no fence at all: nothing to skip
        return frozenset(), {}
    from markdown_it.rules_block import StateBlock

    md = _plain_parser()
    inside: set[int] = set()
    unclosed: dict[int, int] = {}
    lines = src.split("\n")
    state = StateBlock(src, md, {}, [])
    md.block.tokenize(state, 0, state.lineMax)
    for token in state.tokens:
        if token.type == "fence" and token.map:
            start, end = token.map
            inside.update(range(start, end))
            # the fence's last line, without the quote markers or indentation around it
            last = lines[end - 1].lstrip("> \t").rstrip() if end - 1 < len(lines) else ""
            closed = (
                end - start >= 2
                and last.startswith(token.markup)
                and not last.strip(token.markup[0])
            )
            if not closed:
                unclosed[start] = end - 1
    return frozenset(inside), unclosed


def _marker(state: StateBlock, line: int) -> tuple[str, str] | None:
    """``(colons, rest)`` when ``line`` starts with three or more colons, else ``None``."""
    if state.sCount[line] - state.blkIndent >= 4:  # an indented code block, not a marker
        return None
    start = state.bMarks[line] + state.tShift[line]
    end = state.eMarks[line]
    pos = start
    while pos < end and state.src[pos] == MARKER:
        pos += 1
    if pos - start < MIN_MARKERS:
        return None
    return state.src[start:pos], state.src[pos:end].strip()


def box_rule(kinds: Iterable[str]) -> Callable[[StateBlock, int, int, bool], bool]:
    """Build the block rule for boxes of ``kinds`` (tokens ``callout_open``/``callout_close``).

    Args:
        kinds: the box kinds (``tip``, ``warning``...); other words after ``:::`` are not boxes.

    Returns:
        A markdown-it block rule; the opening token's ``info`` is ``kind Title``.
    """
    known = frozenset(kinds)

    def rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        opened = _marker(state, start_line)
        if opened is None or not opened[1] or opened[1].split()[0] not in known:
            return False
        if silent:
            return True
        env = state.env
        if CODE_LINES_KEY not in env:
            env[CODE_LINES_KEY] = code_lines(state.src)
        inside, unclosed = env[CODE_LINES_KEY]
        markup, params = opened
        stack = [markup]  # the markers of the boxes open from here down
        line, closed = start_line, False
        while True:
            line += 1
            if line >= end_line:
                break
            begin, end = state.bMarks[line] + state.tShift[line], state.eMarks[line]
            if begin < end and state.sCount[line] < state.blkIndent:
                break  # the list or quote around the box ended
            if line in inside:
                continue
            found = _marker(state, line)
            if found is None:
                continue
            colons, rest = found
            if rest:
                stack.append(colons)
                continue
            expected = stack.pop()
            if colons != expected:
                _problem(
                    env,
                    line,
                    gettext(
                        "this `%(found)s` line closes the box opened with `%(expected)s`; "
                        "write the same number of colons on both lines (see lessons/README.md, "
                        "boxes)"
                    )
                    % {"found": colons, "expected": expected},
                )
            if not stack:
                closed = True
                break
        if not closed:
            _unclosed(env, start_line, line, inside, unclosed)
        old_parent, old_max = state.parentType, state.lineMax
        state.parentType = "container"
        state.lineMax = line  # lazy continuations never pass the closing line
        token = state.push("callout_open", "aside", 1)
        token.markup, token.info, token.block, token.map = markup, params, True, [start_line, line]
        state.md.block.tokenize(state, start_line + 1, line)
        token = state.push("callout_close", "aside", -1)
        token.markup, token.block = markup, True
        state.parentType, state.lineMax = old_parent, old_max
        state.line = line + (1 if closed else 0)
        return True

    return rule


def _unclosed(
    env: MutableMapping[str, Any],
    start: int,
    stop: int,
    inside: frozenset[int],
    unclosed: dict[int, int],
) -> None:
    fence = next((first for first in sorted(unclosed) if start < first < stop), None)
    if fence is not None:
        _problem(
            env,
            fence,
            gettext(
                "this code block inside a `:::` box is never closed, so the box's closing `:::` "
                "line is read as code; close the block with the same fence that opened it"
            ),
        )
    _problem(
        env,
        start,
        gettext(
            "this `:::` box has no closing line (a line with only `:::`); the box runs to the end "
            "of what contains it"
        ),
    )


def _problem(env: MutableMapping[str, Any], line: int, message: str) -> None:
    problems: list[tuple[int, str]] = env.setdefault(PROBLEMS_KEY, [])
    if (line, message) not in problems:
        problems.append((line, message))
