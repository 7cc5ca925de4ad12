"""The rules of restoring an export's records into a database, inside the import's one write
transaction: each record is written as it was (ids, statuses, times, links), or skipped when
the database already holds it, or stops the whole import.

- A memory whose id the database holds with the same content is skipped (the database's
  copy is kept as it is, whatever its status or pin); with other content it is an
  :class:`ImportConflict`. So is an active memory whose key or content another active
  memory holds.
- A memory's content and key pass the credential guard like any memory write: a refused
  one stops the import (:class:`SecretRejected` naming the record), nothing is written.
- ``superseded_by`` links are set once every memory is in, so they may point forwards; a
  link to a memory neither in the export nor in the database is refused.
- A message whose id is held by the same content, or whose source reference is stored or
  tombstoned, is skipped; its session must come first (or be in the database), and its
  place in the session must be free.
- A source link to a message that is not in the database keeps its source reference only.
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from memstore.arguments import valid_unicode
from memstore.concerns.history import check_content
from memstore.concerns.memory_rules import clean_content, normalize_content, normalize_key
from memstore.concerns.supersede import holder
from memstore.errors import ImportConflict, InvalidInput, SecretRejected
from memstore.logs.write import check_speaker
from memstore.repository import memories, messages, sessions
from memstore.repository import transfer as rows
from memstore.repository.memories import StoredMemory
from memstore.repository.messages import StoredMessage
from memstore.repository.sessions import StoredSession
from memstore.schemas.transfer import (
    DeletedSourceRecord,
    MemoryRecord,
    MemorySourceRecord,
    MessageRecord,
    Restorable,
    SessionRecord,
)
from memstore.transfer.problems import refused

NOWHERE = "neither in the export nor in the database"


@dataclass
class Restore:
    """Restores records one by one into ``connection`` (the import's transaction), then
    :meth:`finish` sets the supersession links.

    Attributes:
        tally: Per record type, how many were ``imported`` and ``skipped``.
    """

    connection: sqlite3.Connection
    now: datetime
    tally: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    _inserted: set[str] = field(default_factory=set)
    _kept: set[str] = field(default_factory=set)
    _sessions: set[str] = field(default_factory=set)
    _links: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, where: str, record: Restorable) -> None:
        """Restore (or skip) one record found at ``where`` (a file, and line).

        Raises:
            InvalidInput: For a record that breaks a rule (named with ``where``).
            ImportConflict: For a record the database holds otherwise.
            SecretRejected: For a memory that looks like it holds a credential.
        """
        match record:
            case SessionRecord():
                done = self.session(record)
            case MessageRecord():
                done = self.message(where, record)
            case MemoryRecord():
                done = self.memory(where, record)
            case MemorySourceRecord():
                done = self.memory_source(where, record)
            case DeletedSourceRecord():
                done = rows.add_tombstone(
                    self.connection, rows.Tombstone(record.source_ref, record.deleted_at)
                )
        self.tally[record.type]["imported" if done else "skipped"] += 1

    def session(self, record: SessionRecord) -> bool:
        """Add a session the database does not hold; True when added."""
        self._sessions.add(record.id)
        if sessions.get(self.connection, record.id) is not None:
            return False
        stored = StoredSession(record.id, record.started_at, record.ended_at, record.metadata)
        sessions.add(self.connection, stored)
        return True

    def message(self, where: str, record: MessageRecord) -> bool:
        """Add a message at its place in its session; True when added."""
        check_message(where, record)
        existing = messages.get_message(self.connection, record.id)
        if existing is not None:
            if existing.content != record.content:
                raise ImportConflict(where, record.id, "is in the database with other content")
            return False
        ref = record.source_ref
        if ref is not None and (
            messages.is_tombstoned(self.connection, ref)
            or messages.message_by_source(self.connection, ref) is not None
        ):
            return False  # the same record, stored (or deleted) under another id
        self.require_session(where, record.session_id)
        taken = rows.sequence_holder(self.connection, record.session_id, record.sequence)
        if taken is not None:
            place = f"place {record.sequence} of session {record.session_id}"
            raise ImportConflict(where, record.id, f"needs {place}, which {taken} holds")
        messages.add_message(self.connection, message_row(record))
        return True

    def require_session(self, where: str, session_id: str) -> None:
        """Raise InvalidInput unless the session is in the export or the database."""
        if session_id in self._sessions:
            return
        if sessions.get(self.connection, session_id) is None:
            raise refused(where, f"session {session_id} is {NOWHERE}")
        self._sessions.add(session_id)

    def memory(self, where: str, record: MemoryRecord) -> bool:
        """Add a memory as it was (its supersession link comes in :meth:`finish`); True when
        added."""
        if record.id in self._inserted or record.id in self._kept:
            raise refused(where, f"memory {record.id} comes twice")
        memory = memory_row(record, where)
        existing = memories.get(self.connection, record.id)
        if existing is not None:
            if existing.content != memory.content:
                raise ImportConflict(where, record.id, "is in the database with other content")
            self._kept.add(record.id)
            return False
        if memory.status == "active":
            self.require_free(where, memory)
        memories.insert(self.connection, memory)
        self._inserted.add(record.id)
        if record.superseded_by is not None:
            self._links.append((where, record.id, record.superseded_by))
        return True

    def require_free(self, where: str, memory: StoredMemory) -> None:
        """Raise ImportConflict when another active memory holds this one's content or key."""
        for what, found in (
            ("content", holder(self.connection, self.now, normalized=memory.normalized_content)),
            (f"key {memory.key!r}", holder(self.connection, self.now, key=memory.key)),
        ):
            if found is not None:
                reason = f"is active with the {what} that active memory {found.id} holds"
                raise ImportConflict(where, memory.id, reason)

    def memory_source(self, where: str, record: MemorySourceRecord) -> bool:
        """Link a memory added by this import to its source; True when linked."""
        if record.memory_id not in self._inserted:
            if record.memory_id in self._kept or memories.get(self.connection, record.memory_id):
                return False  # a memory already there keeps its own links
            raise refused(where, f"memory {record.memory_id} is {NOWHERE} (or comes after)")
        message = None
        if record.message_id is not None:
            message = messages.get_message(self.connection, record.message_id)
        if message is None and record.source_ref is not None:
            message = messages.message_by_source(self.connection, record.source_ref)
        message_id = None if message is None else message.id
        memories.add_source(self.connection, record.memory_id, message_id, record.source_ref)
        return True

    def finish(self) -> None:
        """Set the supersession links of the memories added.

        Raises:
            InvalidInput: For a link to a memory neither in the export nor in the database.
        """
        for where, memory_id, by in self._links:
            known = by in self._inserted or by in self._kept
            if not known and memories.get(self.connection, by) is None:
                raise refused(where, f"superseded_by {by} is {NOWHERE}")
            rows.set_superseded_by(self.connection, memory_id, by)


def check(where: str, record: Restorable) -> None:
    """Check what a record alone can show (:func:`check_message`, :func:`memory_row`).

    Raises:
        InvalidInput: For a message or memory that breaks a rule.
        SecretRejected: For a memory that looks like it holds a credential.
    """
    if isinstance(record, MessageRecord):
        check_message(where, record)
    elif isinstance(record, MemoryRecord):
        memory_row(record, where)


def check_message(where: str, record: MessageRecord) -> None:
    """Raise InvalidInput (argument ``path``) for a message ``record_message`` would refuse:
    blank content, text that is not valid Unicode, a speaker name a log cannot hold."""
    try:
        check_content(record.content)
        if record.speaker is not None:
            check_speaker(record.speaker)
    except InvalidInput as error:
        raise refused(where, str(error)) from error


def memory_row(record: MemoryRecord, where: str) -> StoredMemory:
    """The row of a memory record, its content and key checked as any memory write's.

    Raises:
        InvalidInput: For empty, too long or invalid content, a key too long, or a
            ``superseded_by`` on a memory that is not superseded (or on itself).
        SecretRejected: When the content or the key looks like a credential.
    """
    place = f"{where} (memory {record.id})"
    try:
        if not valid_unicode(record.content) or "\0" in record.content:
            raise InvalidInput("content", "holds a NUL or text that is not valid Unicode.")
        content, key = clean_content(record.content), normalize_key(record.key)
    except InvalidInput as error:
        raise refused(place, str(error)) from error
    if record.superseded_by is not None and record.status != "superseded":
        raise refused(place, f"superseded_by is set but the status is {record.status}")
    if record.superseded_by == record.id:
        raise refused(place, "superseded_by names the memory itself")
    guard(content, record.key, place)
    return StoredMemory(
        **record.model_dump(exclude={"type", "content", "key", "superseded_by"}),
        content=content,
        normalized_content=normalize_content(content),
        key=key,
        superseded_by=None,
    )


def guard(content: str, key: str | None, place: str) -> None:
    """Refuse a credential in the content or key, as every memory write does.

    Raises:
        SecretRejected: Naming ``place`` and the field, never the text.
    """
    from memstore.guard import reject_secrets  # detect-secrets: only for memory writes

    for argument, text in (("content", content), ("key", key)):
        try:
            if text is not None:
                reject_secrets(text, argument)
        except SecretRejected as error:
            raise SecretRejected(f"{place} {argument}", error.kind, error.length) from error


def message_row(record: MessageRecord) -> StoredMessage:
    """The row of a message record."""
    return StoredMessage(**record.model_dump(exclude={"type"}))
