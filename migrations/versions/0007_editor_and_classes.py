"""editor and classes

The web lesson editor's history (``lesson_revision``) and unpublished drafts
(``lesson_draft``); classes (``classroom``, ``class_staff``, ``class_member``,
``class_due``) and the admin flag of instructor accounts.

Revision ID: 0007
Revises: 0006 (0006_review_and_concepts)
Create Date: 2026-11-30 14:20:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lesson_revision",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("file_name", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("lesson_slug", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("origin", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("restored_from", sa.Integer(), nullable=True),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lesson_revision", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_lesson_revision_file_name"), ["file_name"], unique=False
        )

    op.create_table(
        "lesson_draft",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("file_name", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("base_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("file_name", "account_id"),
    )
    op.create_table(
        "classroom",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.Column("join_code", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("time_zone", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("join_code"),
    )
    op.create_table(
        "class_staff",
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["class_id"], ["classroom.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("class_id", "account_id"),
    )
    op.create_table(
        "class_member",
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("joined_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["class_id"], ["classroom.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("class_id", "learner_id"),
    )
    op.create_table(
        "class_due",
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("lesson_slug", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["class_id"], ["classroom.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("class_id", "lesson_slug"),
    )
    with op.batch_alter_table("account", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("is_admin", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("account", schema=None) as batch_op:
        batch_op.drop_column("is_admin")
    op.drop_table("class_due")
    op.drop_table("class_member")
    op.drop_table("class_staff")
    op.drop_table("classroom")
    op.drop_table("lesson_draft")
    with op.batch_alter_table("lesson_revision", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lesson_revision_file_name"))
    op.drop_table("lesson_revision")
