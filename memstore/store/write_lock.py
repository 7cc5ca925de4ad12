"""Taking the write lock: ``BEGIN IMMEDIATE``, tried again every millisecond for as long as
the busy timeout allows.

SQLite's own wait (``busy_timeout``) sleeps in growing steps, up to 100 ms at a time, so a
writer waiting behind another one that lets the lock go only for a moment between its
transactions (an import between its batches) can sleep through every such moment and fail
after 500 ms, though the lock was free many times. Trying every millisecond takes the lock at
the first moment it is free (found by review of issue 18: a live write failed beside an
import that it had fit between a file at a time before).

The writers of one process first take their turn on a lock of the process
(:class:`WriterTurns`), so that they do not fail each other: 64 threads of one service each
writing at once on a slow machine waited for each other past 500 ms, and 7 of 512 writes
failed with :class:`StoreBusy` in CI. The 500 ms for other processes count from when a write
asked, its wait in line included: a writer whose turn comes later tries the lock once (found
by review: ten threads of one service behind another process's lock failed one after the
other, each after its own 500 ms, the last after 5 s).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from memstore.errors import StoreBusy
from memstore.store.connections import BUSY_TIMEOUT_MS
from memstore.store.sqlite_errors import is_busy

RETRY_SECONDS = 0.001
TURN_WAIT_SECONDS = 30
"""How long a writer waits for the other writers of its process, one at a time, to finish."""


class WriterTurns:
    """The writers of one process (threads sharing a :class:`~memstore.store.database.Database`)
    taking turns, one write transaction at a time, in the order they asked: a thread that
    writes in a loop stands in line behind those already waiting (found by review: the turn
    went to whichever thread woke first, and two threads remembering in a loop kept a third
    one's ``start_session`` waiting for 24 s).

    The turn is kept as its owner's thread id and given back in a ``finally`` that the whole
    taking is inside: a KeyboardInterrupt landing just after an ``RLock.acquire`` returned
    kept the turn forever (found by review: 6 of 100 interrupted writers wedged the rest).
    A writer that stops waiting (its time is up, an interrupt) leaves the line."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._owner: int | None = None
        self._line: deque[int] = deque()

    def waiting(self) -> int:
        """How many writers of this process wait for their turn."""
        return len(self._line)

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Hold the process's turn to write for the duration of the block.

        Raises:
            StoreBusy: If the other writers of this process kept it for
                :data:`TURN_WAIT_SECONDS`.
            RuntimeError: If this thread holds the turn already: its second write transaction
                would wait on its first one's lock (before the turns it failed after 500 ms
                with a StoreBusy that blamed another writer).
        """
        me = threading.get_ident()
        if self._owner == me:  # only this thread sets or clears its own id
            raise RuntimeError(
                "A write unit of work was begun inside another one of the same thread; SQLite "
                "lets one transaction write at a time, so finish the first one before the next."
            )
        try:
            with self._changed:
                self._take(me)
            yield
        finally:
            self._give_back(me)

    def _take(self, me: int) -> None:
        """Stand in line and take the turn when it is free and this writer is first; leave
        the line whatever happens. Holds the condition's lock."""
        try:
            self._line.append(me)
            first_and_free = lambda: self._owner is None and self._line[0] == me  # noqa: E731
            if not self._changed.wait_for(first_and_free, timeout=TURN_WAIT_SECONDS):
                raise StoreBusy(
                    "Other writers of this process kept the database for "
                    f"{TURN_WAIT_SECONDS} s; retry in a moment."
                )
            self._owner = me
        finally:
            if me in self._line:
                self._line.remove(me)
            self._changed.notify_all()  # the next in line may be first now

    def _give_back(self, me: int) -> None:
        with self._changed:
            if self._owner == me:
                self._owner = None
                self._changed.notify_all()


def lock_deadline() -> float:
    """The ``time.monotonic()`` until which a write asked now waits for the write lock."""
    return time.monotonic() + BUSY_TIMEOUT_MS / 1000


def begin_immediate(connection: sqlite3.Connection, deadline: float | None = None) -> None:
    """Begin a write transaction on ``connection``, trying for the write lock until
    ``deadline`` (a ``time.monotonic()``; :func:`lock_deadline` when None), at least once
    (the connection's busy timeout is restored after).

    Raises:
        sqlite3.OperationalError: The busy error, when the lock stayed taken that long; any
            other error of ``BEGIN IMMEDIATE`` at once.
    """
    deadline = lock_deadline() if deadline is None else deadline
    connection.execute("PRAGMA busy_timeout = 0")
    try:
        while True:
            try:
                connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if not is_busy(error) or time.monotonic() >= deadline:
                    raise
            time.sleep(RETRY_SECONDS)
    finally:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


def begin_read(connection: sqlite3.Connection) -> None:
    """Begin a read transaction (a snapshot from its first read on)."""
    connection.execute("BEGIN")
