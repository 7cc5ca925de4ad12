"""Memories: remember (create, reuse, update or supersede), read, pin, list and delete.
Each function is one unit of work; the rules of supersession are in
:mod:`memstore.concerns.supersede`, the checks of the fields in
:mod:`memstore.concerns.memory_rules`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from pydantic import ValidationError

from memstore.arguments import position
from memstore.concerns import memory_links, memory_rules, supersede
from memstore.concerns.memory_rules import Fields, Origins
from memstore.concerns.pages import following, room
from memstore.config import MemoryConfig, PageSize
from memstore.errors import InvalidInput, MemoryDisabled, NotFound
from memstore.kinds import Category
from memstore.repository import memories
from memstore.repository.memories import StoredMemory
from memstore.repository.stored_values import damaged
from memstore.schemas import Memory, MemoryPage, MemorySource
from memstore.store.database import Database
from memstore.text.clipping import fill_memories
from memstore.times import after, utc_now


def memory_model(memory: StoredMemory, now: datetime) -> Memory:
    """The public model of a stored memory; past its expiry an active memory shows as
    expired.

    Raises:
        StoreDamaged: For a value no write stores (a category or status a file edited
            around its CHECK constraints holds: found by review, a traceback).
    """
    try:
        model = Memory.model_validate(memory)
    except ValidationError as error:
        field = str(error.errors()[0]["loc"][0])
        value = getattr(memory, field, None)
        raise damaged("memories", field, memory.id, value, "a value memstore writes") from error
    return model.model_copy(update={"status": memory.shown_status(now)})


def require_enabled(config: MemoryConfig) -> None:
    """Raise :class:`MemoryDisabled` when the configuration turns memory writes off."""
    if not config.enabled:
        raise MemoryDisabled()


def remember(db: Database, content: str, fields: Fields, origins: Origins) -> Memory:
    """Create, reuse, update or supersede a memory, in one write transaction.

    Normalised duplicate content (NFKC, case folded, white space collapsed, final period
    dropped) returns the existing memory. New content under an active ``key`` supersedes
    the memory holding it; ``supersedes`` does the same for an explicit id. With
    ``memory_id`` this is :meth:`update_memory`.

    Args:
        content: 1-4,000 characters after trimming; written in the third person.
        category: ``preference``, ``fact``, ``project``, ``goal`` or ``other``.
        key: A semantic key such as ``response_language``; normalised to letters (with their
            marks), numbers, dots, hyphens and underscores; empty means none.
        memory_id: Update this memory instead (its id is kept).
        expires_at: ISO 8601 or datetime in the future; without a time zone it is local
            time; empty means none. Expired memories leave recall, context and counts.
        supersedes: Id of an active memory this one replaces.
        origin: ``explicit``, or ``extracted`` for an unconfirmed candidate that stays out
            of recall and context until confirmed by an update and never supersedes.
        confidence: 0-1, for extracted candidates.
        source_message_id, source_ref: The message the memory came from.

    Raises:
        MemoryDisabled: When the configuration says ``enabled: false``.
        InvalidInput: For any invalid argument (named in the message).
        SecretRejected: When the content looks like a credential; nothing is stored.
        NotFound: For an unknown ``memory_id``, ``supersedes`` or source message.
    """
    now = utc_now()
    draft = memory_rules.draft(content, fields, now, origins.origin, origins.confidence)
    source = memory_links.Source(origins.source_message_id, origins.source_ref)
    named_first(db, ("memory", origins.supersedes), ("message", origins.source_message_id))
    with db.write() as connection:
        memory = supersede.create(
            connection, draft, supersedes=origins.supersedes, source=source, now=now
        )
    return memory_model(memory, now)


def named_first(db: Database, *named: tuple[str, str | None]) -> None:
    """Raise NotFound for the first record ``named`` (kind, id or None) when there is no
    database file yet, which no id can be in: before a write creates one (found by review:
    ``remember --memory-id`` on a mistyped ``--database`` left a new, empty store)."""
    for kind, record_id in named:
        if record_id is not None and not db.path.exists():
            raise NotFound(kind, record_id)


def require_explicit_update(origin: str) -> None:
    """Raise InvalidInput for an update (``remember`` with a ``memory_id``) whose origin is
    ``extracted``: an unconfirmed fact may not rewrite, confirm or supersede a memory (found
    by review: it rewrote a confirmed one and superseded another through its key)."""
    if origin == "extracted":
        raise InvalidInput(
            "origin",
            "is extracted, which cannot update a memory (memory_id); remember the fact "
            "without memory_id to keep it as a candidate, or as explicit to update.",
        )


def update_memory(
    db: Database,
    memory_id: str,
    content: str | None,
    fields: Fields,
    origins: Origins | None = None,
) -> Memory:
    """Change a memory in place, keeping its id; a candidate becomes confirmed.

    Any other active memory holding the new content or key is superseded by this one, and
    so is the one ``origins.supersedes`` names; the memory is linked to ``origins``' source
    message (``remember`` with a ``memory_id`` is this update: found by review, it made a
    preference a fact and ignored both). Arguments left as None (or empty) keep their value.

    Raises:
        MemoryDisabled: When the configuration says ``enabled: false``.
        NotFound: If there is no such memory, or ``origins`` names a memory or a source
            message that does not exist.
        InvalidInput: For invalid fields, a memory that was superseded, or ``supersedes``
            naming one that is not active or this memory itself.
        SecretRejected: When the new content looks like a credential, or is (or the old one
            is) the credential the key names.
    """
    not_itself(memory_id, origins)
    now = utc_now()
    draft = memory_rules.draft(content, fields, now)
    named_first(db, ("memory", memory_id))
    with db.write() as connection:
        memory = memories.get(connection, memory_id)
        if memory is None:
            raise NotFound("memory", memory_id)
        revised = supersede.update(connection, memory, draft, now)
        if origins is not None:
            source = memory_links.Source(origins.source_message_id, origins.source_ref)
            revised = supersede.adopt(
                connection, revised, supersedes=origins.supersedes, source=source, now=now
            )
    return memory_model(revised, now)


def not_itself(memory_id: str, origins: Origins | None) -> None:
    """Raise InvalidInput when an update of ``memory_id`` names it as the memory it
    supersedes (found by review)."""
    if origins is not None and origins.supersedes == memory_id:
        raise InvalidInput(
            "supersedes", f"names {memory_id}, the memory being updated; leave it out."
        )


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
    """Delete a memory and its source links; False when there was none (no database file
    is created to find none)."""
    if not db.path.exists():
        return False
    with db.write() as connection:
        return memories.delete_memory(connection, memory_id)


def pin_memory(db: Database, memory_id: str, pinned: bool) -> Memory:
    """Pin (or unpin) a memory; one already so is left as it is, its modification time too
    (found by review: a repeated pin made the memory newer than an edit an export of
    another store brought, which its import then skipped).

    Raises:
        NotFound: If there is no such memory.
        InvalidInput: When pinning a superseded or expired memory (neither is ever in the
            context).
    """
    now = utc_now()
    named_first(db, ("memory", memory_id))
    with db.write() as connection:
        memory = memories.get(connection, memory_id)
        if memory is None:
            raise NotFound("memory", memory_id)
        if memory.status == "superseded" and pinned:
            raise supersede.superseded_refusal(connection, memory, "pin")
        if pinned and memory_model(memory, now).status == "expired":
            raise InvalidInput(
                "memory_id",
                f"{memory_id} expired at {memory.expires_at}; remember it again to keep it.",
            )
        if memory.pinned == pinned:  # nothing changes, not even its modification time
            return memory_model(memory, now)
        modified = after(now, memory.modified_at)
        memories.set_pinned(connection, memory_id, pinned, modified)
    return memory_model(replace(memory, pinned=pinned, modified_at=modified), now)


def list_memories(
    db: Database,
    pages: PageSize,
    category: Category | None,
    include_inactive: bool,
    limit: int,
    offset: int,
) -> MemoryPage:
    """Memories in force (or all of them), pinned first, then newest first.

    Args:
        pages: The page size: the page holds at most its characters of JSON, the memory
            that does not fit clipped (``truncated``) and last (found by review: a page of
            ten long memories was 33,761 characters for a budget of 8,000).
        category: Only this category.
        include_inactive: Also superseded, candidate and expired memories.
        limit: Page size; ``max_results`` by default.
        offset: Where the page starts.

    Raises:
        InvalidInput: For an unknown category, limit < 1, or an offset outside 0..2**63 - 1.
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
    empty = MemoryPage(memories=[], total=total, next_offset=total)
    room_left = room(pages, empty, "next_offset", total)
    found = fill_memories([memory_model(row, now) for row in rows], room_left)
    return MemoryPage(memories=found, total=total, next_offset=following(offset, len(found), total))
