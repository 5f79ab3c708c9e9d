"""The lesson editor's history: published revisions, renames and unpublished drafts."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel, UniqueConstraint

from app.platform.models.base import utcnow


class LessonRevision(SQLModel, table=True):
    """One published version of a lesson file (the editor's history).

    Attributes:
        id: increasing number.
        file_name: the file's name in the lessons folder (the history follows the file,
            whose slug may change).
        lesson_slug: the lesson's slug when the revision was recorded.
        text: the whole text, LF line endings, no BOM (as the editor shows it).
        content_hash: SHA-256 (hex) of the file's bytes after the save.
        origin: ``editor`` (saved in the browser), ``restored`` (an old revision published
            again), ``outside`` (the file changed on disk outside the editor) or ``initial``
            (the file as the editor first found it).
        restored_from: for ``restored``, the revision published again.
        account_id: the instructor who saved it (``None`` for changes made outside the
            editor, or once the account is deleted).
        created_at: when it was recorded, UTC.
    """

    __tablename__ = "lesson_revision"

    id: int | None = Field(default=None, primary_key=True)
    file_name: str = Field(max_length=255, index=True)
    lesson_slug: str = Field(max_length=100)
    text: str = Field(sa_type=sa.Text)
    content_hash: str = Field(max_length=64)
    origin: str = Field(max_length=20)
    restored_from: int | None = None
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="SET NULL")
    created_at: datetime = Field(default_factory=utcnow)


class LessonRename(SQLModel, table=True):
    """A lesson's slug changed in the editor: its learners' rows were moved with it, and its
    old addresses lead to the new one (see ``app/learning/renames.py``).

    Attributes:
        old_slug / new_slug: the slug before and after the publication.
        file_name: the lesson file, in the lessons folder.
        revision_id: the revision that published the new slug.
        learners: learners whose progress was carried over.
        created_at: when, UTC.
    """

    __tablename__ = "lesson_rename"

    id: int | None = Field(default=None, primary_key=True)
    old_slug: str = Field(max_length=100, index=True)
    new_slug: str = Field(max_length=100)
    file_name: str = Field(max_length=255)
    revision_id: int | None = Field(
        default=None, foreign_key="lesson_revision.id", ondelete="SET NULL"
    )
    learners: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class LessonDraft(SQLModel, table=True):
    """A text saved in the editor with errors, so not published; one per file and instructor.

    Attributes:
        file_name: the lesson file's name in the lessons folder.
        account_id: the instructor whose draft it is.
        text: the text as typed (LF line endings).
        base_hash: the hash of the file the instructor started from.
        updated_at: last save, UTC.
    """

    __tablename__ = "lesson_draft"
    __table_args__ = (UniqueConstraint("file_name", "account_id"),)

    id: int | None = Field(default=None, primary_key=True)
    file_name: str = Field(max_length=255)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE")
    text: str = Field(sa_type=sa.Text)
    base_hash: str = Field(max_length=64)
    updated_at: datetime = Field(default_factory=utcnow)
