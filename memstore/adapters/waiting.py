"""The messages a :class:`~memstore.adapters.recorder.Recorder` wrote to the day's log and the
database has yet to take, and how it knows one the database took."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memstore.kinds import MessageStatus, Role
from memstore.schemas import Message

MOST_PENDING = 100  # messages a recorder keeps for the database when it fails


@dataclass(frozen=True)
class Pending:
    """A message the log holds and the database has yet to take: what records it again."""

    role: Role
    text: str
    status: MessageStatus
    moment: datetime
    source_ref: str | None


def same(message: Message | None, pending: Pending) -> bool:
    """Whether ``message``, recorded under the source reference of ``pending``, is that
    message (its role, text and time); a tombstone's None is not."""
    if message is None:
        return False
    return (message.role, message.content, message.created_at) == (
        pending.role,
        pending.text,
        pending.moment,
    )
