"""review and concepts: partial credit of ordering answers

Adds ``attempt.credit``: for an ``ordering`` question, the share of items the learner put
in their right position (0 to 1); empty for every other kind and for older attempts.

Revision ID: 0006
Revises: 491a9dde4b96 (0005_report_cache)
Create Date: 2026-11-30 14:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
# 491a9dde4b96 is revision 0005 (the report cache).
down_revision = "491a9dde4b96"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.add_column(sa.Column("credit", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.drop_column("credit")
