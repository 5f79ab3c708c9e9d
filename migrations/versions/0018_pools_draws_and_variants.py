"""pool draws and numeric variants: which questions of a pool each learner was given, and
the parameters of the variant each answer was to

``pool_draw`` keeps a learner's draws of a question pool: the pool's attempt number, the
HMAC seed it was drawn with and the questions it gave (``app/learning/draws.py``). Nothing
is built for the answers stored before: no lesson had a pool, and a learner's first draw of
a pool is a function of its seed alone, computed until their first answer in it stores it.

``attempt.variant`` keeps the parameters (JSON) of the variant of a numeric question the
answer was graded against, part of the attempt's version; every answer stored before had
no variant: the column starts empty for them.

``tally_basis.pool_id`` and ``draw`` say which pool draws a question and how many it draws,
so the dashboard's completion counts a pool as its draw; no question was in a pool before,
so they start as "" and 0 (and the dashboard recounts when the course gains pools).

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
    with op.batch_alter_table("tally_basis", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "pool_id",
                sqlmodel.sql.sqltypes.AutoString(length=100),
                server_default="",
                nullable=False,
            )
        )
        batch_op.add_column(sa.Column("draw", sa.Integer(), server_default="0", nullable=False))
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "variant",
                sqlmodel.sql.sqltypes.AutoString(length=500),
                server_default="",
                nullable=False,
            )
        )
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
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.drop_column("variant")
    with op.batch_alter_table("tally_basis", schema=None) as batch_op:
        batch_op.drop_column("draw")
        batch_op.drop_column("pool_id")
