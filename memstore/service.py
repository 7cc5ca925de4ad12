"""MemoryService: the public API of memstore.

Each public method is one unit of work: a read, or a write transaction that commits on
success and rolls back on any error. The service validates input, calls the repository and
returns pydantic models, never ORM rows.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memstore import importer, retrieval
from memstore.config import MemoryConfig
from memstore.db import Database
from memstore.errors import InvalidInput, NotFound
from memstore.models import MESSAGE_STATUSES, ROLES, MessageRow, SessionRow
from memstore.repository import health as health_checks
from memstore.repository import history as history_rows
from memstore.repository.fts_query import MODES, build_match, fold, query_tokens
from memstore.repository.search import Filters, history_hits
from memstore.schemas import (
    DeleteResult,
    FileImport,
    HealthReport,
    ImportReport,
    Message,
    RecallResult,
    Session,
)

Progress = Callable[[FileImport], None]


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


def aware(value: datetime | None, argument: str) -> datetime | None:
    """``value`` in UTC, or None.

    Raises:
        InvalidInput: If ``value`` has no time zone.
    """
    if value is None:
        return None
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(argument, f"{value.isoformat()} has no time zone; add one, e.g. +00:00.")
    return value.astimezone(UTC)


def one_of(value: str | None, allowed: Iterable[str], argument: str) -> None:
    """Raise InvalidInput unless ``value`` is None or one of ``allowed``."""
    options = tuple(allowed)
    if value is not None and value not in options:
        raise InvalidInput(argument, f"is {value!r}; use one of {', '.join(options)}.")


def session_model(row: SessionRow) -> Session:
    """The public model of a session row."""
    return Session(
        id=row.id,
        started_at=row.started_at,
        ended_at=row.ended_at,
        metadata=row.session_metadata,
    )


class MemoryService:
    """Conversation history and long-term memories in one SQLite file.

    The database is created and migrated lazily, on the first call that needs it.

    Args:
        database: The database file (created with its folder when missing).
        config: Limits and switches; defaults when omitted.
        migrations: Another Alembic script folder (for tests of the migration runner).
    """

    def __init__(
        self,
        database: str | Path,
        *,
        config: MemoryConfig | None = None,
        migrations: str | None = None,
    ) -> None:
        self.config = config or MemoryConfig()
        self._db = Database(database, migrations=migrations)

    @classmethod
    def from_config(cls, config: MemoryConfig) -> MemoryService:
        """A service over ``config.database_path()`` with ``config``'s limits."""
        return cls(config.database_path(), config=config)

    @property
    def path(self) -> Path:
        """The database file."""
        return self._db.path

    # Sessions

    def start_session(
        self,
        *,
        session_id: str | None = None,
        started_at: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Session:
        """Open a live session.

        Args:
            session_id: A caller-chosen id; a new random one by default.
            started_at: Aware start time; now by default.
            metadata: JSON-serialisable data kept with the session.

        Raises:
            InvalidInput: For a naive time or an id already in use.
        """
        row = SessionRow(
            id=session_id or "ses_" + uuid.uuid4().hex,
            started_at=aware(started_at, "started_at") or utc_now(),
            ended_at=None,
            session_metadata=dict(metadata or {}),
        )
        with self._db.write() as db:
            if history_rows.get_session(db, row.id) is not None:
                raise InvalidInput("session_id", f"{row.id!r} already exists; pick another id.")
            return session_model(history_rows.add_session(db, row))

    def end_session(self, session_id: str, *, ended_at: datetime | None = None) -> Session:
        """Close a session.

        Raises:
            NotFound: If there is no such session.
            InvalidInput: For a naive ``ended_at``.
        """
        ended = aware(ended_at, "ended_at") or utc_now()
        with self._db.write() as db:
            row = history_rows.get_session(db, session_id)
            if row is None:
                raise NotFound("session", session_id)
            row.ended_at = ended
            db.flush()
            return session_model(row)

    def get_session(self, session_id: str) -> Session | None:
        """The session with this id, or None."""
        with self._db.read() as db:
            row = history_rows.get_session(db, session_id)
            return None if row is None else session_model(row)

    # Messages

    def record_message(
        self,
        session_id: str,
        role: str,
        content: str,
        *,
        status: str = "completed",
        created_at: datetime | None = None,
        source_ref: str | None = None,
    ) -> Message | None:
        """Append a message to a session with the next sequence number.

        Idempotent by ``source_ref``: recording a stored reference again returns the stored
        message. Only completed user and assistant messages are searchable.

        Args:
            role: ``user``, ``assistant`` or ``system``.
            content: The text, at least one non-blank character.
            status: ``completed``, ``interrupted`` or ``error``.
            created_at: Aware time; now by default.
            source_ref: Where the message came from, e.g. ``<log path>#byte=<offset>``.

        Returns:
            The stored message, or None when ``source_ref`` belongs to a deleted message.

        Raises:
            NotFound: If the session does not exist.
            InvalidInput: For a bad role, status, time or empty content.
        """
        one_of(role, ROLES, "role")
        one_of(status, MESSAGE_STATUSES, "status")
        if not content.strip():
            raise InvalidInput("content", "is empty; a message needs some text.")
        when = aware(created_at, "created_at") or utc_now()
        with self._db.write() as db:
            if source_ref is not None:
                if history_rows.is_tombstoned(db, source_ref):
                    return None
                existing = history_rows.message_by_source(db, source_ref)
                if existing is not None:
                    return Message.model_validate(existing)
            if history_rows.get_session(db, session_id) is None:
                raise NotFound("session", session_id)
            row = MessageRow(
                id="msg_" + uuid.uuid4().hex,
                session_id=session_id,
                sequence=history_rows.next_sequence(db, session_id),
                role=role,
                content=content,
                created_at=when,
                status=status,
                source_ref=source_ref,
            )
            return Message.model_validate(history_rows.add_message(db, row))

    def messages(self, session_id: str, *, after: int = 0, limit: int = 100) -> list[Message]:
        """Messages of a session with sequence > ``after``, every role and status, in order.

        Raises:
            InvalidInput: If ``after`` < 0 or ``limit`` < 1.
        """
        if after < 0 or limit < 1:
            raise InvalidInput("after/limit", "after must be >= 0 and limit >= 1.")
        with self._db.read() as db:
            rows = history_rows.list_messages(db, session_id, after, limit)
            return [Message.model_validate(row) for row in rows]

    def delete_message(self, message_id: str) -> bool:
        """Delete a message and its search visibility; tombstone its source reference so no
        import brings it back. Memories derived from it keep their source reference.

        Returns:
            True when a message was deleted, False when there was none with that id.
        """
        with self._db.write() as db:
            row = history_rows.get_message(db, message_id)
            if row is None:
                return False
            history_rows.delete_message(db, row, utc_now())
            return True

    def delete_message_result(self, message_id: str) -> DeleteResult:
        """:meth:`delete_message` as a result model (what the CLI prints)."""
        return DeleteResult(deleted=self.delete_message(message_id), id=message_id)

    # Import

    def import_markdown(
        self,
        paths: Iterable[str | Path],
        *,
        speakers: Mapping[str, str],
        include_tail: bool = False,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import daily Markdown logs (LOGFORMAT.md), each file in its own transaction.

        Args:
            paths: Files, or directories whose ``*.md`` files are imported (not recursively).
            speakers: Speaker name -> role (``user``, ``assistant``, ``system``), matched
                without regard to case. Unmapped speakers are reported, not imported.
            include_tail: Also accept each file's final record (for closed files).
            progress: Called with each file's report as it finishes.

        Returns:
            Per-file reports; a file-level problem is that file's ``error``, not an exception.

        Raises:
            InvalidInput: For an empty speaker map or an unknown role.
        """
        roles = speaker_roles(speakers)
        reports = []
        for path in importer.expand_paths(paths):
            report = self._import_file(path, roles, include_tail)
            reports.append(report)
            if progress is not None:
                progress(report)
        return ImportReport(
            files=reports,
            imported=sum(report.imported for report in reports),
            errors=sum(report.error is not None for report in reports),
        )

    def _import_file(self, path: Path, roles: Mapping[str, str], include_tail: bool) -> FileImport:
        try:
            log = importer.load(path)
            with self._db.write() as db:
                return importer.store(db, log, roles, include_tail, utc_now())
        except importer.FileRejected as error:
            return importer.rejected(path, str(error))

    # Recall

    def recall(
        self,
        query: str,
        *,
        mode: str = "any",
        history: bool = True,
        session_id: str | None = None,
        role: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> RecallResult:
        """Search conversation history (and memories) for ``query``, best bm25 rank first.

        The query is literal text: FTS5 operators, quotes and punctuation are never syntax.
        Each history hit comes with its pair: an assistant reply with the user request before
        it (orphan replies are left out), a user message with the completed reply after it.
        System, interrupted and error messages are never returned.

        Args:
            query: At most 512 characters and 32 distinct words.
            mode: ``any`` word, ``all`` words, or ``phrase`` (consecutive, repeats kept).
            history: False searches memories only.
            session_id, role: Filters on the matched message.
            since, until: Aware times; the matched record was created at or after ``since``
                and before ``until``.
            limit: Most conversations returned; capped by ``max_results``.

        Returns:
            At most ``limit`` conversations and ``recall_chars`` characters of JSON; clipped
            messages end with "…" and are marked ``truncated``.

        Raises:
            InvalidQuery: For an empty, too long or too wordy query, or an unknown mode.
            InvalidInput: For a bad role, naive time or limit < 1.
        """
        one_of(mode, MODES, "mode")
        one_of(role, ("user", "assistant"), "role")
        match = build_match(query, mode)  # type: ignore[arg-type]
        filters = Filters(session_id, role, aware(since, "since"), aware(until, "until"))
        terms = frozenset(fold(token) for token in query_tokens(query))
        empty = RecallResult(memories=[], conversations=[], truncated=True)
        room = self.config.recall_chars - len(empty.model_dump_json())
        if not history:
            return empty.model_copy(update={"truncated": False})
        with self._db.read() as db:
            page = retrieval.fill_page(
                retrieval.conversations(db, history_hits(db, match, filters)),
                limit=self._page_limit(limit),
                room=room,
                folded_terms=terms,
            )
        return RecallResult(memories=[], conversations=page.conversations, truncated=page.truncated)

    def _page_limit(self, limit: int | None) -> int:
        if limit is not None and limit < 1:
            raise InvalidInput("limit", f"is {limit}; use 1 or more.")
        return min(limit or self.config.max_results, self.config.max_results)

    # Health

    def health(self) -> HealthReport:
        """Integrity, foreign keys, each FTS5 index, schema version and row counts."""
        with self._db.read() as db:
            return health_checks.report(db, str(self.path), self._db.code_version())


def speaker_roles(speakers: Mapping[str, str]) -> dict[str, str]:
    """Case-folded speaker name -> role, validated.

    Raises:
        InvalidInput: If there are no speakers or a role is not user/assistant/system.
    """
    if not speakers:
        raise InvalidInput(
            "speakers", 'none given; map each speaker, e.g. "Diego=user", "Morgan=assistant".'
        )
    for name, role in speakers.items():
        one_of(role, ROLES, f"speaker {name!r}")
    return {name.strip().casefold(): role for name, role in speakers.items()}
