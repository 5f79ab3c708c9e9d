"""The whole course: every lesson in a folder, in order, plus the problems found."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.content.errors import ContentError, ContentErrors
from app.content.lessons import Lesson, load_lesson

IGNORED_FILES = {"README.md"}


@dataclass(frozen=True)
class Course:
    """The lessons that loaded, sorted by ``order``, and every problem found.

    A lesson with a problem is left out; the others are served.

    Attributes:
        lessons: valid lessons, by ascending ``order``.
        errors: every problem in every file, sorted by file and line.
    """

    lessons: tuple[Lesson, ...]
    errors: tuple[ContentError, ...]

    def get(self, slug: str) -> Lesson | None:
        """Return the lesson with ``slug``, or ``None``."""
        return next((lesson for lesson in self.lessons if lesson.slug == slug), None)

    def neighbours(self, slug: str) -> tuple[Lesson | None, Lesson | None]:
        """Return the lessons before and after ``slug`` (``None`` at either end)."""
        slugs = [lesson.slug for lesson in self.lessons]
        i = slugs.index(slug)
        previous = self.lessons[i - 1] if i > 0 else None
        following = self.lessons[i + 1] if i + 1 < len(self.lessons) else None
        return previous, following


def lesson_files(folder: Path) -> list[Path]:
    """Return the lesson files in ``folder``: ``*.md`` except ``README.md``, sorted by name."""
    return sorted(p for p in folder.glob("*.md") if p.name not in IGNORED_FILES)


def load_course(folder: Path) -> Course:
    """Load every lesson in ``folder``.

    Args:
        folder: the lessons folder.

    Returns:
        The course. A missing folder gives an empty course with one error.
    """
    if not folder.is_dir():
        return Course((), (ContentError(folder, 0, "a pasta de lições não existe"),))
    lessons: list[Lesson] = []
    errors: list[ContentError] = []
    for path in lesson_files(folder):
        try:
            lessons.append(load_lesson(path))
        except ContentErrors as exc:
            errors.extend(exc.errors)
    kept = _drop_duplicates(sorted(lessons, key=lambda item: (item.meta.order, item.path.name)), errors)
    return Course(tuple(kept), tuple(sorted(errors)))


def _drop_duplicates(lessons: list[Lesson], errors: list[ContentError]) -> list[Lesson]:
    kept: list[Lesson] = []
    for lesson in lessons:
        for other in kept:
            for field in ("slug", "order"):
                if getattr(lesson.meta, field) == getattr(other.meta, field):
                    msg = (
                        f"`{field}: {getattr(lesson.meta, field)}` já é usado por "
                        f"{other.path.name}; cada lição precisa de um `{field}` próprio"
                    )
                    errors.append(ContentError(lesson.path, _field_line(lesson.path, field), msg))
        if not any(e.file == lesson.path for e in errors):
            kept.append(lesson)
    return kept


def _field_line(path: Path, field: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith(f"{field}:"):
            return number
    return 1
