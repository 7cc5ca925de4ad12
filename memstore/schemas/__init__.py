"""Pydantic result models: what every public method returns and the CLI prints.

``model_dump(mode="json")`` of each is the JSON of CONTRACT.md. Times are aware UTC
datetimes. Records (:mod:`.records`), pages (:mod:`.pages`), reports (:mod:`.reports`), and
what an export holds (:mod:`.transfer`).
"""

from memstore.schemas.pages import (
    ConversationPage,
    Diary,
    DiaryConversation,
    InstancePage,
    MemoryContext,
    MemoryPage,
    MessageChunk,
    RecallConversation,
    RecallResult,
    SessionPage,
    SessionSummary,
    WordPage,
)
from memstore.schemas.records import (
    UNTRUSTED_WARNING,
    DeleteResult,
    Instance,
    Memory,
    MemorySource,
    Message,
    MessageInfo,
    Result,
    Session,
    WordEntry,
)
from memstore.schemas.reports import (
    BackupReport,
    FileImport,
    FtsCheck,
    HealthReport,
    ImportProgress,
    ImportReport,
    ImportWarning,
)
from memstore.schemas.transfer import ExportReport, MemoryImportReport

__all__ = [
    "UNTRUSTED_WARNING",
    "BackupReport",
    "ConversationPage",
    "DeleteResult",
    "Diary",
    "DiaryConversation",
    "ExportReport",
    "FileImport",
    "FtsCheck",
    "HealthReport",
    "ImportProgress",
    "ImportReport",
    "ImportWarning",
    "Instance",
    "InstancePage",
    "Memory",
    "MemoryContext",
    "MemoryImportReport",
    "MemoryPage",
    "MemorySource",
    "Message",
    "MessageChunk",
    "MessageInfo",
    "RecallConversation",
    "RecallResult",
    "Result",
    "Session",
    "SessionPage",
    "SessionSummary",
    "WordEntry",
    "WordPage",
]
