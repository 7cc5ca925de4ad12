"""The database file behind a :class:`memstore.MemoryService`: its path, its settings, and
opening and closing it."""

from __future__ import annotations

from pathlib import Path
from typing import Self

from memstore.config import MemoryConfig, PageSize
from memstore.errors import InvalidInput
from memstore.store import examine
from memstore.store.database import Database


class StoreHandle:
    """The database file a service works on, opened lazily, and the service's settings: the
    base of :class:`memstore.MemoryService` (its units of work are in the subclass).

    Args:
        database: The database file (created with its folder when missing).
        config: Limits and switches; defaults when omitted.
        migrations: Another Alembic script folder (for tests of the migration runner).
        pages: The most a page of a listing or a read holds; by default the configuration's
            ``max_results`` items within ``recall_chars`` (an agent's pages). The command
            line passes :meth:`~memstore.config.MemoryConfig.reader_page_size`, for people.
    """

    def __init__(
        self,
        database: str | Path,
        *,
        config: MemoryConfig | None = None,
        migrations: str | None = None,
        pages: PageSize | None = None,
    ) -> None:
        if not isinstance(database, str | Path):
            raise InvalidInput("database", f"must be a path, not {type(database).__name__}.")
        if config is not None and not isinstance(config, MemoryConfig):
            raise InvalidInput("config", f"must be a MemoryConfig, not {type(config).__name__}.")
        if pages is not None and not isinstance(pages, PageSize):
            raise InvalidInput("pages", f"must be a PageSize, not {type(pages).__name__}.")
        self.config = config or MemoryConfig()
        self.pages = pages or self.config.page_size()
        self._db = Database(database, migrations=migrations)

    @classmethod
    def from_config(cls, config: MemoryConfig) -> Self:
        """A service over ``config.database_path()`` with ``config``'s limits."""
        return cls(config.database_path(), config=config)

    def open(self) -> None:
        """Check, create or upgrade the file now, not on first use (a server fails at start).
        Raises FileError, SchemaError or StoreError (see :meth:`Database.ensure_schema`)."""
        self._db.ensure_schema()

    def close(self) -> None:
        """Close pooled connections; the service opens new ones if used again."""
        self._db.dispose()

    def __enter__(self) -> Self:
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
        """Whether the file exists and is a memstore database, checked without changing
        anything; None when SQLite cannot read it. Raises FileError for a non-regular file."""
        return examine.holds_store(self._db.path)

    def unstarted(self) -> bool:
        """Whether the file exists and holds nothing yet (empty, or SQLite without a table):
        what a first import stopped before its tables leaves. Changes nothing; raises
        FileError for a non-regular file."""
        return examine.unstarted(self._db.path)

    def refuse_foreign(self) -> None:
        """Raise FileError when the file holds another application's SQLite database, naming
        what shows it; nothing for any other file. Changes nothing."""
        examine.refuse_foreign(self._db.path)
