"""pool draws: which questions of a lesson's pool each learner was given

``pool_draw`` keeps a learner's draws of a question pool: the pool's attempt number, the
HMAC seed it was drawn with and the questions it gave (``app/learning/draws.py``). Nothing
is built for the answers stored before: no lesson had a pool, and a learner's first draw of
a pool is a function of its seed alone, computed until their first answer in it stores it.

Revision ID: 0018
Revises: 0017 (0017_hint_reveals)
Create Date: 2026-12-05 00:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pool_draw",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("lesson_slug", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("pool_id", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seed", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("question_ids", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "learner_id", "lesson_slug", "pool_id", "number", name="uq_pool_draw_number"
        ),
    )


def downgrade() -> None:
    op.drop_table("pool_draw")
