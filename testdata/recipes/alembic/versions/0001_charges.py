"""charges with the hole: namespace is nullable in a unique constraint"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade():
    op.create_table(
        "charges",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("account_id", sa.BigInteger, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("address", sa.String(255), nullable=False),
        sa.Column("namespace", sa.String(64), nullable=True),
    )
    op.create_unique_constraint("charges_unique_claim", "charges", ["account_id", "kind", "address", "namespace"])


def downgrade():
    op.drop_table("charges")
