"""The maintenance commands: check, backup, the diary of one day, and the MCP server."""

from __future__ import annotations

import contextlib
import importlib.util
import signal
from datetime import date
from pathlib import Path

import click

from memstore.adapters.cli import options
from memstore.adapters.cli.app import cli, conclude, emit
from memstore.adapters.cli.opening import service_from
from memstore.errors import StoreBusy


class MissingExtra(click.ClickException):
    """An optional extra of memstore that is not installed."""


@cli.command()
@click.pass_context
def check(ctx: click.Context) -> None:
    """Check integrity, foreign keys, each FTS5 index and the schema version.

    Example: memstore check
    """
    from memstore.adapters.cli.views import UNSTARTED, unstarted

    report = service_from(ctx, unstarted_ok=True).health()
    conclude(ctx, report, ok=report.ok, note=UNSTARTED if unstarted(report) else "")


@cli.command()
@click.argument("destination", type=options.GivenPath("the path of a new file", file=True))
@click.pass_context
def backup(ctx: click.Context, destination: Path) -> None:
    """Copy the database to DESTINATION, a new file, with SQLite's online backup API, then
    check the copy. An existing DESTINATION is never overwritten; exit 1 when it exists or
    when the copy fails its check.

    Example: memstore backup ~/backups/memory-2026-10-05.sqlite3
    """
    report = service_from(ctx).backup(destination)
    conclude(ctx, report, ok=report.ok)


@cli.command()
@click.argument("day", type=options.Day(), required=False)
@options.zone("Time zone of the day", "the machine's by default")
@click.pass_context
def diary(ctx: click.Context, /, day: date | None, tz: str | None) -> None:
    """Show one local DAY (YYYY-MM-DD, today by default): its conversations with every
    message, and the memories written or updated that day. Only reads.

    Example: memstore diary 2026-10-05 --tz Europe/Madrid --format text
    """
    emit(service_from(ctx, new_ok=True).diary(day, tz=tz))


@cli.command()
@click.pass_context
def mcp(ctx: click.Context) -> None:
    """Serve the memory tools to an MCP client over stdio (needs the mcp extra).

    The tools are those of the agent integration; with memory disabled there are none.
    stdout carries only the protocol; logs go to stderr.

    Example: memstore --config ~/.config/assistant.json mcp
    """
    try:
        if importlib.util.find_spec("mcp") is None:  # anyio, its dependency, is imported first
            raise ModuleNotFoundError("No module named 'mcp'", name="mcp")
        from memstore.adapters.mcp_server import serve
    except ImportError as error:
        if not (error.name or "").startswith("mcp"):
            raise
        raise MissingExtra(
            f"memstore mcp needs the MCP Python SDK 2.x ({error}); "
            "install it from the memstore checkout with: pip install './[mcp]' (the "
            "package called memstore on the package index is another project)"
        ) from error
    from memstore.service import MemoryService

    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the SDK's loop may not stop on Ctrl-C
    person = service_from(ctx, new_ok=True)
    # The tools page for a model, as the configuration says, not for a person at a terminal.
    with MemoryService(person.path, config=person.config) as service:
        if service.config.enabled:  # disabled: no tools, and the file is never opened
            # a foreign or unusable file fails now, not at the first tool call; a store
            # another process holds locked is the first call's error (found by review: the
            # server ended before its handshake)
            with contextlib.suppress(StoreBusy):
                service.open()
        serve(service)
