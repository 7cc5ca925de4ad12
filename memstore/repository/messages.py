"""Message rows and the tombstones of deleted messages' source references."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memstore.kinds import MessageStatus, Role
from memstore.repository.stored_values import (
    INTEGER_VALUE,
    MAYBE_TEXT,
    TEXT_VALUE,
    column_kinds,
    typed_row,
)
from memstore.sources import BYTE_MARK
from memstore.store.connections import FOLD_FUNCTION, HOLDS_FOLDED_FUNCTION
from memstore.text.cjk import index_form
from memstore.text.order import after_prefix
from memstore.text.tokens import literal_run
from memstore.times import format_utc, parse_utc

MESSAGE_COLUMNS = "id, session_id, sequence, role, content, created_at, status, source_ref, speaker"
MESSAGE_NAMES = MESSAGE_COLUMNS.split(", ")
# The type of each column no CHECK constraint keeps and no time, in the order of the names.
MESSAGE_KINDS = column_kinds(
    MESSAGE_NAMES,
    id=TEXT_VALUE,
    session_id=TEXT_VALUE,
    sequence=INTEGER_VALUE,
    content=TEXT_VALUE,
    source_ref=MAYBE_TEXT,
    speaker=MAYBE_TEXT,
)
INSERT_MESSAGE = (
    f"INSERT INTO messages ({MESSAGE_COLUMNS}, index_text) VALUES (:id, :session_id, "
    ":sequence, :role, :content, :created_at, :status, :source_ref, :speaker, :index_text)"
)
NEXT_SEQUENCE = (
    "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = :session_id), "
    "(SELECT max(sequence) FROM messages WHERE session_id = :session_id)"
)
MESSAGE_BY_SOURCE = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE source_ref = :source_ref"
MESSAGE_BY_ID = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = :id"
TOMBSTONED = "SELECT 1 FROM deleted_sources WHERE source_ref = :source_ref"
HIGHEST_SEQUENCE = "SELECT max(sequence) FROM messages WHERE session_id = :session_id"
# The log's records by byte offset, then any other message (recorded through the API into
# the session, without a log source reference) after them in its previous order.
SEQUENCES_BY_OFFSET = """
    UPDATE messages SET sequence = :shift + ordered.position
    FROM (SELECT pk, row_number() OVER (
              ORDER BY instr(coalesce(source_ref, ''), :mark) = 0,
                       CAST(substr(source_ref, instr(source_ref, :mark) + length(:mark))
                            AS INTEGER),
                       sequence
          ) AS position
          FROM messages WHERE session_id = :session_id) AS ordered
    WHERE messages.pk = ordered.pk
"""
UNSHIFT_SEQUENCES = (
    "UPDATE messages SET sequence = sequence - :shift WHERE session_id = :session_id"
)


SPEAKER_NAMES = f"""(WITH RECURSIVE speaker_step(name) AS (
                  SELECT min(speaker) FROM messages WHERE speaker IS NOT NULL
                  UNION ALL
                  SELECT (SELECT min(speaker) FROM messages WHERE speaker > speaker_step.name)
                  FROM speaker_step WHERE speaker_step.name IS NOT NULL)
                SELECT name FROM speaker_step
                WHERE name IS NOT NULL AND {FOLD_FUNCTION}(name) = :speaker)"""
"""The names of a speaker filter, whose ``:speaker`` is the name case-folded (see
:meth:`memstore.queries.RecallFilters.params`): every name stored that an import takes for
it (found by review: "людвиг ван бетховен" found none of "Людвиг ван Бетховен"'s messages).
One name of each group that NOCASE takes for one ("Diego", "DIEGO") is read, by skipping
through the speaker index from one group to the next, and the column's NOCASE matches the
group whole."""


def filters_sql(alias: str) -> str:
    """The SQL condition of :class:`memstore.queries.RecallFilters` on a message, for a query
    naming the messages table ``alias``: ``:session_id``, ``:role``, then ``:since``
    (inclusive) and ``:until`` (exclusive) on its creation time, and ``:speaker`` (a name
    case-folded: see :data:`SPEAKER_NAMES`), each NULL for no filter."""
    return (
        f"(:session_id IS NULL OR {alias}.session_id = :session_id)"
        f" AND (:role IS NULL OR {alias}.role = :role)"
        f" AND (:since IS NULL OR {alias}.created_at >= :since)"
        f" AND (:until IS NULL OR {alias}.created_at < :until)"
        f" AND (:speaker IS NULL OR {alias}.speaker IN {SPEAKER_NAMES})"
    )


def written_sql(alias: str) -> str:
    """The SQL condition that the text of the record ``alias`` names, folded as the index
    folds it, holds ``:written`` (a phrase as written: see
    :func:`memstore.text.fts_query.written_sequence`), true when that is NULL, with the
    parameters of :func:`written_params`. The text is folded only where it holds the
    phrase's :func:`~memstore.text.tokens.literal_run` or a character the fold removes (see
    :func:`~memstore.text.tokens.holds_folded`), both looked for in SQL: folding each hit's
    text took 1.1 s for "す。" over 20,000 messages of 1,000 characters (found by review),
    and calling Python for each hit that lacks the phrase twice as long as SQL's checks."""
    text = f"{alias}.content"
    folded = f"{HOLDS_FOLDED_FUNCTION}({text}, :written, :literal)"
    # each mention of the text reads it again: a long one from its overflow pages
    return f"""(CASE WHEN :written IS NULL OR instr({text}, :written) > 0 THEN 1
                     WHEN :literal <> :written AND instr({text}, :literal) > 0 THEN {folded}
                     WHEN instr(CAST({text} AS BLOB), :removed) > 0 THEN {folded}
                     ELSE 0 END)"""


