"""The reports of the maintenance calls: import, health check and backup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

from memstore.schemas.records import Result


class ImportWarning(Result):
    """A problem in one place of a file; the rest of the file was still read."""

    kind: str
    byte: int
    """Byte offset in the raw file where the problem starts."""
    message: str


class FileImport(Result):
    """The import of one daily log file."""

    path: str
    session_id: str | None
    imported: int
    skipped: int
    """Records already stored or tombstoned."""
    deferred: int
    """Records not yet sealed (the final record, unless include_tail)."""
    sealed_size: int
    """Bytes of the file accepted so far."""
    warnings: list[ImportWarning]
    """The first 100 warnings in file order, then one ``more_warnings`` entry counting the
    rest by kind."""
    error: str | None
    warning_counts: dict[str, int] = Field(default_factory=dict)
    """How many warnings of each kind the file gave, listed or not."""
    unknown_speakers: dict[str, int] = Field(default_factory=dict)
    """Records not imported because no ``--speaker`` option maps their speaker: name ->
    records (the first 100 names)."""


ImportProgress = Callable[[FileImport], None]
"""What an import calls with each file's report as that file completes."""


class ImportReport(Result):
    """The import of every file given."""

    files: list[FileImport]
    imported: int
    errors: int
    skipped: int = 0
    """Records of every file already stored or tombstoned."""
    deferred: int = 0
    """Final records of every file left for a later import (see ``include_tail``)."""
    unknown_speakers: dict[str, int] = Field(default_factory=dict)
    """Records of every file whose speaker no ``--speaker`` option maps: name -> records."""


class FtsCheck(Result):
    """FTS5 integrity-check of one index."""

    index: str
    ok: bool
    error: str | None


class HealthReport(Result):
    """Database health: integrity, foreign keys, FTS5 indexes, schema version, row counts."""

    ok: bool
    database: str
    integrity: str
    """``ok`` or SQLite's integrity_check findings."""
    foreign_key_errors: list[dict[str, Any]]
    fts: list[FtsCheck]
    schema_version: int
    code_version: int
    counts: dict[str, int]
    problems: list[str]
    """One sentence per finding, saying what is wrong and where; empty when ``ok``."""
    read_only: bool = False
    """True when this process cannot write the database: it was checked as it is, the FTS5
    indexes on a private temporary copy."""
    read_only_reason: str | None = None
    """Why the database cannot be written, when ``read_only``."""


class BackupReport(Result):
    """A backup copy written with SQLite's online backup API, and the check of that copy."""

    backup: str
    """The absolute path of the new copy."""
    database: str
    """The database that was copied."""
    bytes: int
    """Size of the copy in bytes (one self-contained file: no -wal needed)."""
    ok: bool
    """The copy passed every check of :class:`HealthReport` on its own."""
    schema_version: int
    counts: dict[str, int]
    """Row counts of the main tables in the copy."""
    problems: list[str]
    """What the check of the copy found; empty when ``ok``."""
