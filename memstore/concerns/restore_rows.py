"""The rows the records of an export become when restored, and the checks each passes first."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from memstore.arguments import chosen_id, valid_unicode
from memstore.concerns.history import check_content
from memstore.concerns.memory_rules import (
    clean_content,
    normalize_content,
    normalize_key,
    refuse_keyed,
    reject_secret_key,
)
from memstore.errors import InvalidInput, SecretRejected
from memstore.logs.write import heads_a_record
from memstore.repository.memories import StoredMemory
from memstore.repository.messages import StoredMessage
from memstore.schemas.transfer import (
    MemoryRecord,
    MessageRecord,
    SessionRecord,
)
from memstore.transfer.problems import refused


def supersession_cycle(
    start: str, superseded_by: Callable[[str], str | None], cleared: set[str]
) -> list[str]:
    """The memories of the cycle that following ``superseded_by`` from ``start`` runs into
    (empty when the chain ends).

    Args:
        start: A memory id.
        superseded_by: The link of a memory id (None where a chain ends).
        cleared: Ids known to lead to no cycle, shared between calls so that each chain is
            followed once; the ids of a chain that ends are added.
    """
    path: list[str] = []
    node: str | None = start
    while node is not None and node not in cleared:
        if node in path:
            return path[path.index(node) :]
        path.append(node)
        node = superseded_by(node)
    cleared.update(path)
    return []


def cycle_reason(cycle: list[str]) -> str:
    """Why a supersession cycle is refused, naming its memories."""
    chain = " -> ".join([*cycle, cycle[0]])
    return (
        f"the superseded_by links of memories {', '.join(cycle)} go round in a cycle "
        f"({chain}); a chain of supersessions must end at a memory that is not superseded"
    )


def check_ids(where: str, kind: str, **ids: str) -> None:
    """Raise InvalidInput (argument ``path``) for an id of a ``kind`` record that the API
    refuses (see :func:`~memstore.arguments.chosen_id`): found by review, a session id of
    157 characters with an escape and a bidi control was imported, which ``start_session``
    refuses. An export still writes such an id an older memstore stored; it is refused here,
    named, rather than carried into another store."""
    for name, value in ids.items():
        try:
            chosen_id(value, f"{kind}.{name}")
        except InvalidInput as error:
            raise refused(where, str(error)) from error


def check_message(where: str, record: MessageRecord) -> None:
    """Raise InvalidInput (argument ``path``) for a message no import could have stored:
    an id the API refuses, blank content, text that is not valid Unicode, a speaker name no
    log record can carry. A name ``record_message`` refuses but a log gave (a tab, a bidi
    control) is taken: the store's own export must come back (found by review)."""
    check_ids(where, "message", id=record.id, session_id=record.session_id)
    try:
        check_content(record.content)
    except InvalidInput as error:
        raise refused(where, str(error)) from error
    if record.speaker is not None and not heads_a_record(record.speaker.strip()):
        raise refused(
            where,
            f"speaker {record.speaker!r} is no name a log record can carry (1-100 "
            "characters, no colon or line ending)",
        )


def check_session(where: str, record: SessionRecord) -> None:
    """Raise InvalidInput (argument ``path``) for a session whose id the API refuses, or
    that ends before it starts."""
    check_ids(where, "session", id=record.id)
    if record.ended_at is not None and record.ended_at < record.started_at:
        raise refused(
            f"{where} (session {record.id})",
            f"ended_at {record.ended_at.isoformat()} is before started_at "
            f"{record.started_at.isoformat()}; a session ends after it starts",
        )


