"""The transfer commands: export the store (or its memories) and import memories back.

``export --as`` is the file format, jsonl or markdown. Its ``--format`` takes either kind of
value: a file format (as ``--as``), or ``text``/``json``, how the report is shown, as on
every other command (found by review: ``export DEST --format json`` was refused).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from memstore import paths
from memstore.adapters.cli import options
from memstore.adapters.cli.app import cli, conclude
from memstore.adapters.cli.opening import service_from
from memstore.adapters.cli.shared_options import choose_format
from memstore.kinds import TransferFormat, TransferScope, values

if TYPE_CHECKING:
    from memstore.schemas import ExportReport

VIEWS = ("text", "json")


@cli.command()
@click.argument("destination", type=options.GivenPath(options.NEW_PATH, text=True))
@click.option(
    "--as",
    "form",
    type=options.choice(TransferFormat),
    help="jsonl (the default): one file, every record; markdown: a folder of memory files "
    "and daily logs.",
)
@click.option(
    "--format",
    "form_or_view",
    type=click.Choice([*values(TransferFormat), *VIEWS]),
    help="The file format (as --as), or text|json: how the report is shown.",
)
@click.option(
    "--scope",
    type=options.choice(TransferScope),
    default="all",
    show_default=True,
    help="The whole store, or the memories only.",
)
@options.zone("Zone of the Markdown logs' days", "the default")
@click.pass_context
def export(
    ctx: click.Context,
    destination: str,
    form: TransferFormat | None,
    form_or_view: str | None,
    scope: TransferScope,
    tz: str | None,
) -> None:
    """Write the store, or its memories (--scope memories), into DESTINATION, a new JSONL
    file or (--as markdown) a new folder: memories/<id>.md with YAML front matter and
    history/YYYY-MM-DD.md daily logs. An existing DESTINATION is never overwritten.

    Example: memstore export ~/exports/memory-2026-10-05 --as markdown --tz Europe/Madrid
    """
    form = file_format(ctx, form, form_or_view)
    if form == "jsonl" and paths.names_folder(destination):  # found by review: a file
        raise click.BadParameter(  # named after the folder was written
            f"{paths.FOLDER_NAMED}; give the path of a new file, or --as markdown.",
            param_hint="'DESTINATION'",
        )
    report = service_from(ctx).export(destination, format=form, scope=scope, tz=tz)
    hint = reimport_hint(report)
    conclude(ctx, report, ok=True, note=hint, view=lambda done: export_view(done, hint))


@cli.command("import-memories")
@click.argument("path", type=options.GivenPath("an export file or folder, or a memory file (*.md)"))
@click.pass_context
def import_memories(ctx: click.Context, path: Path) -> None:
    """Import the memories of an export (a JSONL file, a Markdown export folder, a folder
    of memory files or one such file) with their ids, statuses and supersession links, in
    one transaction; a JSONL export of the whole store brings its history too. Importing
    twice adds nothing.

    Example: memstore --database new.sqlite3 import-memories ~/exports/memory-2026-10-05.jsonl
    """
    report = service_from(ctx, new_ok=True).import_memories(path)
    conclude(ctx, report, ok=True)


def file_format(
    ctx: click.Context, form: TransferFormat | None, form_or_view: str | None
) -> TransferFormat:
    """The export's file format from ``--as`` and ``--format``, the view chosen when
    ``--format`` names one (text, json).

    Raises:
        click.UsageError: When the two name different file formats, or ``--format text``
            comes with ``--json`` (found by review: the text was printed).
    """
    if form_or_view in VIEWS:  # as every command, --json beside --format text is refused
        choose_format(ctx, form_or_view, as_json=bool(ctx.params.get("as_json")))
        return form or "jsonl"
    if form and form_or_view and form != form_or_view:
        raise click.UsageError(f"--as {form} and --format {form_or_view} disagree.", ctx)
    return cast(TransferFormat, form or form_or_view or "jsonl")


def export_view(report: ExportReport, hint: str) -> str:
    """The text view of an export, then the re-import hint (when there is one)."""
    from memstore.adapters.cli.views import export_text

    return "\n".join([export_text(report), *([hint] if hint else [])])


def reimport_hint(report: ExportReport) -> str:
    """The ``memstore import`` line that reads a Markdown export's history back into
    another database ("" when there is none): the logs' paths are new source references,
    so read into the store they came from, every message would be stored twice (found by
    review). Quoted for a POSIX shell; when the path or a speaker's name holds a character
    a terminal cannot show as typed (a control or bidi character, a line end), the line
    says so instead of giving a command (found by review: shown as escapes, in quotes that
    keep backslashes, it named another folder)."""
    if not report.speakers:
        return ""
    from memstore.text.printable import one_line

    history = f"{report.export}/history"
    pairs = [f"{name}={role}" for name, role in report.speakers.items()]
    lead = "to read the history back into another database (this one holds it already): "
    if any(one_line(part) != part for part in [history, *pairs]):
        shown = ", ".join(map(one_line, pairs))
        return (
            f"{lead}import its history folder with --include-tail and a --speaker for each of "
            f"{shown} (its path or a name holds characters a terminal cannot show as typed, "
            "shown here as escapes; the JSON report holds them as they are)."
        )
    speakers = " ".join(f"--speaker {shlex.quote(pair)}" for pair in pairs)
    return (
        f"{lead}memstore --database NEW.sqlite3 import {shlex.quote(history)} {speakers} "
        "--include-tail"
    )
