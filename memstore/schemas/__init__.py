"""Pydantic result models: what every public method returns and the CLI prints.

``model_dump(mode="json")`` of each is the JSON of CONTRACT.md. Times are aware UTC
datetimes. Records (:mod:`.records`), pages (:mod:`.pages`), reports (:mod:`.reports`), and
what an export holds (:mod:`.transfer`).

Each name is imported from its module on first use (PEP 562), so that a command pays only
for the models it returns: building the models of a module takes milliseconds (the reports
and the export records together about 20 ms), which recall need not pay.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
        MemoryInfo,
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

MODULES = ("records", "pages", "reports", "transfer")
"""The modules that define the names, each after those it imports."""


def __getattr__(name: str) -> Any:
    """A public name, from the first module of :data:`MODULES` that defines it (importing
    the modules before it), kept.

    Raises:
        AttributeError: For a name that is not public.
    """
    if name in __all__:
        for module in MODULES:
            found = importlib.import_module(f"{__name__}.{module}")
            if hasattr(found, name):
                value = getattr(found, name)
                globals()[name] = value
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "MemoryInfo",
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
