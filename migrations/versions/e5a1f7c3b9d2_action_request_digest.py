"""actions.request_digest: an action id answers again only the request that first used it

Revision ID: e5a1f7c3b9d2
Revises: c4d8e2f1a7b3
Create Date: 2026-12-01 06:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e5a1f7c3b9d2'
down_revision = 'c4d8e2f1a7b3'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('actions') as batch:
        batch.add_column(sa.Column('request_digest', sa.String(length=64), nullable=True))


def downgrade():
    with op.batch_alter_table('actions') as batch:
        batch.drop_column('request_digest')
