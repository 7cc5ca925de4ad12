"""Opening the service a command works on: the configuration, the database path, and which
commands may create the file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memstore import paths
from memstore.errors import FileError

if TYPE_CHECKING:
    from memstore.config import MemoryConfig
    from memstore.service import MemoryService


def load_config(path: Path | None) -> MemoryConfig:
    """The ``memory`` section of a JSON configuration file, or the defaults.

    The CLI is strict: an unusable file is a usage error, never a silent fallback to defaults.

    Raises:
        click.BadParameter: When the file cannot be read or holds invalid settings.
    """
    from memstore.config import MemoryConfig
    from memstore.config_file import read_section

    if path is None:
        return MemoryConfig()
    try:
        path = paths.expanded(path)
    except FileError as error:  # "~nosuchuser/...": a usage error naming --config (review)
        raise click.BadParameter(str(error), param_hint="--config") from None
    try:
        return read_section(path)
    except FileNotFoundError:
        raise click.BadParameter(
            f"{path}: there is no file there.", param_hint="--config"
        ) from None
    except (OSError, ValueError) as error:  # read_section's documented failures
        raise click.BadParameter(f"cannot use {path}: {error}", param_hint="--config") from error


def service_from(
    ctx: click.Context, *, new_ok: bool = False, unstarted_ok: bool = False
) -> MemoryService:
    """The service of this invocation (opened lazily by the group).

    Only the commands that store something may create the database file, and the diary
    (which then shows the day's Markdown log) may run without one (``new_ok``); the others
    refuse a file that does not exist or is not a memstore database, so that a
    mistyped ``--database`` is an error instead of a new, empty database (or memstore's
    tables added to another application's file) that reports nothing wrong. ``check``
    takes a file that exists and holds nothing yet (``unstarted_ok``): a first import killed
    before its tables were made leaves one, which it reports without writing to it.

    Raises:
        FileError: When the database is missing or is not a memstore database.
    """
    service = ctx.find_root().ensure_object(Opener).service()
    if new_ok:
        return service
    held = service.holds_store()  # refuses a FIFO, folder or device at once
    if not service.path.exists():
        raise FileError(
            str(service.path),
            "there is no database there; check --database or the configuration, or create "
            "one with `memstore import` or `memstore remember`.",
        )
    if held is False and unstarted_ok and (service.unstarted() or service.holds_store()):
        return service  # a first import may have made the store since (found by review)
    if held is False:
        service.refuse_foreign()  # names another application's database as one
        raise FileError(
            str(service.path),
            "it is not a memstore database (an empty file, or one whose first import was "
            "stopped before its tables were made); it was left untouched. Check --database "
            "or the configuration; `memstore import` or `memstore remember` sets up an "
            "empty one.",
        )
    return service


class Opener:
    """The service of one invocation, opened on its first use (by :func:`service_from`): a
    subcommand's ``--help`` or usage error, handled after the group's callback, opens
    nothing. Its pages are a person's (:meth:`~memstore.config.MemoryConfig.reader_page_size`):
    as many items as ``--limit`` asks, texts whole; recall alone keeps the configured budget.

    Args:
        database: The ``--database`` given, if any (else the configuration's).
        config_file: The ``--config`` given, if any (else the defaults).
    """

    def __init__(self, database: Path | None = None, config_file: Path | None = None) -> None:
        self.database = database
        self.config_file = config_file
        self.opened: MemoryService | None = None

    def service(self) -> MemoryService:
        """The service, opened with the configuration on the first call.

        Raises:
            click.BadParameter: When the configuration file cannot be used.
        """
        if self.opened is None:
            from memstore.service import MemoryService

            config = load_config(self.config_file)
            path = self.database or config.database_path()
            self.opened = MemoryService(path, config=config, pages=config.reader_page_size())
        return self.opened

    def close(self) -> None:
        """Close the service if it was opened."""
        if self.opened is not None:
            self.opened.close()
