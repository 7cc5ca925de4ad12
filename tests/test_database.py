"""Connections: pragmas on every connection, write locks taken at BEGIN, bounded waits."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from memstore import FileError, Fts5Unavailable, MemoryService, StoreBusy, StoreError
from memstore.store import connections
from memstore.store.database import Database


def test_every_orm_session_gets_the_pragmas(db_path: Path) -> None:
    # the test factories write through ORM sessions
    database = Database(db_path)
    for unit in (database.orm_session,):
        with unit() as session:
            pragma = {
                name: session.execute(text(f"PRAGMA {name}")).scalar()
                for name in ("foreign_keys", "journal_mode", "secure_delete", "busy_timeout")
            }
        assert pragma == {
            "foreign_keys": 1,
            "journal_mode": "wal",
            "secure_delete": 1,
            "busy_timeout": 500,
        }


def test_the_sqlite_units_get_the_pragmas_and_their_own_transaction(db_path: Path) -> None:
    database = Database(db_path)
    for unit in (database.read, database.write, database.inspect):
        with unit() as connection:
            pragma = [
                connection.execute(f"PRAGMA {name}").fetchone()[0]
                for name in ("foreign_keys", "journal_mode", "secure_delete", "busy_timeout")
            ]
            assert connection.in_transaction
        assert pragma == [1, "wal", 1, 500]
        assert not connection.in_transaction


def test_an_error_inside_a_sqlite_write_unit_rolls_everything_back(service: MemoryService) -> None:
    session = service.start_session()
    database = service._db
    insert = "INSERT INTO deleted_sources (source_ref, deleted_at) VALUES (?, ?)"
    with pytest.raises(RuntimeError, match="midway"), database.write() as connection:
        connection.execute(insert, ("a.md#byte=0", "2026-10-05T07:15:02.000000+00:00"))
        raise RuntimeError("midway")
    # a constraint error is a StoreError like any other SQLite failure (adapters catch one type)
    with pytest.raises(StoreError, match="UNIQUE constraint"), database.write() as connection:
        connection.execute(insert, ("b.md#byte=0", "2026-10-05T07:15:02.000000+00:00"))
        connection.execute(insert, ("b.md#byte=0", "2026-10-05T07:15:02.000000+00:00"))
    with database.read() as connection:
        assert connection.execute("SELECT count(*) FROM deleted_sources").fetchone() == (0,)
    # the pooled connections are clean: the next write takes the lock and lands
    assert service.record_message(session.id, "user", "after the errors") is not None


def test_the_pool_serves_more_units_at_once_than_it_keeps_and_keeps_the_newest(
    db_path: Path,
) -> None:
    opened: list[sqlite3.Connection] = []

    def open_connection() -> sqlite3.Connection:
        opened.append(connections.connect(db_path))
        return opened[-1]

    pool = connections.ConnectionPool(open_connection)
    with contextlib.ExitStack() as stack:
        held = [stack.enter_context(pool.connection()) for _ in range(6)]
        assert len(set(map(id, held))) == 6  # none handed out twice
    # six came back, the last first: the first four returned are kept open, the others closed
    with pool.connection() as connection:
        assert connection is held[2]  # last in, first out
    for closed in held[:2]:
        with pytest.raises(sqlite3.ProgrammingError, match="closed"):
            closed.execute("SELECT 1")
    pool.close()
    for idle in held[2:]:
        with pytest.raises(sqlite3.ProgrammingError, match="closed"):
            idle.execute("SELECT 1")
    with pool.connection() as connection:  # a closed pool opens new connections
        assert connection.execute("SELECT 1").fetchone() == (1,)
    assert len(opened) == 7


def test_the_pool_opens_at_most_its_limit_and_the_next_units_wait(db_path: Path) -> None:
    # found by review: without a limit, 100 threads of one service each opened a connection
    # and most of their writes gave up after the 500 ms lock wait (none did before)
    # Each unit holds its connection until the limit is reached and a moment more, so that
    # a busy machine starting the threads slowly cannot keep the pool below it (a full
    # suite under load once saw fewer when each unit held it for a fixed 20 ms).
    active, most, lock = [0], [0], threading.Lock()
    release = threading.Event()
    pool = connections.ConnectionPool(lambda: connections.connect(db_path))

    def unit() -> None:
        with pool.connection():
            with lock:
                active[0] += 1
                most[0] = max(most[0], active[0])
            release.wait(10)
            with lock:
                active[0] -= 1

    threads = [threading.Thread(target=unit) for _ in range(3 * connections.MAX_CONNECTIONS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 10
    while most[0] < connections.MAX_CONNECTIONS and time.monotonic() < deadline:
        time.sleep(0.001)
    time.sleep(0.05)  # time for a unit beyond the limit to get in, were it let
    release.set()
    for thread in threads:
        thread.join()
    assert most[0] == connections.MAX_CONNECTIONS


def test_a_unit_that_finds_every_connection_taken_too_long_is_store_busy(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connections, "MAX_CONNECTIONS", 1)
    monkeypatch.setattr(connections, "POOL_WAIT_SECONDS", 0.05)
    pool = connections.ConnectionPool(lambda: connections.connect(db_path))
    held = pool.connection()
    with held, pytest.raises(StoreBusy, match="All 1 connections"), pool.connection():
        pass
    with pool.connection() as connection:  # the slot came back
        assert connection.execute("SELECT 1").fetchone() == (1,)


def test_many_threads_of_one_service_write_without_store_busy(service: MemoryService) -> None:
    session = service.start_session().id
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        for n in range(8):
            try:
                service.record_message(session, "user", f"worker {worker} message {n}")
            except BaseException as error:
                errors.append(error)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(64)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    stored = service.messages(session, limit=1000)
    assert [m.sequence for m in stored] == list(range(1, 64 * 8 + 1))


def test_an_orm_error_is_translated_like_a_sqlite_one(db_path: Path) -> None:
    # ORM sessions run on SQLAlchemy, which wraps SQLite's exception; the store still raises
    # its own error, the one a pooled unit gives
    database = Database(db_path)
    insert = "INSERT INTO deleted_sources (source_ref, deleted_at) VALUES ('a', 'b')"
    with pytest.raises(StoreError, match="UNIQUE constraint"), database.orm_session() as session:
        session.execute(text(insert))
        session.execute(text(insert))
    with database.read() as connection:
        assert connection.execute("SELECT count(*) FROM deleted_sources").fetchone() == (0,)


def test_concurrent_read_then_write_transactions_land_or_fail_only_with_store_busy(
    service: MemoryService,
) -> None:
    # record_message reads the next sequence and then inserts; BEGIN IMMEDIATE makes each
    # writer wait for the lock instead of failing at once with "database is locked". Under a
    # loaded machine a wait may pass 500 ms: then, and only then, StoreBusy is allowed.
    session = service.start_session()
    acknowledged: list[str] = []
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        own = MemoryService(service.path)
        for n in range(15):
            try:
                message = own.record_message(session.id, "user", f"worker {worker} message {n}")
            except BaseException as error:
                errors.append(error)
            else:
                acknowledged.append(message.id if message else "")

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(isinstance(error, StoreBusy) for error in errors), errors
    stored = service.messages(session.id, limit=100)
    assert sorted(m.id for m in stored) == sorted(acknowledged)
    assert [m.sequence for m in stored] == list(range(1, len(acknowledged) + 1))
    assert len(acknowledged) + len(errors) == 60


def test_a_held_write_lock_gives_store_busy_after_the_bounded_wait(
    service: MemoryService,
) -> None:
    session = service.start_session()
    blocker = sqlite3.connect(service.path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(StoreBusy, match="500 ms"):
            service.record_message(session.id, "user", "blocked")
        waited = time.monotonic() - started
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert 0.4 < waited < 5  # it waited for the lock, about 500 ms, and did not hang
    assert service.record_message(session.id, "user", "now free") is not None


def test_sqlite_without_fts5_gets_a_clear_error(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Simulate a build without FTS5 by probing for a module that no SQLite has.
    monkeypatch.setattr(connections, "FTS5_PROBE", "CREATE VIRTUAL TABLE p USING fts_absent(x)")
    with pytest.raises(Fts5Unavailable, match="has no FTS5.*install a Python"):
        MemoryService(db_path).health()
    assert not db_path.exists()


def test_an_old_sqlite_gets_a_clear_error(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connections, "MIN_SQLITE", (99, 0, 0))
    with pytest.raises(Fts5Unavailable, match=r"older than 99\.0\.0, which memstore needs"):
        MemoryService(db_path).health()
    assert not db_path.exists()


def test_a_path_starting_with_file_colon_is_that_file_never_a_uri(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: a SQLite built with URI filenames on took "file:plain.sqlite3" for a
    # URI, and wrote the memory to plain.sqlite3 (0644) while memstore checked the file named
    # "file:plain.sqlite3", which then held no store.
    from memstore import MemoryService

    monkeypatch.chdir(tmp_path)
    with MemoryService("file:plain.sqlite3") as service:
        service.remember("Diego likes figs.")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file:plain.sqlite3"]
    again = MemoryService("file:plain.sqlite3")
    assert [m.content for m in again.list_memories().memories] == ["Diego likes figs."]
    assert again.health().ok


def test_a_file_shorter_than_a_sqlite_header_is_refused_untouched(tmp_path: Path) -> None:
    # Found by review: SQLite opens a file of one newline as an empty database, and an
    # import made it a store, though only a missing or empty file becomes one.
    from memstore import MemoryService, StoreDamaged

    path = tmp_path / "nl.txt"
    path.write_bytes(b"\n")
    with pytest.raises(StoreDamaged, match="file is not a database: it holds 1 bytes"):
        MemoryService(path).remember("Diego likes figs.")
    assert path.read_bytes() == b"\n" and sorted(p.name for p in tmp_path.iterdir()) == ["nl.txt"]


def test_a_database_name_too_long_for_sqlites_companions_is_refused_before_any_file(
    tmp_path: Path,
) -> None:
    # Found by review: a 250-byte name was created, then every write failed as a bare
    # OSError on its -journal, and an empty file stayed behind.
    from memstore import FileError, MemoryService

    with pytest.raises(FileError, match="a database's is at most 247"):
        MemoryService(tmp_path / ("n" * 250)).remember("Diego likes figs.")
    assert list(tmp_path.iterdir()) == []
    MemoryService(tmp_path / ("n" * 247)).remember("Diego likes figs.")  # the longest


def long_path(base: Path, size: int) -> Path:
    """A path under ``base`` of ``size`` bytes, in names of at most 200 bytes."""
    path = base
    while size - len(os.fsencode(path)) > 200:
        path = path / ("d" * 150)
    return path / ("n" * (size - len(os.fsencode(path)) - 1))


def test_a_database_path_too_long_for_sqlite_is_refused_before_any_file(tmp_path: Path) -> None:
    # Found by review: a path of 505 bytes or more made its folders and an empty file, then
    # failed on a -wal that did not exist, and so did every later command.
    from memstore import FileError, MemoryService

    too_long = "path is 505 bytes \\(links followed\\); SQLite opens one of at most 504"
    with pytest.raises(FileError, match=too_long):
        MemoryService(long_path(tmp_path, 505)).remember("Diego likes figs.")
    assert list(tmp_path.iterdir()) == []
    longest = long_path(tmp_path, 504)
    MemoryService(longest).remember("Diego likes figs.")
    assert longest.is_file()
    # SQLite follows links before it measures (found by review): a short path through a
    # link to a long folder is too long, and a long one through links to "." is not
    deep = long_path(tmp_path, 505)
    deep.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "link").symlink_to(deep.parent)
    with pytest.raises(FileError, match="path is 505 bytes"):
        MemoryService(tmp_path / "link" / deep.name).remember("Diego likes figs.")
    assert not deep.exists()
    (tmp_path / ("s" * 250)).symlink_to(".")
    winding = tmp_path / ("s" * 250) / ("s" * 250) / "short.sqlite3"
    MemoryService(winding).remember("Diego likes figs.")
    assert (tmp_path / "short.sqlite3").is_file()


def test_an_empty_path_to_import_is_invalid_input_not_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: "" (an unset shell variable) imported the working folder's logs.
    from memstore import InvalidInput, MemoryService

    monkeypatch.chdir(tmp_path)
    service = MemoryService(tmp_path / "memory.sqlite3")
    with pytest.raises(InvalidInput, match="empty path"):
        service.import_markdown([""], speakers={"Diego": "user"})
    with pytest.raises(InvalidInput, match="empty path"):
        service.import_memories("")


def test_a_path_ending_in_a_separator_names_a_folder_and_is_refused(
    service: MemoryService, tmp_path: Path
) -> None:
    # A file of the folder's name was made (found by review), by the API as by the CLI.
    with pytest.raises(FileError, match="names a folder"):
        MemoryService(f"{tmp_path}/new/")
    service.remember("Diego likes tea.")
    with pytest.raises(FileError, match="names a folder"):
        service.backup(f"{tmp_path}/copy/")
    assert not (tmp_path / "new").exists() and not (tmp_path / "copy").exists()


def test_a_home_folder_in_the_path_is_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert MemoryService("~/memory.sqlite3").path == tmp_path / "me" / "memory.sqlite3"
    with pytest.raises(FileError, match="names a home folder that cannot be found"):
        MemoryService("~nosuchuser-of-memstore/memory.sqlite3")


def test_a_file_removed_after_close_is_created_and_migrated_again(db_path: Path) -> None:
    # Found by review: the next call found an empty file, readable by all, with no tables.
    service = MemoryService(db_path)
    service.remember("Diego likes tea.")
    service.close()
    for name in (db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm")):
        name.unlink(missing_ok=True)
    assert service.start_session().id.startswith("ses_")
    assert (db_path.stat().st_mode & 0o777, service.health().ok) == (0o600, True)
    assert service.list_memories().total == 0


def test_a_close_in_another_thread_between_opening_and_use_opens_the_file_again(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: a close() landing just after the pool was opened failed the call with
    # a bare AssertionError (9 of 31,406 calls of three threads beside a closing loop).
    memory = service.remember("Diego likes tea.")
    database = service._db
    opened = database.ensure_schema
    closes = iter([True])

    def opened_then_closed() -> None:
        opened()
        if next(closes, False):
            database.dispose()  # as another thread's close() would, right here

    monkeypatch.setattr(database, "ensure_schema", opened_then_closed)
    service.close()
    assert service.get_memory(memory.id) == memory
