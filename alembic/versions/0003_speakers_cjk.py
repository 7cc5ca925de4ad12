"""Speaker names on messages; CJK characters indexed one by one.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

Frozen once released: write its DDL here, never import it from live code. The index form
below is this revision's own copy of what the code of its time stores, so that an upgrade
later still writes what the code of 0003 wrote.

- ``messages.speaker``: the name a message's speaker goes by (an imported record's name as
  written in its log), or NULL; compared without case (ASCII), and indexed where set.
- ``messages.index_text`` and ``memories.index_text``: what the index holds of a row whose
  content has a CJK character (each CJK character between spaces, the token ``一一`` after
  each run), else NULL and the index holds the content. Filled here for every existing row.
- The views and triggers of 0002 are recreated to index ``coalesce(index_text, content)``,
  and both indexes rebuilt. Columns are added with ALTER TABLE ADD COLUMN (no table copy),
  and everything runs in the upgrade's one transaction: killed halfway, the database is 0002
  as it was.
"""

import re
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CJK_RANGES = (
    (0x1100, 0x11FF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3031, 0x3035),
    (0x3038, 0x303C), (0x3041, 0x3098), (0x309D, 0x309F), (0x30A1, 0x30FA),
    (0x30FC, 0x30FF), (0x3105, 0x312F), (0x3131, 0x318F), (0x31A0, 0x31BF),
    (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F),
    (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFF66, 0xFFDC), (0x1B000, 0x1B16F),
    (0x20000, 0x3FFFF),
)  # fmt: skip
CJK_CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in CJK_RANGES)
CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
BOUNDARY = "一一"
BATCH = 2000

MESSAGE_SEARCHABLE = "{row}.role IN ('user', 'assistant') AND {row}.status = 'completed'"
MEMORY_SEARCHABLE = "{row}.status = 'active'"
INDEXED = "coalesce({row}.index_text, {row}.content)"


def index_form(text: str) -> str | None:
    """The index form of ``text``, or None when it holds no CJK character."""
    if CJK_RUN.search(text) is None:
        return None
    return CJK_RUN.sub(lambda run: f" {' '.join(run[0])} {BOUNDARY} ", text)


def drop_index_objects(table: str) -> None:
    """Drop the 0002 triggers and view of ``table`` (the FTS5 table itself stays)."""
    for event in ("ai", "ad", "au"):
        op.execute(f"DROP TRIGGER {table}_fts_{event}")
    op.execute(f"DROP VIEW {table}_searchable")


def create_index_objects(table: str, searchable: str, columns: str) -> None:
    """The view and the three triggers of ``table``'s index over what it indexes, then the
    index rebuilt from the view. ``columns`` are those whose update can change it."""
    fts = f"{table}_fts"
    old, new = searchable.format(row="old"), searchable.format(row="new")
    old_text, new_text = INDEXED.format(row="old"), INDEXED.format(row="new")
    statements = [
        f"CREATE VIEW {table}_searchable AS SELECT pk, {INDEXED.format(row=table)} AS content "
        f"FROM {table} WHERE {searchable.format(row=table)}",
        f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} WHEN {new} BEGIN "
        f"INSERT INTO {fts}(rowid, content) VALUES (new.pk, {new_text}); END",
        f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} WHEN {old} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, content) VALUES ('delete', old.pk, {old_text}); END",
        f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {columns} ON {table} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, content) SELECT 'delete', old.pk, {old_text} "
        f"WHERE {old}; "
        f"INSERT INTO {fts}(rowid, content) SELECT new.pk, {new_text} WHERE {new}; END",
        f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
    ]
    for statement in statements:
        op.execute(statement)


def fill_index_text(table: str) -> None:
    """Set ``index_text`` on every row of ``table`` whose content holds a CJK character."""
    connection = op.get_bind()
    select = sa.text(f"SELECT pk, content FROM {table} WHERE pk > :after ORDER BY pk LIMIT :n")
    update = sa.text(f"UPDATE {table} SET index_text = :form WHERE pk = :pk")
    after = 0
    while rows := connection.execute(select, {"after": after, "n": BATCH}).all():
        forms = [{"pk": pk, "form": index_form(content)} for pk, content in rows]
        changed = [row for row in forms if row["form"] is not None]
        if changed:
            connection.execute(update, changed)
        after = rows[-1][0]


def upgrade() -> None:
    for table in ("messages", "memories"):
        drop_index_objects(table)
    speaker = sa.String(length=100, collation="NOCASE")
    op.add_column("messages", sa.Column("speaker", speaker, nullable=True))
    op.add_column("messages", sa.Column("index_text", sa.Text(), nullable=True))
    op.add_column("memories", sa.Column("index_text", sa.Text(), nullable=True))
    op.create_index(
        "ix_messages_speaker",
        "messages",
        ["speaker"],
        sqlite_where=sa.text("speaker IS NOT NULL"),
    )
    fill_index_text("messages")
    fill_index_text("memories")
    create_index_objects("messages", MESSAGE_SEARCHABLE, "content, index_text, role, status")
    create_index_objects("memories", MEMORY_SEARCHABLE, "content, index_text, status")


def downgrade() -> None:
    for table in ("messages", "memories"):
        drop_index_objects(table)
    # ALTER TABLE DROP COLUMN in place (SQLite 3.35): a batch copy of the table dropped the
    # old one, which cascaded to memory_sources, nulled their message ids, and failed on a
    # memory's superseded_by (found by review)
    op.drop_index("ix_messages_speaker", "messages")
    dropped = (("memories", "index_text"), ("messages", "index_text"), ("messages", "speaker"))
    for table, column in dropped:
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    for table, searchable, columns in (
        ("messages", MESSAGE_SEARCHABLE, "content, role, status"),
        ("memories", MEMORY_SEARCHABLE, "content, status"),
    ):
        fts = f"{table}_fts"
        old, new = searchable.format(row="old"), searchable.format(row="new")
        for statement in (
            f"CREATE VIEW {table}_searchable AS SELECT pk, content FROM {table} "
            f"WHERE {searchable.format(row=table)}",
            f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} WHEN {new} BEGIN "
            f"INSERT INTO {fts}(rowid, content) VALUES (new.pk, new.content); END",
            f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} WHEN {old} BEGIN "
            f"INSERT INTO {fts}({fts}, rowid, content) VALUES ('delete', old.pk, old.content); "
            "END",
            f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {columns} ON {table} BEGIN "
            f"INSERT INTO {fts}({fts}, rowid, content) SELECT 'delete', old.pk, old.content "
            f"WHERE {old}; "
            f"INSERT INTO {fts}(rowid, content) SELECT new.pk, new.content WHERE {new}; END",
            f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
        ):
            op.execute(statement)
