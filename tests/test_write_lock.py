"""Taking the write lock (memstore.store.write_lock): a write waiting behind another writer
gets the lock in the short moments that writer lets it go, instead of sleeping through them.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from memstore import MemoryService, StoreBusy


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
