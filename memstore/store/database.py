"""One database file: checked and upgraded lazily, then read and written in units of work.

Every unit of work runs its textual SQL on a ``sqlite3`` connection from the store's pool
(:meth:`Database.read`, :meth:`Database.write`): a SQLAlchemy ORM unit of work cost about
0.3 ms of Python per call whatever it ran, measured as most of the time of the hottest calls
(``make bench``). Write units take their turn among the process's writers, then begin with
``BEGIN IMMEDIATE``, taking the write lock up front (:mod:`memstore.store.write_lock`), so a
read-then-write transaction waits for the lock instead of failing midway. SQLAlchemy is
imported only to upgrade the schema (Alembic runs on it) and for the ORM sessions the test
factories write models with (:meth:`Database.orm_session`); the ORM models stay what Alembic
compares.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from sqlite3 import Connection
from typing import TYPE_CHECKING

from memstore import files, open_stores, paths
from memstore.errors import FileError, StoreReadOnly
from memstore.store import migrations, probe, readers
from memstore.store.connections import ConnectionPool, connect, require_fts5, switch_to_wal
from memstore.store.sqlite_errors import translate_errors
from memstore.store.write_lock import WriterTurns, begin_immediate, begin_read, lock_deadline

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

log = logging.getLogger(__name__)

INHERITED_POOLS: list[ConnectionPool] = []
"""The pools a forked child found its parent had open: kept referenced, never used or closed.
SQLite's "How To Corrupt" page warns against using a connection carried across ``fork()``,
and closing one would run SQLite's clean-up on locks the child's copy only thinks it holds."""


class Database:
    """One SQLite database file: checked and upgraded lazily, then read and write units of work.

    Only a missing or empty file becomes a memstore database; another application's SQLite
    file is refused untouched, and a file this process cannot write is opened read-only
    (reads work, writes raise :class:`StoreReadOnly`).

    Args:
        path: The database file; it and its folders are created private on first use.
        migrations: Another Alembic script folder (tests use it); memstore's by default.

    Raises:
        FileError: If the path holds a NUL character (no file system takes one), is not
            valid UTF-8 (memstore's JSON output could not name it), ends in a path separator
            (a folder's name) or starts with the ``~`` of a home folder that cannot be
            found; a ``~`` that can is expanded.
    """

    def __init__(self, path: str | Path, *, migrations: str | None = None) -> None:
        paths.nameable(path)
        paths.file_named(path, "a database file such as memory.sqlite3")
        self.path = paths.expanded(path)
        open_stores.companions_fit(self.path)
        self.migrations = migrations
        self._pool: ConnectionPool | None = None
        self._lock = threading.Lock()
        self._writers = WriterTurns()
        self._pid = os.getpid()
        self.read_only: str | None = None
        """Why the file is opened read-only, or None when it can be written."""

    @property
    def pool(self) -> ConnectionPool:
        """The pool of connections, once :meth:`ensure_schema` has opened the file (again,
        when a :meth:`dispose` in another thread set it aside meanwhile: found by review)."""
        while True:
            self.ensure_schema()
            pool = self._pool
            if pool is not None:
                return pool

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write unit of work: ``BEGIN IMMEDIATE``, then ``COMMIT`` on success or
        ``ROLLBACK`` on any error. Statements are textual SQL with bound parameters
        (``:name`` and a dict, or ``?`` and a tuple).

        Raises:
            StoreReadOnly: If the file cannot be written.
            StoreBusy: If another process kept the write lock 500 ms from when the write
                asked (its wait for this process's other writers included; a turn that came
                later tries the lock once), or those writers kept their turn for 30 s.
            StoreError: For any other SQLite failure.
        """
        self._require_writable()
        begin = functools.partial(begin_immediate, deadline=lock_deadline())  # line included
        with self._writers.turn(), self._unit(begin, commit=True) as connection:
            yield connection

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read unit of work on one consistent snapshot (see :meth:`write`)."""
        with self._unit(begin_read, commit=True) as connection:
            yield connection

    @contextmanager
    def inspect(self) -> Iterator[Connection]:
        """A unit of work that always rolls back: for checks that probe with statements that
        write (FTS5 integrity-check) on a file that may be damaged, where a commit can fail.

        It takes the process's writer turn first: a write committed by another thread while
        it read made its first writing probe fail at once (``SQLITE_BUSY_SNAPSHOT``), and
        ``health()`` failed 10 times out of 10 beside a thread writing every 10 ms (found by
        review). Writers of other processes still can (:class:`StoreBusy`): it does not take
        the write lock up front, which made their writes fail for the whole of a long check
        (found by review); :func:`memstore.concerns.health.health` tries again instead."""
        self.ensure_schema()  # a forked child's own turns (see _leave_parent) before taking one
        with self._writers.turn(), self._unit(begin_read, commit=False) as connection:
            yield connection

    def _require_writable(self) -> None:
        self.ensure_schema()
        if self.read_only is not None and probe.read_only_reason(self.path) is None:
            self.dispose()  # writable since it was opened (found by review: a long-running
            self.ensure_schema()  # host stayed read-only, its recorder never caught up)
        if self.read_only is not None:
            raise StoreReadOnly(str(self.path), self.read_only)

    @contextmanager
    def untouched(self) -> Iterator[Connection]:
        """A read unit that changes nothing in the file, for a command that only reads (the
        diary): :meth:`read` on the store this object has open; else a read-only connection
        of its own, once the file is checked as :meth:`ensure_schema` checks it, with no
        switch to WAL and no upgrade (found by review: the diary switched a backup to WAL,
        and upgraded an older store).

        Raises:
            SchemaError: If the schema is older than this code's (the upgrade a write makes
                is left to a command that writes), newer, or inconsistent.
            StoreDamaged: If SQLite cannot read the file as a database.
            FileError: If the file holds another application's database.
        """
        self._leave_parent()
        if self._pool is not None:
            with self.read() as connection:
                yield connection
            return
        require_fts5()
        known, code = migrations.revisions(self.migrations), self.code_version()
        open_stores.claim_store(self.path)  # never read as a file now (open_stores.not_a_store)
        with translate_errors(self.path):
            schema = probe.read_schema(self.path)
            if schema is None:  # opening it says why SQLite cannot read it
                connect(self.path, read_only=True).close()
        if schema is None or probe.pending(schema, self.path, known, code):
            raise probe.not_upgraded(self.path, 0 if schema is None else schema.newest, code)
        pool = ConnectionPool(functools.partial(connect, self.path, read_only=True), keep=0)
        with self._unit(begin_read, commit=True, pool=pool) as connection:
            yield connection

    @contextmanager
    def _unit(
        self,
        begin: Callable[[Connection], None],
        *,
        commit: bool,
        pool: ConnectionPool | None = None,
    ) -> Iterator[Connection]:
        pool = self.pool if pool is None else pool
        with (
            translate_errors(self.path),
            pool.connection() as connection,
            readers.watched(connection, self.path),
        ):
            try:
                begin(connection)
                try:
                    yield connection
                except BaseException:
                    connection.rollback()
                    raise
                connection.execute("COMMIT" if commit else "ROLLBACK")
            finally:
                if connection.in_transaction:  # a failed COMMIT
                    connection.rollback()

    @contextmanager
    def orm_session(self) -> Iterator[Session]:
        """An ORM session in a write transaction that commits on success: for the test
        factories, which write ORM models; memstore's own code uses :meth:`write`."""
        from sqlalchemy.orm import Session

        from memstore.store.engine import make_engine

        self._require_writable()
        engine = make_engine(self.path).execution_options(memstore_begin="IMMEDIATE")
        try:
            with translate_errors(self.path), Session(engine) as session, session.begin():
                yield session
        finally:
            engine.dispose()

    def ensure_schema(self) -> None:
        """Check the file, then create or upgrade the schema once, every pending revision in
        one transaction (a read-only file is only checked).

        Raises:
            Fts5Unavailable: If SQLite lacks FTS5.
            FileError: If the path is not a regular file, or holds another application's
                SQLite database (it is left untouched).
            SchemaError: If the schema is newer than this code, has gaps, or its
                alembic_version and schema_migrations disagree.
            StoreReadOnly: If a read-only file needs an upgrade.
            StoreBusy: If another process kept the file locked past the probe's wait
                (nothing was changed).
            StoreError: If the file or its folder cannot be created.
        """
        self._leave_parent()
        if self._pool is not None:
            return
        with self._lock:
            if self._pool is None:
                require_fts5()
                self._pool = self._open()

    def _leave_parent(self) -> None:
        """In a child forked after this Database was used, start afresh: the parent's pool is
        set aside (:data:`INHERITED_POOLS`), and the lock and writer turns are new, since a
        thread the child does not have may have held them at the fork (the child's first
        write then waited 30 s for it; found by review of the writer turns). Two threads of
        the child doing this at once each open a pool, and one is closed when it is dropped."""
        if self._pid == os.getpid():
            return
        if self._pool is not None:
            INHERITED_POOLS.append(self._pool)
        self._pool, self._lock, self._writers = None, threading.Lock(), WriterTurns()
        self._pid = os.getpid()

    def _open(self) -> ConnectionPool:
        if str(self.path) == ":memory:":
            raise FileError(
                ":memory:",
                "memstore keeps its store in a file, shared by pooled connections; give a "
                "file path (a temporary one for a throwaway store).",
            )
        known, code = migrations.revisions(self.migrations), self.code_version()
        status = files.store_file(self.path)
        if status is None:
            files.create_store_file(self.path)
        elif 0 < status.st_size < probe.HEADER_BYTES:
            raise probe.too_short(status.st_size)
        open_stores.claim_store(self.path)  # never read as a file now (open_stores.not_a_store)
        with translate_errors(self.path):
            schema = probe.read_schema(self.path)
        upgrade = schema is None or probe.pending(schema, self.path, known, code)
        self.read_only = probe.read_only_reason(self.path)
        if self.read_only is not None:
            if upgrade and schema is not None:
                raise StoreReadOnly(
                    str(self.path),
                    f"{self.read_only}; this code reads it only once upgraded to version {code}",
                    "Fix its permissions to use it there, or copy it to a folder you can write "
                    "to (`memstore backup` copies it as it is) and use the copy, which its "
                    "first command upgrades.",
                )
            # No connection is kept: each decides afresh whether to read the file as immutable
            # (probe.reader_uri), as one kept would go on doing (found by review: it missed
            # the owner's later writes).
            return ConnectionPool(functools.partial(connect, self.path, read_only=True), keep=0)
        return self._writable_pool(upgrade, known, code)

    def _writable_pool(self, upgrade: bool, known: dict[str, int], code: int) -> ConnectionPool:
        pool = ConnectionPool(functools.partial(connect, self.path))
        try:
            with translate_errors(self.path):
                switch_to_wal(pool)
                if upgrade:
                    migrations.upgrade_file(self.path, self.migrations, known, code)
        except BaseException:
            pool.close()
            raise
        return pool

    def code_version(self) -> int:
        """The schema version of the newest migration this code ships."""
        return migrations.code_version(self.migrations)

    def dispose(self) -> None:
        """Close the pooled connections; a later call opens the file afresh, as the first
        did (found by review: a file removed after a close came back as an empty file,
        readable by all, with no tables)."""
        self._leave_parent()
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
