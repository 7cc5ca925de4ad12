"""The history commands: import daily logs, read a conversation or a message, delete one."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memstore.adapters.cli import options
from memstore.adapters.cli.app import cli, conclude, emit
from memstore.adapters.cli.deleting import delete_command
from memstore.adapters.cli.opening import service_from
from memstore.adapters.cli.views import counted
from memstore.errors import InvalidInput, MemstoreError
from memstore.kinds import Role, spoken
from memstore.speakers import speaker_roles
from memstore.text.printable import one_line

if TYPE_CHECKING:
    from memstore.schemas import FileImport, ImportReport
    from memstore.service import MemoryService


def parse_speakers(
    ctx: click.Context, param: click.Parameter, given: Sequence[str]
) -> dict[str, str]:
    """``NAME=ROLE`` options (the role as the API takes it) as a name -> role dict, checked
    by the API's one rule for speakers (:func:`memstore.speakers.speaker_roles`).

    Raises:
        click.BadParameter: For a value that is not NAME=ROLE with a known role, or a name
            (compared without regard to case) given two roles.
    """
    pairs = []
    for value in given:
        name, sep, role = (part.strip() for part in value.rpartition("="))
        if not sep or not name:
            raise click.BadParameter(
                f'{value!r} is not NAME=ROLE with a role of {spoken(Role)}, e.g. "Diego=user"'
            )
        pairs.append((name, role))
    try:
        speaker_roles(pairs)
    except InvalidInput as error:  # click names the option (found by review: twice), and
        name = error.argument.removeprefix("speaker ")  # this the name (found by review)
        raise click.BadParameter(
            f"{name} {error.reason}" if name != error.argument else error.reason
        ) from None
    return dict(pairs)


@cli.command("import")
@click.argument(
    "paths", nargs=-1, required=True, type=options.GivenPath("a daily log or a folder of them")
)
@click.option(
    "--speaker",
    "speakers",
    multiple=True,
    required=True,
    callback=parse_speakers,
    help=f"NAME=ROLE ({spoken(Role)}); repeat for each speaker.",
)
@click.option("--include-tail", is_flag=True, help="Accept each file's final record too.")
@click.pass_context
def import_command(
    ctx: click.Context, paths: tuple[Path, ...], speakers: dict[str, str], include_tail: bool
) -> None:
    """Import daily Markdown logs: files, or folders of YYYY-MM-DD.md files. A folder is not
    searched recursively: only the logs directly inside it are read (its subfolders hold
    archived code, not logs; hidden files are passed over), so give day folders themselves.
    One summary line goes to stderr; exit 1 when a file has an error, no log was found or no
    speaker matched.

    Example: memstore import ~/logs --speaker "Diego=user" --speaker "Morgan=assistant"
    """
    service = service_from(ctx, new_ok=True)
    files = len(service.log_files(paths))  # a folder without logs is its report's error
    hidden = not sys.stderr.isatty() or files < 2
    landed: list[FileImport] = []
    try:
        with click.progressbar(
            length=files, label="importing", file=sys.stderr, hidden=hidden
        ) as bar:

            def done(file: FileImport) -> None:
                landed.append(file)
                bar.update(1)

            report = service.import_markdown(
                paths, speakers=speakers, include_tail=include_tail, progress=done
            )
    except MemstoreError as error:  # a lock held too long, a full disk: its batch undone
        if landed:
            error.args = (f"{error} {stored_before(landed, 'Before it')}",)
        raise
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: a batch may have gone in unreported
        raise click.Abort(stored_before(landed, "before it stopped", at_least=True)) from None
    unmatched = not report.imported and not report.skipped and bool(report.unknown_speakers)
    note = import_summary(report, include_tail)
    view = lambda found: "\n".join([note, *file_errors(found)])  # noqa: E731
    conclude(ctx, report, ok=not (report.errors or unmatched), note=note, view=view)


def stored_before(landed: list[FileImport], when: str, at_least: bool = False) -> str:
    """What an import that stopped had stored, for its error's message (found by review: a
    lock held by another writer ended it with the error alone after its first 8,000
    messages were committed). ``at_least`` for an interruption, which may come as a
    batch's commit returns, before the batch is reported (found by the re-check)."""
    messages = sum(file.imported for file in landed)
    stored, files = counted({"message": messages}), counted({"file": len(landed)})
    again = "run it again to go on (what is stored is skipped)."
    if at_least and not messages:  # one may be unreported (found by the next re-checks)
        return f"{when}, the import may have stored a batch of files; {again}"
    if at_least:
        stored = f"at least {stored} (a batch of files after them may have gone in too)"
    return f"{when}, the import went through {files} and stored {stored}; {again}"