def memory_row(record: MemoryRecord, where: str, now: datetime) -> StoredMemory:
    """The row of a memory record, its content and key checked as any memory write's.

    Args:
        record: The memory as the export holds it.
        where: The file (and line), for messages.
        now: The time of the import (UTC), against which an ``expired`` status is checked.

    Raises:
        InvalidInput: For empty, too long or invalid content, a key too long, a
            ``superseded_by`` on a memory that is not superseded (or on itself), a
            ``modified_at`` or ``expires_at`` before ``created_at``, a ``candidate`` not
            ``extracted``, or the status ``expired`` without an ``expires_at`` that has
            passed.
        SecretRejected: When the id, the content or the key looks like a credential.
    """
    guard_ids(record, where)
    place = f"{where} (memory {record.id})"
    try:
        if not valid_unicode(record.content) or "\0" in record.content:
            raise InvalidInput("content", "holds a NUL or text that is not valid Unicode.")
        content, key = clean_content(record.content), normalize_key(record.key)
    except InvalidInput as error:
        raise refused(place, str(error)) from error
    check_memory_fields(record, place, now)
    guard(content, record.key, place)
    return StoredMemory(
        **record.model_dump(exclude={"type", "content", "key", "superseded_by"}),
        content=content,
        normalized_content=normalize_content(content),
        key=key,
        superseded_by=None,
    )


def check_memory_fields(record: MemoryRecord, place: str, now: datetime) -> None:
    """Refuse a memory record whose fields disagree (see :func:`memory_row`)."""
    if record.superseded_by is not None and record.status != "superseded":
        raise refused(place, f"superseded_by is set but the status is {record.status}")
    if record.superseded_by == record.id:
        raise refused(place, "superseded_by names the memory itself")
    if record.modified_at < record.created_at:
        raise refused(
            place,
            f"modified_at {record.modified_at.isoformat()} is before created_at "
            f"{record.created_at.isoformat()}; a memory is modified after it is created",
        )
    if record.expires_at is not None and record.expires_at < record.created_at:
        raise refused(
            place,
            f"expires_at {record.expires_at.isoformat()} is before created_at "
            f"{record.created_at.isoformat()}; a memory expires after it is created",
        )
    if record.status == "candidate" and record.origin != "extracted":
        raise refused(
            place,
            f"the status is candidate but the origin is {record.origin}; a candidate is "
            "extracted (a confirmed memory is active)",
        )
    if record.status == "expired" and (record.expires_at is None or record.expires_at > now):
        expiry = "no expires_at" if record.expires_at is None else "an expires_at to come"
        raise refused(place, f"the status is expired but it has {expiry}; make it active")


def candidate_link(where: str, by: str, status: str | None) -> None:
    """Refuse a ``superseded_by`` link to memory ``by`` when its ``status`` is
    ``candidate``: a candidate never supersedes a memory (see :mod:`supersede`).

    Raises:
        InvalidInput: (argument ``path``) Naming ``where`` and ``by``.
    """
    if status == "candidate":
        raise refused(
            where, f"superseded_by {by} is a candidate; a candidate never supersedes a memory"
        )


def guard(content: str, key: str | None, place: str) -> None:
    """Refuse a credential in the content or key, as every memory write does.

    Raises:
        SecretRejected: Naming ``place`` and the field, never the text.
    """
    from memstore.guard import reject_secrets  # detect-secrets: only for memory writes

    try:
        reject_secrets(content, "content")
        if key is not None:
            reject_secret_key(key)
        refuse_keyed(key, content)
    except SecretRejected as error:
        raise SecretRejected(f"{place} {error.argument}", error.kind, error.length) from error


def guard_ids(record: MemoryRecord, where: str) -> None:
    """Refuse a memory whose id, or the id it is superseded by, is a token of a named
    format: every listing, recall and tool result shows an id (found by review: ``sk-...``
    as an id was imported).

    Raises:
        SecretRejected: Naming ``where`` (the id left out of its file's name, as a memory
            file is named after its id) and the field, never the id.
    """
    from memstore.guard import reject_id

    for field, memory_id in (("memory id", record.id), ("superseded_by", record.superseded_by)):
        if memory_id:
            reject_id(memory_id, f"{where.replace(memory_id, '<id>')} {field}")


def message_row(record: MessageRecord) -> StoredMessage:
    """The row of a message record."""
    return StoredMessage(**record.model_dump(exclude={"type"}))
