"""kept mastery: mastery per learner × concept, kept as answers are written

``kept_mastery`` holds each learner's last answers per concept and the figure the rule makes
of them (``app/learning/mastery.py``), ``mastery_tally`` their sums per concept over
learners, ``mastery_tag`` the concept tags they were counted with. The upgrade counts the
attempts already stored with the tags of the lessons folder the settings name
(``CURSO_LESSONS_DIR``); if the course served later has other tags, the dashboard's first
visit counts them again (:func:`app.learning.mastery.sync_mastery`).

Revision ID: 0014
Revises: 0013 (0013_lti_tool)
Create Date: 2026-12-01 18:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

from app.content.course import load_course
from app.learning.mastery import concept_tags, rebuild_mastery
from app.platform.settings import Settings

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mastery_tag",
        sa.Column("lesson_slug", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("question_id", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("concept", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.PrimaryKeyConstraint("lesson_slug", "question_id", "concept"),
    )
    op.create_table(
        "mastery_tally",
        sa.Column("concept", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("learners", sa.Integer(), nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False),
        sa.Column("units", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("concept"),
    )
    op.create_table(
        "kept_mastery",
        sa.Column("learner_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("concept", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("recent", sa.Text(), nullable=False),
        sa.Column("mastery", sa.Float(), nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("learner_id", "concept"),
    )
    # a learner who answered before the upgrade keeps their mastery on /progresso
    course = load_course(Settings().lessons_dir)
    rebuild_mastery(op.get_bind(), concept_tags(course), hints=False)  # no attempt.help yet


def downgrade() -> None:
    op.drop_table("kept_mastery")
    op.drop_table("mastery_tally")
    op.drop_table("mastery_tag")
