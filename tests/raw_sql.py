"""A plain sqlite3 connection that runs memstore's own statements, for tests that replay
them outside memstore's connection path."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memstore.store.connections import add_functions


def statements_connection(path: str | Path) -> sqlite3.Connection:
    """A plain sqlite3 connection to ``path`` given the SQL functions memstore's statements
    call (the speakers' case fold); otherwise as ``sqlite3.connect`` makes it."""
    connection = sqlite3.connect(path)
    add_functions(connection)
    return connection
