"""Health: every check of the database file, as one report with a sentence per problem.

The checks themselves (SQL) are in :mod:`memstore.repository.health`; this module runs them
in a unit of work that always rolls back, on a private copy where the file cannot be
written (or needs an upgrade it cannot take there); :mod:`memstore.concerns.health_report`
says what each finding means and what to do.
"""

from __future__ import annotations

import tempfile
import time

from memstore.concerns.health_report import report, unreadable, unstarted
from memstore.errors import SchemaError, StoreBusy, StoreDamaged, StoreError, StoreReadOnly
from memstore.repository import health as checks
from memstore.schemas import HealthReport
from memstore.store import backups, examine, probe
from memstore.store.database import Database

RETRY_S = 0.5
"""How long a check tries again when another process's write made it StoreBusy: a check is
a read whose FTS5 probes write, so a write committed meanwhile leaves it stale at once.
Then it runs its FTS5 probes on a private copy, as for a file it cannot write."""
RETRY_PAUSE_S = 0.05


def health(db: Database) -> HealthReport:
    """:func:`checked_once`, tried again for up to :data:`RETRY_S` seconds while another
    process's write makes it StoreBusy (found by review: a check failed after 7 ms beside a
    write of 200; taking the write lock up front instead failed every other writer for the
    whole of a long check), then once with its FTS5 probes on a private copy (found by
    review: a check of 60,000 messages takes about 0.5 s, and a write every 0.2 s made
    every check fail). A file that holds nothing yet gets :func:`unstarted`, and nothing
    is written to it.

    Raises:
        StoreBusy: If even the copy could not be made (the backup API waits 500 ms).
        SchemaError, StoreError: As :func:`checked_once` says.
    """
    if examine.unstarted(db.path):
        return unstarted(str(db.path), db.code_version())
    deadline = time.monotonic() + RETRY_S
    while time.monotonic() < deadline:
        try:
            return checked_once(db)
        except StoreBusy:
            time.sleep(RETRY_PAUSE_S)
        except StoreReadOnly as error:
            if db.read_only is None:  # writable, yet a write was refused (its -wal, -shm?)
                return refusing(checked_once(db, on_copy=True), error)
            return outdated(db)
    return checked_once(db, on_copy=True)


def refusing(shown: HealthReport, refused: StoreReadOnly) -> HealthReport:
    """``shown`` (checked on a copy) for a file this user may write, whose writes SQLite
    refuses all the same: the refusal is its first problem."""
    said = refused.__cause__ or refused
    problem = (
        f"writes are refused although the file may be written ({getattr(said, 'orig', said)}): "
        "its -wal or -shm may belong to another user; have that user close the store, or "
        "fix their owner"
    )
    return shown.model_copy(update={"ok": False, "problems": [problem, *shown.problems]})


def outdated(db: Database) -> HealthReport:
    """The report of a file that cannot be written and needs an upgrade (a mounted backup
    from an earlier memstore): the checks of a private copy brought up to date, ``ok``
    False since no other command can read the file where it is (found by review: ``check``
    refused it, with reading commands, as read-only)."""
    schema = probe.read_schema(db.path)
    version = max(schema.recorded or (0,)) if schema else 0
    shown = upgraded_copy_report(db, version)
    problem = (
        f"schema version is {version}; this code expects {shown.code_version}, and the file "
        f"cannot be upgraded where it is ({db.read_only}): copy it to a folder you can write "
        "to (`memstore backup` copies it as it is) and use the copy, which the first command "
        "upgrades; the other findings are of such a copy"
    )
    return shown.model_copy(
        update={
            "ok": False,
            "schema_version": version,
            "problems": [problem, *shown.problems],
            "read_only": True,
            "read_only_reason": db.read_only,
        }
    )


def upgraded_copy_report(db: Database, version: int) -> HealthReport:
    """The report of a private copy of ``db`` (at schema ``version``) brought up to date, as
    :func:`outdated` gives it: a copy that is damaged or whose upgrade fails is a report
    with ``ok`` False naming ``db``'s file, not the copy (found by the re-check)."""
    path, code = str(db.path), db.code_version()
    try:
        with backups.scratch_copy(db.path) as copied:
            scratch = Database(copied)
            try:
                open_scratch(scratch)
                with scratch.inspect() as connection:
                    return report(checks.findings(connection), path, code)
            except SchemaError as error:  # its version records do not match its tables
                cause = error.__cause__ if isinstance(error.__cause__, Exception) else error
                return unreadable(
                    path, code, str(probe.upgrade_refused(db.path, version, code, cause))
                )
            finally:
                scratch.dispose()
    except StoreDamaged as error:
        return unreadable(path, code, str(error))


def checked_once(db: Database, *, on_copy: bool = False) -> HealthReport:
    """Integrity, foreign keys, each FTS5 index, the search views Datasette reads, schema
    version and row counts.

    A database this process cannot write (or any, ``on_copy``) is checked as it is, except
    for the FTS5 integrity-checks, which SQLite runs as writes: they run on a private
    temporary copy made with the online backup API (``read_only`` in the report says when
    the file cannot be written).

    Returns:
        The report; ``ok`` only when every check passes. ``problems`` says what is wrong
        and where, one sentence each. A file SQLite cannot open or read as a database is
        a report with ``ok`` False, not an exception.

    Raises:
        StoreBusy: If the FTS5 checks could not take the write lock within 500 ms.
        SchemaError: If the database is newer than this code, its versions have gaps, or
            alembic_version and schema_migrations disagree.
        StoreError: If SQLite fails otherwise (e.g. the file cannot be opened at all).
    """
    path, code = str(db.path), db.code_version()
    try:
        with db.inspect() as connection:
            if db.read_only is None and not on_copy:
                return report(checks.findings(connection), path, code)
            with backups.scratch_copy(db.path) as copied:
                scratch = Database(copied)
                try:
                    open_scratch(scratch)
                    with scratch.inspect() as fts:
                        found = checks.findings(connection, fts_connection=fts)
                finally:
                    scratch.dispose()  # before the copy goes: its connection holds the file
            shown = report(found, path, code)
            if db.read_only is None:
                return shown
            return shown.model_copy(update={"read_only": True, "read_only_reason": db.read_only})
    except StoreDamaged as error:
        return unreadable(path, code, str(error))


def open_scratch(scratch: Database) -> None:
    """Open the private copy the FTS5 checks run on.

    Raises:
        StoreError: Naming the temporary folder when SQLite cannot open the copy there, its
            ``-wal`` or ``-shm`` finding no room (found by review: "SQLite failed: disk I/O
            error; run memstore check", which was the command that failed).
        StoreDamaged: For a copy of a damaged file, as for the file itself.
    """
    try:
        scratch.ensure_schema()
    except StoreDamaged:
        raise
    except StoreError as error:
        said = error.__cause__ or error  # SQLite's own words, without advice to run check
        said = getattr(said, "orig", said)  # not SQLAlchemy's (found by review: its URL)
        raise StoreError(
            f"The private copy of the database for its FTS5 checks could not be opened in "
            f"{tempfile.gettempdir()} ({said}); set TMPDIR to a folder with room for a copy "
            "of the database."
        ) from error
