"""Savepoints: part of the caller's transaction that can be undone on its own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def savepoint(connection: sqlite3.Connection, name: str) -> Iterator[None]:
    """The body inside ``SAVEPOINT name`` of the caller's transaction (``name`` a fixed
    identifier): released when it returns; when it raises, everything it wrote is rolled back
    first, the savepoint released, and the exception goes on. The rest of the transaction
    stays usable either way, unless SQLite ended the transaction itself."""
    connection.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        # SQLite rolls the whole transaction back by itself on some errors (out of memory,
        # a full disk): the savepoint is gone with it, and the error goes on as it was.
        if connection.in_transaction:
            connection.execute(f"ROLLBACK TO {name}")
            connection.execute(f"RELEASE {name}")
        raise
    connection.execute(f"RELEASE {name}")
