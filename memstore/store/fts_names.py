"""The names of the FTS5 objects that revisions 0002, 0004 and 0005 create, and of the index
recall names in ``INDEXED BY`` (revision 0006), in one place for the code that uses, checks or
leaves them out (the revisions themselves are frozen and spell them out).

Each searchable table ``T`` has an external-content index ``T_fts`` over the view
``T_searchable`` (the rows search may see), kept in step by the triggers ``T_fts_ai``,
``T_fts_ad`` and ``T_fts_au`` (after insert, delete, update); FTS5 keeps its data in shadow
tables named ``T_fts_*``. History has a second index, ``messages_stem_fts``, over the same
view, whose terms are word stems (revision 0004), with triggers named the same way; so do
memories (``memories_stem_fts``). The view ``T_search`` (revision 0005) shows ``T_fts`` to
Datasette as ``T``'s full-text index.
"""

from __future__ import annotations

MESSAGES_FTS = "messages_fts"
"""History's index: completed user and assistant messages."""
MESSAGES_STEM_FTS = "messages_stem_fts"
"""History's index by word stem (SQLite's porter stemmer): what recall selects and ranks by."""
MEMORIES_FTS = "memories_fts"
"""Memories' index: the memories in force."""
MEMORIES_STEM_FTS = "memories_stem_fts"
"""Memories' index by word stem: what recall's ``any`` mode searches."""
FTS_INDEXES = (MESSAGES_FTS, MESSAGES_STEM_FTS, MEMORIES_FTS, MEMORIES_STEM_FTS)
"""The FTS5 indexes: history's, history's by stem, memories', memories' by stem."""
FTS_TABLES = FTS_INDEXES
"""The prefixes of every FTS5 table and shadow table."""
SEARCHABLE_VIEW_SUFFIX = "_searchable"
"""The suffix of the views the indexes are built over."""
FTS_TRIGGERS = tuple(f"{index}_{event}" for index in FTS_INDEXES for event in ("ai", "ad", "au"))
"""The triggers that keep each index in step with its table."""
SEARCH_VIEWS = {"messages": "messages_search", "memories": "memories_search"}
"""Per searchable table, the view over its exact index that Datasette takes as the table's
full-text index (its SQL says ``content="T"``): the search box on ``messages`` and
``memories``."""
PLACES_INDEX = "ix_messages_place"
"""The index on ``messages`` (:data:`PLACES_COLUMNS`) from which recall reads a hit's place
in its session when the filters did not read the hit's row already, and the places of a
large tier's candidates (revision 0006); recall fails without it, so ``check`` looks for
it."""
PLACES_COLUMNS = ("pk", "session_id", "sequence")
"""The columns of :data:`PLACES_INDEX`, in order."""
REQUESTS_INDEX = "ix_messages_requests"
"""The partial index of the user messages on ``messages (session_id, sequence)`` that recall
seeks to pair each hit with its request (revision 0007); recall slows without it, so
``check`` looks for it too."""
SCHEMA_INDEXES = {
    PLACES_INDEX: ("messages", PLACES_COLUMNS, None, False),
    REQUESTS_INDEX: ("messages", ("session_id", "sequence"), "role = 'user'", False),
    "ix_messages_created_at": ("messages", ("created_at",), None, False),
    "ix_messages_speaker": ("messages", ("speaker",), "speaker IS NOT NULL", False),
    "ux_memories_active_normalized": (
        "memories",
        ("normalized_content",),
        "status = 'active'",
        True,
    ),
    "ux_memories_active_key": (
        "memories",
        ("key",),
        "status = 'active' AND key IS NOT NULL",
        True,
    ),
    "ix_memory_sources_memory_id": ("memory_sources", ("memory_id",), None, False),
    "ix_memory_sources_message_id": ("memory_sources", ("message_id",), None, False),
}
"""The schema's indexes, as ``check`` expects them: their table, their columns in order, the
condition of a partial one (None for an index of every row), and whether it is unique."""
