"""MemoryService: the public API of memstore, a façade of short methods.

Each method checks its argument types (:func:`memstore.arguments.checked`), then hands the
call to the concern that holds it, one unit of work each (:mod:`memstore.concerns`): a read,
or a write transaction that commits on success and rolls back on any error. Every method
returns pydantic models (:mod:`memstore.schemas`), never rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from memstore import schemas
from memstore.arguments import checked
from memstore.concerns.memory_rules import Fields, MemoryChanges, MemoryFields, Origins, given_id
from memstore.concerns.pages import page_limit
from memstore.config import PageSize
from memstore.kinds import Category, MessageStatus, Mode, Origin, Role
from memstore.queries import FilterArguments, RecallFilters, WordArguments, WordQuery
from memstore.service_upkeep import UpkeepMethods

CONCERNS = ("context", "history", "importing", "memories", "reading", "recall", "words")
"""The concerns the methods call, each imported on first use: a command pays for its own."""
if TYPE_CHECKING:
    from memstore.concerns import context, history, importing, memories, reading, recall, words
else:
    from memstore.lazy_modules import LazyModule

    globals().update({name: LazyModule(f"memstore.concerns.{name}") for name in CONCERNS})


class MemoryService(UpkeepMethods):
    """Conversation history and long-term memories in one SQLite file, created and migrated
    lazily on first use: ``MemoryService(database, *, config=None, migrations=None,
    pages=None)`` (see :class:`memstore.handle.StoreHandle`); diary, backup, check, export and
    import-memories: :class:`memstore.service_upkeep.UpkeepMethods`."""

    # Sessions and messages: memstore.concerns.history

    @checked
    def start_session(
        self,
        *,
        session_id: str | None = None,
        started_at: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> schemas.Session:
        """Open a live session (a random id and now by default). Raises MemoryDisabled while
        history is off (``store_history`` or ``enabled`` false), or InvalidInput for a naive
        time, metadata JSON cannot hold, or an id in use, blank, over 64 characters or
        holding a control, line break or bidi character."""
        history.require_history(self.config)
        return history.start_session(self._db, session_id, started_at, metadata)

    @checked
    def end_session(self, session_id: str, *, ended_at: datetime | None = None) -> schemas.Session:
        """Close a session. Raises NotFound, or InvalidInput for a naive ``ended_at``."""
        return history.end_session(self._db, session_id, ended_at)

    @checked
    def get_session(self, session_id: str) -> schemas.Session | None:
        """The session with this id, or None."""
        return history.get_session(self._db, session_id)

    @checked
    def list_sessions(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        offset: int = 0,
        limit: int | None = None,
    ) -> schemas.SessionPage:
        """The sessions started in [``since``, ``until``) (aware times; None: unbounded),
        newest first, a page of ``limit`` (capped by the page size, ``max_results`` by
        default) with the exact total. Raises InvalidInput for a naive time, ``since`` after
        ``until``, or a bad offset or limit."""
        size = page_limit(self.pages, limit)
        return history.list_sessions(self._db, since, until, size, offset)

    @checked
    def record_message(
        self,
        session_id: str,
        role: Role,
        content: str,
        *,
        status: MessageStatus = "completed",
        created_at: datetime | None = None,
        source_ref: str | None = None,
        speaker: str | None = None,
    ) -> schemas.Message | None:
        """Append a message (the next sequence; completed user and assistant ones are
        searchable), ``speaker`` its speaker's name (1-100 characters, no colon); None for a
        deleted ``source_ref``. Raises MemoryDisabled (history off), NotFound, InvalidInput."""
        history.require_history(self.config)
        message = (session_id, role, content, status, created_at, source_ref, speaker)
        return history.record_message(self._db, *message)

    @checked
    def messages(
        self, session_id: str, *, after: int = 0, limit: int = 100
    ) -> list[schemas.Message]:
        """Messages of a session with sequence > ``after``, every role and status, in order.
        Raises InvalidInput if ``after`` < 0 or ``limit`` < 1."""
        return history.list_messages(self._db, session_id, after, limit)

    @checked
    def delete_message(self, message_id: str) -> bool:
        """Delete a message and tombstone its source reference so no import brings it back;
        False when there was none. Memories derived from it keep their source reference."""
        return history.delete_message(self._db, message_id)

    # Import: memstore.concerns.importing

    @checked
    def import_markdown(
        self,
        paths: str | Path | Iterable[str | Path],
        *,
        speakers: Mapping[str, str],
        include_tail: bool = False,
        progress: schemas.ImportProgress | None = None,
    ) -> schemas.ImportReport:
        """Import daily Markdown logs (LOGFORMAT.md): files, or folders' ``*.md`` files (one
        path, or a list of them); ``speakers`` maps names (without case) to roles, as written;
        ``progress`` gets each file's report. A file-level problem is that file's ``error``.
        Raises InvalidInput for a bad map."""
        return importing.import_markdown(self._db, paths, speakers, include_tail, progress)

    @staticmethod
    @checked
    def log_files(paths: str | Path | Iterable[str | Path]) -> list[Path]:
        """The files an import of ``paths`` (one or a list) reads: folders' ``*.md`` sorted."""
        from memstore.concerns import import_files  # on first use, as the rest

        return import_files.expand_paths(import_files.given_paths(paths))

    # Memories: memstore.concerns.memories, the rules in concerns.supersede

    @checked
    def remember(
        self,
        content: str,
        *,
        memory_id: str | None = None,
        supersedes: str | None = None,
        origin: Origin = "explicit",
        confidence: float = 1.0,
        source_message_id: str | None = None,
        source_ref: str | None = None,
        **fields: Unpack[MemoryFields],
    ) -> schemas.Memory:
        """Create, reuse (normalised duplicate), update (``memory_id``: as
        :meth:`update_memory`, what is not given kept) or supersede (same ``key``, or
        ``supersedes``) a memory in one write transaction. Keywords ``category`` (``fact``
        for a new memory; a reused or confirmed one keeps its own), ``key`` and ``expires_at``, as
        :class:`~memstore.concerns.memory_rules.MemoryFields` says. Raises MemoryDisabled,
        InvalidInput (an ``extracted`` update among them), SecretRejected (nothing stored) or
        NotFound."""
        memories.require_enabled(self.config)
        origins = Origins.given(supersedes, origin, confidence, source_message_id, source_ref)
        if (memory_id := given_id(memory_id)) is not None:  # an update, what is not given kept
            memories.require_explicit_update(origin)
            return memories.update_memory(self._db, memory_id, content, Fields.of(fields), origins)
        return memories.remember(self._db, content, Fields.of(fields), origins)

    @checked
    def get_memory(self, memory_id: str) -> schemas.Memory | None:
        """The memory with this id, whatever its status, or None."""
        return memories.get_memory(self._db, memory_id)

    @checked
    def update_memory(
        self, memory_id: str, content: str | None = None, **fields: Unpack[MemoryChanges]
    ) -> schemas.Memory:
        """Change a memory in place, keeping its id (a candidate becomes confirmed); a field
        left out (or None) keeps its value. Raises MemoryDisabled, NotFound, InvalidInput or
        SecretRejected."""
        memories.require_enabled(self.config)
        return memories.update_memory(self._db, memory_id, content, Fields.of(fields))

    @checked
    def memory_sources(self, memory_id: str) -> list[schemas.MemorySource]:
        """The messages (or source references) a memory came from, oldest link first."""
        return memories.memory_sources(self._db, memory_id)

    @checked
    def delete_memory(self, memory_id: str) -> bool:
        """Delete a memory and its source links (history is untouched); False if none."""
        return memories.delete_memory(self._db, memory_id)

    @checked
    def pin_memory(self, memory_id: str, pinned: bool = True) -> schemas.Memory:
        """Pin (or unpin) a memory: pinned ones come first in the context. Raises
        MemoryDisabled (a memory write, as remember; found by review), NotFound, or
        InvalidInput when pinning a superseded memory."""
        memories.require_enabled(self.config)
        return memories.pin_memory(self._db, memory_id, pinned)

    @checked
    def list_memories(
        self,
        *,
        category: Category | None = None,
        include_inactive: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> schemas.MemoryPage:
        """Memories in force (or all), pinned first, then newest first, a page of ``limit``
        (capped by the page size, ``max_results`` by default) within its characters of JSON
        (``recall_chars``; the last memory clipped, ``truncated``). Raises InvalidInput for
        a bad category, limit or offset."""
        size = page_limit(self.pages, limit)
        return memories.list_memories(
            self._db, self.pages, category, include_inactive, size, offset
        )

    @checked
    def context(self, query: str = "") -> schemas.MemoryContext:
        """The memory block to inject this turn, within ``context_chars`` characters (see
        :mod:`memstore.concerns.context`); ``query`` only ranks, never as syntax. Empty while
        memory is disabled (``enabled: false`` turns the context off; found by review: only
        the tools' own context was)."""
        if not self.config.enabled:
            return schemas.MemoryContext(text="", memory_ids=[], omitted_ids=[], truncated=False)
        return context.memory_context(self._db, query, self.config.context_chars)

    # Search and reading: memstore.concerns.recall, .words, .reading

    @checked
    def recall(
        self,
        query: str,
        *,
        mode: Mode = "any",
        history: bool = True,
        limit: int | None = None,
        full: bool = False,
        **filters: Unpack[FilterArguments],
    ) -> schemas.RecallResult:
        """Memories and history matching the literal ``query``, best first, in one page of
        ``recall_chars`` (``full``: no character budget, every text whole), filtered by the
        keywords ``session_id``, ``role``, ``since``, ``until``, ``speaker``
        (:class:`~memstore.queries.FilterArguments`; see
        :func:`memstore.concerns.recall.recall`). A page larger than the default (a
        person's, at the command line) has as many characters per item: ``recall_chars``
        for each ``max_results`` items or part of them, so that asking for more never
        shows less. Raises InvalidQuery or InvalidInput."""
        found = RecallFilters.of(filters)
        wanted = min(limit or self.pages.items, self.pages.most)
        chars = None if full else self.config.recall_chars * max(1, -(-wanted // self.pages.items))
        pages = PageSize(items=self.pages.items, most=self.pages.most, chars=chars)
        return recall.recall(self._db, pages, query, mode, history, found, limit)

    @checked
    def search_words(self, prefix: str = "", **query: Unpack[WordArguments]) -> schemas.WordPage:
        """The indexed words starting with ``prefix``, alphabetically, with counts. Keywords
        (:class:`~memstore.queries.WordArguments`): ``scope``, ``offset``, ``limit``,
        ``session_id``, ``role``, ``since``, ``until``, ``speaker`` (see
        :func:`memstore.concerns.words.search_words`). Raises InvalidQuery or InvalidInput."""
        page = WordQuery.of(query, page_limit(self.pages, query.get("limit")))
        return words.search_words(self._db, self.pages, prefix, page)

    @checked
    def word_instances(self, word: str, **query: Unpack[WordArguments]) -> schemas.InstancePage:
        """Every occurrence of one whole word, located in the original text; the keywords of
        :meth:`search_words` (see :func:`memstore.concerns.words.word_instances`). Raises
        InvalidQuery or InvalidInput."""
        page = WordQuery.of(query, page_limit(self.pages, query.get("limit")))
        return words.word_instances(self._db, self.pages, word, page)

    @checked
    def read_conversation(
        self, session_id: str, *, after: int = 0, limit: int | None = None
    ) -> schemas.ConversationPage:
        """Completed user and assistant messages after sequence ``after``, a page within
        ``limit`` and the page size (``recall_chars`` by default). Raises NotFound or
        InvalidInput."""
        size = page_limit(self.pages, limit)
        return reading.read_conversation(self._db, self.pages, session_id, after, size)

    @checked
    def read_memory_message(self, message_id: str, *, offset: int = 0) -> schemas.MessageChunk:
        """The characters of one message (or memory, by its id) from ``offset``, as many as
        fit the page size (``recall_chars`` by default); follow ``next_offset`` until None.
        Raises NotFound or InvalidInput."""
        return reading.read_message(self._db, self.pages, message_id, offset)
