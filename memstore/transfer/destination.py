"""The new file or folder an export is written into, never over anything.

The export is written into a private hidden sibling, ``.<name>.memstore-export-<random>``
(0600 for a file, 0700 for a folder), and put in place only once whole: a file by a hard
link, which the operating system refuses when the name exists; a folder by a rename, which
it refuses onto a file or a folder with anything in it. An export that fails or is killed
leaves no destination (a killed one leaves its hidden sibling, which can be deleted).
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

from memstore import files, paths
from memstore.errors import ExportExists

STAGED_MARK = ".memstore-export-"


def target(destination: str | Path, *, folder: bool) -> Path:
    """``destination`` as an absolute path (``~`` expanded), of a new folder (``folder``)
    or file.

    Raises:
        FileError: For a path no file system takes (a NUL character) or not valid UTF-8,
            or a file's path that ends in a separator, as a folder's name does (found by
            review: ``export out/`` wrote a JSONL file named ``out``).
        ExportExists: If anything, even a dangling symbolic link, is already there.
    """
    if not folder:
        paths.nameable(destination)  # a NUL is said first (found by review)
        paths.file_named(destination, "the path of a new file, or a Markdown export's folder")
    return files.unused(destination, ExportExists)


@contextmanager
def staged(destination: Path, *, folder: bool) -> Iterator[Path]:
    """A new private file (or folder, with ``folder``) beside ``destination`` to write the
    export into; placed at ``destination`` when the block ends without an error, removed
    whatever happens.

    Raises:
        InvalidInput: If the destination's folder cannot be created or written.
        ExportExists: If ``destination`` appeared meanwhile (it is left as it was).
    """
    prefix = files.staged_prefix(destination, STAGED_MARK)
    try:
        files.make_folders(destination.parent)
        if folder:
            staging = Path(tempfile.mkdtemp(dir=destination.parent, prefix=prefix))
        else:
            handle, name = tempfile.mkstemp(dir=destination.parent, prefix=prefix)
            os.close(handle)
            staging = Path(name)
    except OSError as error:
        raise files.unwritable(destination.parent, error) from error
    try:
        yield staging
        place(staging, destination)
    finally:
        remove(staging)


def place(staging: Path, destination: Path) -> None:
    """Put the written ``staging`` at ``destination`` only if nothing is there.

    Raises:
        ExportExists: If ``destination`` exists.
    """
    try:
        if staging.is_dir():
            os.rename(staging, destination)  # refused onto a file or a folder holding anything
        else:
            os.link(staging, destination)  # refused onto anything
    except OSError as error:
        taken = error.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.EISDIR, errno.ENOTDIR)
        if taken or os.path.lexists(destination):
            raise ExportExists(str(destination)) from error
        if staging.is_dir():
            raise
        os.rename(staging, destination)  # a file system without hard links (FAT, some shares)


def remove(staging: Path) -> None:
    """Remove a staged file or folder if it is still there."""
    if staging.is_dir():
        shutil.rmtree(staging, ignore_errors=True)
    else:
        with suppress(FileNotFoundError):
            staging.unlink()


def create(path: Path) -> BinaryIO:
    """A new private (0600) file at ``path`` open for writing.

    Raises:
        OSError: When it cannot be created (FileExistsError if something is there).
    """
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, files.PRIVATE_FILE)
    files.make_private(descriptor)
    return os.fdopen(descriptor, "wb")


def make_folder(path: Path) -> None:
    """Create the new private (0700) folder ``path``.

    Raises:
        OSError: When it cannot be created.
    """
    os.mkdir(path, files.PRIVATE_FOLDER)
    os.chmod(path, files.PRIVATE_FOLDER)  # the umask may have taken bits away
