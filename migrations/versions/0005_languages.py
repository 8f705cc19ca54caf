"""kernel languages: submissions.language, completions and XP per language (issue #29)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 07:00:00

Every row already there is CUDA's: submissions get "cuda"; exercise completions and
exercise or tier XP awards get "cuda", lesson ones "" (a lesson is completed once, in
whatever languages). An exercise is now completed once per (user, exercise, language).

Going down keeps each user's first completion of an exercise (in any language) and
all XP; a non-CUDA submission stays, but an older server would judge it as CUDA.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

NEW_UNIQUE = "uq_completions_user_kind_item_language"
# SQLite's unique constraint from 0001 has no name; batch mode (which copies the table)
# names it by this convention so that it can be dropped.
NAMING = {"uq": "uq_%(table_name)s_%(column_0_N_name)s"}


def _old_unique() -> str:
    for constraint in sa.inspect(op.get_bind()).get_unique_constraints("completions"):
        if constraint["column_names"] == ["user_id", "kind", "item_id"]:
            return constraint["name"] or "uq_completions_user_id_kind_item_id"
    raise RuntimeError("completions has no unique constraint on (user_id, kind, item_id)")


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("language", sa.String(length=16), nullable=False, server_default="cuda"))
    with op.batch_alter_table("xp_awards") as batch:
        batch.add_column(sa.Column("language", sa.String(length=16), nullable=False, server_default=""))
    op.execute("UPDATE xp_awards SET language = 'cuda' WHERE key LIKE 'exercise:%' OR key LIKE 'tier:%'")
    old = _old_unique()
    with op.batch_alter_table("completions", naming_convention=NAMING) as batch:
        batch.add_column(sa.Column("language", sa.String(length=16), nullable=False, server_default=""))
        batch.drop_constraint(old, type_="unique")
        batch.create_unique_constraint(NEW_UNIQUE, ["user_id", "kind", "item_id", "language"])
    op.execute("UPDATE completions SET language = 'cuda' WHERE kind = 'exercise'")


def downgrade() -> None:
    op.execute("DELETE FROM completions WHERE id NOT IN "
               "(SELECT first_id FROM (SELECT MIN(id) AS first_id FROM completions "
               "GROUP BY user_id, kind, item_id) AS firsts)")
    with op.batch_alter_table("completions") as batch:
        batch.drop_constraint(NEW_UNIQUE, type_="unique")
        # PostgreSQL's own name for 0001's unnamed constraint, on both databases
        batch.create_unique_constraint("completions_user_id_kind_item_id_key", ["user_id", "kind", "item_id"])
        batch.drop_column("language")
    with op.batch_alter_table("xp_awards") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("language")
