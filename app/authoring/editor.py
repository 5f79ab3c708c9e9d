"""The web lesson editor's rules: save with a version check, drafts, history, restore.

The Markdown files stay the source of truth. A save starts from the hash of the file the
instructor loaded; if the file changed since (on disk, or by another instructor), the save
is refused with :class:`Conflict` and nothing is written. A text with ``error``-level
problems is not published (as with a file saved by hand) but kept as a draft in the
database. A published text is written atomically in the file's own format
(:mod:`app.content.sourcefile`) and recorded as a :class:`~app.platform.models.LessonRevision`.

Saves of one lessons folder are serialised by an ``flock`` on a lock file in that folder,
so two workers (or two machines on shared storage with working locks) never interleave a
check and a write. Everything a save reads, from the file and from the database, is read
after it holds the lock, and its database writes run in one write transaction
(:func:`app.platform.db.begin_write`) that waits its turn instead of failing: the second of
two saves started at once sees the first one's file and revision, and gets
:class:`Conflict`.

Pages only read: a file changed outside the editor is recorded as a revision by the next
save (:func:`note_outside_change`), and the history shows it meanwhile as an unsaved row.

When a publication changes the lesson's slug, the learners' rows move to the new slug in
the same transaction (:func:`app.learning.renames.carry_progress`).
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlmodel import Session, col, select

from app.content.course import Course
from app.content.errors import ContentError
from app.content.lessons import Lesson
from app.content.live import LiveCourse
from app.content.scaffold import new_lesson
from app.content.sourcefile import (
    Source,
    atomic_write,
    content_hash,
    encode_source,
    read_source,
    to_lf,
)
from app.learning.renames import carry_progress, learners_with_progress
from app.platform.db import begin_write
from app.platform.models import Account, LessonDraft, LessonRename, LessonRevision

LOCK_FILE = ".curso-editor.lock"
EDITOR = "editor"
RESTORED = "restored"
OUTSIDE = "outside"
INITIAL = "initial"


class Conflict(Exception):
    """The file changed since the instructor loaded it (or since the differences they agreed
    to replace); nothing was written and the text is kept as their draft.

    Attributes:
        current: the file as it is now.
    """

    def __init__(self, current: Source) -> None:
        super().__init__("the lesson file changed since it was loaded")
        self.current = current


@dataclass(frozen=True)
class SaveResult:
    """What a save did.

    Attributes:
        published: the file was written; ``False`` means the text had errors and was kept
            as a draft.
        problems: what ``curso check`` says about the text (errors and warnings).
        lesson: the lesson the text gives, for the preview (``None`` when it does not load).
        revision: the new revision, when published.
        rename: the slug change it published, with the learners whose progress moved.
    """

    published: bool
    problems: tuple[ContentError, ...]
    lesson: Lesson | None = None
    revision: LessonRevision | None = None
    rename: LessonRename | None = None


@dataclass(frozen=True)
class RevisionRow:
    """A revision as the history page lists it.

    Attributes:
        revision: the stored revision, or the file on disk not recorded yet (``pending``).
        author: the instructor's username, or ``None`` (outside the editor, or account deleted).
        previous: the revision before it (``None`` for the first one).
        pending: the file as it is on disk, changed outside the editor since the last
            revision; the next save records it (its ``revision`` has no id).
    """

    revision: LessonRevision
    author: str | None
    previous: LessonRevision | None
    pending: bool = False

    @property
    def draft(self) -> bool:
        """The revision's text is a draft (``draft: true``): restoring it takes the lesson
        offline."""
        return is_draft(self.revision.text)


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the lessons folder's lock file for the block."""
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def latest_revision(db: Session, file_name: str) -> LessonRevision | None:
    """The newest revision of a file, or ``None``."""
    query = select(LessonRevision).where(LessonRevision.file_name == file_name)
    return db.exec(query.order_by(col(LessonRevision.id).desc()).limit(1)).first()


def outside_change(db: Session, path: Path, slug: str, source: Source) -> LessonRevision | None:
    """The file as a revision not stored yet, when it differs from the last one (or none exists).

    A file changed on disk outside the editor is a revision "alterado fora do editor"; the
    first time the editor sees a file, its text is the "initial" revision.

    Returns:
        The unsaved revision, or ``None`` when the file is as last recorded.
    """
    last = latest_revision(db, path.name)
    if last is not None and last.content_hash == source.hash:
        return None
    return LessonRevision(
        file_name=path.name,
        lesson_slug=slug,
        text=source.text,
        content_hash=source.hash,
        origin=INITIAL if last is None else OUTSIDE,
    )


