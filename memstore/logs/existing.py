"""A day's log the writer did not start: what its first append must do so that an import
still reads every record after it (found by review).

- A file holding only blanks (a BOM, empty lines: an editor's empty file) has no header,
  and an import refuses a log for its first line: it is emptied, and the header written.
- A file that ends inside a fenced code block (a hand edit, another program's writer) would
  hold every record after it as code, deferred by an import for ever: the fence is closed
  first, with the run that opened it, at the end of the record it belongs to.
- A file whose first line is anything else is refused untouched (FileError).

The writer reads a file once, at its first append to it: its own appends, and those of any
other memstore writer, close their fences.
"""

from __future__ import annotations

import os
from pathlib import Path

from memstore import files
from memstore.errors import FileError, ImportRejected
from memstore.logs.parse import parse_log
from memstore.logs.syntax import MAX_LOG_BYTES

BLANK_BYTES = b"\xef\xbb\xbf \t\r\n"
"""The bytes of a file that holds nothing: a UTF-8 BOM's, spaces, tabs, line endings."""


def before_records(path: Path, descriptor: int, size: int) -> tuple[int, bytes]:
    """The size the day's log at ``path`` (open for appending at ``descriptor``, ``size``
    bytes long, locked) keeps, and the bytes to write before the next record: 0 and nothing
    for a file of blanks (emptied: the header comes first), the line closing the fence the
    file ends inside, else nothing. A file past what an import reads is not read.

    Raises:
        FileError: If no import could read the file (its first line is not the log's header,
            it is not UTF-8): nothing is written.
    """
    if size == 0 or size > MAX_LOG_BYTES:
        return size, b""
    data = bytes(files.read_regular(path, MAX_LOG_BYTES, "the day's log"))
    if not data.strip(BLANK_BYTES):
        os.ftruncate(descriptor, 0)
        return 0, b""
    try:
        opening = parse_log(data, path.name).fence_opening
    except ImportRejected as error:
        raise FileError(
            str(path),
            f"no import could read what is appended to it: {error.reason}; nothing was "
            "appended (move the file aside, or mend it)",
        ) from error
    if opening is None:
        return size, b""
    return size, (b"" if data.endswith(b"\n") else b"\n") + opening.encode()
