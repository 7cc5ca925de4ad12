"""The memory lifecycle inside one write transaction: create, reuse, update, supersede.

Rules (the memory paragraphs of the Morgan design notes):
- normalised duplicate content reuses the active memory that holds it;
- new content under an active key supersedes the memory holding the key, atomically;
- ``supersedes=id`` supersedes that memory explicitly;
- a new memory that supersedes another keeps its pin, category and key unless given them;
- an update keeps the memory's id, and supersedes any other active memory that holds its new
  content or key; updating a candidate confirms it;
- an extracted memory is a ``candidate`` and never supersedes a confirmed one;
- an active memory whose expiry has passed is marked ``expired`` when a write meets it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import datetime

from memstore.concerns.memory_links import Source, link
from memstore.concerns.memory_rules import Draft, refuse_keyed
from memstore.errors import InvalidInput, NotFound
from memstore.ids import new_id
from memstore.kinds import MemoryStatus
from memstore.repository import memories as memory_rows
from memstore.repository.memories import StoredMemory
from memstore.times import after


def holder(
    connection: sqlite3.Connection,
    now: datetime,
    *,
    normalized: str | None = None,
    key: str | None = None,
) -> StoredMemory | None:
    """The active, unexpired memory holding this content or key; an expired one found on the
    way is marked expired so that it frees the content or key."""
    if normalized is None and key is None:
        return None
    found = memory_rows.active_with(connection, normalized=normalized, key=key)
    if found is not None and found.expired(now):
        memory_rows.retire(connection, [found.id], "expired", now)
        return None
    return found


def create(
    connection: sqlite3.Connection,
    draft: Draft,
    *,
    supersedes: str | None,
    source: Source | None,
    now: datetime,
) -> StoredMemory:
    """Create a memory, or reuse the one with the same normalised content.

    Raises:
        NotFound: If ``supersedes`` or the source message does not exist.
        InvalidInput: If ``supersedes`` is not active, or a candidate would supersede.
    """
    assert draft.content is not None and draft.normalized is not None
    candidate = draft.origin == "extracted"
    if candidate and supersedes is not None:
        raise InvalidInput("supersedes", "an extracted candidate cannot supersede a memory.")
    duplicate = holder(connection, now, normalized=draft.normalized)
    if duplicate is not None:
        return reuse(connection, duplicate, draft, supersedes=supersedes, source=source, now=now)
    pending = memory_rows.candidate_with(connection, draft.normalized)
    while pending is not None and pending.expired(now):  # found by review: kept, and skipped
        memory_rows.retire(connection, [pending.id], "expired", now)
        pending = memory_rows.candidate_with(connection, draft.normalized)
    if pending is not None:
        return reuse(connection, pending, draft, supersedes=supersedes, source=source, now=now)
    replaced = [] if candidate else targets(connection, draft.key, supersedes, now)
    memory = new_memory(draft, "candidate" if candidate else "active", now)
    memory = successor(connection, memory, replaced, inherits=draft.category is None)
    memory_rows.retire(connection, replaced, "superseded", now)
    memory_rows.insert(connection, memory)
    memory_rows.point(connection, replaced, memory.id, now)
    link(connection, memory, source)
    return memory


def reuse(
    connection: sqlite3.Connection,
    holder: StoredMemory,
    draft: Draft,
    *,
    supersedes: str | None,
    source: Source | None,
    now: datetime,
) -> StoredMemory:
    """The memory holding the draft's content (active, or an unconfirmed candidate), in
    place of a new one. An extracted draft only links it to its source: a candidate never
    changes a confirmed memory (found by review: its key superseded the key's holder). An
    explicit one gives an active holder the fields it gives, or confirms a candidate with them as
    :func:`update` does (found by review: each extraction, then the user's remember, added
    a row), and makes it replace ``supersedes`` (found by review: ignored).

    Raises:
        NotFound: If ``supersedes`` or the source message does not exist.
        InvalidInput: If ``supersedes`` is not active.
    """
    if draft.origin == "extracted":
        link(connection, holder, source)
        return holder
    given = Draft(category=draft.category, key=draft.key, expires_at=draft.expires_at)
    if holder.status == "candidate":
        holder = update(connection, holder, draft, now)
    elif given != Draft():  # found by review: --expires and --category were dropped
        holder = update(connection, holder, given, now)
    return adopt(connection, holder, supersedes=supersedes, source=source, now=now)


def adopt(
    connection: sqlite3.Connection,
    memory: StoredMemory,
    *,
    supersedes: str | None,
    source: Source | None,
    now: datetime,
) -> StoredMemory:
    """Make ``memory`` replace the active memory ``supersedes`` names (itself aside), as
    :func:`successor` makes it, and link it to the message it came from.

    Raises:
        NotFound: If ``supersedes`` or the source message does not exist.
        InvalidInput: If ``supersedes`` is not active.
        SecretRejected: When its content is the credential the key it takes names.
    """
    replaced = [id_ for id_ in targets(connection, None, supersedes, now) if id_ != memory.id]
    heir = successor(connection, memory, replaced, inherits=False)
    memory_rows.retire(connection, replaced, "superseded", now)
    memory_rows.point(connection, replaced, memory.id, now)
    if heir != memory:
        memory = replace(heir, modified_at=after(now, memory.modified_at))
        memory_rows.revise(connection, memory)
    link(connection, memory, source)
    return memory


def targets(
    connection: sqlite3.Connection, key: str | None, supersedes: str | None, now: datetime
) -> list[str]:
    """The ids of the active memories a new one replaces: the explicit ``supersedes`` and the
    key's holder."""
    replaced: list[str] = []
    if supersedes is not None:
        found = memory_rows.get(connection, supersedes)
        if found is None:
            raise NotFound("memory", supersedes)
        if found.status == "superseded":
            raise superseded_refusal(connection, found, "supersede", argument="supersedes")
        status = found.shown_status(now)  # expired, marked so or not (found by review)
        if status != "active":
            raise InvalidInput("supersedes", f"memory {supersedes} is {status}, not active.")
        replaced.append(found.id)
    key_holder = holder(connection, now, key=key)
    if key_holder is not None and key_holder.id not in replaced:
        replaced.append(key_holder.id)
    return replaced


def successor(
    connection: sqlite3.Connection, memory: StoredMemory, replaced: list[str], inherits: bool
) -> StoredMemory:
    """``memory`` as the new value of the memories it replaces: pinned when one of them was,
    of the first one's category when it ``inherits`` it (a new memory, or a candidate
    confirmed, given no category: found by review, "prefers English" under the key of a
    pinned preference "prefers Spanish" was an unpinned fact), and of its key when it has
    none (found by review: a keyed memory superseded by id left its key free, and the key's
    next value left two in force). Raises SecretRejected if that key names its content."""
    before = [found for id_ in replaced if (found := memory_rows.get(connection, id_))]
    if not before:
        return memory
    category = before[0].category if inherits else memory.category
    key = memory.key or before[0].key
    if key != memory.key:
        refuse_keyed(key, memory.content)
    pinned = memory.pinned or any(o.pinned for o in before)
    return replace(memory, category=category, key=key, pinned=pinned)


def new_memory(draft: Draft, status: MemoryStatus, now: datetime) -> StoredMemory:
    """A new memory for a draft with every field given."""
    assert draft.content is not None and draft.normalized is not None
    return StoredMemory(
        id=new_id("mem"),
        content=draft.content,
        normalized_content=draft.normalized,
        category=draft.category or "fact",
        key=draft.key,
        pinned=False,
        status=status,
        origin=draft.origin,
        confidence=draft.confidence,
        created_at=now,
        modified_at=now,
        expires_at=draft.expires_at,
        superseded_by=None,
    )


def update(
    connection: sqlite3.Connection, memory: StoredMemory, draft: Draft, now: datetime
) -> StoredMemory:
    """Change a memory in place (its id stays); confirm it if it was a candidate. A change
    that changes nothing leaves it as it is, its modification time too: an import of another
    store's export takes the newer of two copies by it (found by review: a repeated write
    made a stale copy the newer, and the import skipped a real edit).

    Raises:
        SecretRejected: When its content is the credential its key names (either given).
        InvalidInput: If the memory was superseded, or has expired and ``draft`` gives it no
            new expiry (it would stay out of force, yet supersede the holder of its content
            or key: found by review, nothing was left in force), or gives it one alone while
            another memory has held its key or content since it expired (found by review:
            the stale value superseded the newer one).
    """
    if memory.status == "superseded":
        raise superseded_refusal(connection, memory, "update")
    if draft.key or draft.content:  # a new key over the old content, or the other way
        refuse_keyed(draft.key or memory.key, draft.content or memory.content)
    revised = applied(memory, draft, now)
    if revised.expired(now):
        raise InvalidInput(
            "memory_id",
            f"{memory.id} expired at {memory.expires_at}; give it a new expires_at to update "
            "it, or remember the fact again.",
        )
    replaced = displaced(connection, memory, revised, now)
    if not replaced and replace(revised, modified_at=memory.modified_at) == memory:
        return memory  # nothing changes, not its modification time either (found by review)
    confirmed = memory.status == "candidate" and draft.category is None
    revised = successor(connection, revised, replaced, inherits=confirmed)
    memory_rows.retire(connection, replaced, "superseded", now)
    memory_rows.revise(connection, revised)
    memory_rows.point(connection, replaced, revised.id, now)
    return revised


def displaced(
    connection: sqlite3.Connection, memory: StoredMemory, revised: StoredMemory, now: datetime
) -> list[str]:
    """The ids of the other active memories holding the content or the key of ``revised``
    (``memory`` updated), which it supersedes.

    Raises:
        InvalidInput: If ``memory`` expired and one of them has held its own content or key
            since (see :func:`update`).
    """
    normalized, key = revised.normalized_content, revised.key
    holders = (holder(connection, now, normalized=normalized), holder(connection, now, key=key))
    replaced = list(dict.fromkeys(o.id for o in holders if o is not None and o.id != memory.id))
    same = (revised.normalized_content, revised.key) == (memory.normalized_content, memory.key)
    if replaced and memory.expired(now) and same:  # its own content and key given again too
        raise InvalidInput(
            "expires_at",
            f"{memory.id} expired at {memory.expires_at}, and {replaced[0]} has held its key "
            "or content since; a new expiry does not take them back (update that memory, or "
            "remember the fact again).",
        )
    return replaced


def applied(memory: StoredMemory, draft: Draft, now: datetime) -> StoredMemory:
    """``memory`` with the given fields of ``draft``, active, modified ``now`` (or just after
    it last was, when the clock went back since: see :func:`~memstore.times.after`)."""
    return replace(
        memory,
        content=draft.content or memory.content,
        normalized_content=draft.normalized or memory.normalized_content,
        category=draft.category or memory.category,
        key=draft.key or memory.key,
        expires_at=draft.expires_at or memory.expires_at,
        status="active",
        modified_at=after(now, memory.modified_at),  # only forward (found by review)
    )


def superseded_refusal(
    connection: sqlite3.Connection, memory: StoredMemory, verb: str, argument: str = "memory_id"
) -> InvalidInput:
    """The refusal to ``verb`` a superseded memory, given as ``argument``: the newest memory
    of its chain of successors is the one to use, or, when the chain ends in a deleted one,
    the fact is to be remembered again (found by review: "was superseded by None", then a
    successor that was itself refused)."""
    newest, seen = memory, {memory.id}
    while newest.superseded_by is not None and newest.superseded_by not in seen:
        seen.add(newest.superseded_by)
        following = memory_rows.get(connection, newest.superseded_by)
        if following is None:
            break
        newest = following
    if newest.status == "superseded":
        reason = "was superseded by a memory since deleted; remember the fact again to keep it."
    else:
        reason = f"was superseded; its current version is {newest.id}: {verb} that one."
    return InvalidInput(argument, f"{memory.id} {reason}")
