"""live_queue and tables.public: Jugar en vivo (docs/LIVE.md)

Revision ID: 5b8e2d7c1f4a
Revises: 5c3eab6f9dea
Create Date: 2026-12-01 08:30:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '5b8e2d7c1f4a'
down_revision = '5c3eab6f9dea'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tables') as batch:
        batch.add_column(sa.Column('public', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        'live_queue',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=40), nullable=False),
        sa.Column('rating', sa.Float(), nullable=False),
        sa.Column('joined_at', sa.DateTime(), nullable=False),
        sa.Column('heartbeat_at', sa.DateTime(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('table_id', sa.String(length=40), nullable=True),
        sa.Column('seated_at', sa.DateTime(), nullable=True),
        sa.Column('allowed_spread', sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(['device_id'], ['devices.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('device_id'),
    )
    op.create_index('ix_live_queue_status', 'live_queue', ['status', 'heartbeat_at'])
    op.create_index('ix_tables_public_status', 'tables', ['public', 'status'])


def downgrade():
    op.drop_index('ix_tables_public_status', table_name='tables')
    op.drop_index('ix_live_queue_status', table_name='live_queue')
    op.drop_table('live_queue')
    with op.batch_alter_table('tables') as batch:
        batch.drop_column('public')
