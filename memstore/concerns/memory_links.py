"""Where a memory came from: the message it was remembered from, by id, by source reference,
or both, linked once however often it is remembered from it."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from memstore.arguments import given_ref
from memstore.errors import InvalidInput, NotFound
from memstore.repository import memories as memory_rows
from memstore.repository import messages
from memstore.repository.memories import StoredMemory


@dataclass(frozen=True)
class Source:
    """Where a memory came from: a message id, a source reference, or both."""

    message_id: str | None = None
    source_ref: str | None = None


def link(connection: sqlite3.Connection, memory: StoredMemory, source: Source | None) -> None:
    """Record where the memory came from, resolving the message for a source reference.

    Raises:
        NotFound: If the source message id does not exist.
        InvalidInput: If ``source_ref`` is blank, or names another message than the one
            given by id (found by review: the link then kept the wrong reference once the
            message was deleted).
    """
    if source is None or (source.message_id is None and given_ref(source.source_ref) is None):
        return
    message = None
    if source.message_id is not None:
        message = messages.get_message(connection, source.message_id)
        if message is None:
            raise NotFound("message", source.message_id)
        named, own = source.source_ref, message.source_ref
        if named is not None and own is not None and named != own:
            raise InvalidInput(
                "source_ref",
                f"is not the reference of message {message.id} ({message.source_ref}); give "
                "one of the two, or the two of one message.",
            )
    elif source.source_ref is not None:
        message = messages.message_by_source(connection, source.source_ref)
    ref = source.source_ref or (message.source_ref if message else None)
    memory_rows.add_source(connection, memory.id, message.id if message else None, ref)
