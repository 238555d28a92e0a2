"""game_analyses: Análisis, Difícil's review of a player's decisions (docs/ANALYSIS.md)

Revision ID: db55705b0dc5
Revises: 5b8e2d7c1f4a
Create Date: 2026-12-01 08:30:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'db55705b0dc5'
down_revision = '5b8e2d7c1f4a'
branch_labels = None
depends_on = None


def upgrade():
    # No foreign key to tables: like the record it reviews, an analysis outlives its table.
    op.create_table(
        'game_analyses',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('game_number', sa.Integer(), nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('decisions', sa.JSON(), nullable=False),
        sa.Column('results', sa.JSON(), nullable=False),
        sa.Column('worlds', sa.Integer(), nullable=False),
        sa.Column('lease_until', sa.DateTime(), nullable=True),
        sa.Column('cpu_seconds', sa.Float(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('started_at', sa.DateTime(), nullable=True),
        sa.Column('finished_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('table_id', 'game_number', 'device_id'),
    )
    op.create_index('ix_game_analyses_device_id', 'game_analyses', ['device_id'])
    op.create_index('ix_game_analyses_work', 'game_analyses', ['status', 'lease_until'])


def downgrade():
    op.drop_index('ix_game_analyses_work', table_name='game_analyses')
    op.drop_index('ix_game_analyses_device_id', table_name='game_analyses')
    op.drop_table('game_analyses')
