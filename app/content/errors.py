"""The one error type for problems in course content."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, order=True)
class ContentError:
    """A problem in a lesson file, located by file and 1-based line.

    Attributes:
        file: path of the lesson file.
        line: 1-based line number where the problem is (0 when the whole file is at fault).
        message: what is wrong, in plain Portuguese.
    """

    file: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class ContentErrors(Exception):
    """Raised when a lesson cannot be loaded; carries every problem found.

    Attributes:
        errors: the problems, sorted by file and line.
    """

    def __init__(self, errors: list[ContentError]):
        self.errors = sorted(errors)
        super().__init__("\n".join(str(e) for e in self.errors))
