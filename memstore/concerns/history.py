"""Sessions and messages: opening and closing sessions, recording, listing and deleting
messages. Each function is one unit of work on the database."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from memstore.arguments import (
    MAX_POSITION,
    chosen_id,
    given_ref,
    json_object,
    position,
    stored_time,
    valid_unicode,
)
from memstore.concerns.import_records import DAILY_LOG
from memstore.concerns.pages import following
from memstore.config import MemoryConfig
from memstore.errors import InvalidInput, MemoryDisabled, NotFound
from memstore.ids import new_id
from memstore.kinds import MessageStatus, Role
from memstore.logs.write import check_speaker
from memstore.queries import RecallFilters
from memstore.repository import messages, sessions
from memstore.repository.messages import StoredMessage
from memstore.repository.sessions import StoredSession
from memstore.schemas import Message, Session, SessionPage, SessionSummary
from memstore.store.database import Database
from memstore.times import format_utc, utc_now

MAX_METADATA_CHARS = 512
"""The most characters of JSON a session's metadata takes: every page of its conversation
repeats the session, and a page holds at most ``recall_chars`` (1,024 at least) characters
(found by review: 10,000 characters of metadata left no room for any message's text)."""


HISTORY_OFF = (
    "History is off ({setting} in the configuration), so no conversation is stored; set it "
    "to true to store them. {working}, reading, import and deletion still work."
)


def require_history(config: MemoryConfig) -> None:
    """Raise :class:`MemoryDisabled` when the configuration stops storing conversations:
    ``store_history: false``, or ``enabled: false`` (issue 5: no new conversation
    persistence; found by review, ``record_message`` stored them whatever it said)."""
    if not config.enabled or not config.store_history:
        setting = "store_history: false" if config.enabled else "enabled: false"
        working = "Memories" if config.enabled else "Backup"  # found by review: not memories
        raise MemoryDisabled(HISTORY_OFF.format(setting=setting, working=working))


def start_session(
    db: Database,
    session_id: str | None,
    started_at: datetime | None,
    metadata: Mapping[str, Any] | None,
) -> Session:
    """Open a live session.

    Args:
        session_id: A caller-chosen id; a new random one by default.
        started_at: Aware start time; now by default.
        metadata: JSON-serialisable data kept with the session, at most
            :data:`MAX_METADATA_CHARS` characters of JSON.

    Raises:
        InvalidInput: For a naive time, metadata that JSON cannot hold or too long, an id in
            use already, or one :func:`~memstore.arguments.chosen_id` refuses (blank, over 64
            characters, a control character, a line break or a bidi control).
    """
    session = StoredSession(
        id=new_id("ses") if session_id is None else chosen_id(session_id, "session_id"),
        started_at=stored_time(started_at, "started_at") or utc_now(),
        ended_at=None,
        metadata=json_object(metadata, "metadata", MAX_METADATA_CHARS),
    )
    with db.write() as connection:
        if sessions.get(connection, session.id) is not None:
            raise InvalidInput("session_id", f"{session.id!r} already exists; pick another id.")
        sessions.add(connection, session)
    return Session.model_validate(session)


def end_session(db: Database, session_id: str, ended_at: datetime | None) -> Session:
    """Close a session; one closed already keeps its end unless ``ended_at`` gives another
    (found by review: a second close, as a host's shutdown may make, moved the end).

    Raises:
        NotFound: If there is no such session.
        InvalidInput: For a naive ``ended_at``, or one before the session started (an
            export of the store could not be imported again).
    """
    ended = stored_time(ended_at, "ended_at") or utc_now()
    with db.write() as connection:
        session = sessions.get(connection, session_id)
        if session is None:
            raise NotFound("session", session_id)
        if ended_at is None and session.ended_at is not None:
            return Session.model_validate(session)
        if ended < session.started_at:
            raise InvalidInput(
                "ended_at",
                f"is {format_utc(ended)}, before the session started "
                f"({format_utc(session.started_at)}); give a later time.",
            )
        sessions.end(connection, session_id, ended)
    return Session.model_validate(session).model_copy(update={"ended_at": ended})


def get_session(db: Database, session_id: str) -> Session | None:
    """The session with this id, or None."""
    with db.read() as connection:
        session = sessions.get(connection, session_id)
    return None if session is None else Session.model_validate(session)


def list_sessions(
    db: Database, since: datetime | None, until: datetime | None, limit: int, offset: int
) -> SessionPage:
    """The sessions started in [``since``, ``until``), newest first: one page of ``limit``
    from ``offset``, with the exact total.

    Raises:
        InvalidInput: For a naive time, ``since`` after ``until``, or an offset outside
            0..2**63 - 1.
    """
    position(offset, "offset", "0 or a previous next_offset")
    window = RecallFilters.checked(since=since, until=until)
    with db.read() as connection:
        found, total = sessions.listed(connection, window.since, window.until, limit, offset)
    summaries = [
        SessionSummary(
            id=listed.session.id,
            kind="imported" if listed.session.metadata.get("source") == DAILY_LOG else "live",
            started_at=listed.session.started_at,
            ended_at=listed.session.ended_at,
            messages=listed.messages,
            first_message_at=listed.first_message_at,
            last_message_at=listed.last_message_at,
            speakers=listed.speakers,
        )
        for listed in found
    ]
    return SessionPage(
        sessions=summaries, total=total, next_offset=following(offset, len(summaries), total)
    )


def record_message(
    db: Database,
    session_id: str,
    role: Role,
    content: str,
    status: MessageStatus,
    created_at: datetime | None,
    source_ref: str | None,
    speaker: str | None,
) -> Message | None:
    """Append a message to a session with the next sequence number; only completed user and
    assistant messages are searchable. Idempotent by ``source_ref`` (where the message came
    from, e.g. ``<log path>#byte=<offset>``): a stored reference returns the stored message.

    Returns the stored message (``created_at`` now by default), or None when
    ``source_ref`` belongs to a deleted message. Raises NotFound for an unknown session, and
    InvalidInput for a bad role, status, time, speaker, empty content or a blank reference.
    """
    check_content(content)
    given_ref(source_ref)
    if speaker is not None:
        check_speaker(speaker)
    when = (stored_time(created_at, "created_at") or utc_now()).astimezone(UTC)
    with db.write() as connection:
        if source_ref is not None:
            if messages.is_tombstoned(connection, source_ref):
                return None
            existing = messages.message_by_source(connection, source_ref)
            if existing is not None:
                return Message.model_validate(existing)
        sequence = messages.next_sequence(connection, session_id)
        if sequence is None:
            raise NotFound("session", session_id)
        message = StoredMessage(
            new_id("msg"), session_id, sequence, role, content, when, status, source_ref, speaker
        )
        messages.add_message(connection, message)
    return Message.model_validate(message)


def check_content(content: str) -> None:
    """Raise InvalidInput unless ``content`` holds a non-blank character and is valid
    Unicode."""
    if not content.strip():
        raise InvalidInput("content", "is empty; a message needs some text.")
    if not valid_unicode(content):
        raise InvalidInput("content", "holds text that is not valid Unicode; fix its encoding.")


def list_messages(db: Database, session_id: str, after: int, limit: int) -> list[Message]:
    """Messages of a session with sequence > ``after``, every role and status, in order.

    Raises:
        InvalidInput: If ``after`` < 0 or ``limit`` < 1, or either is over 2**63 - 1.
    """
    position(after, "after", "0 or the sequence of a message read before")
    if not 1 <= limit <= MAX_POSITION:  # found by review: "use 1 or more" for 10**30
        raise InvalidInput("limit", f"is {limit}; use 1 to {MAX_POSITION} (2**63 - 1).")
    with db.read() as connection:
        rows = messages.list_messages(connection, session_id, after, limit)
    return [Message.model_validate(row) for row in rows]


def delete_message(db: Database, message_id: str) -> bool:
    """Delete a message and tombstone its source reference; False when there was none."""
    with db.write() as connection:
        return messages.delete_message(connection, message_id, utc_now())
