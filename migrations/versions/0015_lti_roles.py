"""lti roles: a platform waits for an admin's confirmation, and an LMS role stays in its course

``lti_platform.confirmed_at``: only a platform a site admin confirmed launches the course and
enters the CSP (``frame-ancestors``, ``form-action``). Platforms registered before this revision
are left unconfirmed: any instructor, including one made by an LMS launch, could register one
from ``/instrutor/lti``, and nothing recorded who did, so an admin confirms each again (on
``/instrutor/lti``, or ``curso lti registrar`` with the same fields).

Until this revision an LMS Instructor launch also gave the account the site-wide instructor
role (``account.is_instructor``). The upgrade takes that role from every account that an LMS
person signs in as (a row in ``lti_user``), unless it is a site admin (``is_admin``, which only
``curso instrutor adicionar --admin`` ever set). The class staff rows stay: those people keep
teaching the classes of their LMS courses. A site instructor who had linked their LMS identity
(``/lti/vincular``) loses the site role too, since nothing tells their role from one a launch
gave; ``curso instrutor adicionar`` gives it back. The downgrade drops the column and does not
give the role back: which accounts had it is not kept.

Revision ID: 0015
Revises: 0014 (0014_kept_mastery)
Create Date: 2026-12-04 21:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("lti_platform", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("confirmed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
    account = sa.table(
        "account",
        sa.column("id", sa.Integer),
        sa.column("is_instructor", sa.Boolean),
        sa.column("is_admin", sa.Boolean),
    )
    lti_user = sa.table("lti_user", sa.column("account_id", sa.Integer))
    op.execute(
        account.update()
        .where(
            account.c.is_instructor.is_(sa.true()),
            account.c.is_admin.is_(sa.false()),
            account.c.id.in_(sa.select(lti_user.c.account_id)),
        )
        .values(is_instructor=False)
    )


def downgrade() -> None:
    with op.batch_alter_table("lti_platform", schema=None) as batch_op:
        batch_op.drop_column("confirmed_at")
