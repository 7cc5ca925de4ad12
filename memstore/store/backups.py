"""Backup copies of the live database, never overwriting anything.

The copy is written with SQLite's online backup API into a private (0600) temporary file
beside the destination, in one step: one consistent snapshot of every committed transaction,
including those still in the ``-wal`` file, taken without blocking writers (WAL readers never
do). The copy is then switched to the rollback journal so that it is one self-contained file,
and only then linked into place, which fails if the destination appeared in the meantime: a
destination is never overwritten, not even by a race.

The temporary file is named ``.<destination name>.memstore-<random>.partial`` and holds an
exclusive ``flock`` for as long as its backup runs. A backup killed midway cannot remove it,
so every backup first removes the ones in its destination folder that no running backup
holds.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path

from memstore import files, open_stores, paths
from memstore.errors import BackupExists, FileError, StoreError
from memstore.store import readers, sqlite_errors
from memstore.store.connections import BUSY_TIMEOUT_MS

try:
    import fcntl
except ImportError:  # Windows: no flock, so no sweeping of abandoned copies
    fcntl = None  # type: ignore[assignment]

SCRATCH = "memstore-check-"
"""The start of the name of a check's scratch folder, followed by its process id."""
STAGED_MARK = ".memstore-"
STAGED_SUFFIX = ".partial"
STAGED_RANDOM = 8  # the characters tempfile puts between a staged copy's prefix and suffix
STAGING_ATTEMPTS = 8


def target(destination: str | Path) -> Path:
    """``destination`` as an absolute path (``~`` expanded).

    Raises:
        BackupExists: If anything, even a dangling symbolic link, is already there.
        FileError: If it ends in a path separator, as a folder's name does, or its path, or
            that of the copy written first beside it, is too long for SQLite, or SQLite's
            files beside it are there already.
    """
    paths.file_named(destination, "the path of a new file")
    found = files.unused(destination, BackupExists)
    open_stores.companions_fit(found)
    open_stores.companions_free(found)
    folder = os.path.realpath(found.parent)  # as SQLite opens it, links followed
    staged = len(os.fsencode(os.path.join(folder, files.staged_prefix(found, STAGED_MARK))))
    longest = staged + STAGED_RANDOM + len(STAGED_SUFFIX) + len(open_stores.LONGEST_COMPANION)
    if longest > open_stores.PATH_MAX_BYTES:  # found by review: it blamed the database
        raise FileError(
            str(found),
            f"the copy is written first beside it, as a file whose path is {longest} bytes "
            f"with its {open_stores.LONGEST_COMPANION}; SQLite opens one of at most "
            f"{open_stores.PATH_MAX_BYTES}. Use a shorter folder.",
        )
    return found


@contextmanager
def staging(destination: Path) -> Iterator[Path]:
    """A new empty private file beside ``destination`` (so that it can be hard-linked there),
    locked while in use; it and any SQLite companion files are removed on exit, whatever
    happens. Copies abandoned by killed backups in that folder are removed first.

    Raises:
        InvalidInput: If the destination folder cannot be created or written.
    """
    try:
        files.make_folders(destination.parent)
        handle, staged = locked_file(destination)
    except OSError as error:
        raise files.unwritable(destination.parent, error) from error
    try:
        remove_abandoned(destination.parent, staged)
        yield staged
    finally:
        remove_copy(staged)
        os.close(handle)


def locked_file(destination: Path) -> tuple[int, Path]:
    """A new empty private file beside ``destination``, locked, and its descriptor.

    Another backup's sweep may remove the file between its creation and its lock (it is
    unlocked then, as an abandoned copy is): SQLite then made a new file of that name,
    world-readable and unlocked, which the next sweep removed too (found by review: of ten
    backups into one folder at once, one failed or placed a 0644 or empty copy). So the
    file is made again until its name still names it once locked.

    Raises:
        OSError: If the file cannot be made, or was removed each time.
    """
    for _ in range(STAGING_ATTEMPTS):
        handle, name = tempfile.mkstemp(
            dir=destination.parent,
            prefix=files.staged_prefix(destination, STAGED_MARK),
            suffix=STAGED_SUFFIX,
        )
        if fcntl is None:
            return handle, Path(name)
        fcntl.flock(handle, fcntl.LOCK_EX)
        with suppress(FileNotFoundError):
            if os.path.samestat(os.fstat(handle), os.stat(name)):
                return handle, Path(name)
        os.close(handle)
    raise OSError(errno.EAGAIN, "each staged copy was removed by another backup's sweep")


