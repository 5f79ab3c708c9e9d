"""lesson renames: a slug changed in the editor, for progress carried over and old addresses

Adds ``lesson_rename`` (one row per slug change published in the web editor, see
``app/learning/renames.py``): the learners' rows move to the new slug in the same transaction,
and the old slug's addresses answer 301 to the new one.

Revision ID: 0012
Revises: 0011 (0011_review_cards_from_history)
Create Date: 2026-12-10 10:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lesson_rename",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("old_slug", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("new_slug", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("file_name", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("revision_id", sa.Integer(), nullable=True),
        sa.Column("learners", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["revision_id"], ["lesson_revision.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lesson_rename", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lesson_rename_old_slug"), ["old_slug"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("lesson_rename", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lesson_rename_old_slug"))
    op.drop_table("lesson_rename")
