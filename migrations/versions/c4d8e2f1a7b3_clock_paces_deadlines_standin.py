"""clock: table pace, per-seat decision deadlines and reserve, stand-in and vacant seats

Revision ID: c4d8e2f1a7b3
Revises: b7e1c4a9f260
Create Date: 2026-11-30 13:25:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c4d8e2f1a7b3'
down_revision = 'b7e1c4a9f260'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('seats') as batch:
        batch.add_column(sa.Column('standin', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('vacant', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        'clock_tables',
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('pace', sa.String(length=16), nullable=False),
        sa.Column('seen_version', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['table_id'], ['tables.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('table_id'),
    )
    op.create_table(
        'clock_seats',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('turn_key', sa.String(length=64), nullable=True),
        sa.Column('started_at', sa.DateTime(), nullable=True),
        sa.Column('deadline', sa.DateTime(), nullable=True),
        sa.Column('expires_at', sa.DateTime(), nullable=True),
        sa.Column('reserve_key', sa.String(length=32), nullable=True),
        sa.Column('reserve_left', sa.Float(), nullable=False),
        sa.Column('time_up_version', sa.Integer(), nullable=True),
        sa.Column('standin_version', sa.Integer(), nullable=True),
        sa.Column('summary', sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(['table_id'], ['tables.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('table_id', 'seat'),
    )
    op.create_index('ix_clock_seats_table_id', 'clock_seats', ['table_id'])
    op.create_index('ix_clock_seats_due', 'clock_seats', ['time_up_version', 'expires_at'])


def downgrade():
    op.drop_index('ix_clock_seats_due', table_name='clock_seats')
    op.drop_index('ix_clock_seats_table_id', table_name='clock_seats')
    op.drop_table('clock_seats')
    op.drop_table('clock_tables')
    with op.batch_alter_table('seats') as batch:
        batch.drop_column('vacant')
        batch.drop_column('standin')
