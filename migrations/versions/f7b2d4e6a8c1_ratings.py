"""ratings: tables.rated (con clasificación / amistosa), rating_players, rating_changes

Revision ID: f7b2d4e6a8c1
Revises: e5a1f7c3b9d2
Create Date: 2026-12-08 10:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'f7b2d4e6a8c1'
down_revision = 'a9f3c6d1e8b4'
branch_labels = None
depends_on = None


def upgrade():
    # Tables that exist already were opened before ratings: they stay amistosa.
    with op.batch_alter_table('tables') as batch:
        batch.add_column(sa.Column('rated', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    with op.batch_alter_table('tables') as batch:
        batch.alter_column('rated', server_default=sa.true())
    op.create_table(
        'rating_players',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('public_id', sa.String(length=24), nullable=False),
        sa.Column('device_id', sa.Integer(),
                  sa.ForeignKey('devices.id', ondelete='SET NULL'), nullable=True),
        sa.Column('robot_key', sa.String(length=40), nullable=True),
        sa.Column('name', sa.String(length=60), nullable=False),
        sa.Column('mu', sa.Float(), nullable=False),
        sa.Column('sigma', sa.Float(), nullable=False),
        sa.Column('games', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.UniqueConstraint('public_id'),
        sa.UniqueConstraint('device_id'),
        sa.UniqueConstraint('robot_key'),
    )
    op.create_table(
        'rating_changes',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('player_id', sa.Integer(),
                  sa.ForeignKey('rating_players.id', ondelete='CASCADE'), nullable=False),
        sa.Column('table_id', sa.String(length=40), nullable=False),
        sa.Column('game_number', sa.Integer(), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('total', sa.Integer(), nullable=False),
        sa.Column('place', sa.Integer(), nullable=False),
        sa.Column('left', sa.Boolean(), nullable=False),
        sa.Column('mu_before', sa.Float(), nullable=False),
        sa.Column('sigma_before', sa.Float(), nullable=False),
        sa.Column('mu_after', sa.Float(), nullable=False),
        sa.Column('sigma_after', sa.Float(), nullable=False),
        sa.Column('games', sa.Integer(), nullable=False),
        sa.Column('at', sa.DateTime(), nullable=False),
        sa.UniqueConstraint('table_id', 'game_number', 'player_id'),
    )
    op.create_index('ix_rating_changes_player', 'rating_changes', ['player_id', 'id'])
    op.create_index('ix_rating_players_board', 'rating_players', ['games', 'mu'])


def downgrade():
    op.drop_index('ix_rating_players_board', table_name='rating_players')
    op.drop_index('ix_rating_changes_player', table_name='rating_changes')
    op.drop_table('rating_changes')
    op.drop_table('rating_players')
    with op.batch_alter_table('tables') as batch:
        batch.drop_column('rated')
