"""Export and import-memories: the records an export holds and the reports of both commands.

Every record is one JSON object of a JSONL export (one a line, named by ``type``), and a
memory record is also the front matter (plus body) of a Markdown memory file. The records
are input models too, so a misspelled or unknown field, a wrong type or a value outside an
enumeration fails loudly when an export is read back.

Read back, a record is validated strictly (``strict=True``): every field an export writes is
required (``null`` where it is null), ``true`` is no ``"yes"`` or ``1``, a number no string,
and a time is ISO 8601 text with a zone, in the years 1 to 9999 once in UTC. A Markdown
memory file's front matter may leave some fields out
(:data:`memstore.transfer.memory_files.DEFAULTS`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
)

from memstore.kinds import (
    Category,
    MemoryStatus,
    MessageStatus,
    Origin,
    Role,
    TransferFormat,
    TransferScope,
)
from memstore.schemas.record_times import ExpiryTime, StoredTime, Time
from memstore.schemas.records import Result

FORMAT_VERSION = 1
"""The version of the export format; an import refuses any other."""


def known_format(value: int) -> int:
    """``value`` when it is :data:`FORMAT_VERSION`.

    Raises:
        ValueError: For any other (pydantic names the field).
    """
    if value != FORMAT_VERSION:
        raise ValueError(f"is {value}; this memstore reads format {FORMAT_VERSION} only")
    return value


# An integer: Literal[1] took true and 1.0 for 1, strict or not (found by review).
FormatVersion = Annotated[int, Field(strict=True), AfterValidator(known_format)]


Id = str
"""A session or message id, as the store holds it: an export writes whatever an older
memstore stored (found by review: a schema rule made such a store's export a traceback);
the import checks each as the API checks a chosen id (``concerns.restore_rows.check_ids``)."""
MemoryId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$")]
"""A memory id also names its Markdown file (``<id>.md``): ASCII letters, digits, ``_``,
``-`` and ``.`` (not first), at most 64 characters, as memstore's ``mem_<hex>`` ids are."""
MAX_SEQUENCE = 2**63 - 1
"""The largest sequence SQLite's INTEGER holds."""


def not_blank(value: str) -> str:
    """``value`` when it holds more than white space.

    Raises:
        ValueError: If it is empty or blank, which no API call stores as a source reference
            (pydantic names the field).
    """
    if not value.strip():
        raise ValueError("is blank; give where the message came from, or null for none")
    return value


SourceRef = Annotated[str, AfterValidator(not_blank)]
"""A source reference: where a message came from (``<file>#byte=<offset>``), never blank."""


class Record(BaseModel):
    """Base of the export records: frozen, strict about unknown fields, built from rows."""

    model_config = ConfigDict(extra="forbid", frozen=True, from_attributes=True)


class ExportHeader(Record):
    """The first line of a JSONL export: what it is and what it holds."""

    type: Literal["memstore_export"] = "memstore_export"
    format_version: FormatVersion
    scope: TransferScope
    exported_at: Time
    schema_version: int
    """The schema version of the database it was exported from."""


class ExportEnd(Record):
    """The last line of a JSONL export: how many records of each type precede it, so that a
    file cut at a line boundary is told from a whole one."""

    type: Literal["memstore_export_end"] = "memstore_export_end"
    counts: dict[str, int]


def strict_json(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` when JSON's own rules hold it: no NaN or infinity, which Python's JSON and
    pydantic's parser take but the API refuses (found by review: an import stored ``NaN``).

    Raises:
        ValueError: If it holds NaN or an infinity.
    """
    json.dumps(value, allow_nan=False)
    return value


class SessionRecord(Record):
    """A session, as :class:`memstore.schemas.Session`."""

    type: Literal["session"] = "session"
    id: Id
    started_at: StoredTime
    ended_at: StoredTime | None
    metadata: Annotated[dict[str, Any], AfterValidator(strict_json)]


class MessageRecord(Record):
    """A message with everything stored about it, as :class:`memstore.schemas.Message`."""

    type: Literal["message"] = "message"
    id: Id
    session_id: Id
    sequence: int = Field(ge=1, le=MAX_SEQUENCE)
    role: Role
    speaker: str | None
    content: str
    created_at: StoredTime
    status: MessageStatus
    source_ref: SourceRef | None


class MemoryRecord(Record):
    """A memory, as :class:`memstore.schemas.Memory` (its status as shown: an active memory
    past its expiry is ``expired``)."""

    type: Literal["memory"] = "memory"
    id: MemoryId
    content: str
    category: Category
    key: str | None
    status: MemoryStatus
    origin: Origin
    confidence: float = Field(ge=0.0, le=1.0)
    pinned: bool
    created_at: StoredTime
    modified_at: StoredTime
    expires_at: ExpiryTime | None
    superseded_by: MemoryId | None
    """The memory that replaced this one (in the export or already in the database)."""


class SourceLink(Record):
    """Where a memory came from, as written in a Markdown memory file's ``sources`` (either
    key may be left out there: null)."""

    message_id: Id | None = None
    source_ref: SourceRef | None = None


class MemorySourceRecord(Record):
    """A memory's link to the message (or source reference) it came from."""

    type: Literal["memory_source"] = "memory_source"
    memory_id: MemoryId
    message_id: Id | None
    source_ref: SourceRef | None


class DeletedSourceRecord(Record):
    """The tombstone of a deleted message's source reference: no import brings it back."""

    type: Literal["deleted_source"] = "deleted_source"
    source_ref: SourceRef
    deleted_at: StoredTime


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
    """Records written by type, every type the format and scope hold (0 included):
    ``session``, ``message``, ``memory``, ``memory_source``, ``deleted_source`` (JSONL;
    ``memory`` and ``memory_source`` for the memories only); ``memory``, ``message``,
    ``day`` (Markdown, ``day`` the daily logs; ``memory`` for the memories only)."""
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
    """Memories already in the database with the same id, as new as the export's (and the
    same content) or newer (left as they are)."""
    updated: int = 0
    """Memories already in the database with the same id whose export copy is newer (a
    later ``modified_at``): their content, status, pin, links and other fields taken from
    it."""
    records: dict[str, dict[str, int]]
    """Per record type (``session``, ``message``, ``memory``, ``memory_source``,
    ``deleted_source``): ``{"imported": n, "skipped": n, "updated": n, "deleted": n}``
    (``updated``: a memory made newer, a session ended since, a message moved to its
    place, a source link given the message it names;
    ``deleted``: messages of the database deleted because the export holds the tombstone
    of their source reference, 0 for the other types)."""