def note_outside_change(
    db: Session, path: Path, slug: str, source: Source
) -> LessonRevision | None:
    """Store :func:`outside_change`, if any (inside a write transaction; the caller commits).

    Returns:
        The revision added, or ``None`` when the file is as last recorded.
    """
    revision = outside_change(db, path, slug, source)
    if revision is not None:
        db.add(revision)
        db.flush()
    return revision


def rename_of(db: Session, revision_id: int | None) -> LessonRename | None:
    """The slug change that the revision ``revision_id`` published, if it made one."""
    if revision_id is None:
        return None
    return db.exec(select(LessonRename).where(LessonRename.revision_id == revision_id)).first()


def get_draft(db: Session, file_name: str, account_id: int) -> LessonDraft | None:
    """The instructor's unpublished draft of a file, or ``None``."""
    query = select(LessonDraft).where(
        LessonDraft.file_name == file_name, LessonDraft.account_id == account_id
    )
    return db.exec(query).first()


def keep_draft(
    db: Session, file_name: str, account_id: int, text: str, base_hash: str
) -> LessonDraft:
    """Store (or replace) the instructor's draft of a file; the caller commits."""
    draft = get_draft(db, file_name, account_id) or LessonDraft(
        file_name=file_name, account_id=account_id, text="", base_hash=""
    )
    draft.text, draft.base_hash, draft.updated_at = to_lf(text), base_hash, datetime.now(UTC)
    db.add(draft)
    db.flush()
    return draft


def discard_draft(db: Session, file_name: str, account_id: int) -> None:
    """Delete the instructor's draft of a file, if any; the caller commits."""
    draft = get_draft(db, file_name, account_id)
    if draft is not None:
        db.delete(draft)


def preview(
    live: LiveCourse, path: Path, text: str
) -> tuple[Lesson | None, tuple[ContentError, ...]]:
    """The lesson a text would give (``None`` when it does not load) and its problems, for
    the live preview. The text is encoded in the file's format, so a text equal to the file
    checks the lesson served (:meth:`LiveCourse.candidate`) instead of rendering it again."""
    try:
        fmt = read_source(path).format
    except (OSError, ValueError):
        fmt = None
    raw = encode_source(text, fmt) if fmt else to_lf(text).encode("utf-8")
    return _checked(live.candidate(path, raw), path)


def _checked(candidate: Course, path: Path) -> tuple[Lesson | None, tuple[ContentError, ...]]:
    slug = candidate.slug_of(path)
    lesson = candidate.with_drafts.get(slug) if slug is not None else None
    return lesson, candidate.problems_of(path)


def save(
    db: Session,
    live: LiveCourse,
    path: Path,
    text: str,
    base_hash: str,
    account: Account,
    origin: str = EDITOR,
    restored_from: int | None = None,
    replacing: str = "",
) -> SaveResult:
    """Publish ``text`` as the lesson file, if the file is still the one loaded and has no errors.

    Args:
        db: a database session (committed here).
        live: the app's live course (told to look at the files again after a write).
        text: the new text (any line endings; written with the file's own).
        base_hash: the hash of the file when the instructor loaded it.
        origin: ``editor`` or ``restored``.
        restored_from: the revision restored, for ``restored``.
        replacing: the hash of the file whose differences the instructor saw after a
            :class:`Conflict` and chose to replace ("substituir a versão atual"); the text is
            published over that version, and only over it.

    Returns:
        The result: published with its revision (and the rename, when the slug changed), or
        kept as a draft with its problems.

    Raises:
        Conflict: the file's hash is neither ``base_hash`` nor ``replacing`` (the text is
            kept as a draft that still starts from ``base_hash``).
        NotUtf8: the file on disk is not UTF-8.
        OSError: the file cannot be read or written.
    """
    account_id = account.id
    assert account_id is not None  # a stored account
    with folder_lock(path.parent):
        # Read only now: the save that held the lock before has written and committed.
        current = read_source(path)
        live.refresh()
        served = live.current()
        slug_now = served.slug_of(path) or path.stem
        if current.hash != base_hash and not (replacing and current.hash == replacing):
            begin_write(db)
            note_outside_change(db, path, slug_now, current)
            keep_draft(db, path.name, account_id, text, base_hash)
            db.commit()
            raise Conflict(current)
        raw = encode_source(text, current.format)
        candidate = live.candidate(path, raw)
        lesson, problems = _checked(candidate, path)
        if any(problem.is_error for problem in problems):
            begin_write(db)
            note_outside_change(db, path, slug_now, current)
            keep_draft(db, path.name, account_id, text, base_hash)
            db.commit()
            return SaveResult(False, problems, lesson)
        slug = candidate.slug_of(path) or slug_now
        begin_write(db)
        note_outside_change(db, path, slug_now, current)
        revision = LessonRevision(
            file_name=path.name,
            lesson_slug=slug,
            text=to_lf(text),
            content_hash=content_hash(raw),
            origin=origin,
            restored_from=restored_from,
            account_id=account_id,
        )
        db.add(revision)
        db.flush()
        rename = None
        old = served.with_drafts.get(slug_now)
        if slug != slug_now and old is not None and old.path == path:
            rename = carry_progress(db, slug_now, slug, path.name, revision.id)
        discard_draft(db, path.name, account_id)
        db.flush()
        atomic_write(path, raw)
        db.commit()
        live.refresh()
        db.refresh(revision)
        if rename is not None:
            db.refresh(rename)
        return SaveResult(True, problems, lesson, revision, rename)


