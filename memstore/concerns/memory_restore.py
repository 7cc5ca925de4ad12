"""The rules of restoring an export's records into a database, inside the import's one write
transaction: each record is written as it was (ids, statuses, times, links), or skipped when
the database already holds it, or updated when it holds an older state of it, or stops the
whole import. What the file alone can show was checked before
(:mod:`memstore.concerns.memory_survey`).

- A memory whose id the database holds is the same memory. When the export's
  ``modified_at`` is later than the database's, the export holds a newer state of it (a
  sync: edited in place, superseded, pinned, its key or expiry changed since): its content,
  category, key, status, origin, confidence, pin, expiry, modification time and
  ``superseded_by`` replace the database's (``updated``; a new content is stored, indexed
  and normalised as :func:`supersede.update` stores one, and passes the credential guard);
  when it is earlier, the database's copy is newer and kept as it is (skipped); equally
  old, the same content is skipped and other content is an :class:`ImportConflict`.
- An active memory whose key or content another active memory holds (in the database, or
  written earlier in the file) is an :class:`ImportConflict`; an active one past its expiry
  is marked expired and frees them, as any write does, and so does one whose newer state in
  the file is out of force (given that status at once, its record restores the rest when it
  comes): in a sync, the file's order does not count (found by review: a Markdown export's
  files sort by their random ids, so the new holder of a key could come before the memory
  it superseded; a JSONL export's older memory that took a newer one's key came first).
- A memory's content and key pass the credential guard like any memory write: a refused
  one stops the import (:class:`SecretRejected` naming the record), nothing is written.
- ``superseded_by`` links are set once every memory is in, so they may point forwards; a
  link to a memory neither in the export nor in the database, or one closing a cycle, is
  refused.
- A message whose id is held by the same content, or whose source reference is stored or
  tombstoned, is skipped, or moved to the export's place in its session (``updated``); its
  session must come first (or be in the database), and once every record is in, no other
  message may hold its place (see :mod:`~memstore.concerns.message_places`).
- A tombstone (a message deleted in the exported store) whose source reference a stored
  message holds deletes that message as :meth:`MemoryService.delete_message` does: its
  search entry goes, its memories' links keep the source reference (counted as the
  message's ``deleted``). A deleted memory is not carried: an export holds what is, not
  what was removed.
- A session the database holds is skipped, or ended when the export ended it and the
  database did not, its start the same in both (``updated``).
- A source link the memory holds already is skipped. One to a message the database does not
  hold keeps its source reference only; one with neither the message nor a source reference
  is skipped (a later import that brings the message adds it), and a link stored without its
  message gets it when an import brings that message (``updated``).
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from memstore.concerns.message_places import Places, free_place
from memstore.concerns.restore_rows import (
    candidate_link,
    cycle_reason,
    memory_row,
    message_row,
    supersession_cycle,
)
from memstore.errors import ImportConflict
from memstore.repository import memories, messages, sessions
from memstore.repository import transfer as rows
from memstore.repository.memories import StoredMemory, StoredSource
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
Outcome = Literal["imported", "skipped", "updated"]


@dataclass
class Restore:
    """Restores records one by one into ``connection`` (the import's transaction), then
    :meth:`finish` sets the supersession links.

    Attributes:
        inactive: The status and modification time of each memory the file holds out of
            force, by id (:attr:`Survey.inactive <memstore.concerns.memory_survey.Survey>`).
        tally: Per record type, how many were ``imported``, ``skipped`` and ``updated``
            (and for ``message``, ``deleted``: stored messages a tombstone of the file
            deleted).
    """

    connection: sqlite3.Connection
    now: datetime
    inactive: Mapping[str, tuple[str, datetime]] = field(default_factory=dict)
    tally: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    _written: set[str] = field(default_factory=set)
    _kept: set[str] = field(default_factory=set)
    _sessions: set[str] = field(default_factory=set)
    _links: list[tuple[str, str, str]] = field(default_factory=list)
    _places: Places = field(default_factory=Places)

    def add(self, where: str, record: Restorable) -> None:
        """Restore (or skip, or update) one record found at ``where`` (a file, and line).

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
                done = self.deleted_source(record)
        self.tally[record.type][done] += 1

    def session(self, record: SessionRecord) -> Outcome:
        """Add a session the database does not hold; end one it holds unended that the
        export, starting it at the same moment, ended (a sync: found by review, the end
        never came). One of the same id started at another moment keeps its end as it is:
        the export's could fall before its start (found by review)."""
        self._sessions.add(record.id)
        held = sessions.get(self.connection, record.id)
        if held is not None:
            other = held.started_at != record.started_at
            if other or held.ended_at is not None or record.ended_at is None:
                return "skipped"
            sessions.end(self.connection, record.id, record.ended_at)
            return "updated"
        stored = StoredSession(record.id, record.started_at, record.ended_at, record.metadata)
        sessions.add(self.connection, stored)
        return "imported"

    def message(self, where: str, record: MessageRecord) -> Outcome:
        """Add a message at its place in its session."""
        existing = messages.get_message(self.connection, record.id)
        if existing is not None:
            if existing.content != record.content:
                raise ImportConflict(where, record.id, "is in the database with other content")
            if (existing.session_id, existing.sequence) == (record.session_id, record.sequence):
                return "skipped"
            if existing.session_id != record.session_id:
                raise ImportConflict(where, record.id, "is in the database in another session")
            self._places.want(where, record.session_id, record.id, record.sequence)
            return "updated"
        ref = record.source_ref
        if ref is not None and (
            messages.is_tombstoned(self.connection, ref)
            or messages.message_by_source(self.connection, ref) is not None
        ):
            return "skipped"  # the same record, stored (or deleted) under another id
        self.require_session(where, record.session_id)
        if memories.get(self.connection, record.id) is not None:  # `message` reads either
            raise ImportConflict(where, record.id, "is the id of a memory in the database")
        stored = message_row(record)
        if rows.sequence_holder(self.connection, record.session_id, record.sequence):
            self._places.want(where, record.session_id, record.id, record.sequence)
            place = free_place(self.connection, record.session_id)
            stored = dataclasses.replace(stored, sequence=place)
        messages.add_message(self.connection, stored)
        return "imported"

    def deleted_source(self, record: DeletedSourceRecord) -> Outcome:
        """Tombstone a source reference, deleting the message the database holds under it
        (as :func:`messages.delete_message` deletes one for ``delete_message``)."""
        held = messages.message_by_source(self.connection, record.source_ref)
        if held is not None:
            messages.delete_message(self.connection, held.id, record.deleted_at)
            self.tally["message"]["deleted"] += 1
            return "imported"
        tombstone = rows.Tombstone(record.source_ref, record.deleted_at)
        return "imported" if rows.add_tombstone(self.connection, tombstone) else "skipped"

    def require_session(self, where: str, session_id: str) -> None:
        """Raise InvalidInput unless the session is in the export or the database."""
        if session_id in self._sessions:
            return
        if sessions.get(self.connection, session_id) is None:
            raise refused(where, f"session {session_id} is {NOWHERE}")
        self._sessions.add(session_id)

    def memory(self, where: str, record: MemoryRecord) -> Outcome:
        """Add a memory as it was, or give the stored one the export's newer state, its
        content included (its supersession link comes in :meth:`finish`)."""
        memory = memory_row(record, where, self.now)
        existing = memories.get(self.connection, record.id)
        if existing is not None and memory.modified_at <= existing.modified_at:
            if memory.modified_at == existing.modified_at and existing.content != memory.content:
                reason = "is in the database with other content, modified at the same time"
                raise ImportConflict(where, record.id, reason)
            self._kept.add(record.id)
            return "skipped"  # the database's copy is as new, or newer (edited since)
        if existing is None and messages.get_message(self.connection, record.id) is not None:
            raise ImportConflict(where, record.id, "is the id of a message in the database")
        if memory.status == "active":
            self.require_free(where, memory)
        if existing is None:
            memories.insert(self.connection, memory)
        else:
            if existing.content != memory.content:
                memories.revise(self.connection, memory)  # content, its index and normal form
            rows.restore_state(self.connection, memory)
        self._written.add(record.id)
        if record.superseded_by is not None:
            self._links.append((where, record.id, record.superseded_by))
        return "imported" if existing is None else "updated"

    def memory_source(self, where: str, record: MemorySourceRecord) -> Outcome:
        """Link a memory to its source, unless it holds that link already."""
        known = record.memory_id in self._written or record.memory_id in self._kept
        if not known and memories.get(self.connection, record.memory_id) is None:
            raise refused(where, f"memory {record.memory_id} is {NOWHERE}")
        message = None
        if record.message_id is not None:
            message = messages.get_message(self.connection, record.message_id)
        if message is None and record.source_ref is not None:
            message = messages.message_by_source(self.connection, record.source_ref)
        message_id = None if message is None else message.id
        link = StoredSource(record.memory_id, message_id, record.source_ref)
        held = memories.sources(self.connection, record.memory_id)
        if link in held or (link.message_id is None and link.source_ref is None):
            return "skipped"
        unnamed = StoredSource(link.memory_id, None, link.source_ref)
        if link.message_id is not None and link.source_ref is not None and unnamed in held:
            rows.fill_source(self.connection, link.memory_id, link.message_id, link.source_ref)
            return "updated"
        memories.add_source(self.connection, link.memory_id, link.message_id, link.source_ref)
        return "imported"

    def finish(self) -> None:
        """Move the messages to the places the export gives them (see
        :mod:`~memstore.concerns.message_places`), then set the supersession links of the
        memories written.

        Raises:
            ImportConflict: For two messages at one place of a session.
            InvalidInput: For a link to a memory neither in the export nor in the database,
                or to a candidate, or links that go round in a cycle.
        """
        self._places.settle(self.connection)
        for where, memory_id, by in self._links:
            holder = memories.get(self.connection, by)
            if holder is None:
                raise refused(where, f"superseded_by {by} is {NOWHERE}")
            candidate_link(where, by, holder.status)
            rows.set_superseded_by(self.connection, memory_id, by)
        cleared: set[str] = set()
        for where, memory_id, _ in self._links:
            found = supersession_cycle(memory_id, self.superseded_by, cleared)
            if found:
                raise refused(where, cycle_reason(found))

    def require_free(self, where: str, memory: StoredMemory) -> None:
        """Raise ImportConflict when another active memory holds this one's content or key;
        one past its expiry is marked expired instead, as :func:`supersede.holder` does, and
        one the file holds out of force in a newer state is given that status."""
        for what, normalized, key in (
            ("content", memory.normalized_content, None),
            (f"key {memory.key!r}", None, memory.key),
        ):
            if normalized is None and key is None:
                continue
            while found := rows.active_rival(self.connection, memory.id, normalized, key):
                later = self.inactive.get(found.id)
                if found.expired(self.now):
                    memories.retire(self.connection, [found.id], "expired", self.now)
                elif later is not None and later[1] > found.modified_at:
                    rows.set_status(self.connection, found.id, later[0])
                else:
                    reason = f"is active with the {what} that active memory {found.id} holds"
                    raise ImportConflict(where, memory.id, reason)

    def superseded_by(self, memory_id: str) -> str | None:
        """The stored supersession link of a memory (None for none, or no such memory)."""
        stored = memories.get(self.connection, memory_id)
        return None if stored is None else stored.superseded_by
