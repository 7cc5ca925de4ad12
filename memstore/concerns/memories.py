"""Memories: remember (create, reuse, update or supersede), read, pin, list and delete.
Each function is one unit of work; the rules of supersession are in
:mod:`memstore.concerns.supersede`, the checks of the fields in
:mod:`memstore.concerns.memory_rules`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from memstore.arguments import position
from memstore.concerns import memory_rules, supersede
from memstore.concerns.memory_rules import Fields, Origins
from memstore.concerns.pages import following
from memstore.config import MemoryConfig
from memstore.errors import InvalidInput, MemoryDisabled, NotFound
from memstore.kinds import Category
from memstore.repository import memories
from memstore.repository.memories import StoredMemory
from memstore.schemas import Memory, MemoryPage, MemorySource
from memstore.store.database import Database
from memstore.times import utc_now


def memory_model(memory: StoredMemory, now: datetime) -> Memory:
    """The public model of a stored memory; past its expiry an active memory shows as
    expired."""
    return Memory.model_validate(memory).model_copy(update={"status": memory.shown_status(now)})


def require_enabled(config: MemoryConfig) -> None:
    """Raise :class:`MemoryDisabled` when the configuration turns memory writes off."""
    if not config.enabled:
        raise MemoryDisabled()


def remember(db: Database, content: str, fields: Fields, origins: Origins) -> Memory:
    """Create, reuse or supersede a memory (see :meth:`memstore.MemoryService.remember`).

    Raises:
        InvalidInput, SecretRejected: For a field the checks refuse.
        NotFound: For an unknown ``supersedes`` or source message.
    """
    now = utc_now()
    draft = memory_rules.draft(content, fields, now, origins.origin, origins.confidence)
    source = supersede.Source(origins.source_message_id, origins.source_ref)
    with db.write() as connection:
        memory = supersede.create(
            connection, draft, supersedes=origins.supersedes, source=source, now=now
        )
    return memory_model(memory, now)


def update_memory(db: Database, memory_id: str, content: str | None, fields: Fields) -> Memory:
    """Change a memory in place, keeping its id; a candidate becomes confirmed.

    Raises:
        NotFound: If there is no such memory.
        InvalidInput, SecretRejected: For fields the checks refuse, or a superseded memory.
    """
    now = utc_now()
    draft = memory_rules.draft(content, fields, now)
    with db.write() as connection:
        memory = memories.get(connection, memory_id)
        if memory is None:
            raise NotFound("memory", memory_id)
        revised = supersede.update(connection, memory, draft, now)
    return memory_model(revised, now)


def get_memory(db: Database, memory_id: str) -> Memory | None:
    """The memory with this id, whatever its status, or None."""
    with db.read() as connection:
        memory = memories.get(connection, memory_id)
    return None if memory is None else memory_model(memory, utc_now())


def memory_sources(db: Database, memory_id: str) -> list[MemorySource]:
    """The messages (or source references) a memory came from, oldest link first."""
    with db.read() as connection:
        links = memories.sources(connection, memory_id)
    return [MemorySource.model_validate(link) for link in links]


def delete_memory(db: Database, memory_id: str) -> bool:
    """Delete a memory and its source links; False when there was none."""
    with db.write() as connection:
        return memories.delete_memory(connection, memory_id)


def pin_memory(db: Database, memory_id: str, pinned: bool) -> Memory:
    """Pin (or unpin) a memory.

    Raises:
        NotFound: If there is no such memory.
        InvalidInput: When pinning a superseded memory (it is never in the context).
    """
    now = utc_now()
    with db.write() as connection:
        memory = memories.get(connection, memory_id)
        if memory is None:
            raise NotFound("memory", memory_id)
        if memory.status == "superseded" and pinned:
            raise InvalidInput(
                "memory_id",
                f"{memory_id} was superseded by {memory.superseded_by}; pin that one.",
            )
        memories.set_pinned(connection, memory_id, pinned, now)
    return memory_model(replace(memory, pinned=pinned, modified_at=now), now)


def list_memories(
    db: Database, category: Category | None, include_inactive: bool, limit: int, offset: int
) -> MemoryPage:
    """Memories in force (or all of them), pinned first, then newest first; ``limit`` is
    already capped.

    Raises:
        InvalidInput: For an offset outside 0..2**63 - 1.
    """
    position(offset, "offset", "0 or a previous next_offset")
    now = utc_now()
    with db.read() as connection:
        rows, total = memories.page(
            connection,
            category=category,
            include_inactive=include_inactive,
            now=now,
            limit=limit,
            offset=offset,
        )
    found = [memory_model(row, now) for row in rows]
    return MemoryPage(memories=found, total=total, next_offset=following(offset, len(found), total))
