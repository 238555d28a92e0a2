"""tables.clock_version: the version the seat clocks were brought up to, in the table row

The action's own UPDATE sets it; clock_tables.seen_version cost an UPDATE of its own per action.

Revision ID: 7d41c9e2b6a5
Revises: db55705b0dc5
Create Date: 2026-12-03 14:20:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '7d41c9e2b6a5'
down_revision = 'db55705b0dc5'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tables') as batch:
        batch.add_column(sa.Column('clock_version', sa.Integer(), nullable=False,
                                   server_default='0'))
    # A table without clock rows (made before the clock existed) was never behind: its clocks
    # are made by the next action.
    op.execute("UPDATE tables SET clock_version = COALESCE((SELECT seen_version FROM clock_tables"
               " WHERE clock_tables.table_id = tables.id), version)")
    with op.batch_alter_table('clock_tables') as batch:
        batch.drop_column('seen_version')


def downgrade():
    with op.batch_alter_table('clock_tables') as batch:
        batch.add_column(sa.Column('seen_version', sa.Integer(), nullable=False,
                                   server_default='0'))
    op.execute("UPDATE clock_tables SET seen_version = (SELECT clock_version FROM tables"
               " WHERE tables.id = clock_tables.table_id)")
    with op.batch_alter_table('tables') as batch:
        batch.drop_column('clock_version')
