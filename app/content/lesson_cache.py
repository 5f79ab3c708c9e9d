"""Rendered lessons kept on disk between runs, so a restart does not render them again.

Each lesson file's load (its :class:`~app.content.lessons.Lesson`, or the
:class:`~app.content.errors.ContentErrors` that kept it from loading) is stored in one file
of the cache folder (``var/cache/lessons/`` by default), and so are the glossary (its terms
and problems) and the compiled pt-BR catalog (:func:`app.i18n.translations`); each entry is
named by a SHA-256 key of:

- the lesson file's path and bytes;
- the glossary file's bytes (every lesson links the glossary's first uses);
- the code version: the bytes of every module of ``app/content``, of ``app/i18n/__init__.py`` and of
  the pt-BR catalog, the versions of the libraries that render (markdown-it-py, Pygments,
  PyYAML, pydantic, python-slugify, snowballstemmer) and of Python, plus :data:`FORMAT`.

So an edited file, a changed glossary or an upgraded app gets a new key and is rendered
again; old entries are left behind and removed by :meth:`LessonCache.prune`.

Choice: plain files rather than a library such as ``diskcache`` (a SQLite database):
entries are written once and never updated, so a file per key, written to a temporary file
of the same folder and moved into place with :func:`os.replace` (atomic on POSIX), is all
that two workers starting at once need: each reader sees either no entry or a whole one.

Format of an entry: :data:`MAGIC`, the SHA-256 digest of the payload, then the payload (a
pickle). A read checks the magic and the digest before unpickling; an entry that is
truncated, corrupt or does not unpickle is deleted, rendered again and never served.
Pickle runs code when it loads, and this is safe only because the folder is the app's own:
it is created with mode ``0700`` under ``CURSO_VAR_DIR``, beside the SQLite database and the
generated secret key; whoever can write there can already change both. The digest is an
integrity check against torn or damaged files, not a signature.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
import tempfile
import time
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from app.content.errors import ContentError, ContentErrors

if TYPE_CHECKING:
    from typing import TypeAlias

    from app.content.engines import EngineLoad
    from app.content.glossary import Glossary
    from app.content.lessons import Lesson

    # What an entry holds: a lesson or its errors, a glossary and its problems, an engine
    # table's load, or a compiled catalog.
    Load: TypeAlias = (
        Lesson | ContentErrors | tuple[Glossary, list[ContentError]] | EngineLoad | bytes
    )

log = logging.getLogger("curso.content")

# Bump when the layout of an entry changes in a way the code hash would not catch.
FORMAT = 1
MAGIC = b"curso-licao-v1\n"
DIGEST_SIZE = hashlib.sha256().digest_size
SUFFIX = ".pickle"
# Libraries whose output ends up in a rendered lesson (HTML, messages, keys).
RENDERING_LIBRARIES = (
    "markdown-it-py",
    "pygments",
    "pyyaml",
    "pydantic",
    "python-slugify",
    "snowballstemmer",
)
_APP_DIR = Path(__file__).resolve().parent.parent
# FrontMatter's cached texts, computed before an entry is written, so a page served from the
# cache does not need the Markdown parser at all.
_FRONT_MATTER_TEXTS = ("title_html", "title_text", "summary_text", "objectives_html", "source_text")


@cache
def code_version() -> str:
    """A digest of everything besides the lesson file that decides how it renders.

    Returns:
        A hex SHA-256 of :data:`FORMAT`, the Python version, the rendering libraries'
        versions, and the bytes of ``app/content/*.py``, ``app/i18n/__init__.py`` and the catalog.
        Computed once per process (a few milliseconds: about 30 small files are read).
    """
    digest = hashlib.sha256(f"{FORMAT}|{sys.version}".encode())
    for name in RENDERING_LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        digest.update(f"|{name}={version}".encode())
    sources = [
        *sorted((_APP_DIR / "content").glob("*.py")),
        _APP_DIR / "i18n" / "__init__.py",
        *sorted((_APP_DIR / "locale").rglob("*.po")),
    ]
    for source in sources:
        digest.update(f"|{source.relative_to(_APP_DIR)}|".encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


class LessonCache:
    """Lesson loads on disk, by key (see the module's docstring).

    Args:
        folder: where the entries live; created (mode ``0700``) on the first write.

    Attributes:
        used: the keys this process has read or written, for :meth:`prune`.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.used: set[str] = set()

    def key(self, path: Path, raw: bytes, glossary_raw: bytes = b"") -> str:
        """The key of one version of a lesson file.

        Args:
            path: the lesson file (its path is part of the load: errors and links name it).
            glossary_raw: the glossary file's bytes (empty when there is none).

        Returns:
            A hex SHA-256 digest, also the entry's file name.
        """
        digest = hashlib.sha256(code_version().encode())
        for part in (os.fsencode(str(path)), hashlib.sha256(glossary_raw).digest(), raw):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.folder / f"{key}{SUFFIX}"

    def get(self, key: str) -> Load | None:
        """The load stored under ``key``, or ``None`` when there is none or it is damaged.

        A damaged entry (wrong magic, wrong digest, truncated, does not unpickle, not a
        lesson load) is deleted and logged (``lesson_cache_corrupt``); it is never returned.

        Returns:
            A :class:`~app.content.lessons.Lesson`, a :class:`ContentErrors`, a glossary's
            ``(Glossary, problems)`` pair, or ``None``.
        """
        entry = self._entry(key)
        try:
            blob = entry.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning({"event": "lesson_cache_unreadable", "file": str(entry), "error": str(exc)})
            return None
        load = _decode(blob)
        if load is None:
            log.warning({"event": "lesson_cache_corrupt", "file": str(entry)})
            entry.unlink(missing_ok=True)
        else:
            self.used.add(key)
        return load

    def put(self, key: str, load: Load) -> None:
        """Store ``load`` under ``key``, atomically (a temporary file, then :func:`os.replace`).

        A failure to write (a full disk, a read-only folder) is logged and otherwise ignored:
        the cache only saves time.

        Args:
            key: from :meth:`key`.
            load: a :class:`~app.content.lessons.Lesson`, a :class:`ContentErrors`, or a
                glossary's ``(Glossary, problems)`` pair.
        """
        try:
            blob = _encode(load)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            log.warning({"event": "lesson_cache_unpicklable", "key": key, "error": str(exc)})
            return
        temporary = None
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=SUFFIX)
            with os.fdopen(handle, "wb") as out:
                out.write(blob)
            os.replace(temporary, self._entry(key))
            temporary = None
            self.used.add(key)
        except OSError as exc:
            event = {"event": "lesson_cache_unwritable", "folder": str(self.folder)}
            log.warning({**event, "error": str(exc)})
        finally:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)

    def prune(self, keep: set[str], older_than_s: float = 3600.0) -> int:
        """Delete entries not in ``keep`` last written more than ``older_than_s`` seconds ago.

        The age spares what another worker (or another version of the app) sharing the
        folder has just written. Left-over temporary files of that age go too.

        Args:
            older_than_s: minimum age, in seconds, of an entry to delete.

        Returns:
            How many files were deleted.
        """
        if not self.folder.is_dir():
            return 0
        limit = time.time() - older_than_s
        deleted = 0
        for entry in self.folder.glob(f"*{SUFFIX}"):
            if entry.name.removesuffix(SUFFIX) in keep and not entry.name.startswith(".tmp-"):
                continue
            try:
                if entry.stat().st_mtime < limit:
                    entry.unlink()
                    deleted += 1
            except FileNotFoundError:  # another worker pruned it first
                continue
        return deleted


def _encode(load: Load) -> bytes:
    """An entry's bytes: magic, SHA-256 of the payload, payload."""
    from app.content.engines import EngineLoad

    record: tuple[object, ...]
    if isinstance(load, bytes):
        record = ("catalog", load)
    elif isinstance(load, ContentErrors):
        record = ("errors", tuple(load.errors), load.slug)
    elif isinstance(load, tuple):
        glossary, problems = load
        record = ("glossary", glossary, tuple(problems))
    elif isinstance(load, EngineLoad):
        record = ("engines", load)
    else:
        for name in _FRONT_MATTER_TEXTS:
            getattr(load.meta, name)
        record = ("lesson", load)
    payload = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
    return MAGIC + hashlib.sha256(payload).digest() + payload


def _decode(
    blob: bytes,
) -> Load | None:
    """The load in an entry's bytes, or ``None`` when they are not a whole, valid entry."""
    header = len(MAGIC) + DIGEST_SIZE
    if len(blob) <= header or not blob.startswith(MAGIC):
        return None
    digest, payload = blob[len(MAGIC) : header], blob[header:]
    if hashlib.sha256(payload).digest() != digest:
        return None
    try:
        record = pickle.loads(payload)
    # The bytes passed the SHA-256 check, so a failure here is an entry written by other code
    # (a class renamed or moved since): the errors pickle documents for that, then render again.
    except (
        pickle.UnpicklingError,
        AttributeError,
        EOFError,
        ImportError,
        IndexError,
        TypeError,
        ValueError,
    ):
        return None
    from app.content.engines import EngineLoad
    from app.content.glossary import Glossary
    from app.content.lessons import Lesson

    match record:
        case ("catalog", bytes() as compiled):
            return compiled
        case ("lesson", Lesson() as lesson):
            return lesson
        case ("errors", tuple(errors), slug) if _all_problems(errors):
            return ContentErrors(list(errors), slug)
        case ("glossary", Glossary() as glossary, tuple(problems)) if _all_problems(problems):
            return glossary, list(problems)
        case ("engines", EngineLoad() as engines) if _all_problems(engines.problems):
            return engines
    return None


def _all_problems(items: tuple[object, ...]) -> bool:
    return all(isinstance(item, ContentError) for item in items)
