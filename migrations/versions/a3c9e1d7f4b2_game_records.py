"""game_records: every finished game kept whole (docs/RECORDS.md)

Revision ID: a3c9e1d7f4b2
Revises: e5a1f7c3b9d2
Create Date: 2026-12-02 10:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a3c9e1d7f4b2'
down_revision = 'f7b2d4e6a8c1'
branch_labels = None
depends_on = None


def upgrade():
    # No foreign key to tables: a record outlives its table.
    op.create_table(
        'game_records',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('game_number', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('record', sa.JSON(), nullable=False),
        sa.Column('summary', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('table_id', 'game_number'),
    )
    op.create_index('ix_game_records_table_id', 'game_records', ['table_id'])


def downgrade():
    op.drop_index('ix_game_records_table_id', table_name='game_records')
    op.drop_table('game_records')
