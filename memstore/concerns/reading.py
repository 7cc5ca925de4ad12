"""Reading back: one conversation in pages, and one message in chunks, each page within
the characters of JSON of the page size (``recall_chars`` for an agent)."""

from __future__ import annotations

from datetime import datetime

from memstore.arguments import position
from memstore.concerns.pages import room
from memstore.config import PageSize
from memstore.errors import InvalidInput, NotFound
from memstore.repository import memories, messages, sessions
from memstore.repository.memories import StoredMemory
from memstore.schemas import (
    ConversationPage,
    MemoryInfo,
    Message,
    MessageChunk,
    MessageInfo,
    Session,
)
from memstore.store.database import Database
from memstore.text.clipping import fill_dialogue, json_prefix
from memstore.times import utc_now


def read_conversation(
    db: Database, pages: PageSize, session_id: str, after: int, limit: int
) -> ConversationPage:
    """Completed user and assistant messages of a session with sequence > ``after``, in
    order, within ``limit`` (capped by the items of ``pages``) and its characters.

    A message too long for the page is clipped and marked ``truncated``; read it whole
    with :meth:`read_memory_message`. Imported daily sessions have unknown original
    boundaries.

    Raises:
        NotFound: If there is no such session.
        InvalidInput: If ``after`` < 0 or ``limit`` < 1.
    """
    position(after, "after", "0 or a previous next_after")
    with db.read() as connection:
        session = sessions.get(connection, session_id)
        if session is None:
            raise NotFound("session", session_id)
        rows = messages.dialogue(connection, session_id, after, limit + 1)
    found = [Message.model_validate(row) for row in rows]
    empty = ConversationPage(session=Session.model_validate(session), messages=[], next_after=0)
    widest = max((message.sequence for message in found), default=0)
    taken = fill_dialogue(found[:limit], room(pages, empty, "next_after", widest))
    more = len(taken) < len(found)
    return empty.model_copy(
        update={"messages": taken, "next_after": taken[-1].sequence if more else None}
    )


def read_message(db: Database, pages: PageSize, message_id: str, offset: int) -> MessageChunk:
    """The characters of one message (or memory: ``message_id`` may be a memory's id) from
    ``offset``, as many as fit ``pages``; follow ``next_offset`` until None to read every
    character. A memory longer than a page is clipped in recall and in its listing, so its
    whole content is read here too (found by review: an agent had no way to read it).

    Raises:
        NotFound: If there is no such message or memory.
        InvalidInput: If ``offset`` is outside ``0..total_chars``.
    """
    with db.read() as connection:
        message = messages.get_message(connection, message_id)
        memory = None if message is not None else memories.get(connection, message_id)
    if message is not None:
        info: MessageInfo | MemoryInfo = MessageInfo.model_validate(message)
        content = message.content
    elif memory is not None:
        info, content = memory_info(memory, utc_now()), memory.content
    else:
        raise NotFound("message or memory", message_id)
    if not 0 <= offset <= len(content):
        raise InvalidInput("offset", f"is {offset}; use 0..{len(content)} (total_chars).")
    empty = MessageChunk(
        message=info, offset=offset, total_chars=len(content), next_offset=0, content=""
    )
    chunk = json_prefix(content[offset:], room(pages, empty, "next_offset", len(content)))
    end = offset + len(chunk)
    return empty.model_copy(
        update={"content": chunk, "next_offset": end if end < len(content) else None}
    )


def memory_info(memory: StoredMemory, now: datetime) -> MemoryInfo:
    """The memory's fields besides its content, its status as shown at ``now``."""
    return MemoryInfo.model_validate(memory).model_copy(update={"status": memory.shown_status(now)})
