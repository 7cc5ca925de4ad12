"""The JSONL export: one JSON object a line (UTF-8, non-ASCII as is), each named by its
``type``. The first line is the header (:class:`ExportHeader`), the last the end line
(:class:`ExportEnd`) counting every record between them, so that a file cut short, even at
a line boundary, is refused rather than half imported.

Only ``\\n`` ends a line: a U+2028 or a lone ``\\r`` inside a string is content. A UTF-8
BOM before the first line (an editor's) is dropped. Records are read strictly
(:mod:`memstore.schemas.transfer`).
"""

from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from memstore import files, open_stores
from memstore.errors import FileError
from memstore.json_text import first_repeated_key
from memstore.schemas.record_times import READ_BACK
from memstore.schemas.transfer import (
    AnyRecord,
    ExportEnd,
    ExportHeader,
    Record,
    Restorable,
)
from memstore.transfer.problems import describe, refused

RECORDS: TypeAdapter[AnyRecord] = TypeAdapter(AnyRecord)
TYPES = ("session", "message", "memory", "memory_source", "deleted_source")
"""The record types of an export of the whole store, in the order it writes them."""
MEMORY_TYPES = ("memory", "memory_source")
"""Those of an export of the memories only."""
HISTORY_TYPES = frozenset(TYPES) - frozenset(MEMORY_TYPES)


def line(record: Record) -> bytes:
    """``record`` as one line of the export, ending with ``\\n``."""
    return record.model_dump_json().encode("utf-8") + b"\n"


def records(path: Path) -> Iterator[tuple[str, Restorable]]:
    """The records of the JSONL export at ``path``, each with where it is (``<path> line
    <n>``), between its header and its end line (neither is yielded); read as consumed.

    Raises:
        InvalidInput: (argument ``path``) For a line that is not UTF-8, not JSON, not a
            record (unknown ``type``, a missing, misspelled or wrong field, a value outside
            its enumeration), a first line that is no header, a history record in an export
            of memories only, anything after the end line, or a file without its end line
            or whose end line's counts disagree with the records.
        FileError: If ``path`` is not a regular file or cannot be read.
    """
    header: ExportHeader | None = None
    end: ExportEnd | None = None
    counts: Counter[str] = Counter()
    for number, raw in numbered_lines(path):
        where = f"{path} line {number}"
        record = parse(raw, where)
        if end is not None:
            raise refused(where, "a record after the memstore_export_end line, which ends the file")
        if header is None:
            header = first(record, where)
            continue
        if isinstance(record, ExportHeader):
            raise refused(where, "a second memstore_export header (import each export on its own)")
        if isinstance(record, ExportEnd):
            end = record
            check_counts(record, counts, where)
            continue
        if header.scope == "memories" and record.type in HISTORY_TYPES:
            raise refused(where, f"a {record.type} record in an export of memories only")
        counts[record.type] += 1
        yield where, record
    if header is None:
        raise refused(str(path), "empty, not a file written by memstore export")
    if end is None:
        raise refused(str(path), "no memstore_export_end line at the end: the file was cut short")


def numbered_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of the file at ``path`` with their 1-based numbers, split at
    ``\\n`` only, without a BOM before the first.

    Raises:
        FileError: If ``path`` is not a regular file or cannot be read.
    """
    files.regular(path, "the export")  # a FIFO or a device is refused before it is opened
    open_stores.not_a_store(path)
    try:
        with path.open("rb") as stream:
            for number, raw in enumerate(stream, start=1):
                if number == 1:
                    raw = raw.removeprefix(codecs.BOM_UTF8)
                if raw.strip():
                    yield number, raw
    except OSError as error:
        raise FileError(str(path), f"cannot be read ({error.strerror or error}).") from error


def parse(raw: bytes, where: str) -> AnyRecord:
    """The record one line holds.

    Raises:
        InvalidInput: If it is not UTF-8, not JSON, gives a key twice or is not a valid
            record.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise refused(where, f"not UTF-8 (byte {error.start} of the line)") from error
    repeated = first_repeated_key(text)
    if repeated is not None:  # found by review: the last one was taken, silently
        raise refused(where, f"the key {repeated!r} is given twice in one object; keep one")
    try:
        return RECORDS.validate_json(text, strict=True, context=READ_BACK)
    except ValidationError as error:
        raise refused(where, describe(error)) from error


def first(record: AnyRecord, where: str) -> ExportHeader:
    """The header the first line must be.

    Raises:
        InvalidInput: For any other record.
    """
    if not isinstance(record, ExportHeader):
        raise refused(
            where, 'not a memstore export: the first line must be {"type": "memstore_export", ...}'
        )
    return record


def check_counts(end: ExportEnd, counts: Counter[str], where: str) -> None:
    """Raise InvalidInput unless the end line counts exactly the records read."""
    expected = {kind: n for kind, n in end.counts.items() if n}
    if expected != dict(counts):
        raise refused(
            where,
            f"the end line counts {expected} records, but the file holds {dict(counts)}: "
            "records are missing or were added",
        )
