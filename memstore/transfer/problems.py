"""What is wrong with an export read back: one sentence for what pydantic found wrong in a
record, the error naming where it is, the refusal of a symbolic link, and of a path no file
system takes (for the export written too)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

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
    what is wrong (a sentence of its own, such as another error's message, without its final
    period), and that nothing was imported."""
    reason = reason.removesuffix(".")
    return InvalidInput("path", f"{where}: {reason}; nothing was imported. Fix it and retry.")


def unlinked(path: Path, what: str) -> None:
    """Refuse a symbolic link where an export is read, as ``memstore import`` refuses one
    given as a daily log: a link in a folder of exports could make the import read any
    file the user can read.

    Raises:
        FileError: If ``path`` is a symbolic link, or cannot be examined (a name too long,
            a folder this user may not enter: found by review, a bare OSError).
    """
    try:
        linked = path.is_symlink()
    except OSError as error:
        raise FileError(
            str(path), f"{what} cannot be examined ({error.strerror or error})."
        ) from error
    if linked:
        raise FileError(
            str(path), f"{what} must not be a symbolic link; import the file it points to."
        )
