"""review cards: spaced review (FSRS) state per learner × question, review attempts

Adds ``review_card`` (one FSRS card per learner and question, see ``app/learning/review.py``) and
``attempt.review`` (the answer was given on ``/revisar``; false for every older attempt).

Revision ID: 0009
Revises: 0007 (0007_editor_and_classes); re-pointed to 0008 when that one lands
Create Date: 2026-11-30 17:40:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "review_card",
        sa.Column("learner_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("lesson_slug", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("question_id", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("question_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("state", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("stability", sa.Float(), nullable=True),
        sa.Column("difficulty", sa.Float(), nullable=True),
        sa.Column("due", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_review", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("learner_id", "lesson_slug", "question_id"),
    )
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("review", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.drop_column("review")
    op.drop_table("review_card")
