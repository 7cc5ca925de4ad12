"""Health: every check of the database file, as one report with a sentence per problem.

The checks themselves (SQL) are in :mod:`memstore.repository.health`; this module runs them
in a unit of work that always rolls back, on a private copy where the file cannot be
written, and says what each finding means and what to do.
"""

from __future__ import annotations

import tempfile
import time

from memstore.errors import SchemaError, StoreBusy, StoreDamaged, StoreError, StoreReadOnly
from memstore.repository import health as checks
from memstore.repository.health import Findings, IndexCheck
from memstore.schemas import FtsCheck, HealthReport
from memstore.store import backups, examine, probe
from memstore.store.database import Database
from memstore.store.fts_names import FTS_INDEXES, PLACES_INDEX, REQUESTS_INDEX

DAMAGED = (
    "the file is damaged: stop every writer, keep it with its -wal/-shm files for "
    "investigation and restore a verified backup (README, Backup and recovery)"
)


SLOWER = "queries that use it scan rows instead"
UNGUARDED = "only memstore's own checks keep two active memories from sharing"
INDEX_REPAIRS = {
    PLACES_INDEX: ("recall fails or slows without it", "0006_message_places.py"),
    REQUESTS_INDEX: ("recall slows without it", "0007_message_requests.py"),
    "ix_messages_created_at": (SLOWER, "0001_tables.py"),
    "ix_messages_speaker": (SLOWER, "0003_speakers_cjk.py"),
    "ux_memories_active_normalized": (f"{UNGUARDED} one content", "0001_tables.py"),
    "ux_memories_active_key": (f"{UNGUARDED} one key", "0001_tables.py"),
    "ix_memory_sources_memory_id": (SLOWER, "0001_tables.py"),
    "ix_memory_sources_message_id": (SLOWER, "0001_tables.py"),
}
"""For each index of the schema: what its loss costs, and the revision whose statement
recreates it."""


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
        except StoreReadOnly:
            if db.read_only is None:  # writable: a write inside it was refused (its -wal?)
                raise
            return outdated(db)
    return checked_once(db, on_copy=True)


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


def report(found: Findings, path: str, code_version: int) -> HealthReport:
    """The report of ``found``; ``ok`` only when every check passed."""
    damaged = found.integrity != "ok" or bool(found.failed) or bool(found.bad_values)
    problems = describe(found, code_version) + found.failed + found.bad_values
    problems += [
        f"trigger {name} is missing: changes to its table no longer reach the index; restore "
        "a verified backup (README, Backup and recovery)"
        for name in found.missing_triggers
    ]
    problems += [
        f"index {name} is missing or changed: {loss}; drop any index of that name and "
        f"recreate it as alembic/versions/{revision} does"
        for name in found.missing_indexes
        for loss, revision in [INDEX_REPAIRS[name]]
    ]
    problems += [
        f"view {name} is missing or changed: Datasette no longer finds the full-text index it "
        "shows, so its search box is gone; recreate it as alembic/versions/0005_datasette.py "
        "does"
        for name in found.broken_search_views
    ]
    if damaged:
        problems.append(DAMAGED)
    return HealthReport(
        ok=not problems,
        database=path,
        integrity=found.integrity,
        foreign_key_errors=found.foreign_key_errors,
        fts=[FtsCheck.model_validate(check) for check in found.fts],
        schema_version=found.schema_version,
        code_version=code_version,
        counts=found.counts,
        problems=problems,
    )


def describe(found: Findings, code_version: int) -> list[str]:
    """One sentence per finding: what is wrong and where."""
    damaged = found.integrity != "ok"
    problems = [
        f"integrity_check: {finding}"
        for finding in found.integrity.splitlines()
        if damaged and not finding.startswith("*** in database")
    ]
    problems += [
        f"foreign key: {e['table']} row {e['rowid']} has a {e['column']} that matches no "
        f"{e['parent']} row"
        for e in found.foreign_key_errors
    ]
    problems += [fts_problem(check, damaged) for check in found.fts if not check.ok]
    if found.schema_version != code_version:
        problems.append(
            f"schema version is {found.schema_version}; this code expects {code_version}"
        )
    return problems


def fts_problem(check: IndexCheck, damaged: bool) -> str:
    """The finding of a failed FTS5 integrity-check; on an otherwise sound file the index
    can be rebuilt from its table, unless the index itself is gone (found by review: the
    rebuild proposed failed with "no such table")."""
    if (check.error or "").startswith("no such table"):
        return (
            f"FTS5 index {check.index} is missing (dropped or never made): no statement "
            "rebuilds it; restore a verified backup (README, Backup and recovery)"
        )
    found = f"FTS5 index {check.index} failed its integrity-check ({check.error})"
    if damaged:
        return found
    return f"{found}; rebuild it with INSERT INTO {check.index}({check.index}) VALUES('rebuild')"


def unstarted(path: str, code_version: int) -> HealthReport:
    """The report of a file that holds nothing yet (see
    :func:`~memstore.store.examine.unstarted`): nothing in it is wrong, and no table is
    there to count (schema version 0); the first write sets the store up."""
    return HealthReport(
        ok=True,
        database=path,
        integrity="ok",
        foreign_key_errors=[],
        fts=[],
        schema_version=0,
        code_version=code_version,
        counts=dict.fromkeys(checks.COUNTED_TABLES, 0),
        problems=[],
    )


def unreadable(path: str, code_version: int, reason: str) -> HealthReport:
    """The report of a file SQLite cannot open or read as a database at all."""
    return HealthReport(
        ok=False,
        database=path,
        integrity=reason,
        foreign_key_errors=[],
        fts=[FtsCheck(index=index, ok=False, error=reason) for index in FTS_INDEXES],
        schema_version=0,
        code_version=code_version,
        counts={},
        problems=[f"{path}: {reason}"],
    )
