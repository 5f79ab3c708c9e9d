"""A lesson file as the web editor reads and writes it: its text, its format, its hash.

The editor shows the text with LF line endings and without the BOM; a save writes it back
in the file's own format (UTF-8, its line endings, its BOM), atomically: a temporary file
in the same folder, ``fsync``, then ``os.replace`` (POSIX ``rename``), so a reader sees the
old file or the new one, never half of one. No HTTP and no database here.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

BOM = b"\xef\xbb\xbf"
DiffKind = Literal["hunk", "add", "del", "same", "head"]


class NotUtf8(ValueError):
    """The file's bytes are not UTF-8, so the browser cannot edit them without loss."""


@dataclass(frozen=True)
class SourceFormat:
    """How a lesson file stores its text.

    Attributes:
        bom: the file starts with the UTF-8 byte order mark.
        crlf: lines end with CR LF (Windows) instead of LF.
    """

    bom: bool = False
    crlf: bool = False


@dataclass(frozen=True)
class Source:
    """A lesson file's contents as the editor sees them.

    Attributes:
        text: the text with LF line endings and no BOM (what the textarea holds).
        format: the file's encoding details, kept on save.
        hash: SHA-256 (hex) of the file's bytes exactly as on disk.
    """

    text: str
    format: SourceFormat
    hash: str


def content_hash(raw: bytes) -> str:
    """SHA-256 of ``raw``, 64 hex characters: the version a save must start from."""
    return hashlib.sha256(raw).hexdigest()


def to_lf(text: str) -> str:
    """``text`` with CR LF and lone CR turned into LF (browsers send CR LF from a textarea)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_source(raw: bytes) -> Source:
    """Split a file's bytes into its editable text and its format.

    Line endings are CR LF when most line breaks are CR LF.

    Raises:
        NotUtf8: the bytes are not UTF-8.
    """
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotUtf8(str(exc)) from exc
    bom = decoded.startswith("\ufeff")
    crlf = raw.count(b"\r\n") * 2 > raw.count(b"\n") > 0
    return Source(to_lf(decoded.removeprefix("\ufeff")), SourceFormat(bom, crlf), content_hash(raw))


def read_source(path: Path) -> Source:
    """Read a lesson file for the editor (see :func:`parse_source`).

    Raises:
        NotUtf8: the file is not UTF-8.
        OSError: the file cannot be read.
    """
    return parse_source(path.read_bytes())


def encode_source(text: str, fmt: SourceFormat) -> bytes:
    """The bytes of ``text`` in the file's format: UTF-8, its line endings and its BOM."""
    text = to_lf(text)
    if fmt.crlf:
        text = text.replace("\n", "\r\n")
    return (BOM if fmt.bom else b"") + text.encode("utf-8")


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its permission bits.

    Writes a hidden temporary file in the same folder (so the rename stays on one file
    system), ``fsync``s it, renames it over ``path`` with ``os.replace`` and ``fsync``s the
    folder, so the new name survives a crash.

    Raises:
        OSError: the folder is not writable or the disk is full (the old file is untouched).
    """
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


@dataclass(frozen=True)
class DiffLine:
    """One line of a unified diff, for display.

    Attributes:
        kind: ``head`` (file names), ``hunk`` (``@@`` line), ``add``, ``del`` or ``same``.
        text: the line without its trailing newline.
    """

    kind: DiffKind
    text: str


def diff_lines(
    old: str, new: str, old_name: str, new_name: str, context: int = 3
) -> list[DiffLine]:
    """A unified diff of two texts (``difflib.unified_diff``), line by line with its kind.

    Args:
        old / new: the two texts (any line endings).
        old_name / new_name: how the ``---`` and ``+++`` lines name them.
        context: unchanged lines shown around each change.

    Returns:
        The diff's lines; empty when the texts are equal.
    """
    lines = difflib.unified_diff(
        to_lf(old).split("\n"), to_lf(new).split("\n"), old_name, new_name, n=context, lineterm=""
    )
    out: list[DiffLine] = []
    for line in lines:
        if line.startswith(("---", "+++")) and len(out) < 2:
            kind: DiffKind = "head"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "same"
        out.append(DiffLine(kind, line))
    return out
