"""memstore: the local, private long-term memory of a personal AI assistant.

Conversation history and explicit memories in one SQLite file with FTS5 search::

    from memstore import MemoryService
    service = MemoryService("memory.sqlite3")
    service.import_markdown(["logs/"], speakers={"Diego": "user", "Morgan": "assistant"})
    service.recall("jardín azul", mode="phrase")

Imports run one way: adapters (``adapters/``: CLI, agent tools, MCP server, pydantic-ai
agent, recorder) -> :class:`MemoryService` (``service.py``, a façade) -> one module per
concern (``concerns/``) -> SQL (``repository/``) -> the store (``store/``: connections,
migrations, ORM models). The pure text layer (``text/``), the credential guard (``guard/``)
and the daily log format (``logs/``) are used from above and import none of those. The README's
"Module map" says what each module holds.
"""

from memstore.adapters.recorder import Recorder
from memstore.adapters.tools import MemoryTools
from memstore.config import ConfigLoader, MemoryConfig
from memstore.errors import (
    BackupExists,
    FileError,
    Fts5Unavailable,
    ImportRejected,
    InvalidInput,
    InvalidQuery,
    MemoryDisabled,
    MemstoreError,
    NotFound,
    SchemaError,
    SecretRejected,
    StoreBusy,
    StoreDamaged,
    StoreError,
    StoreReadOnly,
)
from memstore.schemas import (
    BackupReport,
    FileImport,
    HealthReport,
    ImportReport,
    ImportWarning,
    Memory,
    Message,
    RecallConversation,
    RecallResult,
    Session,
)
from memstore.service import MemoryService

__all__ = [
    "BackupExists",
    "BackupReport",
    "ConfigLoader",
    "FileError",
    "FileImport",
    "Fts5Unavailable",
    "HealthReport",
    "ImportRejected",
    "ImportReport",
    "ImportWarning",
    "InvalidInput",
    "InvalidQuery",
    "Memory",
    "MemoryConfig",
    "MemoryDisabled",
    "MemoryService",
    "MemoryTools",
    "MemstoreError",
    "Message",
    "NotFound",
    "RecallConversation",
    "RecallResult",
    "Recorder",
    "SchemaError",
    "SecretRejected",
    "Session",
    "StoreBusy",
    "StoreDamaged",
    "StoreError",
    "StoreReadOnly",
]
