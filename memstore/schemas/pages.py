"""The pages memstore returns: recall results, memory, word and instance pages, conversations
and message chunks read back, and one day of the diary. Each page stays within
``recall_chars`` characters of JSON where its docstring says so."""

from __future__ import annotations

from datetime import date, datetime

from memstore.kinds import Scope, SessionKind
from memstore.schemas.records import (
    UNTRUSTED_WARNING,
    Instance,
    Memory,
    MemoryInfo,
    Message,
    MessageInfo,
    Result,
    Session,
    WordEntry,
)


class RecallConversation(Result):
    """One recall hit with its paired dialogue, in sequence order."""

    session_id: str
    matched_id: str
    """The id of the message that matched the query."""
    timestamp: datetime
    """When the matched message was created."""
    messages: list[Message]


class RecallResult(Result):
    """What ``recall`` found: memories and conversations, best first, within the budgets."""

    warning: str = UNTRUSTED_WARNING
    memories: list[Memory]
    conversations: list[RecallConversation]
    truncated: bool
    """True when a message was clipped or a hit was left out by the budgets."""


class MemoryPage(Result):
    """One page of memories, with the exact total and where the next page starts."""

    memories: list[Memory]
    total: int
    next_offset: int | None
    """Pass as ``offset`` for the next page; None on the last page."""


class SessionSummary(Result):
    """One session as the listing shows it: its time span, size and speakers."""

    id: str
    kind: SessionKind
    started_at: datetime
    ended_at: datetime | None
    """None while open, or for an interrupted or imported session."""
    messages: int
    """How many messages it holds, of every role and status."""
    first_message_at: datetime | None
    """When its first message was written (None without messages)."""
    last_message_at: datetime | None
    """When its last message was written: with ``first_message_at``, the span of an imported
    session, which has no ``ended_at``."""
    speakers: list[str]
    """The names its speakers go by, in the order they first speak (none for a session
    recorded without names)."""


class SessionPage(Result):
    """One page of sessions, newest first, with the exact total and where the next page
    starts."""

    sessions: list[SessionSummary]
    total: int
    next_offset: int | None
    """Pass as ``offset`` for the next page; None on the last page."""


class MemoryContext(Result):
    """The per-turn memory block a host injects before the model sees the user's message."""

    text: str
    """The block to inject, labelled as untrusted data; empty when there is nothing."""
    memory_ids: list[str]
    """Memories included, in the order shown."""
    omitted_ids: list[str]
    """Memories the ``context_chars`` budget left out."""
    truncated: bool
    """True when a memory's content was clipped to fit."""


class WordPage(Result):
    """One alphabetical page of the vocabulary."""

    warning: str = UNTRUSTED_WARNING
    scope: Scope
    words: list[WordEntry]
    total: int
    """Exact number of words for the prefix, scope and filters."""
    next_offset: int | None
    """Pass as ``offset`` for the next page; None on the last page."""


class InstancePage(Result):
    """One page of the occurrences of a word, newest record first."""

    warning: str = UNTRUSTED_WARNING
    word: str
    """The word as folded and searched."""
    scope: Scope
    instances: list[Instance]
    total: int
    """Exact number of occurrences for the scope and filters."""
    next_offset: int | None


class ConversationPage(Result):
    """Completed user and assistant messages of one session, in sequence."""

    warning: str = UNTRUSTED_WARNING
    session: Session
    messages: list[Message]
    next_after: int | None
    """Pass as ``after`` for the next page; None on the last page. A clipped message (its
    ``truncated`` set) is read whole with read_memory_message."""


class MessageChunk(Result):
    """A run of one message's characters, or one memory's; follow ``next_offset`` to read
    every one."""

    warning: str = UNTRUSTED_WARNING
    message: MessageInfo | MemoryInfo
    """The message's fields besides its content, or the memory's (a memory's id read:
    recall and list_memories clip a memory longer than their page too)."""
    offset: int
    """Character offset of ``content`` in the message."""
    total_chars: int
    next_offset: int | None
    content: str


class DiaryConversation(Result):
    """The messages one session holds on one local day, in time order."""

    session_id: str
    started_at: datetime
    """The time of its first message that day (a conversation crossing midnight shows in
    both days, each with that day's messages)."""
    ended_at: datetime
    """The time of its last message that day."""
    message_count: int
    messages: list[Message]
    """Every message of that day: system, interrupted and error ones included."""


class Diary(Result):
    """One local calendar day: its conversations, the memories written or updated that day,
    and the closest earlier and later days with a conversation. Times are UTC; ``day``,
    ``previous_day`` and ``next_day`` are dates in ``time_zone``."""

    warning: str = UNTRUSTED_WARNING
    day: date
    time_zone: str
    """The IANA zone the day was cut in, e.g. ``Europe/Madrid``."""
    previous_day: date | None
    """The closest earlier day with a stored message, or None."""
    next_day: date | None
    """The closest later day with a stored message, or None."""
    conversations: list[DiaryConversation]
    """Ordered by their first message that day."""
    memories: list[Memory]
    """Memories created or modified that day (any status), in the order of that event."""
    log: str | None
    """The day's Markdown log as raw text when the database holds no conversation that day
    and the file exists; else None."""
    log_path: str | None
    """The log file looked for when the database holds no conversation that day; else None."""
    log_error: str | None = None
    """Why the day's log could not be shown (not a regular file, a symbolic link, over
    16 MiB, not UTF-8, unreadable, messages of it deleted), or None."""
