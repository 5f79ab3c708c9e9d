"""editor and classes

The web lesson editor's history (``lesson_revision``) and unpublished drafts
(``lesson_draft``).

Revision ID: 0007
Revises: 491a9dde4b96 (0005_report_cache; the lead re-chains it after 0006)
Create Date: 2026-11-30 14:20:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0007'
down_revision = '491a9dde4b96'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('lesson_revision',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('file_name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('lesson_slug', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('content_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('origin', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('restored_from', sa.Integer(), nullable=True),
    sa.Column('account_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['account.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('lesson_revision', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_lesson_revision_file_name'), ['file_name'], unique=False)

    op.create_table('lesson_draft',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('file_name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('account_id', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('base_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['account.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('file_name', 'account_id')
    )


def downgrade() -> None:
    op.drop_table('lesson_draft')
    with op.batch_alter_table('lesson_revision', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_lesson_revision_file_name'))
    op.drop_table('lesson_revision')
