"""SQLAlchemy declarative models: the tables and indexes of Alembic revisions 0001, 0003, 0005,
0006 and 0007.

Every row has a stable string id (``id``) for the outside world. Rows that an FTS5
external-content index holds (messages, memories) also have an integer primary key (``pk``)
that the index uses as its rowid, so a VACUUM never renumbers what the indexes point at;
sessions are keyed by their ``id`` (revision 0005), which their foreign keys hold, so that
tools reading the file (Datasette) link a session id to its session. Times are stored as
fixed-width UTC ISO 8601 text, which sorts chronologically, and read back as timezone-aware
UTC datetimes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from memstore.kinds import Category, MemoryStatus, MessageStatus, Origin, Role, values
from memstore.text.cjk import index_form
from memstore.times import format_utc, parse_utc

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """An aware datetime stored as sortable UTC text; naive datetimes are refused."""

    impl = String(32)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> str | None:
        return None if value is None else format_utc(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> datetime | None:
        return None if value is None else parse_utc(value)


def content_index_form(context: Any) -> str | None:
    """The index form of the content an ORM insert writes (see :mod:`memstore.text.cjk`)."""
    return index_form(context.get_current_parameters()["content"])


def check_in(column: str, kind: Any) -> str:
    """The CHECK expression holding ``column`` to the members of the Literal ``kind``."""
    allowed = ", ".join(f"'{value}'" for value in values(kind))
    return f"{column} IN ({allowed})"


class Base(DeclarativeBase):
    """Declarative base with the naming convention Alembic relies on."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class SessionRow(Base):
    """A conversation session: live, or one synthetic session per imported daily log."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    session_metadata: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)


class MessageRow(Base):
    """One message of a session, in per-session sequence order."""

    __tablename__ = "messages"
    __table_args__ = (
        UniqueConstraint("session_id", "sequence"),
        CheckConstraint(check_in("role", Role), name="role"),
        CheckConstraint(check_in("status", MessageStatus), name="status"),
        CheckConstraint("sequence >= 1", name="sequence"),
        Index("ix_messages_created_at", "created_at"),
        Index("ix_messages_speaker", "speaker", sqlite_where=text("speaker IS NOT NULL")),
        Index("ix_messages_place", "pk", "session_id", "sequence"),
        Index(
            "ix_messages_requests",
            "session_id",
            "sequence",
            sqlite_where=text("role = 'user'"),
        ),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    id: Mapped[str] = mapped_column(String(64), unique=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("sessions.id"))
    sequence: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    status: Mapped[str] = mapped_column(String(16), default="completed")
    source_ref: Mapped[str | None] = mapped_column(Text, unique=True)
    speaker: Mapped[str | None] = mapped_column(String(100, collation="NOCASE"))
    """The name the speaker goes by (as written in the log), or None; compared without case
    (ASCII letters)."""
    index_text: Mapped[str | None] = mapped_column(Text, default=content_index_form)
    """What the index holds when the content has a CJK character (its index form, see
    :mod:`memstore.text.cjk`), else None; an ORM insert fills it from the content."""


class MemoryRow(Base):
    """An explicit (or extracted candidate) long-term memory."""

    __tablename__ = "memories"
    __table_args__ = (
        CheckConstraint(check_in("category", Category), name="category"),
        CheckConstraint(check_in("status", MemoryStatus), name="status"),
        CheckConstraint(check_in("origin", Origin), name="origin"),
        CheckConstraint("confidence >= 0 AND confidence <= 1", name="confidence"),
        CheckConstraint("length(trim(content)) BETWEEN 1 AND 4000", name="content_length"),
        Index(
            "ux_memories_active_normalized",
            "normalized_content",
            unique=True,
            sqlite_where=text("status = 'active'"),
        ),
        Index(
            "ux_memories_active_key",
            "key",
            unique=True,
            sqlite_where=text("status = 'active' AND key IS NOT NULL"),
        ),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    id: Mapped[str] = mapped_column(String(64), unique=True)
    content: Mapped[str] = mapped_column(Text)
    normalized_content: Mapped[str] = mapped_column(Text)
    category: Mapped[str] = mapped_column(String(16))
    key: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="active")
    origin: Mapped[str] = mapped_column(String(16), default="explicit")
    confidence: Mapped[float] = mapped_column(Float, default=1.0)
    pinned: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    modified_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    superseded_by: Mapped[str | None] = mapped_column(ForeignKey("memories.id"))
    index_text: Mapped[str | None] = mapped_column(Text, default=content_index_form)
    """As :attr:`MessageRow.index_text`."""


class MemorySourceRow(Base):
    """Links a memory to a message it came from; survives the message's deletion."""

    __tablename__ = "memory_sources"

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    memory_id: Mapped[str] = mapped_column(
        ForeignKey("memories.id", ondelete="CASCADE"), index=True
    )
    message_id: Mapped[str | None] = mapped_column(
        ForeignKey("messages.id", ondelete="SET NULL"), index=True
    )
    source_ref: Mapped[str | None] = mapped_column(Text)


class ImportRow(Base):
    """What an import accepted from one daily log path: the sealed prefix and its hash."""

    __tablename__ = "imports"

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("sessions.id"))
    sealed_size: Mapped[int] = mapped_column(Integer)
    sealed_sha256: Mapped[str] = mapped_column(String(64))
    imported_at: Mapped[datetime] = mapped_column(UTCDateTime())


class DeletedSourceRow(Base):
    """A tombstone: a deleted message's source reference, never imported again."""

    __tablename__ = "deleted_sources"

    source_ref: Mapped[str] = mapped_column(Text, primary_key=True)
    deleted_at: Mapped[datetime] = mapped_column(UTCDateTime())


class SchemaMigrationRow(Base):
    """One applied schema version and when it was applied."""

    __tablename__ = "schema_migrations"

    version: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    applied_at: Mapped[datetime] = mapped_column(UTCDateTime())
