"""The report of a health check: its shape, and one sentence per problem saying what is
wrong, where, and what to do (the checks themselves run in :mod:`memstore.concerns.health`)."""

from __future__ import annotations

from memstore.repository import health as checks
from memstore.repository.health import Findings, IndexCheck
from memstore.schemas import FtsCheck, HealthReport
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
