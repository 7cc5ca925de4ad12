"""The user messages of each session, in order, in a partial index.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06

Frozen once released: write its DDL here, never import it from live code.

- ``ix_messages_requests`` on ``messages (session_id, sequence)`` where ``role = 'user'``:
  recall pairs an assistant hit with the closest completed user request before it, or,
  for an opening (no user message before it), the first one after it. From the table,
  finding there is none reads every message before (or after) the hit in its session, so
  a session of assistant messages only cost each hit its whole session: 4.3 s for a recall
  of "you" on 120,000 such messages in sessions of 100, and a single long session far more.
  From this index each is a seek. SQLite's planner takes it for those lookups by itself
  (their conditions hold the index's), and search and read-back work without it, only
  slower. It holds only the user messages, about half of a history.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX ix_messages_requests ON messages (session_id, sequence) WHERE role = 'user'"
    )


def downgrade() -> None:
    op.execute("DROP INDEX ix_messages_requests")