UNWRITTEN = {"written": None, "literal": None, "removed": None}
"""The parameters of :func:`written_sql` for no phrase matched as written."""
REMOVED_LEAD = b"\xcc"
"""The first UTF-8 byte of each character the fold removes (U+0300 to U+0331; a test checks
the table), which no other byte of UTF-8 is (memstore's stores hold UTF-8: see
:func:`memstore.store.probe.not_utf8`)."""


def written_params(written: str | None) -> dict[str, Any]:
    """The parameters of :func:`written_sql` for the folded phrase ``written`` (or None)."""
    if written is None:
        return UNWRITTEN
    return {"written": written, "literal": literal_run(written), "removed": REMOVED_LEAD}


def searchable_sql(alias: str = "") -> str:
    """The SQL condition of a message search and read-back see (and the FTS trigger
    indexes): a completed user or assistant one, for a query naming the messages table
    ``alias``. :func:`searchable` is the same rule in Python."""
    t = f"{alias}." if alias else ""
    return f"{t}role IN ('user', 'assistant') AND {t}status = 'completed'"


# The searchable messages of a session after a sequence (what is read back).
DIALOGUE = f"""
    SELECT {MESSAGE_COLUMNS} FROM messages
    WHERE session_id = :session_id AND sequence > :after AND {searchable_sql()}
    ORDER BY sequence LIMIT :limit
"""
SESSION_MESSAGES = f"""
    SELECT {MESSAGE_COLUMNS} FROM messages
    WHERE session_id = :session_id AND sequence > :after ORDER BY sequence LIMIT :limit
"""
# The unique indexes on source references make both a range scan.
STORED_IN_RANGE = (
    "SELECT source_ref, content FROM messages WHERE source_ref >= :low AND source_ref < :high"
)
DELETED_IN_RANGE = (
    "SELECT source_ref FROM deleted_sources WHERE source_ref >= :low AND source_ref < :high"
)
TOMBSTONE = """
    INSERT OR IGNORE INTO deleted_sources (source_ref, deleted_at)
    SELECT source_ref, :deleted_at FROM messages WHERE id = :id AND source_ref IS NOT NULL
"""
DELETE_MESSAGE = "DELETE FROM messages WHERE id = :id"


@dataclass(frozen=True)
class StoredMessage:
    """A message row read or written with plain SQL (:data:`MESSAGE_COLUMNS`); times in UTC."""

    id: str
    session_id: str
    sequence: int
    role: Role
    content: str
    created_at: datetime
    status: MessageStatus
    source_ref: str | None
    speaker: str | None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> StoredMessage:
        """The message of a row holding :data:`MESSAGE_COLUMNS` in order.

        Raises:
            StoreDamaged: For a value of another type than its column's, or no time.
        """
        typed_row("messages", MESSAGE_NAMES, row, MESSAGE_KINDS)
        id_, session_id, sequence, role, content, created_at, *rest = row
        return cls(id_, session_id, sequence, role, content, parse_utc(created_at), *rest)

    def values(self) -> dict[str, Any]:
        """The bound parameters of :data:`INSERT_MESSAGE` (with the content's index form)."""
        created_at = format_utc(self.created_at)
        return {**vars(self), "created_at": created_at, "index_text": index_form(self.content)}