def remove_abandoned(folder: Path, own: Path) -> None:
    """Remove the staged copies in ``folder`` that no running backup holds locked (their
    backup was killed), other than ``own``."""
    if fcntl is None:
        return
    for staged in folder.glob(f".*{STAGED_MARK}*{STAGED_SUFFIX}"):
        if staged == own:
            continue
        try:
            descriptor = os.open(staged, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a backup is still writing it
        else:
            remove_copy(staged)
        finally:
            os.close(descriptor)


def remove_copy(staged: Path) -> None:
    """Remove a staged copy and any SQLite companion file of it."""
    for suffix in open_stores.STORE_COMPANIONS:
        with suppress(FileNotFoundError):
            os.unlink(f"{staged}{suffix}")


@contextmanager
def scratch_copy(source: Path) -> Iterator[Path]:
    """A private copy of the database at ``source`` (opened read-only) in a new temporary
    folder, removed on exit: for checks that must write, on a database that cannot be (or
    that other writers keep busy).

    Raises:
        StoreError: If SQLite fails to read the source or write the copy, or the temporary
            folder has no room for it, which the message names with what to do (found by
            review: a bare OSError "No space left on device" named no folder).
    """
    remove_stale_scratch()
    try:
        with tempfile.TemporaryDirectory(prefix=f"{SCRATCH}{os.getpid()}-") as folder:
            copied = Path(folder) / "copy.sqlite3"
            files.create_private(copied)
            copy(source, copied, read_only=True)
            yield copied
    except OSError as error:
        raise StoreError(
            f"A private copy of {source} for its FTS5 checks could not be written in "
            f"{tempfile.gettempdir()} ({error.strerror or error}); set TMPDIR to a folder "
            "with room for a copy of the database."
        ) from error


def remove_stale_scratch() -> None:
    """Remove the scratch copies this user's killed checks left in the temporary folder (a
    copy of a whole store: found by review, each kill left one): those whose process, named
    in the folder's name, is gone."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH}*-*"):
        pid = folder.name.removeprefix(SCRATCH).split("-", 1)[0]
        with suppress(OSError):
            if pid.isdigit() and folder.stat().st_uid == os.getuid() and not alive(int(pid)):
                shutil.rmtree(folder)


def alive(pid: int) -> bool:
    """Whether a process ``pid`` runs (one of another user's included)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def copy(source: Path, staged: Path, *, read_only: bool = False) -> None:
    """Copy the committed state of the database at ``source`` into the empty file ``staged``;
    with ``read_only``, reading ``source`` without writing anything beside it.

    Raises:
        OSError: (ENOSPC) If the copy's disk is full.
        StoreError: If SQLite fails otherwise to read the source or write the copy.
        StoreBusy: If, ``read_only``, the source's owner changed it while it was copied.
    """
    wait = BUSY_TIMEOUT_MS / 1000
    with full_disk_as_os_error(), translated_copy_errors(source):
        opened = (
            readers.open_reader(source, wait)  # retried as the owner's files come and go
            if read_only
            else sqlite3.connect(source.absolute(), timeout=wait)  # never a URI (connect)
        )
        with (
            closing(opened) as live,
            closing(sqlite3.connect(staged)) as copied,
            readers.watched(live, source),  # a read-only source its owner wrote meanwhile
        ):
            live.backup(copied)  # pages=-1: the whole database in one step, one snapshot


@contextmanager
def translated_copy_errors(source: Path) -> Iterator[None]:
    """Turn SQLite's errors while copying ``source`` into StoreError."""
    try:
        yield
    except sqlite3.Error as error:
        raise StoreError(
            f"SQLite failed while copying {source}: {error}; nothing was written. Run "
            "`memstore check` on the database, then try again."
        ) from error


DISK_FULL = (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR_SHMSIZE)
"""SQLite's error codes for a full disk: no room for a page, or for a ``-shm`` file."""


@contextmanager
def full_disk_as_os_error() -> Iterator[None]:
    """Work on a copy whose disk may fill: SQLite's report of a full disk (:data:`DISK_FULL`,
    raw or as the cause of a StoreError) becomes OSError (ENOSPC), which names the copy's
    disk, not the database copied (found by review: both came out as StoreError, "run
    memstore check", once under the copy and once under its check's ``-shm`` file)."""
    try:
        yield
    except (sqlite3.Error, StoreError) as error:
        cause = sqlite_errors.sqlite_cause(error) or sqlite_errors.sqlite_cause(error.__cause__)
        if cause is None or sqlite_errors.code_of(cause) not in DISK_FULL:
            raise
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)) from error


def seal(staged: Path) -> None:
    """Switch the copy to the rollback journal (DELETE) mode: one self-contained file that
    needs no ``-wal``; memstore switches it back to WAL when it opens it.

    Raises:
        StoreError: If SQLite cannot change the journal mode.
    """
    with closing(sqlite3.connect(staged)) as copied:
        mode = copied.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
    if mode != "delete":
        raise StoreError(f"the copy stayed in journal mode {mode!r}; nothing was written.")


def place(staged: Path, destination: Path) -> None:
    """Put ``staged`` at ``destination`` only if nothing is there: a hard link, which the
    operating system refuses atomically when the name exists; where the file system has no
    hard links, an exclusively created copy.

    Raises:
        BackupExists: If ``destination`` exists (it is left as it was).
    """
    try:
        os.link(staged, destination)
    except FileExistsError as error:
        raise BackupExists(str(destination)) from error
    except OSError:  # no hard links here (some network and FAT file systems)
        copy_exclusive(staged, destination)


def copy_exclusive(staged: Path, destination: Path) -> None:
    """Copy ``staged`` to a newly created ``destination``, removing it again if that fails.

    Raises:
        BackupExists: If ``destination`` exists (it is left as it was).
    """
    try:
        descriptor = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL, files.PRIVATE_FILE)
    except FileExistsError as error:
        raise BackupExists(str(destination)) from error
    files.make_private(descriptor)
    try:
        with os.fdopen(descriptor, "wb") as out, staged.open("rb") as source:
            shutil.copyfileobj(source, out)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        destination.unlink(missing_ok=True)
        raise
