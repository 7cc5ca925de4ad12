"""Paths memstore opens: regular files only, never blocking, created private.

Every file memstore creates (the database, its ``-wal``/``-shm`` companions, which SQLite
gives the database's own mode, the daily logs and backups) is readable and writable by its
owner only (0600), and every folder it creates is 0700, whatever the umask: the store holds
a person's conversations. Anything that is not a regular file (a FIFO, a device, a socket, a
folder) is refused at once, before anything opens it, since opening a FIFO blocks until
another process opens its other end.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memstore import paths
from memstore.errors import FileError, InvalidInput, StoreError
from memstore.open_stores import companions, not_a_store

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700
KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, for a message: "a FIFO (named pipe)", ..."""
    return next((name for test, name in KINDS if test(mode)), "not a regular file")


def regular(path: Path, what: str) -> os.stat_result | None:
    """The status of the regular file at ``path`` (symbolic links followed), or None when
    nothing is there.

    Args:
        what: What the file is for, for the message ("the database", "the configuration").

    Raises:
        FileError: If something other than a regular file is there (a symbolic link to
            nothing among them), or it cannot be examined.
    """
    try:
        status = path.stat()
    except (FileNotFoundError, NotADirectoryError):  # a file where a folder should be
        if path.is_symlink():  # found by review: a write then failed as a bare OSError
            raise FileError(
                str(path),
                f"{what} is a symbolic link to {os.readlink(path)}, where there is nothing; "
                "point it at a file, or remove the link.",
            ) from None
        return None
    except OSError as error:
        raise FileError(str(path), f"{what} cannot be examined ({error.strerror}).") from error
    if not stat.S_ISREG(status.st_mode):
        raise FileError(
            str(path), f"{what} must be a regular file, and this is {kind(status.st_mode)}."
        )
    return status


def folder(path: Path, what: str) -> bool:
    """Whether the folder at ``path`` exists (False when nothing is there).

    Raises:
        FileError: If something other than a folder is there, or a symbolic link to nothing
            (found by review: the recorder's appends ended in FileNotFoundError).
    """
    try:
        status = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise FileError(str(path), f"{what} is {broken_link(path)}.") from None
        return False
    except OSError as error:
        raise FileError(str(path), f"{what} cannot be examined ({error.strerror}).") from error
    if not stat.S_ISDIR(status.st_mode):
        raise FileError(str(path), f"{what} must be a folder, and this is {kind(status.st_mode)}.")
    return True


def unused(destination: str | Path, exists: Callable[[str], Exception]) -> Path:
    """``destination`` as an absolute path (``~`` expanded), for a file or folder about to be
    created there.

    Raises:
        InvalidInput: For an empty path (which would name the working directory).
        FileError: For a path holding a NUL character or not valid UTF-8.
        Exception: ``exists(path)`` when anything, even a dangling symbolic link, is there.
    """
    if not str(destination).strip():
        raise InvalidInput("destination", "is empty; give the path of a new file or folder.")
    paths.nameable(destination)
    path = paths.expanded(destination).absolute()
    if os.path.lexists(path):
        raise exists(str(path))
    return path


def unwritable(folder: Path, error: OSError) -> InvalidInput:
    """The error of a destination whose ``folder`` cannot be written (``error`` says why)."""
    return InvalidInput(
        "destination",
        f"{folder} cannot be written ({error.strerror or error}); choose a folder you can "
        "write to.",
    )


def broken_link(path: Path) -> str:
    """What the symbolic link at ``path``, which leads nowhere, is: a link to nothing, named
    by where its links end (found by the re-check: a chain was named by its next link), or
    a loop of links (found by the next: a loop was called a link to itself)."""
    try:
        os.path.realpath(path, strict=True)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a loop of symbolic links"
    return f"a symbolic link to nothing ({os.path.realpath(path)})"


def make_folders(path: Path) -> None:
    """Create the folder ``path`` and its missing parents, each new one 0700.

    Raises:
        FileError: When one of them is a symbolic link to nothing (found by the re-check:
            a log folder under one ended in FileNotFoundError).
        OSError: When a folder cannot be created.
    """
    missing: list[Path] = []
    while not path.exists():
        if path.is_symlink():
            raise FileError(str(path), f"a folder on the way is {broken_link(path)}.")
        missing.append(path)
        path = path.parent
    for created in reversed(missing):
        try:
            os.mkdir(created, PRIVATE_FOLDER)
        except FileExistsError:
            continue  # made by another process meanwhile
        os.chmod(created, PRIVATE_FOLDER)  # the umask may have taken bits away


