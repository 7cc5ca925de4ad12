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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from memstore import schemas
from memstore.errors import (
    BackupExists,
    ExportExists,
    FileError,
    Fts5Unavailable,
    ImportConflict,
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

if TYPE_CHECKING:
    from memstore.adapters.agent import MemoryAgent
    from memstore.adapters.recorder import Recorder
    from memstore.adapters.tools import MemoryTools
    from memstore.adapters.toolset import memory_toolset
    from memstore.config import MemoryConfig
    from memstore.config_file import ConfigLoader
    from memstore.schemas import *  # noqa: F403  (the result models, for type checkers)
    from memstore.service import MemoryService

RESULTS = [name for name in schemas.__all__ if name[0].isupper() and name[1:2].islower()]
"""The result models (``memstore.schemas``' public names but its constants), public here too."""
RESULTS.remove("ImportProgress")  # a callback's type, not a result
RESULTS.remove("Result")  # their base

LAZY = {
    "MemoryAgent": "memstore.adapters.agent",  # these two need the extra memstore[agent]
    "memory_toolset": "memstore.adapters.toolset",
    "Recorder": "memstore.adapters.recorder",
    "MemoryTools": "memstore.adapters.tools",
    "ConfigLoader": "memstore.config_file",
    "MemoryConfig": "memstore.config",
    "MemoryService": "memstore.service",
    **dict.fromkeys(RESULTS, "memstore.schemas"),
}
"""The public names imported on first use (PEP 562), by module: the service, pydantic and
SQLAlchemy take most of a second to import, which ``memstore --help`` need not pay."""


def __getattr__(name: str) -> Any:
    """A public name of :data:`LAZY`, imported on first use and kept.

    Raises:
        AttributeError: For any other name.
        ModuleNotFoundError: For ``MemoryAgent`` or ``memory_toolset`` without pydantic-ai,
            saying how to install the extra.
    """
    if name not in LAZY:
        raise AttributeError(f"module 'memstore' has no attribute {name!r}")
    try:
        module = importlib.import_module(LAZY[name])
    except ModuleNotFoundError as error:
        if not (error.name or "").startswith("pydantic_ai"):
            raise
        raise ModuleNotFoundError(  # found by review: a bare "No module named pydantic_ai"
            f"memstore.{name} needs pydantic-ai, the agent extra ({error}); install it from the "
            "memstore checkout with: pip install './[agent]' (the package called memstore on "
            "the package index is another project)",
            name=error.name,
        ) from error
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "BackupExists",
    "ConfigLoader",
    "ExportExists",
    "FileError",
    "Fts5Unavailable",
    "ImportConflict",
    "ImportRejected",
    "InvalidInput",
    "InvalidQuery",
    "MemoryAgent",
    "MemoryConfig",
    "MemoryDisabled",
    "MemoryService",
    "MemoryTools",
    "MemstoreError",
    "NotFound",
    "Recorder",
    "SchemaError",
    "SecretRejected",
    "StoreBusy",
    "StoreDamaged",
    "StoreError",
    "StoreReadOnly",
    "memory_toolset",
]
__all__ += RESULTS
__all__.sort()
