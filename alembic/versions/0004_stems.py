"""History indexed a second time by word stem, for recall's ranking.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

Frozen once released: write its DDL here, never import it from live code.

- ``messages_stem_fts``: an external-content FTS5 index over the same view as
  ``messages_fts`` (``messages_searchable``, the completed user and assistant messages, CJK
  rows by their index form), tokenized by SQLite's ``porter`` stemmer around the same
  unicode61 tokenizer, so that "painted", "painting" and "paints" are one term. Recall ranks
  and selects by it; ``words`` and ``instances`` keep reading the exact index.
- Its three triggers, like those of 0003, and the index rebuilt from the view, in the
  upgrade's one transaction: killed halfway, the database is 0003 as it was.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FTS = "messages_stem_fts"
TOKENIZE = "porter unicode61 remove_diacritics 2"
SEARCHABLE = "{row}.role IN ('user', 'assistant') AND {row}.status = 'completed'"
INDEXED = "coalesce({row}.index_text, {row}.content)"
COLUMNS = "content, index_text, role, status"


def upgrade() -> None:
    old, new = SEARCHABLE.format(row="old"), SEARCHABLE.format(row="new")
    old_text, new_text = INDEXED.format(row="old"), INDEXED.format(row="new")
    for statement in (
        f"CREATE VIRTUAL TABLE {FTS} USING fts5(content, content='messages_searchable', "
        f"content_rowid='pk', tokenize='{TOKENIZE}')",
        f"CREATE TRIGGER {FTS}_ai AFTER INSERT ON messages WHEN {new} BEGIN "
        f"INSERT INTO {FTS}(rowid, content) VALUES (new.pk, {new_text}); END",
        f"CREATE TRIGGER {FTS}_ad AFTER DELETE ON messages WHEN {old} BEGIN "
        f"INSERT INTO {FTS}({FTS}, rowid, content) VALUES ('delete', old.pk, {old_text}); END",
        f"CREATE TRIGGER {FTS}_au AFTER UPDATE OF {COLUMNS} ON messages BEGIN "
        f"INSERT INTO {FTS}({FTS}, rowid, content) SELECT 'delete', old.pk, {old_text} "
        f"WHERE {old}; "
        f"INSERT INTO {FTS}(rowid, content) SELECT new.pk, {new_text} WHERE {new}; END",
        f"INSERT INTO {FTS}({FTS}) VALUES ('rebuild')",
    ):
        op.execute(statement)


def downgrade() -> None:
    for event in ("ai", "ad", "au"):
        op.execute(f"DROP TRIGGER {FTS}_{event}")
    op.execute(f"DROP TABLE {FTS}")