def create_private(path: Path) -> None:
    """Create an empty file at ``path`` (and its folders) that only its owner can read and
    write; an existing file is left as it is.

    Raises:
        OSError: When the file or a folder cannot be created.
    """
    make_folders(path.parent)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return
    try:
        make_private(descriptor)
    finally:
        os.close(descriptor)


def store_file(path: Path) -> os.stat_result | None:
    """The status of the database file at ``path``, or None when nothing is there (see
    :func:`regular`), once SQLite's files beside it (``-wal``, ``-shm``, ``-journal``) are
    regular files or absent: SQLite opens them as they are, and a FIFO named ``-journal``
    blocked every command forever, SIGTERM included (found by review). They are beside a
    symbolic link's target, where SQLite keeps them (found by the next review).

    Raises:
        FileError: If the database or a file SQLite keeps beside it is not a regular file.
    """
    status = regular(path, "the database")
    for end, beside in companions(path):
        regular(beside, f"the {end} file SQLite keeps beside the database")
    return status


def read_regular(path: Path, limit: int, what: str) -> bytearray:
    """At most ``limit`` + 1 bytes of the regular file at ``path``, read without blocking on
    a FIFO (it is opened non-blocking and examined before reading), straight into one
    buffer (no second copy of a large file).

    Raises:
        FileError: If ``path`` is not a regular file, or is a store this process has open.
        OSError: When it cannot be opened or read (FileNotFoundError when missing).
    """
    not_a_store(path)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        raise FileError(
            str(path), f"{what} must be a regular file, and this is {kind(status.st_mode)}."
        )
    buffer = bytearray(min(status.st_size, limit) + 1)  # one more: a file past the limit
    with os.fdopen(descriptor, "rb") as file, memoryview(buffer) as view:
        filled = 0
        while filled < len(buffer) and (got := file.readinto(view[filled:])):
            filled += got
    del buffer[filled:]
    return buffer


@contextmanager
def opened_regular(path: Path) -> Iterator[int]:
    """A read-only descriptor of the regular file at ``path`` (not through a symbolic link,
    not blocking on a FIFO), closed on exit.

    Raises:
        FileError: If ``path`` is not a regular file, or is a store this process has open.
        OSError: When it cannot be opened.
    """
    not_a_store(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise FileError(str(path), f"must be a regular file, and this is {kind(mode)}.")
        yield descriptor
    finally:
        os.close(descriptor)


def open_append(path: Path) -> int:
    """A descriptor appending to the regular file at ``path``, created private (0600) when
    missing; a FIFO, a device or a symbolic link is refused without blocking.

    Raises:
        FileError: If ``path`` is not a regular file.
        OSError: When it cannot be opened.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags, PRIVATE_FILE)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a FIFO nobody reads
            raise FileError(str(path), "a log must be a regular file, not a FIFO.") from error
        if error.errno == errno.ELOOP:  # O_NOFOLLOW: the importer refuses links too
            raise FileError(
                str(path), "a log must be a regular file, not a symbolic link."
            ) from error
        if error.errno == errno.EISDIR:  # found by review: a bare IsADirectoryError
            raise FileError(str(path), "a log must be a regular file, not a folder.") from error
        raise
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        raise FileError(
            str(path), f"a log must be a regular file, and this is {kind(status.st_mode)}."
        )
    if status.st_size == 0 and status.st_uid == getattr(os, "geteuid", lambda: -1)():
        make_private(descriptor)  # new, or empty: private before anything is in it
    return descriptor


def make_private(descriptor: int) -> None:
    """Give the open file mode 0600, whatever the umask took away or added (where the
    platform has POSIX modes)."""
    if hasattr(os, "fchmod"):
        os.fchmod(descriptor, PRIVATE_FILE)


def create_store_file(path: Path) -> None:
    """Create the database file (and its folders) private, empty.

    Raises:
        StoreError: If it cannot be created.
    """
    try:
        create_private(path)
    except OSError as error:
        raise StoreError(
            f"Cannot create the folder or the file of the database {path} ({error.strerror}); "
            "choose a writable location with --database or the configuration's database "
            "setting."
        ) from error


STAGED_NAME_BYTES = 64
"""The bytes of a destination's name a staged copy's name starts with: the rest of the name
(a mark, a random part, a suffix) then fits any file system's 255 bytes, whatever the
destination's own length (found by review: a 240-byte name was refused)."""


def staged_prefix(destination: Path, mark: str) -> str:
    """The start of the name of a new file or folder staged beside ``destination``: a dot,
    the first :data:`STAGED_NAME_BYTES` bytes of its name, ``mark``."""
    return f".{os.fsdecode(os.fsencode(destination.name)[:STAGED_NAME_BYTES])}{mark}"
