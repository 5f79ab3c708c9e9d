"""offline walk keys: a walk finished offline is stored once however often its device sends it

``walk.idempotency_key`` holds the key the device gave a walk finished offline
(``static/js/tree-walk.js``), unique per learner. Every walk stored before had been finished
online and has none (``NULL``, which the unique constraint never compares).

Revision ID: 0019
Revises: 0018 (0018_pools_draws_and_variants)
Create Date: 2026-12-05 06:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("walk", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("idempotency_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.create_unique_constraint("uq_walk_learner_key", ["learner_id", "idempotency_key"])


def downgrade() -> None:
    with op.batch_alter_table("walk", schema=None) as batch_op:
        batch_op.drop_constraint("uq_walk_learner_key", type_="unique")
        batch_op.drop_column("idempotency_key")
