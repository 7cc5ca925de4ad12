"""Export and import-memories: the records an export holds and the reports of both commands.

Every record is one JSON object of a JSONL export (one a line, named by ``type``), and a
memory record is also the front matter (plus body) of a Markdown memory file. The records
are input models too, so a misspelled or unknown field, a wrong type or a value outside an
enumeration fails loudly when an export is read back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

from memstore.kinds import (
    Category,
    MemoryStatus,
    MessageStatus,
    Origin,
    Role,
    TransferFormat,
    TransferScope,
)
from memstore.schemas.records import Result

FORMAT_VERSION: Literal[1] = 1
"""The version of the export format; an import refuses any other."""

Id = Annotated[str, StringConstraints(min_length=1, max_length=200)]
MemoryId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$")]
"""A memory id also names its Markdown file (``<id>.md``): ASCII letters, digits, ``_``,
``-`` and ``.`` (not first), at most 64 characters, as memstore's ``mem_<hex>`` ids are."""


class Record(BaseModel):
    """Base of the export records: frozen, strict about unknown fields, built from rows."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, from_attributes=True, use_attribute_docstrings=True
    )


class ExportHeader(Record):
    """The first line of a JSONL export: what it is and what it holds."""

    type: Literal["memstore_export"] = "memstore_export"
    format_version: Literal[1] = FORMAT_VERSION
    scope: TransferScope
    exported_at: AwareDatetime
    schema_version: int
    """The schema version of the database it was exported from."""


class ExportEnd(Record):
    """The last line of a JSONL export: how many records of each type precede it, so that a
    file cut at a line boundary is told from a whole one."""

    type: Literal["memstore_export_end"] = "memstore_export_end"
    counts: dict[str, int]


class SessionRecord(Record):
    """A session, as :class:`memstore.schemas.Session`."""

    type: Literal["session"] = "session"
    id: Id
    started_at: AwareDatetime
    ended_at: AwareDatetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class MessageRecord(Record):
    """A message with everything stored about it, as :class:`memstore.schemas.Message`."""

    type: Literal["message"] = "message"
    id: Id
    session_id: Id
    sequence: int = Field(ge=1)
    role: Role
    speaker: str | None = None
    content: str
    created_at: AwareDatetime
    status: MessageStatus = "completed"
    source_ref: str | None = None


class MemoryRecord(Record):
    """A memory, as :class:`memstore.schemas.Memory` (its status as shown: an active memory
    past its expiry is ``expired``)."""

    type: Literal["memory"] = "memory"
    id: MemoryId
    content: str
    category: Category
    key: str | None = None
    status: MemoryStatus
    origin: Origin = "explicit"
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    pinned: bool = False
    created_at: AwareDatetime
    modified_at: AwareDatetime
    expires_at: AwareDatetime | None = None
    superseded_by: MemoryId | None = None
    """The memory that replaced this one (in the export or already in the database)."""


class SourceLink(Record):
    """Where a memory came from, as written in a Markdown memory file's ``sources``."""

    message_id: Id | None = None
    source_ref: str | None = None


class MemorySourceRecord(Record):
    """A memory's link to the message (or source reference) it came from."""

    type: Literal["memory_source"] = "memory_source"
    memory_id: MemoryId
    message_id: Id | None = None
    source_ref: str | None = None


class DeletedSourceRecord(Record):
    """The tombstone of a deleted message's source reference: no import brings it back."""

    type: Literal["deleted_source"] = "deleted_source"
    source_ref: str = Field(min_length=1)
    deleted_at: AwareDatetime


Restorable = SessionRecord | MessageRecord | MemoryRecord | MemorySourceRecord | DeletedSourceRecord
"""A record an import writes into the database."""
AnyRecord = Annotated[ExportHeader | ExportEnd | Restorable, Field(discriminator="type")]
"""One line of a JSONL export, told apart by its ``type``."""


class ExportReport(Result):
    """What ``export`` wrote."""

    export: str
    """The absolute path of the new file (JSONL) or folder (Markdown)."""
    database: str
    """The database that was exported."""
    format: TransferFormat
    scope: TransferScope
    counts: dict[str, int]
    """Records written by type: ``session``, ``message``, ``memory``, ``memory_source``,
    ``deleted_source`` (JSONL); ``message``, ``memory``, ``day`` (Markdown: daily logs)."""
    speakers: dict[str, Role] = Field(default_factory=dict)
    """Markdown history: each speaker name the daily logs use and its role, the
    ``--speaker NAME=ROLE`` options that ``memstore import`` needs to read them back."""
    reshaped: int = 0
    """Markdown history: messages whose text the log form changes (a line that would start
    a record indented, a fence left open closed, line endings made ``\\n``)."""
    warnings: list[str] = Field(default_factory=list)
    """What the export could not keep as it is, one sentence each."""


class MemoryImportReport(Result):
    """What ``import_memories`` added; importing the same export again adds nothing."""

    path: str
    """The absolute path that was read."""
    database: str
    format: TransferFormat
    imported: int
    """Memories added."""
    skipped: int
    """Memories already in the database with the same id and content (left as they are)."""
    records: dict[str, dict[str, int]]
    """Per record type (``session``, ``message``, ``memory``, ``memory_source``,
    ``deleted_source``): ``{"imported": n, "skipped": n}``."""
