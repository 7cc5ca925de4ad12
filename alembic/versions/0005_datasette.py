"""The file as Datasette reads it: a search box on messages and memories, and links from
``session_id`` that reach the session.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

Frozen once released: write its DDL here, never import it from live code.

- ``messages_search`` and ``memories_search``: views over the exact indexes ``messages_fts``
  and ``memories_fts``, with the index's rowid (the row's ``pk``), its table-named column
  (the one MATCH takes) and ``content``. Datasette takes as a table's full-text index a
  schema entry without pages whose SQL reads ``VIRTUAL TABLE ... USING FTS ...
  content="T"``; the indexes' own content is the view ``T_searchable`` (what search may see),
  so Datasette found none. Each view's SQL carries that sentence in a comment, and Datasette
  then runs ``rowid IN (SELECT rowid FROM T_search WHERE T_search MATCH ...)``, which SQLite
  flattens into a MATCH on the index itself: no second index, no byte per row, and the box
  finds what memstore's search sees (memories past their expiry left out, as recall does).
- ``sessions`` keyed by its ``id``: Datasette links a foreign key value to the referenced
  table's primary key, and ``messages.session_id`` (and ``imports.session_id``) hold the id,
  while the key was an integer ``pk`` that nothing else used. The table is rebuilt without
  ``pk``, each row keeping it as its rowid. No index points at sessions, so no trigger or
  FTS index is touched.

The rebuild drops ``sessions`` while ``messages`` and ``imports`` still point at it. The
upgrade runs in one transaction, where ``PRAGMA foreign_keys`` cannot be switched off, so
the foreign keys are deferred to the commit instead: dropping the table counts the rows it
orphans, putting every session back takes each count off again, and a row still orphaned at
the commit fails the whole upgrade. Killed halfway, the database is 0004 as it was.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# What each table's search leaves out beyond its index: a memory past its expiry stays in
# memories_fts until a write marks it expired, and recall leaves it out by time, as this does
# (times are stored as fixed-width UTC text, the form strftime gives here).
SEARCHED = {
    "messages": "",
    "memories": "\nWHERE rowid NOT IN (SELECT pk FROM memories WHERE expires_at <= "
    "strftime('%Y-%m-%dT%H:%M:%f000+00:00', 'now'))",
}
SEARCH_VIEW = """CREATE VIEW {table}_search AS
-- Datasette's search box on {table}: it reads an entry without pages whose SQL says
-- VIRTUAL TABLE ... USING FTS ... content="{table}" as that table's full-text index.
SELECT rowid, {table}_fts AS {table}_search, content FROM {table}_fts{unexpired}"""

SESSIONS_BY_ID = (
    "CREATE TABLE sessions (id VARCHAR(64) NOT NULL, started_at VARCHAR(32) NOT NULL, "
    "ended_at VARCHAR(32), metadata JSON NOT NULL, CONSTRAINT pk_sessions PRIMARY KEY (id))"
)
SESSIONS_BY_PK = (
    "CREATE TABLE sessions (pk INTEGER NOT NULL, id VARCHAR(64) NOT NULL, "
    "started_at VARCHAR(32) NOT NULL, ended_at VARCHAR(32), metadata JSON NOT NULL, "
    "CONSTRAINT pk_sessions PRIMARY KEY (pk), CONSTRAINT uq_sessions_id UNIQUE (id))"
)
COLUMNS = "id, started_at, ended_at, metadata"


def rebuild_sessions(create: str, key: str) -> None:
    """Replace ``sessions`` by the table ``create`` makes, each row keeping its rowid (put
    back as ``key``: ``rowid`` or ``pk``), with foreign keys checked at the commit (see the
    module's docstring). The copy's columns have no type, so no value is converted."""
    for statement in (
        "PRAGMA defer_foreign_keys = ON",
        "CREATE TABLE sessions_old (kept, id, started_at, ended_at, metadata)",
        f"INSERT INTO sessions_old SELECT rowid, {COLUMNS} FROM sessions",
        "DROP TABLE sessions",
        create,
        f"INSERT INTO sessions ({key}, {COLUMNS}) SELECT kept, {COLUMNS} FROM sessions_old",
        "DROP TABLE sessions_old",
    ):
        op.execute(statement)


def upgrade() -> None:
    for table, unexpired in SEARCHED.items():
        op.execute(SEARCH_VIEW.format(table=table, unexpired=unexpired))
    rebuild_sessions(SESSIONS_BY_ID, "rowid")


def downgrade() -> None:
    rebuild_sessions(SESSIONS_BY_PK, "pk")
    for table in SEARCHED:
        op.execute(f"DROP VIEW {table}_search")
