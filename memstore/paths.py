"""Paths as they are given, checked before anything is opened: text no file system takes or
memstore could not print, an empty path, a folder's name given for a file, and a ``~`` to
expand (see :mod:`memstore.files` for what is then opened)."""

from __future__ import annotations

import os
from pathlib import Path

from memstore.arguments import valid_unicode
from memstore.errors import FileError, InvalidInput


def openable(path: str | Path) -> None:
    """Refuse a path no file system takes.

    Raises:
        FileError: If ``path`` holds a NUL character.
    """
    if "\0" in str(path):
        raise FileError(repr(str(path)), "a file path cannot hold a NUL character; check the path.")


def nameable(path: str | Path) -> None:
    """Refuse a path no file system takes or memstore could not print.

    Raises:
        FileError: If ``path`` holds a NUL character or is not valid UTF-8 (memstore's JSON
            output could not name it).
    """
    openable(path)
    text = str(path)
    if not valid_unicode(text):
        raise FileError(repr(text), "the path is not valid UTF-8; rename the file or its folder.")


def given(path: str | Path, argument: str) -> None:
    """Refuse an empty path (an unset shell variable: found by review, it named the working
    folder) and one no file system takes (see :func:`openable`).

    Raises:
        InvalidInput: (``argument``) For an empty path.
        FileError: For a path holding a NUL character.
    """
    if not str(path).strip():
        raise InvalidInput(argument, "is an empty path; give a file or folder.")
    openable(path)


def expanded(path: str | Path) -> Path:
    """``path`` with a leading ``~`` or ``~user`` expanded, as a shell would: memstore's
    paths may come through none (an MCP client's arguments, a configuration).

    Raises:
        FileError: If it names a home folder that cannot be found (``~nosuchuser``).
    """
    try:
        return Path(path).expanduser()
    except RuntimeError as error:
        reason = str(error).rstrip(".")
        raise FileError(
            str(path), f"names a home folder that cannot be found ({reason})."
        ) from None


FOLDER_NAMED = "names a folder (it ends in '/', or its last part is '.' or '..')"
"""Why a path given for a file is refused (see :func:`names_folder`)."""


def names_folder(path: str | Path) -> bool:
    """Whether the text of ``path`` ends in a path separator, or in ``.`` or ``..`` after
    one, which name a folder (a :class:`Path` has dropped them: the check is for text as
    given; found by review: ``export out/.`` wrote a file named ``out``)."""
    return isinstance(path, str) and bool(path) and os.path.basename(path) in ("", ".", "..")


def file_named(path: str | Path, what: str) -> None:
    """Refuse a path for a file that names a folder (see :func:`names_folder`): a file of
    the folder's name was made (found by review).

    Raises:
        FileError: Naming ``what`` to give instead.
    """
    if names_folder(path):
        raise FileError(str(path), f"the path {FOLDER_NAMED}; give {what}.")
