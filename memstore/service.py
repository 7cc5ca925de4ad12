"""MemoryService: the public API of memstore.

Each public method is one unit of work: a read, or a write transaction that commits on
success and rolls back on any error. The service validates input, calls the repository and
returns pydantic models, never ORM rows.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from memstore.arguments import checked, valid_unicode
from memstore.concerns import backup as backups
from memstore.concerns import context as context_block
from memstore.concerns import diary as days
from memstore.concerns import importing as importer
from memstore.concerns import recall_page as retrieval
from memstore.concerns import supersede as lifecycle
from memstore.concerns.memory_rules import (
    clean_content,
    normalize_content,
    normalize_key,
    parse_expiry,
)
from memstore.config import MemoryConfig
from memstore.errors import InvalidInput, InvalidQuery, MemoryDisabled, NotFound, StoreDamaged
from memstore.guard import reject_secrets
from memstore.kinds import Category, MessageStatus, Origin, Role, values
from memstore.repository import diary as diary_rows
from memstore.repository import health as health_checks
from memstore.repository import instances as instance_rows
from memstore.repository import memories as memory_rows
from memstore.repository import messages as history_rows
from memstore.repository import words as vocab
from memstore.repository.memories import StoredMemory
from memstore.repository.messages import StoredMessage
from memstore.repository.recall import Filters, history_hits, memory_hit_ids, memory_hits
from memstore.schemas import (
    BackupReport,
    ConversationPage,
    DeleteResult,
    Diary,
    FileImport,
    HealthReport,
    ImportReport,
    Instance,
    InstancePage,
    Memory,
    MemoryContext,
    MemoryPage,
    MemorySource,
    Message,
    MessageChunk,
    MessageInfo,
    RecallResult,
    Session,
    WordEntry,
    WordPage,
    memory_status,
)
from memstore.store.database import Database
from memstore.store.models import (
    MemoryRow,
    SessionRow,
    new_id,
)
from memstore.text import highlight as lexical
from memstore.text.clipping import fill_dialogue, json_prefix, json_size, take_within
from memstore.text.fts_query import (
    build_match,
    fold,
    query_tokens,
    ranking_match,
)
from memstore.times import aware_utc

Progress = Callable[[FileImport], None]
SCOPES = ("history", "memories", "all")
MAX_WORD_CHARS = 10_000  # longer than recall's 512: a listed word must be searchable
MAX_POSITION = 2**63 - 1  # SQLite's largest integer: offsets beyond it are no position


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


def aware(value: datetime | None, argument: str) -> datetime | None:
    """``value`` in UTC, or None.

    Raises:
        InvalidInput: If ``value`` has no time zone or leaves the years 1-9999 in UTC.
    """
    return None if value is None else aware_utc(value, argument)


def json_object(value: Mapping[str, Any] | None, argument: str) -> dict[str, Any]:
    """``value`` as a dict that JSON can hold (string keys; no NaN or infinity).

    Raises:
        InvalidInput: If JSON cannot hold it.
    """
    copied = dict(value or {})
    try:
        json.dumps(copied, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as error:
        raise InvalidInput(argument, f"must be JSON: {error}.") from error
    if not all(isinstance(key, str) for key in copied):
        raise InvalidInput(argument, "must be JSON: its keys must be text.")
    return copied


def position(value: int, argument: str, hint: str) -> None:
    """Raise InvalidInput unless ``value`` is a position SQLite can hold (0 to 2**63 - 1);
    ``hint`` says where a valid one comes from."""
    if not 0 <= value <= MAX_POSITION:
        raise InvalidInput(argument, f"is {value}; use {hint}.")


def time_filters(
    session_id: str | None, role: str | None, since: datetime | None, until: datetime | None
) -> Filters:
    """The filters of a recall or word query, with aware times, ``since`` not after
    ``until`` (equal times are an empty interval).

    Raises:
        InvalidInput: For a naive time, or ``since`` after ``until`` (swapped, most likely).
    """
    start, end = aware(since, "since"), aware(until, "until")
    if start is not None and end is not None and start > end:
        raise InvalidInput(
            "since", f"{start.isoformat()} is after until {end.isoformat()}; swap them?"
        )
    return Filters(session_id, role, start, end)


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


def memory_model(row: MemoryRow | StoredMemory, now: datetime) -> Memory:
    """The public model of a memory row; past its expiry an active memory shows as expired."""
    return Memory(
        id=row.id,
        content=row.content,
        category=row.category,
        key=row.key,
        status=memory_status(row.status, row.expires_at, now),
        origin=row.origin,
        confidence=row.confidence,
        pinned=row.pinned,
        created_at=row.created_at,
        modified_at=row.modified_at,
        expires_at=row.expires_at,
        superseded_by=row.superseded_by,
    )


def memory_draft(
    content: str | None,
    *,
    category: str | None,
    key: str | None,
    expires_at: str | datetime | None,
    now: datetime,
    origin: str = "explicit",
    confidence: float = 1.0,
) -> lifecycle.Draft:
    """Validate the fields of a memory write.

    Raises:
        InvalidInput: For a bad category, origin, confidence, content, key or expiry.
        SecretRejected: When the content or the key looks like it holds a credential.
    """
    one_of(category, values(Category), "category")
    one_of(origin, values(Origin), "origin")
    if not 0.0 <= confidence <= 1.0:
        raise InvalidInput("confidence", f"is {confidence}; use a number from 0 to 1.")
    if content is not None and not valid_unicode(content):
        raise InvalidInput("content", "holds text that is not valid Unicode; retype it.")
    cleaned = None if content is None else clean_content(content)
    if cleaned is not None:
        reject_secrets(cleaned, "content")
    if key is not None:
        reject_secrets(key, "key")
    return lifecycle.Draft(
        content=cleaned,
        normalized=None if cleaned is None else normalize_content(cleaned),
        category=category,
        key=normalize_key(key),
        expires_at=parse_expiry(expires_at, now),
        origin=origin,
        confidence=confidence,
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
        if not isinstance(database, str | Path):
            raise InvalidInput("database", f"must be a path, not {type(database).__name__}.")
        self.config = config or MemoryConfig()
        self._db = Database(database, migrations=migrations)

    @classmethod
    def from_config(cls, config: MemoryConfig) -> MemoryService:
        """A service over ``config.database_path()`` with ``config``'s limits."""
        return cls(config.database_path(), config=config)

    def open(self) -> None:
        """Check the database file and create or upgrade it now instead of on first use (for
        a server that should fail at start, not at its first call).

        Raises:
            FileError: If the path is not a regular file or holds another application's
                database (left untouched).
            SchemaError: If the schema is newer, gapped or its two records disagree.
            StoreError: If the file cannot be created or SQLite fails.
        """
        self._db.ensure_schema()

    def close(self) -> None:
        """Close pooled connections; the service opens new ones if used again."""
        self._db.dispose()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def log_dir(self) -> Path:
        """The daily Markdown logs: the configured ``log_dir``, else ``logs/`` beside this
        service's database (which may differ from the configured one)."""
        return self.config.log_path() if self.config.log_dir else self.path.parent / "logs"

    @property
    def path(self) -> Path:
        """The database file."""
        return self._db.path

    def holds_store(self) -> bool | None:
        """Whether the database file exists and is a memstore database, checked without
        creating or changing anything (the first other call creates a missing or empty file);
        None when SQLite cannot read the file at all. For callers that must not turn a
        mistyped path into a new, empty database.

        Raises:
            FileError: If the path is not a regular file (a FIFO, a folder, a device).
        """
        return self._db.holds_store()

    # Sessions

    @checked
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
            InvalidInput: For a naive time, metadata that JSON cannot hold, or an id already
                in use.
        """
        row = SessionRow(
            id=session_id or new_id("ses"),
            started_at=aware(started_at, "started_at") or utc_now(),
            ended_at=None,
            session_metadata=json_object(metadata, "metadata"),
        )
        with self._db.write() as db:
            if history_rows.get_session(db, row.id) is not None:
                raise InvalidInput("session_id", f"{row.id!r} already exists; pick another id.")
            return session_model(history_rows.add_session(db, row))

    @checked
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

    @checked
    def get_session(self, session_id: str) -> Session | None:
        """The session with this id, or None."""
        with self._db.read() as db:
            row = history_rows.get_session(db, session_id)
            return None if row is None else session_model(row)

    # Messages

    @checked
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
        one_of(role, values(Role), "role")
        one_of(status, values(MessageStatus), "status")
        if not content.strip():
            raise InvalidInput("content", "is empty; a message needs some text.")
        if not valid_unicode(content):
            raise InvalidInput("content", "holds text that is not valid Unicode; fix its encoding.")
        when = (aware(created_at, "created_at") or utc_now()).astimezone(UTC)
        with self._db.write_sql() as connection:
            if source_ref is not None:
                if history_rows.is_tombstoned(connection, source_ref):
                    return None
                existing = history_rows.message_by_source(connection, source_ref)
                if existing is not None:
                    return Message.model_validate(existing)
            sequence = history_rows.next_sequence(connection, session_id)
            if sequence is None:
                raise NotFound("session", session_id)
            message = StoredMessage(
                new_id("msg"), session_id, sequence, role, content, when, status, source_ref
            )
            history_rows.add_message(connection, message)
        return Message.model_validate(message)

    @checked
    def messages(self, session_id: str, *, after: int = 0, limit: int = 100) -> list[Message]:
        """Messages of a session with sequence > ``after``, every role and status, in order.

        Raises:
            InvalidInput: If ``after`` < 0 or ``limit`` < 1.
        """
        position(after, "after", "0 or the sequence of a message read before")
        position(limit, "limit", "1 or more")
        if limit < 1:
            raise InvalidInput("limit", f"is {limit}; use 1 or more.")
        with self._db.read() as db:
            rows = history_rows.list_messages(db, session_id, after, limit)
            return [Message.model_validate(row) for row in rows]

    @checked
    def delete_message(self, message_id: str) -> bool:
        """Delete a message and its search visibility; tombstone its source reference so no
        import brings it back. Memories derived from it keep their source reference.

        Returns:
            True when a message was deleted, False when there was none with that id.
        """
        with self._db.write_sql() as connection:
            message = history_rows.get_message(connection, message_id)
            if message is None:
                return False
            history_rows.delete_message(connection, message, utc_now())
            return True

    @checked
    def delete_message_result(self, message_id: str) -> DeleteResult:
        """:meth:`delete_message` as a result model (what the CLI prints)."""
        return DeleteResult(deleted=self.delete_message(message_id), id=message_id)

    # Import

    @checked
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
        given = list(paths)
        if not all(isinstance(path, str | Path) for path in given):
            raise InvalidInput("paths", "must be a list of file or folder paths (str or Path).")
        reports = [importer.empty_folder(path) for path in importer.empty_folders(given)]
        for path, loaded in importer.loaded(importer.expand_paths(given)):
            report = self._store_file(path, loaded, roles, include_tail)
            reports.append(report)
            if progress is not None:
                progress(report)
        unknown: Counter[str] = Counter()
        for report in reports:
            unknown.update(report.unknown_speakers)
        return ImportReport(
            files=reports,
            imported=sum(report.imported for report in reports),
            errors=sum(report.error is not None for report in reports),
            skipped=sum(report.skipped for report in reports),
            deferred=sum(report.deferred for report in reports),
            unknown_speakers=dict(unknown),
        )

    def _store_file(
        self,
        path: Path,
        loaded: importer.LoadedLog | importer.FileRejected,
        roles: Mapping[str, str],
        include_tail: bool,
    ) -> FileImport:
        try:
            if isinstance(loaded, importer.FileRejected):
                raise loaded
            with self._db.write() as db:
                return importer.store(db, loaded, roles, include_tail, utc_now())
        except importer.FileRejected as error:
            return importer.rejected(path, str(error))

    # Memories

    @checked
    def remember(
        self,
        content: str,
        *,
        category: str = "fact",
        key: str | None = None,
        memory_id: str | None = None,
        expires_at: str | datetime | None = None,
        supersedes: str | None = None,
        origin: str = "explicit",
        confidence: float = 1.0,
        source_message_id: str | None = None,
        source_ref: str | None = None,
    ) -> Memory:
        """Create, reuse, update or supersede a memory, in one write transaction.

        Normalised duplicate content (NFKC, case folded, white space collapsed, final period
        dropped) returns the existing memory. New content under an active ``key`` supersedes
        the memory holding it; ``supersedes`` does the same for an explicit id. With
        ``memory_id`` this is :meth:`update_memory`.

        Args:
            content: 1-4,000 characters after trimming; written in the third person.
            category: ``preference``, ``fact``, ``project``, ``goal`` or ``other``.
            key: A semantic key such as ``response_language``; normalised to letters, numbers,
                dots, hyphens and underscores; empty means none.
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
        self._require_enabled()
        if memory_id is not None:
            return self.update_memory(
                memory_id, content, category=category, key=key, expires_at=expires_at
            )
        now = utc_now()
        draft = memory_draft(
            content,
            category=category,
            key=key,
            expires_at=expires_at,
            now=now,
            origin=origin,
            confidence=confidence,
        )
        source = lifecycle.Source(source_message_id, source_ref)
        with self._db.write_sql() as connection:
            memory = lifecycle.create(
                connection, draft, supersedes=supersedes, source=source, now=now
            )
        return memory_model(memory, now)

    @checked
    def get_memory(self, memory_id: str) -> Memory | None:
        """The memory with this id, whatever its status, or None."""
        with self._db.read_sql() as connection:
            memory = memory_rows.get(connection, memory_id)
        return None if memory is None else memory_model(memory, utc_now())

    @checked
    def update_memory(
        self,
        memory_id: str,
        content: str | None = None,
        *,
        category: str | None = None,
        key: str | None = None,
        expires_at: str | datetime | None = None,
    ) -> Memory:
        """Change a memory in place, keeping its id; a candidate becomes confirmed.

        Any other active memory holding the new content or key is superseded by this one.
        Arguments left as None (or empty) keep their value.

        Raises:
            MemoryDisabled: When the configuration says ``enabled: false``.
            NotFound: If there is no such memory.
            InvalidInput: For invalid fields, or a memory that was superseded.
            SecretRejected: When the new content looks like a credential.
        """
        self._require_enabled()
        now = utc_now()
        draft = memory_draft(content, category=category, key=key, expires_at=expires_at, now=now)
        with self._db.write_sql() as connection:
            memory = memory_rows.get(connection, memory_id)
            if memory is None:
                raise NotFound("memory", memory_id)
            revised = lifecycle.update(connection, memory, draft, now)
        return memory_model(revised, now)

    @checked
    def memory_sources(self, memory_id: str) -> list[MemorySource]:
        """The messages (or source references) a memory came from, oldest link first."""
        with self._db.read() as db:
            return [MemorySource.model_validate(row) for row in memory_rows.sources(db, memory_id)]

    @checked
    def delete_memory(self, memory_id: str) -> bool:
        """Permanently delete a memory and its source links; history is never touched.

        Returns:
            True when a memory was deleted, False when there was none with that id.
        """
        with self._db.write_sql() as connection:
            memory = memory_rows.get(connection, memory_id)
            if memory is None:
                return False
            memory_rows.delete_memory(connection, memory)
            return True

    @checked
    def delete_memory_result(self, memory_id: str) -> DeleteResult:
        """:meth:`delete_memory` as a result model (what the CLI prints)."""
        return DeleteResult(deleted=self.delete_memory(memory_id), id=memory_id)

    @checked
    def pin_memory(self, memory_id: str, pinned: bool = True) -> Memory:
        """Pin (or unpin) a memory: pinned memories come first in the context.

        Raises:
            NotFound: If there is no such memory.
            InvalidInput: When pinning a superseded memory (it is never in the context).
        """
        now = utc_now()
        with self._db.write_sql() as connection:
            memory = memory_rows.get(connection, memory_id)
            if memory is None:
                raise NotFound("memory", memory_id)
            if memory.status == "superseded" and pinned:
                raise InvalidInput(
                    "memory_id",
                    f"{memory_id} was superseded by {memory.superseded_by}; pin that one.",
                )
            memory_rows.set_pinned(connection, memory_id, pinned, now)
        return memory_model(replace(memory, pinned=pinned, modified_at=now), now)

    @checked
    def list_memories(
        self,
        *,
        category: str | None = None,
        include_inactive: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> MemoryPage:
        """Memories in force (or all of them), pinned first, then newest first.

        Args:
            category: Only this category.
            include_inactive: Also superseded, candidate and expired memories.
            limit: Page size; ``max_results`` by default.
            offset: Where the page starts.

        Raises:
            InvalidInput: For an unknown category, limit < 1, or an offset outside 0..2**63 - 1.
        """
        one_of(category, values(Category), "category")
        position(offset, "offset", "0 or a previous next_offset")
        size = self._page_limit(limit)
        now = utc_now()
        with self._db.read() as db:
            rows, total = memory_rows.page(
                db,
                category=category,
                include_inactive=include_inactive,
                now=now,
                limit=size,
                offset=offset,
            )
            memories = [memory_model(row, now) for row in rows]
        following = offset + len(memories)
        return MemoryPage(
            memories=memories, total=total, next_offset=following if following < total else None
        )

    @checked
    def context(self, query: str = "") -> MemoryContext:
        """The memory block to inject this turn, within ``context_chars`` characters.

        Every confirmed memory in force: pinned first, then those matching ``query`` (best
        rank first), then the rest newest first; long contents are clipped fairly before any
        memory is left out. Never includes conversation history.

        Args:
            query: The user's request; any text (it is only used to rank, never as syntax).
        """
        now = utc_now()
        with self._db.read_sql() as connection:
            rows = memory_rows.in_force(connection, now)
            match = ranking_match(query) if rows else None
            matching = memory_hit_ids(connection, match, now, len(rows)) if match else []
        items = list(map(context_block.Item._make, rows))
        return context_block.build(context_block.order(items, matching), self.config.context_chars)

    # Words and reading

    @checked
    def search_words(
        self,
        prefix: str = "",
        *,
        scope: str = "history",
        offset: int = 0,
        limit: int | None = None,
        session_id: str | None = None,
        role: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> WordPage:
        """The indexed words starting with ``prefix``, alphabetically, with occurrence and
        document counts (from fts5vocab over the existing indexes).

        Counts leave out system, interrupted and error messages, candidates, and expired or
        superseded memories. They are lexical: a message and a memory derived from it are
        two documents.

        Args:
            prefix: Empty for every word, else text that tokenizes as exactly one word.
            scope: ``history``, ``memories`` or ``all``.
            offset: Where the page starts (pass the previous ``next_offset``).
            limit: Page size, capped by ``max_results``; a page also stays within
                ``recall_chars`` characters of JSON, so it may hold fewer.
            session_id, role, since, until: As in :meth:`recall`.

        Raises:
            InvalidQuery: If the prefix is not exactly one word.
            InvalidInput: For a bad scope, role, time (naive, or since after until), offset or
                limit.
        """
        filters, size = self._word_filters(scope, offset, limit, session_id, role, since, until)
        now = utc_now()
        params = vocab.scope_params(scope, filters, now)
        with self._db.read_sql() as connection:
            vocab.prepare(connection)
            folded = self._one_word(connection, prefix, "prefix") if prefix else ""
            fast = vocab.unfiltered_history(scope, filters)
            rows, total = vocab.words(connection, folded, params, fast, size, offset)
        entries = [
            WordEntry(word=r.word, occurrences=r.occurrences, documents=r.documents) for r in rows
        ]
        empty = WordPage(scope=scope, words=[], total=total, next_offset=total)
        taken = take_within(entries, self._room(empty, "next_offset", total), size)
        return empty.model_copy(
            update={"words": taken, "next_offset": following(offset, len(taken), total)}
        )

    @checked
    def word_instances(
        self,
        word: str,
        *,
        scope: str = "history",
        offset: int = 0,
        limit: int | None = None,
        session_id: str | None = None,
        role: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> InstancePage:
        """Every occurrence of one whole word, located in the original text.

        Each instance gives its record, the 0-based token position (fts5vocab), Python
        character offsets ``start``/``end`` found with SQLite's own tokenizer (highlight()),
        the original ``matched_text`` and an excerpt. Order: newest record first, then source
        type, id and position; repetitions inside one record are separate instances.

        Args:
            word: Text that tokenizes as exactly one word (case and accents do not matter).
            scope, offset, limit, session_id, role, since, until: As in :meth:`search_words`.

        Raises:
            InvalidQuery: If ``word`` is not exactly one word.
            InvalidInput: For a bad scope, role, time (naive, or since after until), offset or
                limit.
        """
        filters, size = self._word_filters(scope, offset, limit, session_id, role, since, until)
        params = vocab.scope_params(scope, filters, utc_now())
        with self._db.read_sql() as connection:
            vocab.prepare(connection)
            folded = self._one_word(connection, word, "word")
            fast = vocab.unfiltered_history(scope, filters)
            records, total = instance_rows.page(connection, folded, params, fast, size, offset)
            instances = locate_instances(connection, folded, records)
        empty = InstancePage(word=folded, scope=scope, instances=[], total=total, next_offset=total)
        taken = take_within(instances, self._room(empty, "next_offset", total), size)
        return empty.model_copy(
            update={"instances": taken, "next_offset": following(offset, len(taken), total)}
        )

    @checked
    def read_conversation(
        self, session_id: str, *, after: int = 0, limit: int | None = None
    ) -> ConversationPage:
        """Completed user and assistant messages of a session with sequence > ``after``, in
        order, within ``limit`` (capped by ``max_results``) and ``recall_chars``.

        A message too long for the page is clipped and marked ``truncated``; read it whole
        with :meth:`read_memory_message`. Imported daily sessions have unknown original
        boundaries.

        Raises:
            NotFound: If there is no such session.
            InvalidInput: If ``after`` < 0 or ``limit`` < 1.
        """
        position(after, "after", "0 or a previous next_after")
        size = self._page_limit(limit)
        with self._db.read() as db:
            row = history_rows.get_session(db, session_id)
            if row is None:
                raise NotFound("session", session_id)
            rows = history_rows.dialogue(db, session_id, after, size + 1)
            messages = [Message.model_validate(r) for r in rows]
            session = session_model(row)
        empty = ConversationPage(session=session, messages=[], next_after=0)
        widest = max((m.sequence for m in messages), default=0)
        taken = fill_dialogue(messages[:size], self._room(empty, "next_after", widest))
        more = len(taken) < len(messages)
        return empty.model_copy(
            update={"messages": taken, "next_after": taken[-1].sequence if more else None}
        )

    @checked
    def read_memory_message(self, message_id: str, *, offset: int = 0) -> MessageChunk:
        """The characters of one message from ``offset``, as many as fit ``recall_chars``;
        follow ``next_offset`` until None to read every character.

        Raises:
            NotFound: If there is no such message.
            InvalidInput: If ``offset`` is outside ``0..total_chars``.
        """
        with self._db.read_sql() as connection:
            message = history_rows.get_message(connection, message_id)
        if message is None:
            raise NotFound("message", message_id)
        info, content = MessageInfo.model_validate(message), message.content
        if not 0 <= offset <= len(content):
            raise InvalidInput("offset", f"is {offset}; use 0..{len(content)} (total_chars).")
        empty = MessageChunk(
            message=info, offset=offset, total_chars=len(content), next_offset=0, content=""
        )
        chunk = json_prefix(content[offset:], self._room(empty, "next_offset", len(content)))
        end = offset + len(chunk)
        return empty.model_copy(
            update={"content": chunk, "next_offset": end if end < len(content) else None}
        )

    def _word_filters(
        self,
        scope: str,
        offset: int,
        limit: int | None,
        session_id: str | None,
        role: str | None,
        since: datetime | None,
        until: datetime | None,
    ) -> tuple[Filters, int]:
        one_of(scope, SCOPES, "scope")
        one_of(role, ("user", "assistant"), "role")
        position(offset, "offset", "0 or a previous next_offset")
        filters = time_filters(session_id, role, since, until)
        return filters, self._page_limit(limit)

    @staticmethod
    def _one_word(connection: sqlite3.Connection, text: str, argument: str) -> str:
        if len(text) > MAX_WORD_CHARS:
            raise InvalidQuery(argument, f"is over {MAX_WORD_CHARS} characters; give one word.")
        if not valid_unicode(text):  # a lone surrogate: SQLite only takes valid Unicode
            raise InvalidQuery(
                argument, f"{text!r} is not valid Unicode (bytes that are not UTF-8?); retype it."
            )
        # An ASCII letters-and-digits word is one token that unicode61 only lowercases; any
        # other text is split and folded by SQLite's own tokenizer.
        ascii_word = text.isascii() and text.isalnum()
        found = [text.lower()] if ascii_word else vocab.tokens(connection, text)
        if len(found) != 1:
            raise InvalidQuery(
                argument,
                f"{text!r} is {len(found)} words as the index splits it; give exactly one word "
                "(punctuation and spaces separate words).",
            )
        return found[0]

    # Diary

    @checked
    def diary(self, day: date | str | None = None, *, tz: str | None = None) -> Diary:
        """One local calendar day, for reading only: each conversation with messages that day
        (its span, count and every message, system, interrupted and error ones included, in
        time order), the memories written or updated that day (any status), and the closest
        earlier and later days with a conversation. A conversation crossing midnight is in
        both days, each with that day's messages. Nothing is written.

        When the database holds no conversation that day (history off, or days before
        persistence), the day's Markdown log ``<log_dir>/YYYY-MM-DD.md`` is returned as raw
        text (``log``), or ``log_error`` says why it cannot be.

        Args:
            day: A date or ``YYYY-MM-DD`` text; today in the zone by default.
            tz: An IANA time zone name such as ``Europe/Madrid``; the machine's by default.

        Returns:
            The day: times in UTC; ``day``, ``previous_day`` and ``next_day`` dates in ``tz``.

        Raises:
            InvalidInput: For a malformed day or an unknown time zone.
        """
        place = days.zone(tz)
        when = days.today(place) if day is None else days.parse_day(day)
        start, end = days.bounds(when, place)
        now = utc_now()
        found, memories = diary_rows.Interval([], [], None, None), []
        if self.path.exists():  # only reads: a missing database is not created
            with self._db.read() as db:
                found = diary_rows.interval(db, start, end)
                memories = [memory_model(row, now) for row in found.memories]
        conversations = days.conversations(Message.model_validate(m) for m in found.messages)
        log_path = None if conversations else self.log_dir / f"{when.isoformat()}.md"
        log, log_error = (None, None) if log_path is None else days.read_log(log_path)
        return Diary(
            day=when,
            time_zone=place.key,
            previous_day=days.local_date(found.before, place),
            next_day=days.local_date(found.after, place),
            conversations=conversations,
            memories=memories,
            log=log,
            log_path=None if log_path is None else str(log_path),
            log_error=log_error,
        )

    # Backup

    @checked
    def backup(self, destination: str | Path) -> BackupReport:
        """Copy the database to a new file with SQLite's online backup API, then check the copy.

        The copy holds every committed write, those still in the ``-wal`` file included, as of
        one moment; writers are not blocked while it is taken. It is one self-contained file
        (rollback journal, no ``-wal`` needed) that memstore opens like any database. An
        existing destination is never overwritten, even one that appears during the backup.

        Args:
            destination: The new file; missing folders are created.

        Returns:
            Where the copy is, its size in bytes and the check of the copy on its own: ``ok``,
            schema version, row counts, problems. A copy that fails its check is kept, for
            investigation, with ``ok`` False.

        Raises:
            BackupExists: If ``destination`` exists; nothing is written.
            InvalidInput: If the destination folder cannot be created or written.
            StoreError: If SQLite fails while reading the database or writing the copy.
        """
        target = backups.target(destination)
        self._db.ensure_schema()
        with backups.staging(target) as staged:
            backups.copy(self.path, staged, read_only=self._db.read_only is not None)
            with MemoryService(staged, config=self.config) as copied:
                checked = copied.health()
            backups.seal(staged)
            backups.place(staged, target)
        return BackupReport(
            backup=str(target),
            database=str(self.path),
            bytes=target.stat().st_size,
            ok=checked.ok,
            schema_version=checked.schema_version,
            counts=checked.counts,
            problems=checked.problems,
        )

    # Recall

    @checked
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
        """Search memories and conversation history for ``query``, best first.

        The query is literal text: FTS5 operators, quotes and punctuation are never syntax.
        Memories rank by bm25; conversations by bm25 with rare words weighing more, words
        side by side and other forms of a word (same stem) adding, and hits holding only
        very frequent words (stopwords) after the rest (see memstore.repository.ranking).
        Memories are the active, unexpired, confirmed ones; session and role filters reach
        them through their source messages, so a memory without one cannot match those.
        Each history hit comes with its pair: an assistant reply with the user request before
        it (orphan replies are left out), a user message with the completed reply after it.
        System, interrupted and error messages are never returned.

        Args:
            query: At most 512 characters and 32 distinct words.
            mode: ``any`` word, ``all`` words, or ``phrase`` (consecutive, repeats kept).
            history: False searches memories only.
            session_id, role: Filters on the matched message (a memory's source message).
            since, until: Aware times; the matched record was created at or after ``since``
                and before ``until``.
            limit: Most memories, and most conversations, returned; capped by
                ``max_results``.

        Returns:
            At most ``limit`` memories and ``limit`` conversations within ``recall_chars``
            characters of JSON (memories first); clipped texts end with "…" and are marked
            ``truncated``.

        Raises:
            InvalidQuery: For an empty, too long or too wordy query, text that is not valid
                Unicode, or an unknown mode.
            InvalidInput: For a bad role, a naive time, ``since`` after ``until``, or
                limit < 1.
        """
        one_of(role, ("user", "assistant"), "role")
        if not valid_unicode(query):  # a lone surrogate: SQLite only takes valid Unicode
            raise InvalidQuery("query", f"{query!r} is not valid Unicode; retype it.")
        match = build_match(query, mode)  # type: ignore[arg-type]  # checked there
        filters = time_filters(session_id, role, since, until)
        terms = frozenset(fold(token) for token in query_tokens(query))
        size, now = self._page_limit(limit), utc_now()
        empty = RecallResult(memories=[], conversations=[], truncated=False)
        room = self.config.recall_chars - json_size(empty)
        with self._db.read_sql() as connection:
            rows = memory_hits(connection, match, filters, now, size)
            memories, room, clipped = retrieval.fill_memories(
                [memory_model(row, now) for row in rows], room=room, folded_terms=terms
            )
            hits = (
                history_hits(connection, query, mode, filters)  # type: ignore[arg-type]  # checked
                if history
                else iter(())
            )
            page = retrieval.fill_page(
                retrieval.conversations(hits), limit=size, room=room, folded_terms=terms
            )
        return RecallResult(
            memories=memories,
            conversations=page.conversations,
            truncated=clipped or page.truncated,
        )

    def _room(self, empty: Any, field: str, widest: int) -> int:
        """Characters of JSON left for items in ``empty``, whatever its ``field`` ends up
        holding: null or a number up to ``widest``."""
        sizes = (json_size(empty.model_copy(update={field: value})) for value in (None, widest))
        return self.config.recall_chars - max(sizes)

    def _require_enabled(self) -> None:
        if not self.config.enabled:
            raise MemoryDisabled()

    def _page_limit(self, limit: int | None) -> int:
        if limit is not None and not 1 <= limit <= MAX_POSITION:
            raise InvalidInput("limit", f"is {limit}; use 1 or more (at most 2**63 - 1).")
        return min(limit or self.config.max_results, self.config.max_results)

    # Health

    def health(self) -> HealthReport:
        """Integrity, foreign keys, each FTS5 index, schema version and row counts.

        A database this process cannot write is checked as it is, except for the FTS5
        integrity-checks, which SQLite runs as writes: they run on a private temporary copy
        made with the online backup API (``read_only`` in the report says so).

        Returns:
            The report; ``ok`` only when every check passes. ``problems`` says what is wrong
            and where, one sentence each. A file SQLite cannot open or read as a database is
            a report with ``ok`` False, not an exception.

        Raises:
            StoreBusy: If the FTS5 checks could not take the write lock within 500 ms.
            SchemaError: If the database is newer than this code, its versions have gaps, or
                alembic_version and schema_migrations disagree.
            StoreError: If SQLite fails otherwise (e.g. the file cannot be opened at all).
        """
        path, code = str(self.path), self._db.code_version()
        try:
            with self._db.inspect() as db:
                if self._db.read_only is None:
                    return health_checks.report(db, path, code)
                with backups.scratch_copy(self.path) as copied, Database(copied).inspect() as fts:
                    report = health_checks.report(db, path, code, fts_db=fts)
                return report.model_copy(
                    update={"read_only": True, "read_only_reason": self._db.read_only}
                )
        except StoreDamaged as error:
            return health_checks.unreadable(path, code, str(error))


def following(offset: int, taken: int, total: int) -> int | None:
    """The next page's offset, or None when this page reached the end."""
    return offset + taken if offset + taken < total else None


def locate_instances(
    connection: sqlite3.Connection, word: str, records: list[instance_rows.PageRecord]
) -> list[Instance]:
    """Each instance of the page located in its record's text by SQLite's own tokenizer: the
    record's n-th highlighted region is its n-th instance of the word."""
    located: list[Instance] = []
    for record in records:
        spans = instance_rows.located(connection, record, word)
        for position, (start, end) in zip(record.positions, spans, strict=True):
            shown, shown_start = lexical.excerpt(record.content, start, end)
            located.append(
                Instance(
                    source_type=record.source_type,
                    id=record.id,
                    token_index=position,
                    start=start,
                    end=end,
                    matched_text=record.content[start:end],
                    excerpt=shown,
                    excerpt_start=shown_start,
                    created_at=record.created_at,
                    session_id=record.session_id,
                    role=record.role,
                    sequence=record.sequence,
                    source_ref=record.source_ref,
                )
            )
    return located


def speaker_roles(speakers: Mapping[str, str]) -> dict[str, str]:
    """Case-folded speaker name -> role, validated.

    Raises:
        InvalidInput: If there are no speakers or a role is not user/assistant/system.
    """
    if not speakers:
        raise InvalidInput(
            "speakers", 'none given; map each speaker, e.g. "Diego=user", "Morgan=assistant".'
        )
    roles: dict[str, str] = {}
    for name, role in speakers.items():
        one_of(role, values(Role), f"speaker {name!r}")
        folded = name.strip().casefold()
        if roles.get(folded, role) != role:
            raise InvalidInput(
                f"speaker {name!r}", "is given two roles (names are compared without case)."
            )
        roles[folded] = role
    return roles
