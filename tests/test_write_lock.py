"""Taking the write lock (memstore.store.write_lock): a write waiting behind another writer
gets the lock in the short moments that writer lets it go, instead of sleeping through them;
the writers of one process take turns, so only other processes count against the wait.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from memstore import MemoryService, StoreBusy
from memstore.store import write_lock
from memstore.store.database import Database


def hold_the_lock(db_path: Path, stop: threading.Event, hold: float, gap: float) -> None:
    """Another writer: the write lock taken for ``hold`` seconds, let go for ``gap``, again
    and again until ``stop`` (as an import does between its batches)."""
    with closing(sqlite3.connect(db_path, isolation_level=None)) as connection:
        connection.execute("PRAGMA busy_timeout = 5000")
        while not stop.is_set():
            connection.execute("BEGIN IMMEDIATE")
            time.sleep(hold)
            connection.execute("COMMIT")
            time.sleep(gap)


def test_writes_get_in_between_the_transactions_of_another_writer(
    service: MemoryService, db_path: Path
) -> None:
    # SQLite's own wait sleeps up to 100 ms at a time: 26 of 30 writes failed behind 100 ms
    # transactions 2 ms apart (found by review: live writes failed beside an import).
    session = service.start_session()
    stop = threading.Event()
    writer = threading.Thread(target=hold_the_lock, args=(db_path, stop, 0.1, 0.002))
    writer.start()
    try:
        time.sleep(0.05)
        for n in range(10):
            service.record_message(session.id, "user", f"mensaje {n}")
    finally:
        stop.set()
        writer.join()
    assert [m.content for m in service.messages(session.id)] == [f"mensaje {n}" for n in range(10)]


def test_a_lock_held_past_the_wait_is_still_store_busy(
    service: MemoryService, db_path: Path
) -> None:
    session = service.start_session()
    with closing(sqlite3.connect(db_path, isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreBusy):
            service.record_message(session.id, "user", "no cabe")
        other.execute("ROLLBACK")
    assert service.record_message(session.id, "user", "ahora sí") is not None


def test_a_writer_of_the_same_process_waits_its_turn_past_the_lock_wait(db_path: Path) -> None:
    # One thread's write transaction held the lock for twice SQLite's 500 ms wait: the other
    # thread of the process waits its turn instead of failing (7 of 512 writes of 64 threads
    # failed in CI on a slow machine, each behind the others of its own process).
    db = Database(db_path)
    started, order = threading.Event(), []

    def slow_writer() -> None:
        with db.write():
            started.set()
            time.sleep(1.0)
            order.append("first")

    holder = threading.Thread(target=slow_writer)
    holder.start()
    started.wait()
    try:
        with db.write():
            order.append("second")
    finally:
        holder.join()
    assert order == ["first", "second"]


def test_a_turn_kept_past_its_wait_is_store_busy_and_comes_back_after_an_error(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(write_lock, "TURN_WAIT_SECONDS", 0.05)
    db = Database(db_path)
    started, release = threading.Event(), threading.Event()

    def failing_writer() -> None:
        with contextlib.suppress(RuntimeError), db.write():
            started.set()
            release.wait()
            raise RuntimeError("a write that fails midway")

    holder = threading.Thread(target=failing_writer)
    holder.start()
    started.wait()
    try:
        busy = "Other writers of this process kept the database"
        with pytest.raises(StoreBusy, match=busy), db.write():
            pass
    finally:
        release.set()
        holder.join()
    with db.write() as connection:  # the failed writer gave its turn back
        assert connection.execute("SELECT 1").fetchone() == (1,)
