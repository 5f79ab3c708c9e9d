"""lti score queue: one score per gradebook column and learner, claimed by one sender

``lti_score`` keeps the newest score of each LMS user in each column (``target``: a hash of
where it goes; unique with ``user_sub``), with the time of the answer that produced it
(``answered_at``, the AGS timestamp) and the sender holding it (``claim``, ``claimed_until``).
The upgrade gives each existing row its column and answer time (its ``created_at``), keeps
the newest row of each column and learner (the older ones would only lower the gradebook),
and makes the old ``sending`` and ``failed`` rows ``pending`` (they were still retried). The
downgrade makes ``superseded`` rows ``sent``.

Revision ID: 0016
Revises: 0015 (0015_lti_roles)
Create Date: 2026-12-04 21:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

from app.lti.launch import score_target

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

SCORE = sa.table(
    "lti_score",
    sa.column("id", sa.Integer),
    sa.column("platform_id", sa.Integer),
    sa.column("user_sub", sa.String),
    sa.column("lineitem_url", sa.String),
    sa.column("lineitems_url", sa.String),
    sa.column("resource_link_id", sa.String),
    sa.column("lesson_slug", sa.String),
    sa.column("created_at", sa.DateTime),
    sa.column("target", sa.String),
    sa.column("answered_at", sa.DateTime),
    sa.column("status", sa.String),
)


def upgrade() -> None:
    with op.batch_alter_table("lti_score", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("target", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.add_column(
            sa.Column("answered_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
        batch_op.add_column(
            sa.Column(
                "claim",
                sqlmodel.sql.sqltypes.AutoString(length=32),
                nullable=False,
                server_default="",
            )
        )
        batch_op.add_column(
            sa.Column("claimed_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(
            SCORE.c.id,
            SCORE.c.platform_id,
            SCORE.c.user_sub,
            SCORE.c.lineitem_url,
            SCORE.c.lineitems_url,
            SCORE.c.resource_link_id,
            SCORE.c.lesson_slug,
        ).order_by(SCORE.c.created_at.desc(), SCORE.c.id.desc())
    ).all()
    newest: set[tuple[str, str]] = set()
    older: list[int] = []
    for row in rows:
        target = score_target(
            row.platform_id,
            row.lineitem_url,
            row.lineitems_url,
            row.resource_link_id,
            row.lesson_slug,
        )
        if (target, row.user_sub) in newest:
            older.append(row.id)
            continue
        newest.add((target, row.user_sub))
        connection.execute(sa.update(SCORE).where(SCORE.c.id == row.id).values(target=target))
    if older:
        connection.execute(sa.delete(SCORE).where(SCORE.c.id.in_(older)))
    connection.execute(sa.update(SCORE).values(answered_at=SCORE.c.created_at))
    connection.execute(
        sa.update(SCORE).where(SCORE.c.status.in_(("sending", "failed"))).values(status="pending")
    )
    with op.batch_alter_table("lti_score", schema=None) as batch_op:
        batch_op.alter_column(
            "target", existing_type=sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False
        )
        batch_op.alter_column(
            "answered_at", existing_type=sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False
        )
        batch_op.create_unique_constraint("uq_lti_score_column", ["target", "user_sub"])


def downgrade() -> None:
    op.get_bind().execute(
        sa.update(SCORE).where(SCORE.c.status == "superseded").values(status="sent")
    )
    with op.batch_alter_table("lti_score", schema=None) as batch_op:
        batch_op.drop_constraint("uq_lti_score_column", type_="unique")
        batch_op.drop_column("claimed_until")
        batch_op.drop_column("claim")
        batch_op.drop_column("answered_at")
        batch_op.drop_column("target")
