"""Reading a GIFT file back with pygiftparser (PyPI), split by its ``$CATEGORY`` lines.

pygiftparser 1.1 reads a category name only up to its first hyphen and leaves GIFT's escapes
(``\\=``, ``\\{``...) in the texts, so the categories are split here and the texts unescaped
as Moodle's GIFT grammar says (``\\n`` is a line break, ``\\X`` is ``X``). It also ends an
answer block at the first ``}``, even an escaped one, so the tests keep braces to the prompt.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import yaml
from pygiftparser import parser

FENCE = re.compile(r"^```(?:quiz|bank)\n(.*?)^```", re.M | re.S)  # questions: quizzes and banks
_ESCAPE = re.compile(r"\\(.)", re.S)
_ID = re.compile(r"^// \[id:(.+)\]$", re.M)
_TAG = re.compile(r"^// \[tag:(.+)\]$", re.M)


def moodle_id(question) -> str:
    """The ``// [id:…]`` line before a parsed question (Moodle's id number), or ""."""
    found = _ID.findall(question.full)
    return found[0] if found else ""


def moodle_tags(question) -> list[str]:
    """The ``// [tag:…]`` lines before a parsed question."""
    return _TAG.findall(question.full)


def unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), text).strip()


def read_gift(text: str) -> dict[str, list]:
    """The questions of a GIFT file by category, as pygiftparser reads each category's part."""
    found: dict[str, list] = {}
    category = "$course$"
    chunk: list[str] = []

    def flush() -> None:
        parsed = parser.parseFile(io.StringIO("".join(chunk))) if "".join(chunk).strip() else []
        if parsed:  # comments alone (the questions left out) are no category
            found.setdefault(category, []).extend(parsed)

    for line in text.splitlines(keepends=True):
        if line.startswith("$CATEGORY:"):
            flush()
            chunk = []
            category = line.removeprefix("$CATEGORY:").strip()
        else:
            chunk.append(line)
    flush()
    return found


def written_questions(path: Path) -> dict[str, dict]:
    """The questions of a lesson file as YAML, read here without the app's parser."""
    found = {}
    for block in FENCE.findall(path.read_text(encoding="utf-8")):
        for question in yaml.safe_load(block):
            found[question["id"]] = question
    return found
