"""The options every command takes after its name as well as before it (``memstore
--database x.sqlite3 recall tea`` and ``memstore recall tea --database x.sqlite3``):
``--database``, ``--config``, ``-v``, ``--format`` and ``--json``. Given in both places, the
command's wins. Found by review: ``memstore mcp --database x.sqlite3``, as an MCP client's
settings are often written, ended with a usage error before the server started.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from memstore.adapters.cli.opening import Opener
from memstore.adapters.cli.options import GivenPath
from memstore.adapters.cli.usage import option_name
from memstore.errors import InvalidInput, SecretRejected

FORMAT_KEY = "memstore.format"


def shared_options() -> list[click.Option]:
    """New ``--database``, ``--config``, ``-v``, ``--format`` and ``--json`` options for the
    group or one command."""
    return [
        click.Option(
            ["--database"],
            type=GivenPath("a database file such as memory.sqlite3", file=True),
            help="Database file.",
        ),
        click.Option(
            ["--config", "config_file"],
            type=GivenPath("a JSON configuration file", file=True),
            help="JSON config file.",
        ),
        click.Option(["-v", "--verbose"], is_flag=True, help="Log to stderr."),
        click.Option(
            ["--format", "output_format"],
            type=click.Choice(["text", "json"]),
            help="text for a person, or JSON (the default when stdout is not a terminal).",
        ),
        click.Option(["--json", "as_json"], is_flag=True, help="Print JSON (as --format json)."),
    ]


def take_shared(
    ctx: click.Context,
    database: Path | None = None,
    config_file: Path | None = None,
    verbose: bool = False,
    output_format: str | None = None,
    as_json: bool = False,
) -> None:
    """Apply the shared options given to ``ctx``'s command (or the group): the database and
    configuration of the invocation's :class:`Opener` (not opened yet: a command opens it
    in its body), the log and the output format."""
    opener = ctx.find_root().ensure_object(Opener)
    opener.database = database or opener.database
    opener.config_file = config_file or opener.config_file
    start_logging(verbose=verbose)
    choose_format(ctx, output_format, as_json)


def start_logging(*, verbose: bool) -> None:
    """Send log records to stderr with ``verbose``; keep SQLAlchemy's pool quiet otherwise."""
    import logging

    if verbose:
        logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    # SQLAlchemy serves only a migration; its pool's error on a Ctrl-C as it closes printed a
    # traceback before the JSON error (found by review). With -v the root's handler shows it.
    pool_log = logging.getLogger("sqlalchemy.pool")
    if not pool_log.handlers:  # one per process: tests run many commands in one
        pool_log.addHandler(logging.NullHandler())


def wants_text() -> bool:
    """Whether this command prints text for a person: ``--format text``, or no
    ``--format``/``--json`` and stdout a terminal (the group's options, or the command's,
    which win)."""
    chosen = click.get_current_context().meta.get(FORMAT_KEY)
    return chosen == "text" if chosen is not None else sys.stdout.isatty()


def choose_format(ctx: click.Context, output_format: str | None, as_json: bool) -> None:
    """Record the ``--format``/``--json`` given to ``ctx``'s command (or group) for
    :func:`wants_text`, in the metadata every context of the invocation shares: the
    command's, parsed after the group's, wins.

    Raises:
        click.UsageError: For ``--json`` with ``--format text``.
    """
    if as_json and output_format == "text":
        raise click.UsageError("--json and --format text disagree; give one of them.", ctx)
    if as_json or output_format:
        ctx.meta[FORMAT_KEY] = "json" if as_json else output_format


SHARED_NAMES = ("database", "config_file", "verbose", "output_format", "as_json")


def with_shared(callback: Callable[..., Any]) -> Callable[..., Any]:
    """``callback`` taking the shared options off its keywords first (a command's own
    option of the same name, such as ``export``'s ``--format``, stays its own); the errors
    that name an API argument name the option or argument typed instead."""

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        shared = {name: kwargs.pop(name) for name in SHARED_NAMES if name in kwargs}
        take_shared(ctx, **shared)
        try:
            return callback(*args, **kwargs)
        except InvalidInput as error:
            raise error.named(option_name(ctx, error.argument)) from error
        except SecretRejected as error:  # CONTENT, --key (found by review: "content")
            name = option_name(ctx, error.argument)
            raise SecretRejected(name, error.kind, error.length) from error

    return run
