"""fair queue: submissions' queue name, fairness key and round; idempotency keys (issue #25)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 03:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("queue_name", sa.String(length=64), nullable=False, server_default="kdojo"))
        batch.add_column(sa.Column("fair_key", sa.String(length=96), nullable=False, server_default=""))
        batch.add_column(sa.Column("fair_tag", sa.Integer(), nullable=False, server_default="0"))
    # Rows already there take the turn of their author (signed-in) or their address; the
    # ones still waiting all start in round 0 and go in id order, as before.
    op.execute("UPDATE submissions SET fair_key = 'user:' || CAST(user_id AS VARCHAR) WHERE user_id IS NOT NULL")
    op.execute("UPDATE submissions SET fair_key = 'addr:' || client_ip WHERE user_id IS NULL AND client_ip <> ''")
    op.execute("UPDATE submissions SET fair_key = 'anon:' || COALESCE(anon_id, '') "
               "WHERE user_id IS NULL AND client_ip = ''")
    op.create_index("ix_submissions_fair_order", "submissions", ["queue_name", "status", "fair_tag", "id"])
    op.create_index("ix_submissions_fair_key", "submissions", ["fair_key", "status"])
    op.create_table(
        "submission_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=96), nullable=False),
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("request_sha256", sa.String(length=64), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner", "key"),
    )
    op.create_index("ix_submission_keys_submission_id", "submission_keys", ["submission_id"])


def downgrade() -> None:
    op.drop_index("ix_submission_keys_submission_id", table_name="submission_keys")
    op.drop_table("submission_keys")
    op.drop_index("ix_submissions_fair_key", table_name="submissions")
    op.drop_index("ix_submissions_fair_order", table_name="submissions")
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("fair_tag")
        batch.drop_column("fair_key")
        batch.drop_column("queue_name")
