"""FTS5 external-content indexes over messages and memories, with their triggers.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

Frozen once released: write its DDL here, never import it from live code.

Only searchable rows are indexed: completed user and assistant messages, and active
memories. Each index's content table is a view holding exactly those rows, so that
'rebuild' and 'integrity-check' see the same set the triggers maintain.
A batch (copy-and-move) alter of messages or memories drops these triggers on SQLite:
such a revision must recreate them and run the index's 'rebuild'.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOKENIZE = "unicode61 remove_diacritics 2"
MESSAGE_SEARCHABLE = "{row}.role IN ('user', 'assistant') AND {row}.status = 'completed'"
MEMORY_SEARCHABLE = "{row}.status = 'active'"


def index_statements(table: str, searchable: str, columns: str) -> list[str]:
    """The view, the FTS5 table, its three triggers and the rebuild, in that order.

    ``columns`` are those whose update can change what the index holds for a row.
    """
    fts = f"{table}_fts"
    old, new = searchable.format(row="old"), searchable.format(row="new")
    return [
        f"CREATE VIEW {table}_searchable AS SELECT pk, content FROM {table} "
        f"WHERE {searchable.format(row=table)}",
        f"CREATE VIRTUAL TABLE {fts} USING fts5(content, content='{table}_searchable', "
        f"content_rowid='pk', tokenize='{TOKENIZE}')",
        f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} WHEN {new} BEGIN "
        f"INSERT INTO {fts}(rowid, content) VALUES (new.pk, new.content); END",
        f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} WHEN {old} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, content) VALUES ('delete', old.pk, old.content); END",
        f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {columns} ON {table} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, content) SELECT 'delete', old.pk, old.content "
        f"WHERE {old}; "
        f"INSERT INTO {fts}(rowid, content) SELECT new.pk, new.content WHERE {new}; END",
        f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
    ]


def upgrade() -> None:
    for statement in index_statements("messages", MESSAGE_SEARCHABLE, "content, role, status"):
        op.execute(statement)
    for statement in index_statements("memories", MEMORY_SEARCHABLE, "content, status"):
        op.execute(statement)


def downgrade() -> None:
    for table in ("memories", "messages"):
        for trigger in ("ai", "ad", "au"):
            op.execute(f"DROP TRIGGER {table}_fts_{trigger}")
        op.execute(f"DROP TABLE {table}_fts")
        op.execute(f"DROP VIEW {table}_searchable")
