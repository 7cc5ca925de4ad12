"""The imports table (each log's sealed prefix) and the bulk insert of imported messages.

Imported rows go in as multi-row INSERT ... VALUES statements, not row by row; a message of
over a MiB goes in on its own, its text written in pieces (:class:`LargeText`,
:func:`add_large`). Both are meant for a transaction whose new messages are indexed together
at its end (:func:`memstore.repository.bulk_index.deferred`), not by the trigger. Live
writes use :mod:`memstore.repository.messages`.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from memstore.repository.bulk_index import Deferral
from memstore.repository.messages import MESSAGE_COLUMNS, searchable
from memstore.text import cjk
from memstore.text.cjk import LEAD_BYTES, stored_index_form
from memstore.times import format_utc

INSERT_MESSAGES = f"INSERT INTO messages ({MESSAGE_COLUMNS}, index_text) VALUES "
ROWS_PER_INSERT = 99  # 990 parameters: under the 999 that older SQLite builds allow
PLACEHOLDER = "CAST(zeroblob(?) AS TEXT)"
INSERT_PLACEHOLDER = {  # with or without an index form
    form: f"INSERT INTO messages ({MESSAGE_COLUMNS}, index_text) VALUES "
    f"(?, ?, ?, ?, {PLACEHOLDER}, ?, ?, ?, ?, {PLACEHOLDER if form else '?'})"
    for form in (True, False)
}
CHANGED = "changed while its long messages were read again; nothing was imported, import it again"
IMPORT_BY_PATH = "SELECT sealed_size, sealed_sha256 FROM imports WHERE path = :path"
SAVE_IMPORT = """
    INSERT INTO imports (path, session_id, sealed_size, sealed_sha256, imported_at)
    VALUES (:path, :session_id, :sealed_size, :sealed_sha256, :imported_at)
    ON CONFLICT (path) DO UPDATE SET sealed_size = excluded.sealed_size,
        sealed_sha256 = excluded.sealed_sha256, imported_at = excluded.imported_at
"""


class LargeText(Protocol):
    """Text too long to bind in one statement: its size in bytes as stored, and its bytes
    piece by piece (:func:`add_large`)."""

    size: int

    def pieces(self) -> Iterator[bytes]:
        """The stored bytes, in order."""
        ...


@dataclass(frozen=True)
class Sealed:
    """What an import accepted from one log: its first ``size`` bytes, with their SHA-256."""

    size: int
    sha256: str


def sealed(connection: sqlite3.Connection, path: str) -> Sealed | None:
    """The prefix accepted from the log at ``path`` so far, or None before its first import."""
    row = connection.execute(IMPORT_BY_PATH, {"path": path}).fetchone()
    return None if row is None else Sealed(*row)


def seal(
    connection: sqlite3.Connection, path: str, session_id: str, prefix: Sealed, now: datetime
) -> None:
    """Record the prefix accepted from the log at ``path`` (its session kept from the first
    import), for the next import's check."""
    params: dict[str, str | int] = {"path": path, "session_id": session_id}
    params |= {"sealed_size": prefix.size, "sealed_sha256": prefix.sha256}
    connection.execute(SAVE_IMPORT, params | {"imported_at": format_utc(now)})


def add_messages(deferral: Deferral, rows: Iterable[tuple[Any, ...]]) -> int:
    """Insert messages given as tuples in :data:`MESSAGE_COLUMNS` order (``created_at`` an
    aware datetime; ``content`` text, UTF-8 bytes or a memoryview of them stored as text, or
    a :class:`LargeText`), taking them from ``rows`` as it goes, in the transaction of
    ``deferral``, to be indexed at its end (paused here when there is a row); returns how
    many were inserted.

    Rows go in as multi-row INSERT ... VALUES statements of :data:`ROWS_PER_INSERT` rows
    (20,000 messages: 0.17 s of SQLite's time against 0.19 s row by row, measured), a
    :class:`LargeText` message on its own (:func:`add_large`).
    """
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return 0
    deferral.pause()
    connection, inserted, chunk = deferral.connection, 0, []
    for row in itertools.chain([first], rows):
        # Text is tested first: an isinstance of a runtime protocol reads the class's
        # attributes each time (0.3 s of a 20,000-message import, measured).
        if not isinstance(row[4], str | bytes | memoryview):
            add_large(deferral, row)
            inserted += 1
            continue
        chunk.append(row)
        if len(chunk) == ROWS_PER_INSERT:
            inserted += insert_rows(connection, chunk)
            chunk = []
    return inserted + insert_rows(connection, chunk)


def insert_rows(connection: sqlite3.Connection, chunk: Sequence[tuple[Any, ...]]) -> int:
    """Insert ``chunk`` (rows as in :func:`add_messages`) in one statement."""
    if not chunk:
        return 0
    values = ", ".join(["(?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?)"] * len(chunk))
    params = tuple(
        value
        for row in chunk
        for value in (*row[:5], format_utc(row[5]), *row[6:], stored_index_form(row[4]))
    )
    connection.execute(INSERT_MESSAGES + values, params)
    return len(chunk)


def add_large(deferral: Deferral, row: tuple[Any, ...]) -> None:
    """Insert one message whose text is a :class:`LargeText`, holding as little of it at once
    as SQLite allows: the row goes in with NUL text of the right size, the text is written
    into it in pieces read from the file through incremental blob I/O, and it is indexed
    from the table, with the transaction's other new messages
    (:func:`memstore.repository.bulk_index.deferred`) or, where the triggers indexed the
    placeholder, again on its own (:meth:`Deferral.text_written`). Bound to one INSERT
    beside the whole file's bytes, SQLite would hold the bound copy, the row's record and
    FTS5's position list together: 4.7 times a 16 MiB log of one message of one-letter
    words, against 3.5 times this way. A text with a CJK character is read whole, once, and
    its index form made from it twice, a piece at a time: once for its size, once written
    (found by review: made whole, with the UTF-8 of it, a 16 MiB log of one-character CJK
    lines took 606 MiB).

    Raises:
        ImportRejected: When the file no longer holds the parsed text (the caller's
            transaction must then roll back).
        OSError, FileError: When the file cannot be read again.
    """
    connection, text = deferral.connection, row[4]
    whole = cjk_text(text)
    size = None if whole is None else sum(map(len, encoded_form(whole)))
    params = (*row[:4], text.size, format_utc(row[5]), *row[6:], size)
    pk = connection.execute(INSERT_PLACEHOLDER[whole is not None], params).lastrowid
    assert pk is not None
    with connection.blobopen("messages", "content", pk) as blob:
        for piece in text.pieces():
            blob.write(piece)
    if whole is not None:
        with connection.blobopen("messages", "index_text", pk) as blob:
            for form in encoded_form(whole):
                blob.write(form)
    if searchable(row[3], row[6]):  # what the triggers index
        deferral.text_written(pk)


def cjk_text(text: LargeText) -> str | None:
    """A :class:`LargeText` read whole when it holds a CJK character, else None (looked for
    piece by piece; only then is the whole text read at once)."""
    if not any(map(LEAD_BYTES.search, text.pieces())):
        return None
    whole = b"".join(text.pieces()).decode()
    return whole if cjk.holds_cjk(whole) else None


def encoded_form(text: str) -> Iterator[bytes]:
    """The UTF-8 of the index form of ``text``, a piece at a time."""
    return (piece.encode() for piece in cjk.index_form_pieces(text))