@dataclass(frozen=True)
class RenameNotice:
    """What publishing the text would do to the lesson's address, for the preview.

    Attributes:
        old / new: the slug learners know the lesson by, and the text's.
        learners: learners with progress in the lesson (it moves to the new slug).
    """

    old: str
    new: str
    learners: int


def rename_notice(
    db: Session, live: LiveCourse, path: Path, lesson_slug: str | None
) -> RenameNotice | None:
    """The notice when a text whose lesson is ``lesson_slug`` would change the served slug."""
    served = live.current()
    now = served.slug_of(path) or path.stem
    old = served.with_drafts.get(now)
    if lesson_slug is None or lesson_slug == now or old is None or old.path != path:
        return None
    return RenameNotice(now, lesson_slug, learners_with_progress(db, now))


def history(db: Session, path: Path, slug: str, source: Source) -> list[RevisionRow]:
    """Every revision of a file, newest first, each with its author and the one before it.

    When the file on disk is not the last revision (changed outside the editor, or never
    seen by it), it comes first as a ``pending`` row, computed here and not stored.
    """
    query = (
        select(LessonRevision, Account.username)
        .join(Account, col(Account.id) == col(LessonRevision.account_id), isouter=True)
        .where(LessonRevision.file_name == path.name)
        .order_by(col(LessonRevision.id))
    )
    rows: list[RevisionRow] = []
    previous = None
    for revision, username in db.exec(query).all():
        rows.append(RevisionRow(revision, username, previous))
        previous = revision
    pending = outside_change(db, path, slug, source)
    if pending is not None:
        rows.append(RevisionRow(pending, None, previous, pending=True))
    return rows[::-1]


DRAFT_LINE = re.compile(r"^draft:[ \t]*true[ \t]*(#.*)?\n", re.MULTILINE)


def published_text(text: str) -> str | None:
    """``text`` without its front matter's ``draft: true`` line, or ``None`` when the front
    matter has none (the lesson is published already)."""
    text = to_lf(text)
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 3)
    if end < 0:
        return None
    head, body = text[: end + 1], text[end + 1 :]
    cleared, count = DRAFT_LINE.subn("", head)
    return cleared + body if count else None


def is_draft(text: str) -> bool:
    """The front matter of ``text`` has ``draft: true`` (learners don't see the lesson)."""
    return published_text(text) is not None


def create_lesson(live: LiveCourse, title: str) -> Path:
    """Write a new lesson from the template, as ``curso nova`` does, and return its file.

    Raises:
        TitleError: the title has no letter or digit (the message is in Portuguese).
    """
    folder = live.folder
    with folder_lock(folder):
        path = new_lesson(folder, title, live.current())
    live.refresh()
    return path


def new_lesson_slug(path: Path) -> str:
    """The slug of a file made by :func:`create_lesson` (``NN-slug.md``)."""
    return path.stem.split("-", 1)[1]
