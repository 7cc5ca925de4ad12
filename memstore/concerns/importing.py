"""Importing daily Markdown logs (LOGFORMAT.md): each file read and parsed, one at a time
(:mod:`memstore.concerns.import_files`), then stored in a savepoint of its own
(:mod:`memstore.concerns.import_records`), so that it goes in whole or not at all. A
file-level problem is that file's report, never an exception, and the other files go on.

Files are stored in batches: one write transaction per :data:`BATCH_RECORDS` records,
:data:`BATCH_BYTES` of logs or :data:`BATCH_FILES` files or so, whose new messages are
indexed together at its end (:func:`memstore.repository.bulk_index.deferred`), instead of a
transaction and an index write per file. A batch's first file is parsed before its
transaction begins, the others inside it. The batch bounds how long the write lock is held
(a batch took 0.12 s at 20,000 messages and 0.22 s at a million, parsing included; a live
write waits at most 500 ms, trying every millisecond, so it gets in between two batches, see
:mod:`memstore.store.write_lock`) and how much a crash undoes: a crash or a kill loses the
batch it interrupts, whole files only, and the next import stores them again."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from memstore import paths as path_rules
from memstore.concerns import import_files, import_records
from memstore.concerns.import_files import LoadedLog
from memstore.errors import ImportRejected
from memstore.repository import bulk_index
from memstore.schemas import FileImport, ImportProgress, ImportReport
from memstore.speakers import speaker_roles
from memstore.store.database import Database
from memstore.store.savepoints import savepoint
from memstore.times import utc_now

BATCH_RECORDS = 2000
"""Records read, imported or not, after which a batch's transaction is committed (its last
file completes it): the work of a batch is reading its records, whether they are new."""
BATCH_BYTES = 4 * 1024 * 1024
"""Bytes of logs read after which a batch's transaction is committed: a few long messages
are as much work as many short ones, and the WAL holds all of a transaction's writes."""
BATCH_FILES = 100
"""Files after which a batch's transaction is committed: each costs a savepoint, its session
and its imports row (0.1 to 0.25 ms), however few records it holds."""


def import_markdown(
    db: Database,
    paths: str | Path | Iterable[str | Path],
    speakers: Mapping[str, str],
    include_tail: bool,
    progress: ImportProgress | None,
) -> ImportReport:
    """Import daily Markdown logs (LOGFORMAT.md), each file whole or not at all.

    Args:
        paths: One path or a list: files, or folders whose own ``*.md`` files are read.
        speakers: Speaker name -> role (``user``, ``assistant``, ``system``), matched
            without regard to case. Unmapped speakers are reported, not imported.
        include_tail: Also accept each file's final record (for closed files).
        progress: Called with each file's report once it is committed (or refused).

    Returns:
        Per-file reports; a file-level problem is that file's ``error``, not an exception.
    Raises:
        InvalidInput: For an empty speaker map or an unknown role.
        FileError: For a path holding a NUL character.
    """
    roles = speaker_roles(speakers.items())
    given = import_files.given_paths(paths)
    for path in given:
        path_rules.given(path, "paths")  # a name not UTF-8 is that file's own error, below
    reports = [import_files.empty_folder(path) for path in import_files.empty_folders(given)]
    logs = import_files.loaded(import_files.expand_paths(given))
    for path, loaded in logs:
        if isinstance(loaded, ImportRejected):
            batch = [import_files.rejected(path, loaded.reason)]
        else:
            batch = store_batch(db, [(path, loaded)], logs, roles, include_tail)
        reports.extend(batch)
        if progress is not None:
            for report in batch:
                progress(report)
    return totals(reports)


def store_batch(
    db: Database,
    first: Iterable[tuple[Path, LoadedLog]],
    rest: Iterator[tuple[Path, LoadedLog | ImportRejected]],
    roles: Mapping[str, str],
    include_tail: bool,
) -> list[FileImport]:
    """Store the ``first`` logs, then more of ``rest``, in one write transaction, until the
    batch's logs hold :data:`BATCH_RECORDS` records (new or not) or :data:`BATCH_BYTES`
    bytes, or it has :data:`BATCH_FILES` files, or ``rest`` runs out; the files' reports,
    once the transaction is committed."""
    reports: list[FileImport] = []
    records = size = 0
    with db.write() as connection, bulk_index.deferred(connection) as deferral:
        for path, loaded in itertools.chain(first, rest):
            if not isinstance(loaded, ImportRejected):
                records, size = records + len(loaded.parsed.spans), size + len(loaded.data)
            reports.append(store_file(deferral, path, loaded, roles, include_tail))
            if records >= BATCH_RECORDS or size >= BATCH_BYTES or len(reports) >= BATCH_FILES:
                break
    return reports


def store_file(
    deferral: bulk_index.Deferral,
    path: Path,
    loaded: LoadedLog | ImportRejected,
    roles: Mapping[str, str],
    include_tail: bool,
) -> FileImport:
    """The report of storing one loaded log in a savepoint of the caller's transaction, or
    of why it was refused (nothing of it stored then)."""
    try:
        if isinstance(loaded, ImportRejected):
            raise loaded
        with savepoint(deferral.connection, "import_file"):
            return import_records.store(deferral, loaded, roles, include_tail, utc_now())
    except ImportRejected as error:
        return import_files.rejected(path, error.reason)


def totals(reports: list[FileImport]) -> ImportReport:
    """The report of a whole import: every file's, and their sums."""
    unknown: Counter[str] = Counter()
    for report in reports:
        unknown.update(report.unknown_speakers)
    return ImportReport(
        files=reports,
        imported=sum(report.imported for report in reports),
        errors=sum(report.error is not None for report in reports),
        skipped=sum(report.skipped for report in reports),
        deferred=sum(report.deferred for report in reports),
        unknown_speakers=dict(unknown),
    )
