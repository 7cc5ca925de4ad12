"""History and memories indexed a second time by word stem, for recall.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

Frozen once released: write its DDL here, never import it from live code.

- ``messages_stem_fts`` and ``memories_stem_fts``: external-content FTS5 indexes over the
  same views as ``messages_fts`` and ``memories_fts`` (``T_searchable``: the completed user
  and assistant messages, the active memories; CJK rows by their index form), tokenized by
  SQLite's ``porter`` stemmer around the same unicode61 tokenizer, so that "painted",
  "painting" and "paints" are one term. Recall's ``any`` mode selects and ranks by them;
  ``words`` and ``instances`` keep reading the exact indexes.
- Their three triggers each, like those of 0003, and the indexes rebuilt from the views, in
  the upgrade's one transaction: killed halfway, the database is 0003 as it was.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOKENIZE = "porter unicode61 remove_diacritics 2"
INDEXED = "coalesce({row}.index_text, {row}.content)"
# table: (the rows its index holds, the columns whose update can change that)
INDEXES = {
    "messages": ("{row}.role IN ('user', 'assistant') AND {row}.status = 'completed'",
                 "content, index_text, role, status"),
    "memories": ("{row}.status = 'active'", "content, index_text, status"),
}  # fmt: skip


def upgrade() -> None:
    for table, (searchable, columns) in INDEXES.items():
        fts = f"{table}_stem_fts"
        old, new = searchable.format(row="old"), searchable.format(row="new")
        old_text, new_text = INDEXED.format(row="old"), INDEXED.format(row="new")
        for statement in (
            f"CREATE VIRTUAL TABLE {fts} USING fts5(content, content='{table}_searchable', "
            f"content_rowid='pk', tokenize='{TOKENIZE}')",
            f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} WHEN {new} BEGIN "
            f"INSERT INTO {fts}(rowid, content) VALUES (new.pk, {new_text}); END",
            f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} WHEN {old} BEGIN "
            f"INSERT INTO {fts}({fts}, rowid, content) VALUES ('delete', old.pk, {old_text}); "
            "END",
            f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {columns} ON {table} BEGIN "
            f"INSERT INTO {fts}({fts}, rowid, content) SELECT 'delete', old.pk, {old_text} "
            f"WHERE {old}; "
            f"INSERT INTO {fts}(rowid, content) SELECT new.pk, {new_text} WHERE {new}; END",
            f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
        ):
            op.execute(statement)


def downgrade() -> None:
    for table in INDEXES:
        for event in ("ai", "ad", "au"):
            op.execute(f"DROP TRIGGER {table}_stem_fts_{event}")
        op.execute(f"DROP TABLE {table}_stem_fts")
