"""push: subscriptions, host settings, turns (reminder deadlines), outbox

Revision ID: b7e1c4a9f260
Revises: d2c7e6f3d27a
Create Date: 2026-11-30 13:10:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b7e1c4a9f260'
down_revision = 'd2c7e6f3d27a'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'push_subscriptions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=False),
        sa.Column('endpoint', sa.String(length=1000), nullable=False),
        sa.Column('p256dh', sa.String(length=200), nullable=False),
        sa.Column('auth', sa.String(length=100), nullable=False),
        sa.Column('visible_until', sa.DateTime(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['device_id'], ['devices.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['table_id'], ['tables.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('table_id', 'endpoint'),
    )
    op.create_index('ix_push_subscriptions_endpoint', 'push_subscriptions', ['endpoint'])
    op.create_index('ix_push_subscriptions_table_id', 'push_subscriptions', ['table_id'])
    op.create_index('ix_push_subscriptions_device_id', 'push_subscriptions', ['device_id'])

    op.create_table(
        'push_tables',
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('reminder_minutes', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['table_id'], ['tables.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('table_id'),
    )

    op.create_table(
        'push_turns',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('turn_key', sa.String(length=64), nullable=False),
        sa.Column('what', sa.String(length=16), nullable=False),
        sa.Column('began_version', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('first', sa.String(length=16), nullable=False),
        sa.Column('remind_at', sa.DateTime(), nullable=True),
        sa.Column('reminded_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['table_id'], ['tables.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('table_id', 'seat', 'turn_key'),
    )
    op.create_index('ix_push_turns_table_id', 'push_turns', ['table_id'])
    op.create_index('ix_push_turns_remind_at', 'push_turns', ['remind_at'])

    op.create_table(
        'push_outbox',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('turn_id', sa.Integer(), nullable=False),
        sa.Column('subscription_id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('payload', sa.JSON(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('due_at', sa.DateTime(), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('lease_until', sa.DateTime(), nullable=True),
        sa.Column('sent_at', sa.DateTime(), nullable=True),
        sa.Column('last_status', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['turn_id'], ['push_turns.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['subscription_id'], ['push_subscriptions.id'],
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('turn_id', 'kind', 'subscription_id'),
    )
    op.create_index('ix_push_outbox_due', 'push_outbox', ['status', 'due_at'])
    op.create_index('ix_push_outbox_table_id', 'push_outbox', ['table_id'])
    op.create_index('ix_push_outbox_subscription_id', 'push_outbox', ['subscription_id'])


def downgrade():
    op.drop_table('push_outbox')
    op.drop_table('push_turns')
    op.drop_table('push_tables')
    op.drop_table('push_subscriptions')
