"""Finding and reading the daily logs to import: folders expanded, each file read whole
(regular files only, at most 16 MiB) and parsed, or the reason it is refused."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from memstore import files
from memstore.arguments import valid_unicode
from memstore.errors import FileError, ImportRejected, InvalidInput
from memstore.logs.parse import ParsedLog, parse_log
from memstore.logs.syntax import MAX_LOG_BYTES
from memstore.paths import expanded
from memstore.schemas import FileImport

LARGE_TEXT_BYTES = 1024 * 1024  # a message this long goes in last, in pieces (FileText)
PIECE_BYTES = 64 * 1024
CHANGED = "changed while its long messages were read again; nothing was imported, import it again"


@dataclass(frozen=True)
class LoadedLog:
    """A daily log read and parsed, ready to store. ``data`` is a bytearray so that storing
    can empty it, for every holder at once, before writing the log's longest messages (see
    :func:`store`)."""

    path: str
    data: bytearray
    parsed: ParsedLog


def given_paths(paths: str | Path | Iterable[str | Path]) -> list[str | Path]:
    """``paths`` as a list (one path alone, a list of one).

    Raises:
        InvalidInput: If an item is no str or Path (found by review: log_files([123]) raised
            a bare TypeError).
    """
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    if not all(isinstance(path, str | Path) for path in given):
        raise InvalidInput("paths", "must be a list of file or folder paths (str or Path).")
    return given


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files to import: each file as given, each directory's ``*.md`` files sorted, not
    recursively, each once, as first named (found by review: a file named both itself and
    through its folder, or through ``..``, was counted as two). Paths are made absolute but
    symbolic links are not followed."""
    found: list[Path] = []
    for given in paths:
        path = expanded(given).absolute()
        if is_real_directory(path):
            found.extend(folder_logs(path))
        else:
            found.append(path)
    once: dict[str, Path] = {}
    for path in found:  # by where its source references point; a link (refused) gives way
        try:
            key = os.path.realpath(path)
        except ValueError:  # a NUL in it: load names the path it refuses
            key = str(path)
        if key not in once or os.path.islink(once[key]):
            once[key] = path
    return list(once.values())


def empty_folders(paths: Iterable[str | Path]) -> list[Path]:
    """The folders among ``paths`` that hold no ``*.md`` file directly (their subfolders are
    not searched)."""
    folders = [expanded(given).absolute() for given in paths]
    return [path for path in folders if is_real_directory(path) and not folder_logs(path)]


def folder_logs(folder: Path) -> list[Path]:
    """The ``*.md`` entries of ``folder``, sorted, as a shell's ``*.md`` lists them: not the
    hidden ones (found by review: a copy's ``._2026-10-05.md`` made the import an error),
    nor its subfolders, which are not searched."""
    entries = folder.glob("*.md")
    return sorted(p for p in entries if not p.name.startswith(".") and not is_real_directory(p))


def empty_folder(path: Path) -> FileImport:
    """The report of a folder given to import that holds no daily log."""
    return rejected(
        path,
        "holds no daily log (YYYY-MM-DD.md); folders are not searched recursively, so give "
        "the folders that hold the logs themselves",
    )


def is_real_directory(path: Path) -> bool:
    """Whether ``path`` is a directory and not a symbolic link; False when it cannot be
    inspected (a name too long, no permission): :func:`load` then reports why."""
    try:
        return path.is_dir() and not path.is_symlink()
    except OSError:
        return False


def load(path: Path) -> LoadedLog:
    """Read and parse one daily log.

    Raises:
        ImportRejected: For a missing or unreadable file, a symbolic link, a non-file, a file
            over 16 MiB, a path that is not valid UTF-8, or a file-level format error.
    """
    try:
        resolved, data = read(path)
    except OSError as error:
        raise ImportRejected(
            f"cannot be read ({error.strerror or error}); check the path"
        ) from error
    return LoadedLog(path=resolved, data=data, parsed=parse_log(data, path.name))


