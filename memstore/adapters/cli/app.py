"""The ``memstore`` group: its options, the service it opens, and the one place where errors
become the JSON error document on stderr and the exit status (1, or 2 for usage errors).

The CLI's modules import only click and memstore's light modules at import time: the
service (SQLAlchemy, pydantic) is imported when a command opens it, so that ``memstore
--help`` and usage errors do not pay for it.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from memstore.adapters.cli.catalog import MODULES, SUMMARIES
from memstore.adapters.cli.opening import Opener
from memstore.adapters.cli.shared_options import (
    shared_options,
    take_shared,
    wants_text,
    with_shared,
)
from memstore.adapters.cli.usage import dash_hint, unechoed
from memstore.errors import MemstoreError

if TYPE_CHECKING:
    from pydantic import BaseModel


EXIT_FAILURE = 1
EXIT_USAGE = 2
OUT_OF_MEMORY = (
    "memstore ran out of memory; the unit of work it was in was rolled back, so "
    "nothing of it was stored. Free memory (or split a large log) and retry."
)
NOT_LOADED = (
    "part of memstore or a library it needs could not be loaded ({error}): the machine may be "
    "out of memory, or the installation incomplete. Nothing more was done; free memory, or "
    "reinstall, and retry."
)


def emit(result: BaseModel | dict[str, Any], view: Callable[[Any], str] | None = None) -> None:
    """Print ``result`` on stdout: its text view for a person (:func:`wants_text`), else one
    JSON document, non-ASCII kept as is.

    Args:
        result: A result model (as JSON, its ``model_dump(mode="json")``) or a dict.
        view: The text view of ``result``; by default the one of its type
            (:func:`memstore.adapters.cli.views.render`).
    """
    if wants_text() and not isinstance(result, dict):
        from memstore.adapters.cli import views

        click.echo((view or views.render)(result))
        return
    import json  # here, with the output: `memstore --help` does not pay for it

    data = result if isinstance(result, dict) else result.model_dump(mode="json")
    echo_json(json.dumps(data, ensure_ascii=False, indent=2))


def echo_json(document: str, *, err: bool = False) -> None:
    """Print a JSON document on stdout (stderr with ``err``) as UTF-8, as CONTRACT.md says,
    whatever the stream's own encoding: a Windows pipe's cp1252 wrote "é" as one byte no
    JSON reader takes, and "🍵" as a Python escape that is no JSON escape. A path that is no
    UTF-8 (a byte Python keeps as a lone surrogate) is written as its JSON escape, ``\\udcff``
    (found by review: a traceback where the JSON error was due)."""
    click.echo(document.encode("utf-8", "backslashreplace"), err=err)


def conclude(
    ctx: click.Context,
    result: BaseModel,
    *,
    ok: bool,
    note: str = "",
    view: Callable[[Any], str] | None = None,
) -> None:
    """Print ``result``, then end the command: exit status 0 when ``ok``, else 1.

    Args:
        ctx: The command's context.
        result: What the command prints on stdout.
        ok: Whether the command did what it was asked (deleted, checked ok, ...).
        note: A line for a person, printed on stderr after the JSON (none when empty; the
            text view says it itself).
        view: The text view of ``result`` (see :func:`emit`).
    """
    emit(result, view)
    if note and not wants_text():
        click.echo(note, err=True)
    ctx.exit(0 if ok else EXIT_FAILURE)


def emit_error(kind: str, message: str) -> None:
    """Print the JSON error document ``{"error": {"type", "message"}}`` on stderr, the
    characters a terminal would act on written as JSON escapes (see
    :func:`~memstore.text.printable.json_printable`)."""
    import json

    from memstore.text.printable import json_printable

    error = {"error": {"type": kind, "message": message}}
    echo_json(json_printable(json.dumps(error, ensure_ascii=False)), err=True)


class JsonErrors(click.Group):
    """A click group that reports every error as one JSON document on stderr, gives each of
    its commands ``--format``/``--json``, prints its help as text when run bare, and loads
    each command from its module (:mod:`~memstore.adapters.cli.catalog`) only
    when it is asked for."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        """Register ``cmd`` (a command of the catalog) with its catalog summary as short help
        and the group's options (:func:`~memstore.adapters.cli.shared_options.shared_options`),
        but for a ``--format`` of its own (``export``'s file format): there, ``--json`` and
        the group's ``--format`` choose the output."""
        cmd.short_help = SUMMARIES[name or cmd.name or ""]
        taken = {opt for param in cmd.params for opt in getattr(param, "opts", [])}
        cmd.params.extend(option for option in shared_options() if not taken & set(option.opts))
        if cmd.callback is not None:
            cmd.callback = with_shared(cmd.callback)
        super().add_command(cmd, name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The catalog's commands, by name."""
        return list(SUMMARIES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``, its module imported first if it is not loaded yet (its
        import registers its commands on this group); None for no such command."""
        if cmd_name in MODULES and cmd_name not in self.commands:
            importlib.import_module(f"{__package__}.{MODULES[cmd_name]}")
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The help's list of commands with their catalog summaries: showing it imports no
        command module."""
        with formatter.section("Commands"):
            formatter.write_dl(list(SUMMARIES.items()))

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command; on an error print it as JSON and exit 1 (2 for usage errors)."""
        kwargs["standalone_mode"] = False
        escape_unencodable()
        try:
            code = super().main(*args, **kwargs)
        except click.UsageError as error:
            emit_error("UsageError", unechoed(error.format_message()) + dash_hint(error))
            sys.exit(EXIT_USAGE)
        except click.ClickException as error:
            emit_error(type(error).__name__, error.format_message())
            sys.exit(error.exit_code)
        except click.Abort as error:  # a command may say what it had done (import)
            emit_error("Aborted", f"interrupted; {str(error) or 'nothing more was done.'}")
            sys.exit(EXIT_FAILURE)
        except MemstoreError as error:
            emit_error(type(error).__name__, str(error))
            sys.exit(EXIT_FAILURE)
        except MemoryError:
            emit_error("MemoryError", OUT_OF_MEMORY)
            sys.exit(EXIT_FAILURE)
        except (ImportError, SystemError) as error:  # found by review: a module loaded on
            # first use failing to map under a memory limit ended in a traceback
            emit_error(type(error).__name__, NOT_LOADED.format(error=error))
            sys.exit(EXIT_FAILURE)
        except OSError as error:  # stdout full or gone, most likely (a file's are FileError)
            emit_error("OSError", f"{error}; nothing more was done.")
            silence_stdout()
            sys.exit(EXIT_FAILURE)
        sys.exit(code if isinstance(code, int) else 0)


def escape_unencodable() -> None:
    """Let stdout and stderr write a character their encoding lacks (a latin-1 terminal, a
    CJK word) as a backslash escape instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def silence_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush of output that
    could not be written does not fail again on the way out."""
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


@click.group(
    cls=JsonErrors,
    params=shared_options(),
    invoke_without_command=True,
    subcommand_metavar="COMMAND [ARGS]...",  # one is needed for all but this help
)
@click.version_option(package_name="memstore")
@click.pass_context
def cli(ctx: click.Context, /, **shared: Any) -> None:
    """Local long-term memory for an AI assistant: history and memories in SQLite.

    At a terminal, commands print text for people; piped, or with --json, the JSON of
    the contract (--format text|json forces either). --database, --config, -v, --format
    and --json may also follow the command; there, they win.

    Example: memstore --database memory.sqlite3 recall "jardín azul" --mode phrase
    """
    ctx.obj = Opener()
    ctx.call_on_close(ctx.obj.close)
    if ctx.invoked_subcommand is None:  # no command, bare or with options only: the help
        click.echo(ctx.get_help())  # (found by review: `memstore --json` was "Missing command.")
        ctx.exit(0)
    take_shared(ctx, **shared)
