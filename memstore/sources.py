"""The source reference of an imported or recorded message: ``<log path>#byte=<offset>``,
the resolved absolute path of its daily log and the byte offset of its record there. It is
the message's identity across imports (LOGFORMAT.md, "Import rules"); a deleted message's
reference is tombstoned so that no import brings it back.
"""

from __future__ import annotations

BYTE_MARK = "#byte="
"""What separates the path from the offset."""


def source_ref(path: str, byte: int) -> str:
    """The reference of the record at ``byte`` of the log at ``path`` (resolved, absolute)."""
    return f"{path}{BYTE_MARK}{byte}"


def log_prefix(path: str) -> str:
    """What every reference into the log at ``path`` starts with."""
    return f"{path}{BYTE_MARK}"


def byte_of(reference: str) -> int:
    """The byte offset of a reference made by :func:`source_ref`.

    Raises:
        ValueError: If ``reference`` has no offset.
    """
    return int(reference.rpartition(BYTE_MARK)[2])
