"""Backups: SQLite's online backup API, WAL content included, one self-contained file, never
an overwrite; and the recovery path of the README (point at the copy, run check)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
from click.testing import CliRunner

from memstore import BackupExists, FileError, InvalidInput, MemoryService
from memstore.adapters.cli import cli
from memstore.store import backups


def journal_mode(path: Path) -> str:
    with closing(sqlite3.connect(path)) as connection:
        return str(connection.execute("PRAGMA journal_mode").fetchone()[0])


def count_messages(path: Path) -> int:
    with closing(sqlite3.connect(path)) as connection:
        return int(connection.execute("SELECT count(*) FROM messages").fetchone()[0])


def leftovers(folder: Path) -> list[str]:
    """Temporary files a backup may have left in ``folder``."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


@pytest.fixture
def written(service: MemoryService) -> MemoryService:
    """A database whose recent writes are still only in its -wal file (the pool keeps its
    connections open, so nothing checkpoints them)."""
    session = service.start_session()
    for n in range(30):
        service.record_message(session.id, "user", f"mensaje número {n} sobre el jardín")
    service.remember("Diego prefers answers in Spanish.", key="response_language")
    return service


def test_backup_holds_committed_wal_content_in_one_self_contained_file(
    written: MemoryService, tmp_path: Path
) -> None:
    live = written.path
    main_only = tmp_path / "main-only.sqlite3"
    shutil.copyfile(live, main_only)  # the main file without its -wal companion
    assert Path(f"{live}-wal").stat().st_size > 0
    with closing(sqlite3.connect(main_only)) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert "messages" not in tables or count_messages(main_only) < 30  # the rest is in -wal

    report = written.backup(tmp_path / "backups" / "copy.sqlite3")

    copy = tmp_path / "backups" / "copy.sqlite3"
    assert report.backup == str(copy) and report.database == str(live)
    assert report.ok is True and report.problems == []
    assert report.bytes == copy.stat().st_size > 0
    assert report.schema_version == 7
    assert report.counts["messages"] == 30 and report.counts["memories"] == 1
    # Self-contained: rollback journal mode and no companion files beside it.
    assert journal_mode(copy) == "delete"
    assert sorted(p.name for p in copy.parent.iterdir()) == ["copy.sqlite3"]


def test_backup_passes_check_alone_after_the_original_is_gone(
    written: MemoryService, tmp_path: Path
) -> None:
    copy = tmp_path / "copy.sqlite3"
    written.backup(copy)
    written.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{written.path}{suffix}").unlink(missing_ok=True)

    with MemoryService(copy) as restored:
        assert restored.health().ok is True
        assert restored.recall("jardín").conversations
        assert restored.list_memories().memories[0].key == "response_language"
        session = restored.start_session()  # writable again, and back in WAL mode
        assert restored.record_message(session.id, "user", "after the restore") is not None
    assert journal_mode(copy) == "wal"


def test_backup_and_export_refuse_the_name_of_the_databases_journal(
    written: MemoryService, tmp_path: Path
) -> None:
    # Found by review: a backup written to DB-journal reported ok, and the next open took it
    # for a hot journal and deleted it; an export there went the same way.
    journal = Path(f"{written.path}-journal")
    (tmp_path / "sub").mkdir()
    roundabout = tmp_path / "sub" / ".." / journal.name  # found by a later review
    other = MemoryService(tmp_path / "other.sqlite3")
    other.remember("Diego likes coffee.")  # another store this process has open
    for destination in (journal, roundabout, Path(f"{other.path}-journal")):
        with pytest.raises(FileError, match="SQLite keeps"):
            written.backup(destination)
        with pytest.raises(FileError, match="SQLite keeps"):
            written.export(destination)
    assert not journal.exists() and written.health().ok and other.health().ok


def test_backup_and_export_refuse_a_companion_name_of_a_store_of_another_process(
    written: MemoryService, tmp_path: Path
) -> None:
    # Found by review: only this process's stores were guarded; a backup written as another
    # store's -wal, and an export as its -journal, were deleted when that store next opened.
    stranger = tmp_path / "b.sqlite3"
    with closing(sqlite3.connect(stranger)) as connection, connection:
        connection.execute("CREATE TABLE t (x)")
    for end in ("-wal", "-journal"):
        with pytest.raises(FileError, match="SQLite keeps"):
            written.backup(f"{stranger}{end}")
        with pytest.raises(FileError, match="SQLite keeps"):
            written.export(f"{stranger}{end}")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database")
    assert written.backup(f"{notes}-wal").ok  # beside a file that is no database: a name


