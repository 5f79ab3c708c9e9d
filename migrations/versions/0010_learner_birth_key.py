"""learner birth key: a visitor's double-submitted first answer makes one learner

Adds ``learner.birth_key`` (unique, nullable): the idempotency key of the answer form that made
a visitor a learner. Until now a visitor's learner id was derived from their CSRF cookie, which
every page prints; identity now lives only in the server-side session, and a double submit of
the first answer (two requests without a session) finds the one learner by this key. No learner
is re-keyed: existing rows keep their ids and get no birth key.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 15:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("birth_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.create_unique_constraint("uq_learner_birth_key", ["birth_key"])


def downgrade() -> None:
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.drop_constraint("uq_learner_birth_key", type_="unique")
        batch_op.drop_column("birth_key")
