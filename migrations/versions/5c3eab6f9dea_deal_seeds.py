"""deal_seeds: each hand's secret seeds for the fair deal (docs/FAIR_DEAL.md)

Revision ID: 5c3eab6f9dea
Revises: a3c9e1d7f4b2
Create Date: 2026-12-01 08:30:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '5c3eab6f9dea'
down_revision = 'a3c9e1d7f4b2'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'deal_seeds',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('game', sa.Integer(), nullable=False),
        sa.Column('hand', sa.Integer(), nullable=False),
        sa.Column('server_seed', sa.String(length=64), nullable=False),
        sa.Column('server_commitment', sa.String(length=64), nullable=False),
        sa.Column('seat_seeds', sa.JSON(), nullable=False),
        sa.Column('seat_commitments', sa.JSON(), nullable=False),
        sa.Column('by', sa.JSON(), nullable=False),
        sa.Column('stamps', sa.JSON(), nullable=False),
        sa.Column('dealt', sa.Boolean(), nullable=False),
        sa.Column('revealed', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['table_id'], ['tables.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('table_id', 'game', 'hand'),
    )
    op.create_index('ix_deal_seeds_table_id', 'deal_seeds', ['table_id'])


def downgrade():
    op.drop_index('ix_deal_seeds_table_id', table_name='deal_seeds')
    op.drop_table('deal_seeds')
