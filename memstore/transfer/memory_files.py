"""A memory as a Markdown file: YAML front matter between two ``---`` lines, then the
content as the body, as Conch and basic-memory keep theirs::

    ---
    id: mem_1f0c...
    category: preference
    key: response_language
    status: active
    ...
    superseded_by: null
    sources:
    - message_id: msg_9a2e...
      source_ref: /home/diego/logs/2026-10-05.md#byte=120
    ---
    Diego prefers answers in Spanish.

The fields are those of :class:`MemoryRecord` (times as ISO 8601 text); ``sources`` lists
where it came from. The body is the content as it is (no line ending is changed), trimmed
of the white space around it as every memory's content is; a file whose every line ends in
CRLF is read with LF (see :func:`lf_lines`). PyYAML's ``safe_dump`` writes
the front matter, and :class:`FrontMatterLoader` (its safe loader, stricter) reads it.

An export writes every field; a file written by hand may leave out those of
:data:`DEFAULTS` (and ``sources``), and must give ``id``, ``category``, ``status``,
``created_at`` and ``modified_at``, each once. The values are read as strictly as a JSONL
line's: a time is ISO 8601 with a zone (quoted or not), ``pinned`` is ``true`` or ``false``
(YAML 1.1's ``yes``, ``no``, ``on`` and ``off`` are text, which the field refuses).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from memstore import files
from memstore.errors import FileError
from memstore.schemas.record_times import READ_BACK
from memstore.schemas.transfer import MemoryRecord, MemorySourceRecord, SourceLink
from memstore.transfer.front_matter import DuplicateKey, load
from memstore.transfer.problems import describe, refused, unlinked

DELIMITER = "---"
LINKS: TypeAdapter[list[SourceLink]] = TypeAdapter(list[SourceLink])
NOT_FIELDS = ("type", "content")  # the type is implied, the content is the body
MAX_FILE_BYTES = 1 << 20  # a memory holds at most 4,000 characters: 1 MiB is plenty
SHAPE = "a memory file is a line '---', its YAML fields, a line '---', then the content"
DEFAULTS: dict[str, Any] = {
    "key": None,
    "origin": "explicit",
    "confidence": 1.0,
    "pinned": False,
    "expires_at": None,
    "superseded_by": None,
}
"""The value of each front matter field a memory file may leave out."""
LOG_HEADER = re.compile(r"(# )?.+ Log — \d{4}-\d{2}-\d{2}\s*")  # LOGFORMAT.md's first line


def render(memory: MemoryRecord, links: Sequence[SourceLink]) -> str:
    """The Markdown file of ``memory`` and its source ``links`` (none: no ``sources``)."""
    fields: dict[str, Any] = memory.model_dump(mode="json", exclude=set(NOT_FIELDS))
    if links:
        fields["sources"] = [link.model_dump(mode="json") for link in links]
    front = dump(fields, readable=True)
    if load(front) != fields:  # PyYAML writes U+0085, U+2028 and U+2029 as they
        front = dump(fields, readable=False)  # are, then reads them as line breaks: escape
    return f"{DELIMITER}\n{front}{DELIMITER}\n{memory.content}\n"


def dump(fields: dict[str, Any], *, readable: bool) -> str:
    """The YAML of ``fields`` in their order; ``readable`` keeps non-ASCII text as it is
    rather than as escapes."""
    return yaml.safe_dump(fields, allow_unicode=readable, sort_keys=False, default_flow_style=False)


def parse(text: str, where: str) -> tuple[MemoryRecord, list[SourceLink]]:
    """The memory and source links of a Markdown memory file's text.

    Args:
        text: The file's text (a BOM and CRLF delimiter lines are accepted).
        where: The file, for messages.

    Raises:
        InvalidInput: (argument ``path``) Without front matter (a daily log is told apart),
            with front matter that is not YAML fields, gives a key twice, names ``type`` or
            ``content``, misses a required field, misspells one, or holds a value of another
            type or outside what the field allows.
    """
    fields, body = split(lf_lines(text.removeprefix("\ufeff")), where)
    for name in NOT_FIELDS:
        if name in fields:
            raise refused(where, f"the front matter names {name!r}; {SHAPE}")
    links = fields.pop("sources", None)
    if links is not None and not isinstance(links, list):  # false, 0 and '' were read as none
        shape = "give each source as an item ('- message_id: ...'), or no sources"
        raise refused(where, f"sources is no list; {shape}")
    memory_json = as_json(DEFAULTS | fields | {"content": body.strip()}, where)
    try:
        memory = MemoryRecord.model_validate_json(memory_json, strict=True, context=READ_BACK)
        links_json = as_json(links or [], where)
        return memory, LINKS.validate_json(links_json, strict=True, context=READ_BACK)
    except ValidationError as error:
        raise refused(where, describe(error)) from error


def lf_lines(text: str) -> str:
    """``text`` with each CRLF as LF when every line of it ends in CRLF, as an editor or Git
    on Windows rewrites a whole file; else as it is (a body keeps the CRLF its content holds,
    found by review: a converted file's body kept each ``\r``, and the store's own export
    no longer matched it)."""
    return text.replace("\r\n", "\n") if text.count("\r\n") == text.count("\n") else text


def as_json(value: Any, where: str) -> str:
    """The YAML ``value`` as JSON text, its dates and times as ISO 8601 text, so that it is
    read as strictly as a JSONL line.

    Raises:
        InvalidInput: For a value JSON cannot hold (binary data, a set).
    """
    try:
        return json.dumps(value, default=iso_text, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise refused(where, f"the front matter holds a value no field takes ({error})") from error


def iso_text(value: Any) -> str:
    """A YAML date or time as ISO 8601 text.

    Raises:
        TypeError: For any other value JSON cannot hold.
    """
    if isinstance(value, date):  # a datetime is a date too
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not text, a number, true, false or null")


def split(text: str, where: str) -> tuple[dict[str, Any], str]:
    """The front matter's fields and the body of a memory file.

    Raises:
        InvalidInput: If there is no front matter, it is not closed, is not YAML fields, or
            gives a key twice.
    """
    lines = text.split("\n")
    if lines[0].rstrip("\r") != DELIMITER:
        if LOG_HEADER.fullmatch(lines[0]):
            raise refused(
                where,
                "is a daily log, not a memory file: daily logs (a Markdown export's "
                "history/) are imported with `memstore import PATH --speaker NAME=ROLE ...`",
            )
        raise refused(where, f"has no front matter; {SHAPE}")
    closing = next((n for n, line in enumerate(lines[1:], 1) if line.rstrip("\r") == DELIMITER), 0)
    if not closing:
        raise refused(where, f"has no line '---' closing its front matter; {SHAPE}")
    try:
        fields = load("\n".join(lines[1:closing]))
    except DuplicateKey as error:
        first, again = (line + 1 for line in error.lines)  # the file's line 1 is '---'
        raise refused(
            where,
            f"the front matter gives {error.key!r} twice (lines {first} and {again}); "
            "give each field once",
        ) from error
    except yaml.YAMLError as error:
        raise refused(where, f"the front matter is not YAML ({error})") from error
    except RecursionError as error:  # found by review: 400 nested lists, a traceback
        raise refused(where, "the front matter nests too deep") from error
    except ValueError as error:  # PyYAML's own: 2026-02-30, an integer of 5,000 digits
        raise refused(
            where, f"the front matter holds a value YAML cannot read ({error})"
        ) from error
    if not isinstance(fields, dict):
        raise refused(where, f"the front matter is not YAML fields (name: value); {SHAPE}")
    return fields, "\n".join(lines[closing + 1 :])


def folder_records(
    folder: Path, *, exported: bool
) -> Iterator[tuple[str, MemoryRecord | MemorySourceRecord]]:
    """The memories of the Markdown files ``<folder>/*.md`` (sorted, not recursive), each
    followed by its source links, with the file each came from.

    Args:
        folder: The folder of memory files.
        exported: Whether it is an export's ``memories/``, which may be empty (a store
            without memories); any other folder must hold a memory file.

    Raises:
        InvalidInput: (argument ``path``) If a folder that is not an export's holds no
            ``*.md`` file, a folder inside it holds one, or a file is too large, not UTF-8
            or not a memory file (see :func:`parse`).
        FileError: If a file is a symbolic link or not a regular file, or cannot be read.
    """
    paths = memory_paths(folder)
    if not paths and not exported:
        raise refused(str(folder), f"holds no memory files (*.md); {SHAPE}")
    nested = sorted(sub for sub in folder.iterdir() if inner_folder(sub) and holds_memories(sub))
    if nested:  # found by review: left out, silently
        raise refused(
            str(nested[0]),
            f"holds memory files (*.md) in a folder inside {folder}, which is not read; move "
            "them up into it, or import the folder on its own",
        )
    return file_records(paths)


def memory_paths(folder: Path) -> list[Path]:
    """The memory files of ``folder`` (not inside its folders), sorted: each entry named
    ``*.md`` in any case (``X.MD`` was left out, though ``import-memories X.MD`` read it:
    found by review) that is neither hidden (``._x.md``, an archiver's companion) nor a
    folder, as a shell's ``*.md`` leaves hidden files out and as ``import`` passes over
    both in a log folder."""
    return sorted(
        path
        for path in folder.iterdir()
        if path.suffix.casefold() == ".md"
        and not path.name.startswith(".")
        and not inner_folder(path)
    )


def holds_memories(folder: Path) -> bool:
    """Whether a folder inside the one imported holds memory files (False for one that
    cannot be read, as a shell's ``*/*.md`` passes over it)."""
    try:
        return bool(memory_paths(folder))
    except OSError:
        return False


def inner_folder(path: Path) -> bool:
    """Whether ``path`` is a folder (or a link to one) that is not hidden: found by review,
    ``.trash`` and ``.obsidian`` refused an import, and a link to a folder of memory files
    was passed over in silence."""
    return path.is_dir() and not path.name.startswith(".")


def file_records(paths: Sequence[Path]) -> Iterator[tuple[str, MemoryRecord | MemorySourceRecord]]:
    """The memories of the Markdown memory files ``paths``, in order, each followed by its
    source links, with the file each came from (raising as :func:`folder_records` says)."""
    for path in paths:
        memory, links = parse(read_text(path), str(path))
        yield str(path), memory
        for link in links:
            yield str(path), MemorySourceRecord(memory_id=memory.id, **link.model_dump())


def read_text(path: Path) -> str:
    """The text of one memory file (at most :data:`MAX_FILE_BYTES`).

    Raises:
        InvalidInput: If it is larger, or not UTF-8.
        FileError: If it is a symbolic link or not a regular file, or cannot be read.
    """
    unlinked(path, "a memory file")
    try:
        data = files.read_regular(path, MAX_FILE_BYTES, "a memory file")
    except OSError as error:
        raise FileError(str(path), f"cannot be read ({error.strerror or error}).") from error
    if len(data) > MAX_FILE_BYTES:
        raise refused(str(path), f"is over {MAX_FILE_BYTES} bytes, more than any memory needs")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise refused(str(path), f"is not UTF-8 (byte {error.start})") from error
