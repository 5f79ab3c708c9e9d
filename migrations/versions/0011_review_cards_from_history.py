"""review cards from history: replay the answers given before spaced review existed

Migration 0009 made ``review_card`` empty, so a learner who answered before it never got a card
for those answers ("Nada para revisar agora." forever). This one replays every learner's
attempts through the app's scheduler (``app.learning.review.replay``, the same
``next_card`` each new answer goes through), so the cards come out as if spaced review had
existed since the first answer. Cards made since 0009 are made again from the same attempts.

Revision ID: 0011
Revises: 0010 (0010_learner_birth_key)
Create Date: 2026-12-01 15:00:00
"""

from alembic import op

from app.learning.review import replay

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    replay(op.get_bind())


def downgrade() -> None:
    # The cards stay: the schema of 0009 holds them as they are, and each is what the
    # scheduler makes of the learner's own answers, reviews given since the upgrade included.
    # Deleting them would send those learners back to an empty review page.
    pass
