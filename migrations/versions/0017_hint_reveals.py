"""hint reveals: the hints a learner opened, and the help each answer had

``hint_reveal`` keeps each hint a learner opened, waiting for their next answer to the
question and then tied to it (``attempt_id``); ``attempt.help`` says what the answer had
seen (0 nothing, 1 a hint, 2 the worked answer). Every answer stored before hints existed
had none: the column starts at 0 for them.

Revision ID: 0017
Revises: 0016 (0016_lti_score_queue)
Create Date: 2026-12-04 21:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.add_column(sa.Column("help", sa.Integer(), server_default="0", nullable=False))
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.create_index(
            "ix_attempt_helped",
            ["lesson_slug", "question_id", "question_hash"],
            unique=False,
            sqlite_where=sa.text("help != 0"),
            postgresql_where=sa.text("help != 0"),
        )
    op.create_table(
        "hint_reveal",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("lesson_slug", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("question_id", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("question_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("hint", sa.Integer(), nullable=False),
        sa.Column("worked", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("attempt_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["attempt_id"], ["attempt.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("hint_reveal", schema=None) as batch_op:
        batch_op.create_index(
            "ix_hint_reveal_learner", ["learner_id", "lesson_slug", "question_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_hint_reveal_attempt_id"), ["attempt_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("hint_reveal", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hint_reveal_attempt_id"))
        batch_op.drop_index("ix_hint_reveal_learner")
    op.drop_table("hint_reveal")
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.drop_index("ix_attempt_helped")
        batch_op.drop_column("help")