def next_sequence(connection: sqlite3.Connection, session_id: str) -> int | None:
    """The sequence number the next message of this session gets (1 for the first), or None
    when there is no such session."""
    found, highest = connection.execute(NEXT_SEQUENCE, {"session_id": session_id}).fetchone()
    return (highest or 0) + 1 if found else None


def get_message(connection: sqlite3.Connection, message_id: str) -> StoredMessage | None:
    """The message with this id, or None."""
    row = connection.execute(MESSAGE_BY_ID, {"id": message_id}).fetchone()
    return None if row is None else StoredMessage.from_row(row)


def message_by_source(connection: sqlite3.Connection, source_ref: str) -> StoredMessage | None:
    """The message stored under this source reference, or None."""
    row = connection.execute(MESSAGE_BY_SOURCE, {"source_ref": source_ref}).fetchone()
    return None if row is None else StoredMessage.from_row(row)


def add_message(connection: sqlite3.Connection, message: StoredMessage) -> None:
    """Insert one message (the FTS trigger indexes it when searchable)."""
    connection.execute(INSERT_MESSAGE, message.values())


def renumber_by_source(connection: sqlite3.Connection, session_id: str) -> None:
    """Give an imported session's messages the sequences 1..n in the order of their byte
    offsets in the log, for records imported after later ones (e.g. a speaker named only on
    a second import); messages without a log source reference keep their order after them.
    Sequences move above the highest first, as each one must stay unique."""
    (shift,) = connection.execute(HIGHEST_SEQUENCE, {"session_id": session_id}).fetchone()
    params = {"session_id": session_id, "shift": shift or 0, "mark": BYTE_MARK}
    connection.execute(SEQUENCES_BY_OFFSET, params)
    connection.execute(UNSHIFT_SEQUENCES, params)


def searchable(role: str, status: str) -> bool:
    """Whether a message of this role and status is searchable (:func:`searchable_sql`)."""
    return role in ("user", "assistant") and status == "completed"


def list_messages(
    connection: sqlite3.Connection, session_id: str, after: int, limit: int
) -> list[StoredMessage]:
    """Messages of a session with sequence > ``after``, in sequence order, at most ``limit``."""
    params = {"session_id": session_id, "after": after, "limit": limit}
    return [StoredMessage.from_row(row) for row in connection.execute(SESSION_MESSAGES, params)]


def dialogue(
    connection: sqlite3.Connection, session_id: str, after: int, limit: int
) -> list[StoredMessage]:
    """Completed user and assistant messages with sequence > ``after``, at most ``limit``."""
    params = {"session_id": session_id, "after": after, "limit": limit}
    return [StoredMessage.from_row(row) for row in connection.execute(DIALOGUE, params)]


def delete_message(connection: sqlite3.Connection, message_id: str, deleted_at: datetime) -> bool:
    """Delete a message (its FTS entry goes with it) and tombstone its source reference, so
    that no import brings it back; False when there is no such message."""
    params = {"id": message_id, "deleted_at": format_utc(deleted_at)}
    connection.execute(TOMBSTONE, params)
    return connection.execute(DELETE_MESSAGE, params).rowcount > 0


def is_tombstoned(connection: sqlite3.Connection, source_ref: str) -> bool:
    """True when this source reference belongs to a deleted message."""
    return connection.execute(TOMBSTONED, {"source_ref": source_ref}).fetchone() is not None


def refs_with_prefix(
    connection: sqlite3.Connection, prefix: str
) -> tuple[dict[str, str], set[str]]:
    """Stored contents by source reference, and tombstoned references, starting with
    ``prefix`` (a range scan on the unique indexes)."""
    bounds = {"low": prefix, "high": after_prefix(prefix)}
    stored = connection.execute(STORED_IN_RANGE, bounds)
    deleted = connection.execute(DELETED_IN_RANGE, bounds)
    return dict(stored.fetchall()), {ref for (ref,) in deleted}