def loaded(paths: Sequence[Path]) -> Iterator[tuple[Path, LoadedLog | ImportRejected]]:
    """Each path with its loaded log, or why it was rejected, in order, one file in memory at
    a time. (Parsing the next file in a thread while SQLite stores the current one was
    measured: about 30% slower on two cores, so it is not done.)"""
    for path in paths:
        try:
            yield path, load(path)
        except ImportRejected as rejection:
            yield path, rejection.at(str(path))


def read(path: Path) -> tuple[str, bytearray]:
    """The resolved path (the base of source references) and the bytes of one log file.

    Raises:
        ImportRejected: For a symbolic link, a missing file or one that is not a regular file
            (a FIFO is refused without blocking), a file over 16 MiB or a path that is not
            valid UTF-8 (source references are UTF-8 text).
        OSError: When the file system refuses to inspect or read the file.
    """
    if path.is_symlink():
        if not path.exists():  # found by the re-check: told to import what it points to
            raise ImportRejected(f"is {files.broken_link(path)}")
        raise ImportRejected("is a symbolic link; import what it points to instead")
    try:
        resolved = str(path.resolve())
    except (RuntimeError, OSError):  # a folder on its way loops (found by review)
        raise ImportRejected("lies in a loop of symbolic links") from None
    if not valid_unicode(resolved):  # a name that is not UTF-8 decodes to lone surrogates
        raise ImportRejected("has a path that is not valid UTF-8; rename it or its folder")
    try:
        data = files.read_regular(path, MAX_LOG_BYTES, "a daily log")  # one over: caught
    except FileNotFoundError as error:
        raise ImportRejected("does not exist; check the path") from error
    except FileError as error:
        raise ImportRejected(error.reason.replace("a daily log must", "must")) from error
    if len(data) > MAX_LOG_BYTES:
        raise ImportRejected(f"is over {MAX_LOG_BYTES // (1024 * 1024)} MiB; split it first")
    return resolved, data


def rejected(path: Path | str, reason: str) -> FileImport:
    """The report of a file that imported nothing because of a file-level problem."""
    shown = printable(str(path))
    return FileImport(
        path=shown,
        session_id=None,
        imported=0,
        skipped=0,
        deferred=0,
        sealed_size=0,
        warnings=[],
        error=f"{shown}: {reason}",
    )


def printable(path: str) -> str:
    """A path as UTF-8 text: bytes of a name that is not UTF-8 become ``\\xNN`` escapes."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class FileText:
    """A message's text left in its log file: bytes ``[start, end)`` of ``path``, valid
    UTF-8 with the SHA-256 they had when parsed, each CRLF in them to be stored as LF: how
    the importer hands over a message of over a MiB (a
    :class:`~memstore.repository.imports.LargeText`).

    Attributes:
        size: Bytes of the text as stored.
    """

    path: str
    start: int
    end: int
    size: int
    sha256: str

    @classmethod
    def of(cls, path: str, data: bytes | bytearray, start: int, end: int) -> FileText:
        """The text at ``data[start:end]`` of the log at ``path``."""
        size = end - start - data.count(b"\r\n", start, end)
        digest = hashlib.sha256(memoryview(data)[start:end]).hexdigest()
        return cls(path, start, end, size, digest)

    def pieces(self) -> Iterator[bytes]:
        """The stored bytes, read from the file about :data:`PIECE_BYTES` at a time, each cut
        after a line feed where there is one (so no CRLF is split).

        Raises:
            ImportRejected: After the last piece, when the bytes read are not those parsed.
            OSError: When the file cannot be read again.
        """
        digest = hashlib.sha256()
        with files.opened_regular(Path(self.path)) as descriptor:
            position = self.start
            while position < self.end:
                chunk = os.pread(descriptor, min(PIECE_BYTES, self.end - position), position)
                if not chunk:
                    break
                last = position + len(chunk) >= self.end
                cut = len(chunk) if last else (chunk.rfind(b"\n") + 1 or len(chunk))
                if not last and chunk[cut - 1 : cut] == b"\r" and cut > 1:
                    cut -= 1  # keep a CR with the LF that may follow it
                digest.update(chunk[:cut])
                position += cut
                yield chunk[:cut].replace(b"\r\n", b"\n")
        if digest.hexdigest() != self.sha256 or position != self.end:
            raise ImportRejected(CHANGED, path=self.path)
