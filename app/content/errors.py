"""The one error type for problems in course content."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Level = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class ContentError:
    """A problem in a lesson file, located by file, 1-based line and 1-based column.

    An ``error`` keeps the file's new version from being served; a ``warning`` (a broken
    link, a missing image) does not, but ``curso check --strict`` fails on it; a ``note``
    only informs (a tree's advice that no text gives): it never fails a check.

    Attributes:
        file: path of the lesson file.
        line: 1-based line number where the problem is (0 when the whole file is at fault).
        message: what is wrong, in plain Portuguese (from the gettext catalog).
        col: 1-based column on that line (1 when the whole line is at fault).
        level: ``error``, ``warning`` or ``note``.
    """

    file: Path
    line: int
    message: str
    col: int = 1
    level: Level = "error"

    @classmethod
    def at(
        cls, file: Path, position: tuple[int, int], message: str, level: Level = "error"
    ) -> ContentError:
        """Build a problem at ``position``, a 1-based ``(line, column)`` pair."""
        line, col = position
        return cls(file, line, message, col, level)

    @property
    def is_error(self) -> bool:
        """True for an ``error``, False for a ``warning`` or a ``note``."""
        return self.level == "error"

    def sort_key(self) -> tuple[str, int, int, str]:
        """Order of reports: by file, line, column, then message."""
        return (str(self.file), self.line, self.col, self.message)

    def __lt__(self, other: ContentError) -> bool:
        return self.sort_key() < other.sort_key()

    def as_dict(self) -> dict[str, str | int]:
        """The problem as plain data (``curso check --format json``)."""
        return {
            "file": str(self.file),
            "line": self.line,
            "col": self.col,
            "level": self.level,
            "message": self.message,
        }

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.level}: {self.message}"


class ContentErrors(Exception):
    """Raised when a lesson cannot be loaded; carries every problem found.

    Attributes:
        errors: the problems, sorted by file, line and column.
        slug: the lesson's slug when its front matter named a valid one, else ``None``
            (so a lesson that never loaded can still be answered "lição indisponível").
    """

    def __init__(self, errors: list[ContentError], slug: str | None = None):
        self.errors = sorted(errors)
        self.slug = slug
        super().__init__("\n".join(str(e) for e in self.errors))
