"""Configuration: the ``memory`` settings and where memstore keeps its data.

The data directory is platformdirs' user data directory for "memstore", or ``MEMSTORE_HOME``
when that is set. A relative database path resolves under it, whatever the working directory.
"""

from __future__ import annotations

import os
from pathlib import Path, PureWindowsPath

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, field_validator

HOME_VARIABLE = "MEMSTORE_HOME"


def data_dir() -> Path:
    """The directory memstore keeps its data in: ``$MEMSTORE_HOME`` or the user data dir."""
    override = os.environ.get(HOME_VARIABLE)
    return Path(override) if override else Path(platformdirs.user_data_dir("memstore"))


class MemoryConfig(BaseModel):
    """The ``memory`` section of the configuration (limits are characters, not tokens)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    enabled: bool = True
    """False disables memory writes, memory tools and injected context; nothing is deleted."""
    store_history: bool = True
    """False stops new conversation persistence; explicit memories still work."""
    database: str = "memory/memory.sqlite3"
    """Database file: relative paths resolve under the data directory; no UNC, no '..'."""
    max_results: int = Field(default=8, ge=1, le=50)
    """Most items one recall or word page returns."""
    context_chars: int = Field(default=4000, ge=512, le=32000)
    """Budget of the per-turn context block, in characters."""
    recall_chars: int = Field(default=8000, ge=1024, le=64000)
    """Budget of one recall or word page, in characters of JSON."""

    @field_validator("database")
    @classmethod
    def _local_path(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("database path is empty; give a file name such as memory.sqlite3")
        if value.startswith(("\\\\", "//")) or PureWindowsPath(value).drive.startswith("\\\\"):
            raise ValueError("UNC paths are not allowed; use a path on a local disk")
        if ".." in Path(value).parts or ".." in PureWindowsPath(value).parts:
            raise ValueError("'..' is not allowed in the database path")
        return value

    def database_path(self) -> Path:
        """The database file as an absolute path (relative ones under :func:`data_dir`)."""
        path = Path(self.database).expanduser()
        return path if path.is_absolute() else data_dir() / path
