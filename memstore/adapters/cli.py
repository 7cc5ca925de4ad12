"""The ``memstore`` command line: parse, one service call, print one JSON document.

Errors are printed once, here, as ``{"error": {"type", "message"}}`` on stderr with exit
status 1 (2 for usage errors).
"""

from __future__ import annotations

import json
import logging
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import click
from pydantic import BaseModel

from memstore import kinds
from memstore.concerns import diary as days
from memstore.concerns.importing import expand_paths
from memstore.config import MemoryConfig, read_section
from memstore.errors import FileError, MemstoreError
from memstore.schemas import ImportReport
from memstore.service import MemoryService
from memstore.text.printable import printable

MAX_INTEGER = 2**63 - 1  # SQLite's largest integer: offsets beyond it cannot be bound
EXIT_FAILURE = 1
EXIT_USAGE = 2


def emit(result: BaseModel | dict[str, Any]) -> None:
    """Print one JSON document on stdout, non-ASCII kept as is."""
    data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def emit_error(kind: str, message: str) -> None:
    """Print the JSON error document on stderr."""
    error = {"error": {"type": kind, "message": message}}
    click.echo(json.dumps(error, ensure_ascii=False), err=True)


class JsonErrors(click.Group):
    """A click group that reports every error as one JSON document on stderr."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except click.UsageError as error:
            emit_error("UsageError", error.format_message())
            sys.exit(EXIT_USAGE)
        except click.ClickException as error:
            emit_error(type(error).__name__, error.format_message())
            sys.exit(error.exit_code)
        except click.Abort:
            emit_error("Aborted", "interrupted; nothing more was done.")
            sys.exit(EXIT_FAILURE)
        except MemstoreError as error:
            emit_error(type(error).__name__, str(error))
            sys.exit(EXIT_FAILURE)
        except MemoryError:
            emit_error(
                "MemoryError",
                "memstore ran out of memory; the unit of work it was in was rolled back, so "
                "nothing of it was stored. Free memory (or split a large log) and retry.",
            )
            sys.exit(EXIT_FAILURE)
        sys.exit(code if isinstance(code, int) else 0)


class AwareDateTime(click.ParamType):  # type: ignore[type-arg]  # generic only in new click
    """An ISO 8601 timestamp with a time zone, e.g. 2026-10-05T09:00:00+02:00."""

    name = "TIMESTAMP"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, datetime):
            return value
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            self.fail(f"{value!r} is not an ISO 8601 timestamp like 2026-10-05T09:00:00+02:00")
        if parsed.tzinfo is None:
            self.fail(f"{value!r} has no time zone; add one, e.g. +02:00 or Z")
        return parsed


def load_config(path: Path | None) -> MemoryConfig:
    """The ``memory`` section of a JSON configuration file, or the defaults. The CLI is
    strict: an unusable file is a usage error, never a silent fallback to defaults."""
    if path is None:
        return MemoryConfig()
    try:
        return read_section(path)
    except (OSError, ValueError) as error:
        raise click.BadParameter(f"cannot use {path}: {error}", param_hint="--config") from error


def service_from(ctx: click.Context, *, new_ok: bool = False) -> MemoryService:
    """The service of this invocation (opened lazily by the group).

    Only the commands that store something may create the database file, and the diary
    (which then shows the day's Markdown log) may run without one (``new_ok``); the others
    refuse a file that does not exist or is not a memstore database, so that a
    mistyped ``--database`` is an error instead of a new, empty database (or memstore's
    tables added to another application's file) that reports nothing wrong.
    """
    service: MemoryService = ctx.find_root().obj
    if new_ok:
        return service
    held = service.holds_store()  # refuses a FIFO, folder or device at once
    if not service.path.exists():
        raise FileError(
            str(service.path),
            "there is no database there; check --database or the configuration, or create "
            "one with `memstore import` or `memstore remember`.",
        )
    if held is False:
        raise FileError(
            str(service.path),
            "it is not a memstore database (an empty file, or another application's SQLite "
            "database); it was left untouched. Check --database or the configuration.",
        )
    return service


@click.group(cls=JsonErrors)
@click.option("--database", type=click.Path(dir_okay=False, path_type=Path), help="Database file.")
@click.option("--config", "config_file", type=click.Path(path_type=Path), help="JSON config file.")
@click.option("-v", "--verbose", is_flag=True, help="Log to stderr.")
@click.version_option(package_name="memstore")
@click.pass_context
def cli(ctx: click.Context, database: Path | None, config_file: Path | None, verbose: bool) -> None:
    """Local long-term memory for an AI assistant: history and memories in SQLite.

    Example: memstore --database memory.sqlite3 recall "jardín azul" --mode phrase
    """
    if verbose:
        logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    config = load_config(config_file)
    ctx.obj = MemoryService(database or config.database_path(), config=config)
    ctx.call_on_close(ctx.obj.close)


def parse_speakers(
    ctx: click.Context, param: click.Parameter, values: Sequence[str]
) -> dict[str, str]:
    """``NAME=ROLE`` options as a name -> role dict; a role must be user, assistant or system
    and a name (compared without regard to case) may be given one role only."""
    speakers: dict[str, str] = {}
    for value in values:
        name, sep, role = (part.strip() for part in value.rpartition("="))
        if not sep or not name or role.lower() not in kinds.values(kinds.Role):
            raise click.BadParameter(
                f"{value!r} is not NAME=ROLE with a role of user, assistant or system, "
                'e.g. "Diego=user"'
            )
        earlier = next((k for k in speakers if k.casefold() == name.casefold()), None)
        if earlier is not None and speakers[earlier] != role.lower():
            raise click.BadParameter(
                f"{earlier!r} and {name!r} are the same speaker (case is ignored) with two roles"
            )
        speakers[name] = role.lower()
    return speakers


@cli.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--speaker",
    "speakers",
    multiple=True,
    required=True,
    callback=parse_speakers,
    help="NAME=ROLE (user, assistant or system); repeat for each speaker.",
)
@click.option("--include-tail", is_flag=True, help="Accept each file's final record too.")
@click.pass_context
def import_command(
    ctx: click.Context, paths: tuple[Path, ...], speakers: dict[str, str], include_tail: bool
) -> None:
    """Import daily Markdown logs: files, or folders of YYYY-MM-DD.md files. A folder is not
    searched recursively: only the logs directly inside it are read (its subfolders hold
    archived code, not logs), so give day folders themselves. One summary line goes to
    stderr; exit 1 when a file has an error, no log was found or no speaker matched.

    Example: memstore import ~/logs --speaker "Diego=user" --speaker "Morgan=assistant"
    """
    service = service_from(ctx, new_ok=True)
    files = expand_paths(paths)
    if not files:
        raise FileError(
            ", ".join(str(path) for path in paths),
            "no daily log (YYYY-MM-DD.md) is there; folders are not searched recursively, "
            "so give the folders that hold the logs themselves (e.g. logs/*/).",
        )
    show = sys.stderr.isatty() and len(files) > 1
    with click.progressbar(
        length=len(files), label="importing", file=sys.stderr, hidden=not show
    ) as bar:
        report = service.import_markdown(
            paths, speakers=speakers, include_tail=include_tail, progress=lambda _: bar.update(1)
        )
    emit(report)
    click.echo(import_summary(report, include_tail), err=True)
    unmatched = not report.imported and not report.skipped and bool(report.unknown_speakers)
    ctx.exit(EXIT_FAILURE if report.errors or unmatched else 0)


def import_summary(report: ImportReport, include_tail: bool) -> str:
    """One line for a person: what was imported, skipped, deferred, left out for unknown
    speakers (named), and how many files failed."""
    files = len(report.files)
    parts = [f"imported {report.imported} messages from {files} file{'s' if files != 1 else ''}"]
    if report.skipped:
        parts.append(f"{report.skipped} already imported or deleted")
    if report.deferred:
        hint = (
            "an unclosed code fence keeps them open"
            if include_tail
            else ("add --include-tail for files no longer written")
        )
        parts.append(f"{report.deferred} final records deferred ({hint})")
    if report.unknown_speakers:
        named = ", ".join(f"{name!r} ({n})" for name, n in report.unknown_speakers.items())
        total = sum(report.unknown_speakers.values())
        parts.append(
            f"{total} records of unknown speakers not imported: {named} (add --speaker NAME=ROLE)"
        )
    left_out: Counter[str] = Counter()
    for file in report.files:
        left_out.update(file.warning_counts)
    del left_out["unknown_speaker"]  # named above
    if left_out:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(left_out.items()))
        parts.append(f"{left_out.total()} warnings for text left out ({kinds})")
    if report.errors:
        parts.append(f'{report.errors} files with an error (see their "error")')
    return printable("; ".join(parts) + ".")


@cli.command()
@click.argument("query")
@click.option(
    "--mode",
    type=click.Choice(["any", "all", "phrase"]),
    default="any",
    show_default=True,
    help="Any word, all words, or the exact phrase.",
)
@click.option("--session-id", help="Only hits in this session.")
@click.option("--role", type=click.Choice(["user", "assistant"]), help="Only hits by this role.")
@click.option("--since", type=AwareDateTime(), help="Hits created at or after (inclusive).")
@click.option("--until", type=AwareDateTime(), help="Hits created before (exclusive).")
@click.option(
    "--limit",
    type=click.IntRange(min=1, max=MAX_INTEGER),
    help="Most conversations (<= max_results).",
)
@click.option("--no-history", is_flag=True, help="Search memories only.")
@click.pass_context
def recall(ctx: click.Context, /, query: str, no_history: bool, **filters: Any) -> None:
    """Search past conversations and memories for QUERY (literal text, never syntax).

    Example: memstore recall "jardín azul" --mode phrase --since 2026-10-01T00:00:00+02:00
    """
    emit(service_from(ctx).recall(query, history=not no_history, **filters))


def word_filters(command: Callable[..., Any]) -> Callable[..., Any]:
    """The scope, paging and filter options shared by ``words`` and ``instances``."""
    options = [
        click.option(
            "--scope",
            type=click.Choice(["history", "memories", "all"]),
            default="history",
            show_default=True,
            help="Which store to count.",
        ),
        click.option(
            "--offset",
            type=click.IntRange(min=0, max=MAX_INTEGER),
            default=0,
            help="Where the page starts (a previous next_offset).",
        ),
        click.option(
            "--limit",
            type=click.IntRange(min=1, max=MAX_INTEGER),
            help="Page size (<= max_results).",
        ),
        click.option("--session-id", help="Only records in this session."),
        click.option("--role", type=click.Choice(["user", "assistant"]), help="Only this role."),
        click.option("--since", type=AwareDateTime(), help="Created at or after (inclusive)."),
        click.option("--until", type=AwareDateTime(), help="Created before (exclusive)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@cli.command()
@click.argument("prefix", default="")
@word_filters
@click.pass_context
def words(ctx: click.Context, /, prefix: str, **options: Any) -> None:
    """List indexed words starting with PREFIX, with occurrence and document counts.

    Example: memstore words jard --scope all
    """
    emit(service_from(ctx).search_words(prefix, **options))


@cli.command()
@click.argument("word")
@word_filters
@click.pass_context
def instances(ctx: click.Context, /, word: str, **options: Any) -> None:
    """Show every occurrence of one WORD with its position and an excerpt.

    Example: memstore instances café --role user --limit 8
    """
    emit(service_from(ctx).word_instances(word, **options))


@cli.command()
@click.argument("session_id")
@click.option(
    "--after",
    type=click.IntRange(min=0, max=MAX_INTEGER),
    default=0,
    help="Read messages after this sequence number (a previous next_after).",
)
@click.option(
    "--limit", type=click.IntRange(min=1, max=MAX_INTEGER), help="Page size (<= max_results)."
)
@click.pass_context
def conversation(ctx: click.Context, /, session_id: str, after: int, limit: int | None) -> None:
    """Read a session's user and assistant messages in order, page by page.

    Example: memstore conversation log_0123456789abcdef01234567 --after 0
    """
    emit(service_from(ctx).read_conversation(session_id, after=after, limit=limit))


@cli.command()
@click.argument("message_id")
@click.option(
    "--offset",
    type=click.IntRange(min=0, max=MAX_INTEGER),
    default=0,
    help="Character offset to read from (a previous next_offset).",
)
@click.pass_context
def message(ctx: click.Context, /, message_id: str, offset: int) -> None:
    """Read one message whole, chunk by chunk.

    Example: memstore message msg_0123456789abcdef0123456789abcdef --offset 0
    """
    emit(service_from(ctx).read_memory_message(message_id, offset=offset))


class Day(click.ParamType):  # type: ignore[type-arg]  # generic only in new click
    """A calendar day written YYYY-MM-DD."""

    name = "DAY"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return days.parse_day(value)
        except MemstoreError as error:
            self.fail(str(error))


class TimeZone(click.ParamType):  # type: ignore[type-arg]  # generic only in new click
    """An IANA time zone name such as Europe/Madrid."""

    name = "ZONE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return days.zone(value).key
        except MemstoreError as error:
            self.fail(str(error))


@cli.command()
@click.argument("day", type=Day(), required=False)
@click.option("--tz", type=TimeZone(), help="IANA time zone; the machine's by default.")
@click.option(
    "--format",
    "output",
    type=click.Choice(["json", "text"]),
    default="json",
    show_default=True,
    help="JSON, or readable text for a person at a terminal.",
)
@click.pass_context
def diary(ctx: click.Context, /, day: date | None, tz: str | None, output: str) -> None:
    """Show one local DAY (YYYY-MM-DD, today by default): its conversations with every
    message, and the memories written or updated that day. Only reads.

    Example: memstore diary 2026-10-05 --tz Europe/Madrid --format text
    """
    result = service_from(ctx, new_ok=True).diary(day, tz=tz)
    if output == "text":
        click.echo(days.render(result))
    else:
        emit(result)


class MissingExtra(click.ClickException):
    """An optional extra of memstore that is not installed."""


@cli.command()
@click.pass_context
def mcp(ctx: click.Context) -> None:
    """Serve the memory tools to an MCP client over stdio (needs memstore[mcp]).

    The tools are those of the agent integration; with memory disabled there are none.
    stdout carries only the protocol; logs go to stderr.

    Example: memstore --config ~/.config/assistant.json mcp
    """
    try:
        from memstore.adapters.mcp_server import serve
    except ImportError as error:
        if not (error.name or "").startswith("mcp"):
            raise
        raise MissingExtra(
            f"memstore mcp needs the MCP Python SDK 2.x ({error}); "
            "install it with: pip install 'memstore[mcp]'"
        ) from error
    service = service_from(ctx, new_ok=True)
    if service.config.enabled:  # disabled: no tools, and the file is never opened
        service.open()  # a foreign or unusable file fails now, not at the first tool call
    serve(service)


@cli.command()
@click.argument("destination", type=click.Path(path_type=Path))
@click.pass_context
def backup(ctx: click.Context, destination: Path) -> None:
    """Copy the database to DESTINATION, a new file, with SQLite's online backup API, then
    check the copy. An existing DESTINATION is never overwritten; exit 1 when it exists or
    when the copy fails its check.

    Example: memstore backup ~/backups/memory-2026-10-05.sqlite3
    """
    report = service_from(ctx).backup(destination)
    emit(report)
    ctx.exit(0 if report.ok else EXIT_FAILURE)


@cli.command("delete-message")
@click.argument("message_id")
@click.pass_context
def delete_message(ctx: click.Context, message_id: str) -> None:
    """Delete one message; its source is tombstoned so no import brings it back.

    Example: memstore delete-message msg_0123456789abcdef0123456789abcdef
    """
    result = service_from(ctx).delete_message_result(message_id)
    emit(result)
    ctx.exit(0 if result.deleted else EXIT_FAILURE)


@cli.command()
@click.argument("content")
@click.option(
    "--category",
    type=click.Choice(["preference", "fact", "project", "goal", "other"]),
    default="fact",
    show_default=True,
    help="What kind of memory it is.",
)
@click.option("--key", help="Semantic key; new content under it supersedes the old value.")
@click.option("--expires", "expires_at", help="ISO 8601 expiry; local time without a zone.")
@click.option("--supersedes", help="Id of an active memory this one replaces.")
@click.option("--memory-id", help="Update this memory instead (its id is kept).")
@click.pass_context
def remember(ctx: click.Context, /, content: str, **fields: Any) -> None:
    """Remember CONTENT (third person, naming the user), or update a memory.

    Example: memstore remember "Diego prefers Spanish." --category preference --key language
    """
    emit(service_from(ctx, new_ok=True).remember(content, **fields))


@cli.command()
@click.option(
    "--category",
    type=click.Choice(["preference", "fact", "project", "goal", "other"]),
    help="Only this category.",
)
@click.option(
    "--all",
    "include_inactive",
    is_flag=True,
    help="Also superseded, candidate and expired memories.",
)
@click.option(
    "--offset",
    type=click.IntRange(min=0, max=MAX_INTEGER),
    default=0,
    help="Where the page starts.",
)
@click.option(
    "--limit", type=click.IntRange(min=1, max=MAX_INTEGER), help="Page size (<= max_results)."
)
@click.pass_context
def memories(ctx: click.Context, /, **options: Any) -> None:
    """List memories: pinned first, then newest first.

    Example: memstore memories --category preference --all
    """
    emit(service_from(ctx).list_memories(**options))


@cli.command("delete-memory")
@click.argument("memory_id")
@click.pass_context
def delete_memory(ctx: click.Context, memory_id: str) -> None:
    """Delete one memory and its source links (conversation history stays).

    Example: memstore delete-memory mem_0123456789abcdef0123456789abcdef
    """
    result = service_from(ctx).delete_memory_result(memory_id)
    emit(result)
    ctx.exit(0 if result.deleted else EXIT_FAILURE)


@cli.command()
@click.pass_context
def check(ctx: click.Context) -> None:
    """Check integrity, foreign keys, each FTS5 index and the schema version.

    Example: memstore check
    """
    report = service_from(ctx).health()
    emit(report)
    ctx.exit(0 if report.ok else EXIT_FAILURE)


def main() -> None:
    """Console entry point."""
    cli()
