"""SQLAlchemy engines on memstore's connections, for Alembic's migrations and the ORM
sessions of the test factories; every other unit of work uses the store's own pool
(:mod:`memstore.store.connections`), so that a command on an up-to-date database never
imports SQLAlchemy."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.pool import NullPool

from memstore.store.connections import connect
from memstore.store.write_lock import begin_immediate


def make_engine(path: str | Path) -> Engine:
    """An engine for the database file at ``path`` whose connections are
    :func:`~memstore.store.connections.connect`'s, opened per use (a migration or an ORM
    session is rare; the store's pool serves the rest).

    ORM transactions (the test factories', Alembic's) begin DEFERRED unless the execution
    option ``memstore_begin`` says ``"IMMEDIATE"``.
    """
    engine = create_engine(
        "sqlite+pysqlite://",
        creator=lambda: connect(path),
        poolclass=NullPool,
    )
    event.listen(engine, "begin", _begin)
    return engine


def _begin(connection: Connection) -> None:
    """Begin the transaction as ``memstore_begin`` says: ``IMMEDIATE`` takes the write lock as
    every writer does (:func:`~memstore.store.write_lock.begin_immediate`: found by review,
    the second of two first imports slept in SQLite's own wait through the moment the first
    one's upgrade let the lock go, and failed)."""
    mode = connection.get_execution_options().get("memstore_begin", "DEFERRED")
    if mode == "IMMEDIATE":
        begin_immediate(raw_sqlite(connection))
    else:
        connection.exec_driver_sql(f"BEGIN {mode}")


def raw_sqlite(connection: Connection) -> sqlite3.Connection:
    """The ``sqlite3`` connection under a SQLAlchemy connection."""
    return connection.connection.driver_connection  # type: ignore[return-value]
