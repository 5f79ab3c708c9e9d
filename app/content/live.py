"""The course as it is on disk now: lesson files reloaded when they change, no restart.

:class:`LiveCourse` looks at the lesson files (one ``stat`` each) at most once every
``interval_s`` seconds. A file is loaded again only when its version, its
``(mtime_ns, size, inode)``, changes; unchanged files keep their rendered lesson.
A file whose new version has errors is served in its last good version (see
:func:`app.content.course.build_course`); the other lessons are not touched.

With a :class:`~app.content.lesson_cache.LessonCache`, a file is rendered only when no
earlier run (or other worker) has stored the render of its current bytes: a restart reads
the rendered lessons from disk.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from app.content.course import (
    NO_FOLDER,
    Course,
    LessonLoad,
    build_course,
    lesson_files,
    load_file,
    read_engines,
    read_glossary,
)
from app.content.engines import ENGINES_FILE
from app.content.errors import ContentError
from app.content.glossary import GLOSSARY_FILE
from app.content.lesson_cache import LessonCache
from app.i18n import gettext

log = logging.getLogger("curso.content")
Version = tuple[int, int, int]
IMAGES_DIR = "imagens"


class Loaded(NamedTuple):
    """One lesson file as the live course loaded it.

    Attributes:
        version: the file's ``(mtime_ns, size, inode)`` when it was read.
        digest: SHA-256 of the bytes read, ``None`` when they could not be read.
        load: the lesson, or the errors that kept it from loading.
    """

    version: Version
    digest: bytes | None
    load: LessonLoad


class LiveCourse:
    """Hands out the current :class:`Course`, reloading the lesson files that changed.

    Thread-safe: requests served by different threads share one instance.

    Args:
        interval_s: the files are looked at no more than once per this many seconds
            (``0``: on every call).
        static_dir: the app's ``static/`` folder, to check ``/static/...`` images.
        clock: monotonic seconds (replaceable in tests).
        cache: rendered lessons on disk, shared by restarts and workers; ``None`` renders
            every file this process loads.
    """

    def __init__(
        self,
        folder: Path,
        interval_s: float = 1.0,
        static_dir: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        cache: LessonCache | None = None,
    ) -> None:
        self.folder = folder
        self.interval_s = interval_s
        self.static_dir = static_dir
        self.cache = cache
        self._clock = clock
        self._lock = threading.Lock()
        self._loaded: dict[Path, Loaded] = {}
        self._glossary_version: Version | None = None
        self._versions: dict[Path, Version] | None = None
        self._checked_at = float("-inf")
        self._course = Course((), ())
        self.current()

    def current(self) -> Course:
        """Return the course, first reloading it if a lesson file changed since the last look."""
        if self._clock() - self._checked_at < self.interval_s:
            return self._course
        with self._lock:
            if self._clock() - self._checked_at >= self.interval_s:
                versions = self._scan()
                if versions != self._versions:
                    self._course = self._rebuild(versions)
                    self._versions = versions
                self._checked_at = self._clock()
            return self._course

    def refresh(self) -> None:
        """Look at the files again on the next :meth:`current` (a file was just saved here)."""
        self._checked_at = float("-inf")

    def candidate(self, path: Path, raw: bytes) -> Course:
        """The course as it would be if ``path`` held ``raw``: the web editor's live check.

        Nothing is written and nothing served changes. The other files are taken as they are
        loaded now, and no file falls back to its last good version, so the problems reported
        for ``path`` are exactly those ``curso check`` would print after the save.

        When the course served was loaded with ``path`` holding ``raw`` already and serves no
        file in its last good version, it is that course, and nothing is rendered: the editor
        opened on the file as it is on disk (after a save, say) checks what is served.

        Args:
            path: a lesson file of the folder (it may not exist yet).

        Returns:
            The candidate course; its problems for ``path`` and ``get``/``unavailable`` tell
            whether the text would be published.
        """
        self.current()
        with self._lock:
            course = self._course  # the course built from these loads
            loaded = self._loaded.get(path)
            loads = {p: item.load for p, item in self._loaded.items()}
        if not course.stale and loaded is not None and loaded.digest == _digest(raw):
            return course
        loads[path] = load_file(path, course.glossary, raw)
        return build_course(
            self.folder, loads, static_dir=self.static_dir, glossary=course.glossary
        )

    def _scan(self) -> dict[Path, Version] | None:
        """The version of every lesson file, plus the images folder; ``None`` without a folder."""
        if not self.folder.is_dir():
            return None
        versions = {}
        for path in [
            *lesson_files(self.folder),
            self.folder / IMAGES_DIR,
            self.folder / GLOSSARY_FILE,
            self.folder / ENGINES_FILE,
        ]:
            try:
                stat = path.stat()
            except FileNotFoundError:  # deleted between the listing and the stat
                continue
            versions[path] = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        return versions

    def _rebuild(self, versions: dict[Path, Version] | None) -> Course:
        if versions is None:
            return Course((), (ContentError(self.folder, 0, gettext(NO_FOLDER)),))
        loads: dict[Path, LessonLoad] = {}
        changed = []
        glossary, glossary_problems, glossary_raw = read_glossary(self.folder, self.cache)
        glossary_version = versions.get(self.folder / GLOSSARY_FILE)
        if glossary_version != self._glossary_version:
            self._loaded.clear()  # every lesson links the glossary's terms: render them all again
            self._glossary_version = glossary_version
        for path, version in versions.items():
            if path.suffix != ".md":
                continue
            cached = self._loaded.get(path)
            if cached is None or cached.version != version:
                raw = _read(path)
                load = load_file(
                    path, glossary, raw, cache=self.cache, glossary_raw=glossary_raw or b""
                )
                cached = Loaded(version, None if raw is None else _digest(raw), load)
                self._loaded[path] = cached
                changed.append(path)
            loads[path] = cached.load
        for gone in set(self._loaded) - set(loads):
            del self._loaded[gone]
        fallbacks = {lesson.path: lesson for lesson in self._course.with_drafts.lessons}
        course = build_course(
            self.folder,
            loads,
            fallbacks,
            self.static_dir,
            glossary=glossary,
            extra=glossary_problems,
            engines=read_engines(self.folder, self.cache),
        )
        _log_changes(course, changed)
        if self.cache is not None and self._versions is None:  # at start-up: drop old renders
            self.cache.prune(self.cache.used)
        return course


def _read(path: Path) -> bytes | None:
    """The file's bytes; ``None`` when it cannot be read (the load then reports why)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def _digest(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


def _log_changes(course: Course, changed: list[Path]) -> None:
    """Log each reloaded file, and every problem found in it, as JSON lines."""
    for path in changed:
        problems = course.problems_of(path)
        event = "lesson_stale" if path in course.stale else "lesson_loaded"
        log.info({"event": event, "file": str(path), "problems": len(problems)})
        for problem in problems:
            level, name = (
                (logging.ERROR, "lesson_error")
                if problem.is_error
                else (logging.WARNING, "lesson_warning")
            )
            log.log(level, {"event": name, **problem.as_dict()})
