"""players: the device's name and profile-move link; one push subscription per device

Revision ID: a9f3c6d1e8b4
Revises: e5a1f7c3b9d2
Create Date: 2026-12-10 06:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a9f3c6d1e8b4'
down_revision = 'e5a1f7c3b9d2'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('devices') as batch:
        batch.add_column(sa.Column('name', sa.String(length=40), nullable=False,
                                   server_default=''))
        batch.add_column(sa.Column('move_gen', sa.Integer(), nullable=False,
                                   server_default='0'))
        batch.add_column(sa.Column('move_hash', sa.String(length=64), nullable=True))
        batch.create_unique_constraint('uq_devices_move_hash', ['move_hash'])
    op.create_table(
        'push_devices',
        sa.Column('device_id', sa.Integer(), nullable=False),
        sa.Column('endpoint', sa.String(length=1000), nullable=False),
        sa.Column('p256dh', sa.String(length=200), nullable=False),
        sa.Column('auth', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['device_id'], ['devices.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('device_id'),
    )
    op.create_index('ix_push_devices_endpoint', 'push_devices', ['endpoint'])


def downgrade():
    op.drop_index('ix_push_devices_endpoint', table_name='push_devices')
    op.drop_table('push_devices')
    with op.batch_alter_table('devices') as batch:
        batch.drop_constraint('uq_devices_move_hash', type_='unique')
        batch.drop_column('move_hash')
        batch.drop_column('move_gen')
        batch.drop_column('name')
