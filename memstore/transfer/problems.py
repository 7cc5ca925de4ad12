"""What is wrong with an export read back: one sentence for what pydantic found wrong in a
record, the error naming where it is, the refusal of a symbolic link, and of a path no file
system takes (for the export written too)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from memstore.arguments import valid_unicode
from memstore.errors import FileError, InvalidInput


def describe(error: ValidationError) -> str:
    """Each problem of ``error`` as ``field: what is wrong``, joined by "; " (the field path
    of a nested value dotted, e.g. ``memory.status: Input should be 'active', ...``)."""
    parts = []
    for problem in error.errors(include_url=False):
        field = ".".join(str(part) for part in problem["loc"])
        parts.append(f"{field}: {problem['msg']}" if field else problem["msg"])
    return "; ".join(parts)


def refused(where: str, reason: str) -> InvalidInput:
    """The error (argument ``path``) of an export that cannot be imported as it is: where,
    what is wrong, and that nothing was imported."""
    return InvalidInput("path", f"{where}: {reason}; nothing was imported. Fix it and retry.")


def unlinked(path: Path, what: str) -> None:
    """Refuse a symbolic link where an export is read, as ``memstore import`` refuses one
    given as a daily log: a link in a folder of exports could make the import read any
    file the user can read.

    Raises:
        FileError: If ``path`` is a symbolic link.
    """
    if path.is_symlink():
        raise FileError(
            str(path), f"{what} must not be a symbolic link; import the file it points to."
        )


def usable_path(path: str | Path, what: str) -> str | Path:
    """``path`` as given, once it is one a file system can take, as the database's path is
    checked (:class:`memstore.store.database.Database`).

    Args:
        path: The path of an export, to read or write.
        what: What it is for, for the message ("the export").

    Raises:
        FileError: If it holds a NUL character, or is not valid UTF-8 (no report could
            name it).
    """
    text = str(path)
    if "\0" in text:
        raise FileError(repr(text), f"{what}: a file path cannot hold a NUL character; check it.")
    if not valid_unicode(text):
        raise FileError(
            repr(text), f"{what}: the path is not valid UTF-8; rename the file or its folder."
        )
    return path
