"""Importing daily Markdown logs (LOGFORMAT.md): each file read and parsed outside any
transaction (:mod:`memstore.concerns.import_files`), then stored in one write transaction of
its own (:mod:`memstore.concerns.import_records`). A file-level problem is that file's
report, never an exception, and the other files go on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from memstore import files
from memstore.arguments import speaker_roles
from memstore.concerns import import_files, import_records
from memstore.concerns.import_files import LoadedLog
from memstore.errors import ImportRejected, InvalidInput
from memstore.schemas import FileImport, ImportReport
from memstore.store.database import Database
from memstore.times import utc_now

Progress = Callable[[FileImport], None]


def import_markdown(
    db: Database,
    paths: Iterable[str | Path],
    speakers: Mapping[str, str],
    include_tail: bool,
    progress: Progress | None,
) -> ImportReport:
    """Import daily Markdown logs (LOGFORMAT.md), each file in its own transaction.

    Args:
        paths: Files, or directories whose ``*.md`` files are imported (not recursively).
        speakers: Speaker name -> role (``user``, ``assistant``, ``system``), matched
            without regard to case. Unmapped speakers are reported, not imported.
        include_tail: Also accept each file's final record (for closed files).
        progress: Called with each file's report as it finishes.

    Returns:
        Per-file reports; a file-level problem is that file's ``error``, not an exception.

    Raises:
        InvalidInput: For an empty speaker map or an unknown role.
        FileError: For a path holding a NUL character.
    """
    roles = speaker_roles(speakers.items())
    given = list(paths)
    if not all(isinstance(path, str | Path) for path in given):
        raise InvalidInput("paths", "must be a list of file or folder paths (str or Path).")
    for path in given:
        files.openable(path)  # a name not UTF-8 is that file's own error, below
    reports = [import_files.empty_folder(path) for path in import_files.empty_folders(given)]
    for path, loaded in import_files.loaded(import_files.expand_paths(given)):
        report = store_file(db, path, loaded, roles, include_tail)
        reports.append(report)
        if progress is not None:
            progress(report)
    return totals(reports)


def store_file(
    db: Database,
    path: Path,
    loaded: LoadedLog | ImportRejected,
    roles: Mapping[str, str],
    include_tail: bool,
) -> FileImport:
    """The report of storing one loaded log, or of why it was refused."""
    try:
        if isinstance(loaded, ImportRejected):
            raise loaded
        with db.write() as connection:
            return import_records.store(connection, loaded, roles, include_tail, utc_now())
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