def test_backup_refuses_an_existing_destination_and_leaves_it_untouched(
    written: MemoryService, tmp_path: Path
) -> None:
    existing = tmp_path / "precious.sqlite3"
    existing.write_bytes(b"not to be overwritten")
    with pytest.raises(BackupExists, match="already exists") as caught:
        written.backup(existing)
    assert caught.value.destination == str(existing)
    assert existing.read_bytes() == b"not to be overwritten"
    with pytest.raises(BackupExists):
        written.backup(written.path)  # the live database itself
    dangling = tmp_path / "dangling.sqlite3"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(BackupExists):
        written.backup(dangling)
    assert leftovers(tmp_path) == []


def test_a_destination_created_during_the_backup_wins_and_nothing_is_overwritten(
    written: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another program creates the file after the first existence check: the final link
    # refuses atomically instead of replacing it.
    destination = tmp_path / "raced.sqlite3"
    seal = backups.seal

    def seal_then_race(staged: Path) -> None:
        seal(staged)
        destination.write_bytes(b"the other program's file")

    monkeypatch.setattr(backups, "seal", seal_then_race)
    with pytest.raises(BackupExists):
        written.backup(destination)
    assert destination.read_bytes() == b"the other program's file"
    assert leftovers(tmp_path) == []


def test_without_hard_links_the_copy_is_created_exclusively(
    written: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(source: object, target: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    report = written.backup(tmp_path / "copied.sqlite3")
    assert report.ok is True and journal_mode(tmp_path / "copied.sqlite3") == "delete"
    assert count_messages(tmp_path / "copied.sqlite3") == 30
    squatter = tmp_path / "squatter.sqlite3"
    squatter.write_bytes(b"mine")
    with pytest.raises(BackupExists):
        backups.place(tmp_path / "copied.sqlite3", squatter)
    assert squatter.read_bytes() == b"mine"


def test_an_uncommitted_write_is_not_copied_and_does_not_block_the_backup(
    written: MemoryService, tmp_path: Path
) -> None:
    # WAL readers never wait for writers: the backup reads the last committed state.
    writer = sqlite3.connect(written.path, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("DELETE FROM messages")
        started = time.monotonic()
        report = written.backup(tmp_path / "copy.sqlite3")
        elapsed = time.monotonic() - started
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert report.counts["messages"] == 30
    assert elapsed < 5  # it did not wait for the writer to finish


def test_a_damaged_database_is_still_copied_but_the_report_says_what_is_wrong(
    written: MemoryService, tmp_path: Path
) -> None:
    with closing(sqlite3.connect(written.path)) as connection, connection:
        connection.execute("INSERT INTO messages_fts(rowid, content) VALUES (999999, 'fantasma')")
    report = written.backup(tmp_path / "copy.sqlite3")
    assert report.ok is False
    assert any("messages_fts" in problem for problem in report.problems)
    assert (tmp_path / "copy.sqlite3").is_file()  # kept for investigation


def test_the_text_view_of_a_failed_backup_names_its_problems(
    runner: CliRunner, written: MemoryService, tmp_path: Path
) -> None:
    # Found by review: it said "FAILED its check" and named nothing.
    with closing(sqlite3.connect(written.path)) as connection, connection:
        connection.execute("INSERT INTO messages_fts(rowid, content) VALUES (999999, 'fantasma')")
    destination = tmp_path / "copy.sqlite3"
    args = ["--database", str(written.path), "--format", "text", "backup", str(destination)]
    result = runner.invoke(cli, args)
    assert result.exit_code == 1
    first, *problems = result.stdout.splitlines()
    assert first.endswith("FAILED its check)") and problems
    assert all(line.startswith("- ") for line in problems)
    assert any("messages_fts" in line for line in problems)


def test_an_unwritable_destination_folder_is_invalid_input(
    written: MemoryService, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(InvalidInput, match="destination"):
        written.backup(blocker / "copy.sqlite3")


def test_cli_backup_prints_the_report_and_exits_1_when_the_destination_exists(
    runner: CliRunner, written: MemoryService, tmp_path: Path
) -> None:
    destination = tmp_path / "cli-copy.sqlite3"
    base = ["--database", str(written.path), "backup", str(destination)]
    result = runner.invoke(cli, base)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["backup"] == str(destination)
    assert set(report) >= {"backup", "bytes", "ok", "schema_version", "counts"}

    again = runner.invoke(cli, base)
    assert again.exit_code == 1 and again.stdout == ""
    assert json.loads(again.stderr)["error"]["type"] == "BackupExists"


def test_recovery_points_the_configuration_at_a_verified_backup(
    runner: CliRunner, written: MemoryService, tmp_path: Path
) -> None:
    # README, Backup and recovery: select the copy through the config's `database`, check it.
    copy = tmp_path / "home" / "restored" / "memory.sqlite3"
    written.backup(copy)
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"memory": {"database": "restored/memory.sqlite3"}}))
    result = runner.invoke(cli, ["--config", str(config), "check"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["database"] == str(copy) and report["counts"]["messages"] == 30


KILLED_BACKUP = """
import os, signal, sys
from pathlib import Path
from memstore.store import backups
target = Path(sys.argv[2])
with backups.staging(target) as staged:
    backups.copy(Path(sys.argv[1]), staged)
    os.kill(os.getpid(), signal.SIGKILL)  # killed midway: nothing cleans up after it
"""


def test_a_copy_left_by_a_killed_backup_is_removed_by_the_next_backup(
    written: MemoryService, tmp_path: Path
) -> None:
    # The failing input: a killed backup left a hidden, complete copy of the database that
    # nothing ever removed.
    folder = tmp_path / "backups"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_BACKUP, str(written.path), str(folder / "first.sqlite3")],
        capture_output=True,
        timeout=60,
    )
    assert killed.returncode == -signal.SIGKILL
    (abandoned,) = leftovers(folder)
    assert abandoned.startswith(".first.sqlite3.memstore-")
    assert stat.S_IMODE((folder / abandoned).stat().st_mode) == 0o600
    written.backup(folder / "second.sqlite3")
    assert leftovers(folder) == [] and sorted(p.name for p in folder.iterdir()) == [
        "second.sqlite3"
    ]


def test_a_copy_that_a_running_backup_holds_is_left_alone(
    written: MemoryService, tmp_path: Path
) -> None:
    if fcntl is None:
        pytest.skip("no flock on this platform")
    folder = tmp_path / "backups"
    folder.mkdir()
    running = folder / ".other.sqlite3.memstore-abcd1234.partial"
    running.write_bytes(b"being written")
    with running.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        written.backup(folder / "mine.sqlite3")
        assert running.read_bytes() == b"being written"


def test_a_sweep_that_removes_a_new_copy_before_its_lock_does_not_spoil_the_backup(
    written: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: ten backups into one folder at once. One backup's sweep removed
    # another's staged file between its creation and its lock; SQLite then made a new file
    # of that name, world-readable and unlocked, which a later sweep removed too: a backup
    # failed, or put a 0644 or an empty copy in place and reported it ok.
    if fcntl is None:
        pytest.skip("no flock on this platform")
    folder = tmp_path / "backups"
    folder.mkdir()
    locking = fcntl.flock
    swept: list[bool] = []

    def sweep_first(descriptor: int, operation: int) -> None:
        if not swept:  # another backup's sweep, just before this one locks its copy
            swept.append(True)
            backups.remove_abandoned(folder, folder / "another.partial")
        locking(descriptor, operation)

    monkeypatch.setattr(backups.fcntl, "flock", sweep_first)
    report = written.backup(folder / "copy.sqlite3")
    assert swept and report.ok
    assert stat.S_IMODE((folder / "copy.sqlite3").stat().st_mode) == 0o600
    assert count_messages(folder / "copy.sqlite3") == 30
    assert leftovers(folder) == []


def test_a_destination_whose_staged_copy_sqlite_cannot_open_is_a_file_error(
    written: MemoryService, tmp_path: Path
) -> None:
    # Found by review: a destination path of about 480 bytes failed as "SQLite failed while
    # copying" the database, and left the folders it made.
    folder = tmp_path / "backups"
    while len(os.fsencode(folder)) < 440:
        folder = folder / ("d" * 100)
    with pytest.raises(FileError, match="SQLite opens one of at most 512. Use a shorter folder"):
        written.backup(folder / "copy.sqlite3")
    assert not (tmp_path / "backups").exists()


def test_a_destination_name_near_the_file_systems_limit_is_backed_up_and_exported(
    written: MemoryService, tmp_path: Path
) -> None:
    # Found by review: the staged copy's name was the destination's plus 27 bytes, so a
    # valid name over about 228 bytes was refused as too long.
    name = "b" * 240
    assert written.backup(tmp_path / name).ok
    assert (tmp_path / name).stat().st_size > 0
    exported = written.export(tmp_path / ("e" * 240))
    assert Path(exported.export).stat().st_size > 0


@pytest.mark.parametrize("name", ["y" * 300, "x" * 120_000])
def test_a_destination_name_too_long_is_a_file_error_and_leaves_nothing(
    written: MemoryService, tmp_path: Path, name: str
) -> None:
    # Found by review: backup raised a bare OSError (export already gave a FileError).
    before = sorted(tmp_path.iterdir())
    with pytest.raises(FileError, match=r"its name is \d+ bytes; a database's is at most 247"):
        written.backup(tmp_path / name)
    assert sorted(tmp_path.iterdir()) == before


def test_a_full_disk_under_the_copy_is_a_file_error_and_leaves_nothing(
    written: MemoryService, small_disk: Path
) -> None:
    # Found by review: SQLite's "database or disk is full" blamed the database, StoreError.
    leave_free(small_disk, 65_536)
    with pytest.raises(FileError, match="could not be written") as raised:
        written.backup(small_disk / "b.sqlite3")
    assert str(small_disk / "b.sqlite3") in str(raised.value)
    assert [path.name for path in small_disk.iterdir()] == ["filler"]


def test_a_disk_with_room_for_the_copy_but_not_its_check_is_a_file_error(
    written: MemoryService, small_disk: Path, tmp_path: Path
) -> None:
    # Found by review: the copy fitted, but opening it for its check needs a 32 KiB -shm
    # file; SQLITE_IOERR_SHMSIZE came out as StoreError "disk I/O error; run memstore check",
    # which blames the database being copied.
    leave_free(small_disk, written.backup(tmp_path / "sized.sqlite3").bytes + 16_384)
    with pytest.raises(FileError, match="could not be written") as raised:
        written.backup(small_disk / "b.sqlite3")
    assert str(small_disk / "b.sqlite3") in str(raised.value)
    assert [path.name for path in small_disk.iterdir()] == ["filler"]


def leave_free(disk: Path, room: int) -> None:
    """Fill ``disk`` with a file named filler, leaving ``room`` bytes free."""
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    assert free > room, "the small disk is too small for the test"
    (disk / "filler").write_bytes(b"x" * (free - room))


def test_a_killed_checks_scratch_copy_is_removed_by_the_next_one() -> None:
    # Found by review: a check killed while it judged a read-only store's FTS indexes on a
    # private copy left that copy (the whole store) in the temporary folder for good.
    from memstore.store import backups

    dead = 2**22 + 12_345  # beyond the kernel's usual pid_max: no such process
    assert not backups.alive(dead)
    stale = Path(tempfile.mkdtemp(prefix=f"{backups.SCRATCH}{dead}-"))
    (stale / "copy.sqlite3").write_bytes(b"a copy of a store")
    running = Path(tempfile.mkdtemp(prefix=f"{backups.SCRATCH}{os.getpid()}-"))
    try:
        backups.remove_stale_scratch()
        assert not stale.exists() and running.exists()
    finally:
        shutil.rmtree(running)
        shutil.rmtree(stale, ignore_errors=True)


def test_a_companion_name_of_a_fifo_is_answered_at_once(
    written: MemoryService, tmp_path: Path
) -> None:
    # Found by review: the check that the base is a SQLite file opened the FIFO, and waited.
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    assert written.backup(f"{fifo}-wal").ok


@pytest.mark.parametrize("end", ["-journal", "-wal", "-shm"])
@pytest.mark.parametrize("what", ["fifo", "file"])
def test_a_destination_whose_sqlite_files_are_taken_is_refused(
    written: MemoryService, tmp_path: Path, end: str, what: str
) -> None:
    # Found by review: a backup was written beside a FIFO named as its -journal, said ok,
    # and every later command on it was refused; a stale -journal there would be rolled
    # back into it.
    destination = tmp_path / "copy.sqlite3"
    beside = Path(f"{destination}{end}")
    if what == "fifo":
        os.mkfifo(beside)
    else:
        beside.write_bytes(b"left over")
    with pytest.raises(FileError, match=f"own {end} file"):
        written.backup(destination)
    assert not destination.exists()
    assert what == "fifo" or beside.read_bytes() == b"left over"


def test_a_store_at_an_older_schema_is_backed_up_as_it_is_not_upgraded(
    db_path: Path, tmp_path: Path
) -> None:
    # Found by review: backup upgraded the live store first, so the backup the README asks
    # for before an upgrade ("Make a backup first") held the upgraded schema.
    from tests.test_migrations import upgrade

    upgrade(db_path, "0002")
    with closing(sqlite3.connect(db_path)) as connection:
        connection.execute(
            "INSERT INTO sessions (id, started_at, metadata) "
            "VALUES ('ses_old', '2026-10-05T07:00:00.000000Z', '{}')"
        )
        connection.commit()
    before = db_path.read_bytes()
    report = MemoryService(db_path).backup(tmp_path / "before-upgrade.sqlite3")
    assert (report.ok, report.schema_version, report.problems) == (True, 2, [])
    assert report.counts["sessions"] == 1
    assert db_path.read_bytes() == before
    with closing(sqlite3.connect(report.backup)) as copy:
        assert copy.execute("SELECT version_num FROM alembic_version").fetchall() == [("0002",)]
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert MemoryService(report.backup).health().schema_version == 7  # it upgrades on use
