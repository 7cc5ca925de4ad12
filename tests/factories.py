"""factory-boy factories for the ORM rows; persistence "flush" so the FTS triggers fire."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import factory
from factory.alchemy import SQLAlchemyModelFactory
from sqlalchemy.orm import Session

from memstore.store.models import (
    DeletedSourceRow,
    MemoryRow,
    MemorySourceRow,
    MessageRow,
    SessionRow,
)

BASE_TIME = datetime(2026, 10, 5, 9, 0, tzinfo=UTC)


class Base(SQLAlchemyModelFactory):  # type: ignore[misc]
    class Meta:
        abstract = True
        sqlalchemy_session_persistence = "flush"


class SessionFactory(Base):
    class Meta:
        model = SessionRow

    id = factory.LazyFunction(lambda: "ses_" + uuid.uuid4().hex)
    started_at = BASE_TIME
    ended_at = None
    session_metadata = factory.LazyFunction(dict)


class MessageFactory(Base):
    """A completed user message; pass ``session_id`` and ``sequence`` for a conversation."""

    class Meta:
        model = MessageRow

    id = factory.LazyFunction(lambda: "msg_" + uuid.uuid4().hex)
    session_id = factory.LazyAttribute(lambda _: SessionFactory().id)
    sequence = factory.Sequence(lambda n: n + 1)
    role = "user"
    content = factory.Faker("sentence")
    created_at = factory.LazyAttribute(lambda o: BASE_TIME + timedelta(minutes=o.sequence))
    status = "completed"
    source_ref = None


class MemoryFactory(Base):
    class Meta:
        model = MemoryRow

    id = factory.LazyFunction(lambda: "mem_" + uuid.uuid4().hex)
    content = factory.Faker("sentence")
    normalized_content = factory.LazyAttribute(lambda o: o.content.casefold())
    category = "fact"
    key = None
    status = "active"
    origin = "explicit"
    confidence = 1.0
    pinned = False
    created_at = BASE_TIME
    modified_at = BASE_TIME
    expires_at = None
    superseded_by = None


class MemorySourceFactory(Base):
    """A memory's link to a message; pass ``memory_id`` and ``message_id`` or ``source_ref``."""

    class Meta:
        model = MemorySourceRow

    message_id = None
    source_ref = None


class DeletedSourceFactory(Base):
    """The tombstone of a deleted message's source reference."""

    class Meta:
        model = DeletedSourceRow

    source_ref = factory.Sequence(lambda n: f"/logs/2026-10-05.md#byte={n}")
    deleted_at = BASE_TIME


ALL = (SessionFactory, MessageFactory, MemoryFactory, MemorySourceFactory, DeletedSourceFactory)


def bind(session: Session) -> None:
    """Make every factory write into ``session``."""
    for factory_class in ALL:
        factory_class._meta.sqlalchemy_session = session


def conversation(session_id: str, turns: list[tuple[str, str]], **extra: Any) -> list[MessageRow]:
    """Messages (role, content) in sequence order in one session."""
    return [
        MessageFactory(session_id=session_id, sequence=n, role=role, content=content, **extra)
        for n, (role, content) in enumerate(turns, start=1)
    ]
