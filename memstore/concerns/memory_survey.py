"""The first pass of import-memories: everything the export's records show on their own and
about each other, checked before the database is opened (or created), so that a bad file
leaves nothing behind, not even a new database file.

Each record's own rules (:func:`memory_restore.memory_row`, :func:`check_message`,
:func:`check_session`), then between the records of the file: an id that comes twice, two
messages at one place of a session, a message and a tombstone of one source reference, two
active memories with one key or content, a message before its session or a source link
before its memory, a supersession cycle. A link to a record the file does not
hold (a message's session, a link's memory, ``superseded_by``) may name one already in the
database: that is checked in the write pass, except for a database that does not hold a
store yet, where it is refused here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memstore.concerns.memory_restore import NOWHERE
from memstore.concerns.restore_rows import (
    candidate_link,
    check_ids,
    check_message,
    check_session,
    cycle_reason,
    memory_row,
    supersession_cycle,
)
from memstore.repository.memories import StoredMemory
from memstore.schemas import transfer as records
from memstore.transfer.problems import refused


@dataclass
class Survey:
    """Reads an export's records once, then :meth:`finish` checks the links between them.

    Attributes:
        fresh: Whether the database holds no store yet (missing or empty): every link must
            then be to a record of the file.
        now: The time of the import (UTC).
        inactive: The status (not ``active``) and modification time of each memory the
            file holds out of force, by id.
    """

    fresh: bool
    now: datetime
    _sessions: set[str] = field(default_factory=set)
    _messages: set[str] = field(default_factory=set)
    _places: dict[tuple[str, int], str] = field(default_factory=dict)
    _refs: dict[str, tuple[str, str]] = field(default_factory=dict)
    _tombstones: dict[str, str] = field(default_factory=dict)
    _memories: set[str] = field(default_factory=set)
    _holders: dict[tuple[str, str], str] = field(default_factory=dict)
    _links: dict[str, tuple[str, str]] = field(default_factory=dict)
    _wanted: list[tuple[str, str, str]] = field(default_factory=list)
    inactive: dict[str, tuple[str, datetime]] = field(default_factory=dict)

    def add(self, where: str, record: records.Restorable) -> None:
        """Check one record found at ``where`` (a file, and line).

        Raises:
            InvalidInput: For a record that breaks a rule, or repeats an earlier one.
            SecretRejected: For a memory that looks like it holds a credential.
        """
        match record:
            case records.SessionRecord():
                check_session(where, record)
                self.once(where, "session", record.id, self._sessions)
            case records.MessageRecord():
                self.message(where, record)
            case records.MemoryRecord():
                self.memory(where, record)
            case records.MemorySourceRecord():
                if record.message_id is not None:
                    check_ids(where, "memory_source", message_id=record.message_id)
                if record.memory_id not in self._memories:
                    self._wanted.append((where, "memory", record.memory_id))
            case records.DeletedSourceRecord():
                self._tombstones.setdefault(record.source_ref, where)
                if (held := self._refs.get(record.source_ref)) is not None:
                    self.both(where, record.source_ref, *held, where)

    @staticmethod
    def once(where: str, kind: str, record_id: str, seen: set[str]) -> None:
        """Note a record's id; InvalidInput when the file held it already."""
        if record_id in seen:
            raise refused(where, f"{kind} {record_id} comes twice")
        seen.add(record_id)

    @staticmethod
    def apart(where: str, record_id: str, others: set[str]) -> None:
        """InvalidInput when a message and a memory of the file share ``record_id``: the
        ``message`` command reads either by its id (found by review: one hid the other)."""
        if record_id in others:
            raise refused(where, f"a message and a memory both have the id {record_id}")

    def message(self, where: str, record: records.MessageRecord) -> None:
        """Check a message, its id and its place in its session."""
        check_message(where, record)
        self.once(where, "message", record.id, self._messages)
        self.apart(where, record.id, self._memories)
        place = (record.session_id, record.sequence)
        if (other := self._places.setdefault(place, record.id)) != record.id:
            raise refused(
                where,
                f"messages {other} and {record.id} both take place {record.sequence} of "
                f"session {record.session_id}",
            )
        if record.session_id not in self._sessions:
            self._wanted.append((where, "session", record.session_id))
        if (ref := record.source_ref) is not None:
            self._refs.setdefault(ref, (record.id, where))
            if (tombstone := self._tombstones.get(ref)) is not None:
                self.both(where, ref, record.id, where, tombstone)

    @staticmethod
    def both(where: str, ref: str, message_id: str, message_at: str, tombstone_at: str) -> None:
        """Refuse a file holding a message and the tombstone of its source reference (an
        export holds one or the other): InvalidInput at ``where`` (the later of the two)
        naming both records."""
        raise refused(
            where,
            f"message {message_id} ({message_at}) and the deleted_source record "
            f"({tombstone_at}) both hold source_ref {ref!r}; a deleted message is not "
            "in an export, so remove one of them",
        )

    def memory(self, where: str, record: records.MemoryRecord) -> None:
        """Check a memory, its id, and that no other active memory of the file holds its key
        or content."""
        row = memory_row(record, where, self.now)
        self.once(where, "memory", record.id, self._memories)
        self.apart(where, record.id, self._messages)
        if row.status == "active":
            self.hold(where, row)
        else:
            self.inactive[record.id] = (row.status, row.modified_at)
        if record.superseded_by is not None:
            self._links[record.id] = (where, record.superseded_by)

    def hold(self, where: str, memory: StoredMemory) -> None:
        """Note the key and content an active memory holds; InvalidInput when another
        active memory of the file holds them."""
        for what, value in (("content", memory.normalized_content), ("key", memory.key)):
            if value is None:
                continue
            other = self._holders.setdefault((what, value), memory.id)
            if other != memory.id:
                shown = "content" if what == "content" else f"key {value!r}"
                raise refused(
                    where, f"memories {other} and {memory.id} are both active with one {shown}"
                )

    def finish(self) -> None:
        """Check the links between the records read.

        Raises:
            InvalidInput: For a message before its session, a source link before its
                memory, links that go round in a cycle or to a candidate, or (into a
                database without a store) a link to a record the file does not hold.
        """
        held = {"session": self._sessions, "memory": self._memories}
        for where, kind, record_id in self._wanted:
            if record_id in held[kind]:
                before = "its messages" if kind == "session" else "its memory_source lines"
                raise refused(
                    where, f"{kind} {record_id} comes later; it must come before {before}"
                )
            if self.fresh:
                raise refused(where, f"{kind} {record_id} is {NOWHERE}")
        for where, by in self._links.values():
            if self.fresh and by not in self._memories:
                raise refused(where, f"superseded_by {by} is {NOWHERE}")
            candidate_link(where, by, self.inactive.get(by, ("active",))[0])
        cleared: set[str] = set()
        for memory_id, (where, _) in self._links.items():
            found = supersession_cycle(memory_id, self.superseded_by, cleared)
            if found:
                raise refused(where, cycle_reason(found))

    def superseded_by(self, memory_id: str) -> str | None:
        """The file's supersession link of a memory (None where the file has none)."""
        link = self._links.get(memory_id)
        return None if link is None else link[1]
