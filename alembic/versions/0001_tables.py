"""Tables: sessions, messages, memories, memory_sources, imports, deleted_sources and
schema_migrations.

Revision ID: 0001
Revises:
Create Date: 2026-11-30

Frozen once released: write its DDL here, never import it from live code.
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.String(length=32)


def upgrade() -> None:
    op.create_table(
        "schema_migrations",
        sa.Column("version", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("applied_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("version", name="pk_schema_migrations"),
    )
    op.create_table(
        "sessions",
        sa.Column("pk", sa.Integer(), nullable=False),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("started_at", TIME, nullable=False),
        sa.Column("ended_at", TIME, nullable=True),
        sa.Column("metadata", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("pk", name="pk_sessions"),
        sa.UniqueConstraint("id", name="uq_sessions_id"),
    )
    op.create_table(
        "messages",
        sa.Column("pk", sa.Integer(), nullable=False),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("source_ref", sa.Text(), nullable=True),
        sa.CheckConstraint("role IN ('user', 'assistant', 'system')", name="ck_messages_role"),
        sa.CheckConstraint(
            "status IN ('completed', 'interrupted', 'error')", name="ck_messages_status"
        ),
        sa.CheckConstraint("sequence >= 1", name="ck_messages_sequence"),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name="fk_messages_session_id_sessions"
        ),
        sa.PrimaryKeyConstraint("pk", name="pk_messages"),
        sa.UniqueConstraint("id", name="uq_messages_id"),
        sa.UniqueConstraint("session_id", "sequence", name="uq_messages_session_id_sequence"),
        sa.UniqueConstraint("source_ref", name="uq_messages_source_ref"),
    )
    op.create_index("ix_messages_created_at", "messages", ["created_at"])
    op.create_table(
        "memories",
        sa.Column("pk", sa.Integer(), nullable=False),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("normalized_content", sa.Text(), nullable=False),
        sa.Column("category", sa.String(length=16), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("pinned", sa.Boolean(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("modified_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=True),
        sa.Column("superseded_by", sa.String(length=64), nullable=True),
        sa.CheckConstraint(
            "category IN ('preference', 'fact', 'project', 'goal', 'other')",
            name="ck_memories_category",
        ),
        sa.CheckConstraint(
            "status IN ('active', 'superseded', 'candidate', 'expired')",
            name="ck_memories_status",
        ),
        sa.CheckConstraint("origin IN ('explicit', 'extracted')", name="ck_memories_origin"),
        sa.CheckConstraint("confidence >= 0 AND confidence <= 1", name="ck_memories_confidence"),
        sa.CheckConstraint(
            "length(trim(content)) BETWEEN 1 AND 4000", name="ck_memories_content_length"
        ),
        sa.ForeignKeyConstraint(
            ["superseded_by"], ["memories.id"], name="fk_memories_superseded_by_memories"
        ),
        sa.PrimaryKeyConstraint("pk", name="pk_memories"),
        sa.UniqueConstraint("id", name="uq_memories_id"),
    )
    op.create_index(
        "ux_memories_active_normalized",
        "memories",
        ["normalized_content"],
        unique=True,
        sqlite_where=sa.text("status = 'active'"),
    )
    op.create_index(
        "ux_memories_active_key",
        "memories",
        ["key"],
        unique=True,
        sqlite_where=sa.text("status = 'active' AND key IS NOT NULL"),
    )
    op.create_table(
        "memory_sources",
        sa.Column("pk", sa.Integer(), nullable=False),
        sa.Column("memory_id", sa.String(length=64), nullable=False),
        sa.Column("message_id", sa.String(length=64), nullable=True),
        sa.Column("source_ref", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["memory_id"],
            ["memories.id"],
            name="fk_memory_sources_memory_id_memories",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["messages.id"],
            name="fk_memory_sources_message_id_messages",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("pk", name="pk_memory_sources"),
    )
    op.create_index("ix_memory_sources_memory_id", "memory_sources", ["memory_id"])
    op.create_index("ix_memory_sources_message_id", "memory_sources", ["message_id"])
    op.create_table(
        "imports",
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("sealed_size", sa.Integer(), nullable=False),
        sa.Column("sealed_sha256", sa.String(length=64), nullable=False),
        sa.Column("imported_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name="fk_imports_session_id_sessions"
        ),
        sa.PrimaryKeyConstraint("path", name="pk_imports"),
    )
    op.create_table(
        "deleted_sources",
        sa.Column("source_ref", sa.Text(), nullable=False),
        sa.Column("deleted_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("source_ref", name="pk_deleted_sources"),
    )


def downgrade() -> None:
    op.drop_table("deleted_sources")
    op.drop_table("imports")
    op.drop_table("memory_sources")
    op.drop_table("memories")
    op.drop_table("messages")
    op.drop_table("sessions")
    op.drop_table("schema_migrations")