def file_errors(report: ImportReport) -> list[str]:
    """One line per file that failed: its error, which names the file (for the text view)."""
    return [one_line(f"- {file.error}") for file in report.files if file.error]


def import_summary(report: ImportReport, include_tail: bool) -> str:
    """One line for a person: what was imported, skipped, deferred, left out for unknown
    speakers (named) or with a warning, and how many files failed."""
    files = len(report.files)
    parts = [f"imported {counted({'message': report.imported})} from {counted({'file': files})}"]
    if report.skipped:
        parts.append(f"{report.skipped} already imported or deleted")
    if report.deferred:
        hint = (
            f"an unclosed code fence keeps {'it' if report.deferred == 1 else 'them'} open"
            if include_tail
            else "add --include-tail for files no longer written"
        )
        parts.append(f"{counted({'final record': report.deferred})} deferred ({hint})")
    if report.unknown_speakers:
        parts.append(unknown_speakers(report))
    parts += left_out(report)
    if report.errors:
        parts.append(f"{counted({'file': report.errors})} with an error")
    return one_line("; ".join(parts) + ".")


NAMES_SHOWN = 20  # the unknown speakers a summary names


def unknown_speakers(report: ImportReport) -> str:
    """The summary's part on records of unknown speakers: all of them, counted from the
    files' warnings (found by review: the report's names, the first 100 of each file, gave
    "100 records" of 143,511), and the first :data:`NAMES_SHOWN` names."""
    total = sum(file.warning_counts.get("unknown_speaker", 0) for file in report.files)
    names = list(report.unknown_speakers.items())
    named = ", ".join(f"{name!r} ({n})" for name, n in names[:NAMES_SHOWN])
    if sum(report.unknown_speakers.values()) < total:  # names past a file's first 100
        named += ", and more names"
    elif len(names) > NAMES_SHOWN:
        named += f", and {len(names) - NAMES_SHOWN} more names"
    return f"{counted({'record': total})} of unknown speakers not imported: {named} " + (
        "(add --speaker NAME=ROLE)"
    )


def left_out(report: ImportReport) -> list[str]:
    """The summary's part on text left out with a warning, by kind (unknown speakers aside:
    the summary names them)."""
    kinds: Counter[str] = Counter()
    for file in report.files:
        kinds.update(file.warning_counts)
    del kinds["unknown_speaker"]
    if not kinds:
        return []
    named = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    return [f"{counted({'warning': kinds.total()})} for text left out ({named})"]


@cli.command()
@click.argument("session_id")
@click.option(
    "--after",
    type=options.count(0),
    default=0,
    help="Read messages after this sequence number (a previous next_after).",
)
@options.limit()
@click.pass_context
def conversation(ctx: click.Context, /, session_id: str, after: int, limit: int | None) -> None:
    """Read a session's user and assistant messages in order, page by page.

    Example: memstore conversation log_0123456789abcdef01234567 --after 0
    """
    emit(service_from(ctx).read_conversation(session_id, after=after, limit=limit))


@cli.command()
@click.option("--since", type=options.AwareDateTime(), help="Started at or after (inclusive).")
@click.option("--until", type=options.AwareDateTime(), help="Started before (exclusive).")
@options.page
@click.pass_context
def sessions(ctx: click.Context, /, **window: Any) -> None:
    """List sessions, newest first: id, kind, time span, message count and speakers.

    Example: memstore sessions --since 2026-10-01T00:00:00+02:00 --limit 50
    """
    emit(service_from(ctx).list_sessions(**window))


@cli.command()
@click.argument("message_id")
@options.offset("Character offset to read from (a previous next_offset).")
@click.pass_context
def message(ctx: click.Context, /, message_id: str, offset: int) -> None:
    """Read one message (or memory, by its id) whole, chunk by chunk.

    Example: memstore message msg_0123456789abcdef0123456789abcdef --offset 0
    """
    emit(service_from(ctx).read_memory_message(message_id, offset=offset))


@delete_command("delete-message", "message_id")
def delete_message(service: MemoryService, message_id: str) -> bool:
    """Delete one message; its source is tombstoned so no import brings it back.

    Example: memstore delete-message msg_0123456789abcdef0123456789abcdef
    """
    return service.delete_message(message_id)
