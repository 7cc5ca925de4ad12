"""The readable text view of each result, for a person at a terminal (not part of the
contract: the JSON is). Times are shown in the machine's local time, ids dimmed, matched
words in bold; stored text is escaped (:mod:`memstore.text.printable`) before it is styled,
so it cannot drive the terminal. :func:`render` picks the view of a result by its type.

Styles are click's; ``click.echo`` drops them when stdout is not a terminal (``--format
text`` into a pipe), so the text then reads the same without them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click
from pydantic import BaseModel

from memstore import schemas
from memstore.adapters.cli.terminal import (
    INDENT,
    dim,
    local,
    marked,
    nothing,
    or_list,
    paging,
    span,
    table,
)
from memstore.text.diary import render as diary_text
from memstore.text.diary import who
from memstore.text.printable import one_line, printable
from memstore.text.tokens import fold, token_spans


def message_lines(
    message: schemas.Message, terms: frozenset[str], matched: bool = False
) -> list[str]:
    """One message: local time, who wrote it, its text (matched words marked) indented
    under it, and its id dimmed; ``matched`` puts a marker before the message a hit is."""
    marker = ">" if matched else " "
    head = f"{marker} {local(message.created_at)} {printable(who(message))}  {dim(message.id)}"
    body = marked(message.content, terms).split("\n")
    clipped = [dim("(clipped: memstore message ID reads it whole)")] if message.truncated else []
    return [head, *(INDENT + line for line in body), *(INDENT + line for line in clipped)]


def memory_line(memory: schemas.Memory, terms: frozenset[str] = frozenset()) -> str:
    """One memory: a pin for a pinned one, its text (later lines indented under the first),
    then category, key, status, expiry and id."""
    pin = "📌 " if memory.pinned else "• "
    notes = [memory.category, *([f"key {memory.key}"] if memory.key else [])]
    notes += [] if memory.status == "active" else [memory.status]
    notes += [f"expires {local(memory.expires_at)}"] if memory.expires_at else []
    details = dim(f"({', '.join(notes)})  {memory.id}")
    first, *rest = marked(memory.content, terms).split("\n")
    return "\n".join([f"{pin}{first}  {details}", *(INDENT + line for line in rest)])


def recall_text(
    result: schemas.RecallResult, query: str, mode: str, *, filtered: bool = False
) -> str:
    """Memories, then each conversation as a short transcript, the matched message marked;
    for no result, what to try (other words, mode any, and fewer filters when ``filtered``)."""
    terms = frozenset(fold(query[start:end]) for start, end in token_spans(query))
    lines: list[str] = []
    if result.memories:
        lines += [
            click.style("Memories", bold=True),
            *(memory_line(m, terms) for m in result.memories),
            "",
        ]
    for conversation in result.conversations:
        first = conversation.messages[0].created_at if conversation.messages else None
        heading = f"Conversation of {local(first or conversation.timestamp)}"
        lines.append(f"{click.style(heading, bold=True)}  {dim(conversation.session_id)}")
        for message in conversation.messages:
            lines += message_lines(message, terms, matched=message.id == conversation.matched_id)
        lines.append("")
    if not lines:
        wider = [
            *([] if mode == "any" else ["--mode any"]),
            *(["fewer filters"] if filtered else []),
        ]
        lines.append(f"Nothing matched. Search is lexical: try other words{or_list(wider)}.")
    if result.truncated:
        lines.append(
            dim("Some text was clipped or left out to fit the budget: --full prints it all.")
        )
    return "\n".join(lines).rstrip("\n")


def words_text(page: schemas.WordPage) -> str:
    """The words and their counts as a table."""
    rows = [(entry.word, str(entry.occurrences), str(entry.documents)) for entry in page.words]
    if not rows:
        return nothing("words", page.total, page.next_offset)
    return "\n".join(
        [
            *table(rows, ("word", "occurrences", "documents")),
            paging(len(rows), page.total, page.next_offset),
        ]
    )


def instances_text(page: schemas.InstancePage) -> str:
    """Each occurrence as a table row: when, where, the excerpt with the word in bold."""
    rows, excerpts = [], []
    for found in page.instances:
        where = f"{found.id} #{found.token_index} [{found.start}:{found.end}]"
        rows.append((local(found.created_at), found.role or found.source_type, where))
        local_start = found.start - found.excerpt_start
        local_end = found.end - found.excerpt_start
        excerpt = found.excerpt
        excerpts.append(
            printable(excerpt[:local_start])
            + click.style(printable(excerpt[local_start:local_end]), bold=True)
            + printable(excerpt[local_end:])
        )
    if not rows:
        return nothing("occurrences", page.total, page.next_offset)
    lines = table(rows, ("when", "who", "where"))
    body = [lines[0]]
    for line, excerpt in zip(lines[1:], excerpts, strict=True):
        body += [line, INDENT + excerpt.replace("\n", " ")]
    return "\n".join([*body, paging(len(rows), page.total, page.next_offset)])


def memories_text(page: schemas.MemoryPage) -> str:
    """The memories as a list, pinned first."""
    if not page.memories:
        return nothing("memories", page.total, page.next_offset)
    lines = [memory_line(memory) for memory in page.memories]
    return "\n".join([*lines, paging(len(page.memories), page.total, page.next_offset)])


def sessions_text(page: schemas.SessionPage) -> str:
    """The sessions as a table: id, kind, span (from its start to its end, or to its last
    message), message count, speakers."""
    if not page.sessions:
        return nothing("sessions", page.total, page.next_offset)
    rows = [
        (
            session.id,
            session.kind,
            span(session.started_at, session.ended_at or session.last_message_at),
            str(session.messages),
            ", ".join(session.speakers),
        )
        for session in page.sessions
    ]
    header = ("id", "kind", "span (local time)", "messages", "speakers")
    return "\n".join([*table(rows, header), paging(len(rows), page.total, page.next_offset)])


def conversation_text(page: schemas.ConversationPage) -> str:
    """The session's messages in order, as a transcript."""
    lines = [click.style(printable(f"Session {page.session.id}"), bold=True)]
    for message in page.messages:
        lines += message_lines(message, frozenset())
    more = page.next_after is not None
    lines.append(dim(f"next page: --after {page.next_after}" if more else "end of the session"))
    return "\n".join(lines)


def chunk_text(chunk: schemas.MessageChunk) -> str:
    """One message's text (or memory's) from the offset read, then where the next chunk
    starts."""
    info = chunk.message
    who = info.category if isinstance(info, schemas.MemoryInfo) else info.speaker or info.role
    head = f"{local(info.created_at)} {printable(who)}  {dim(info.id)}"
    tail = [] if chunk.next_offset is None else [dim(f"next chunk: --offset {chunk.next_offset}")]
    return "\n".join([head, printable(chunk.content), *tail])


UNSTARTED = (
    "the file holds no tables yet (a new file, or a first import stopped before it made "
    "them): nothing is wrong in it; `memstore import` or `memstore remember` sets it up."
)
"""What ``check`` says of a file that holds nothing yet (schema version 0)."""


def health_text(report: schemas.HealthReport) -> str:
    """The verdict, the rows of each table (``memories: 1``, not "1 memories": found by
    review), then each problem."""
    counts = ", ".join(f"{name}: {count}" for name, count in report.counts.items())
    verdict = "ok" if report.ok else "NOT OK"
    lines = [
        click.style(f"{verdict}: {one_line(report.database)}", bold=True),
        UNSTARTED if unstarted(report) else f"schema {report.schema_version}; {counts}",
    ]
    if report.read_only:
        lines.append(one_line(f"read-only: {report.read_only_reason}"))
    return "\n".join([*lines, *(one_line(f"- {problem}") for problem in report.problems)])


def unstarted(report: schemas.HealthReport) -> bool:
    """Whether ``check`` found a file that holds nothing yet."""
    return report.ok and report.schema_version == 0


def backup_text(report: schemas.BackupReport) -> str:
    """Where the copy is, its size and whether it passed its check, then each problem its
    check found (found by review: a failed check named none)."""
    verdict = "checked ok" if report.ok else "FAILED its check"
    line = f"backed up {report.database} to {report.backup} ({report.bytes} bytes, {verdict})"
    return "\n".join(one_line(text) for text in (line, *(f"- {p}" for p in report.problems)))


def deleted_text(result: schemas.DeleteResult) -> str:
    """Whether the record was deleted."""
    done = f"deleted {result.id}" if result.deleted else f"nothing deleted: there is no {result.id}"
    return printable(done)


RECORD_NAMES = {  # a record type of an export: its name for one, and for several
    "session": ("session", "sessions"),
    "message": ("message", "messages"),
    "memory": ("memory", "memories"),
    "memory_source": ("memory source", "memory sources"),
    "deleted_source": ("deleted source", "deleted sources"),
    "day": ("day", "days"),
    "file": ("file", "files"),
    "final record": ("final record", "final records"),
    "record": ("record", "records"),
    "warning": ("warning", "warnings"),
    "deleted message": ("message deleted", "messages deleted"),
}


def counted(counts: dict[str, int]) -> str:
    """Record counts as a person reads them: ``3 sessions, 1 memory``."""
    named = (
        f"{count} {RECORD_NAMES.get(kind, (kind, kind))[count != 1]}"
        for kind, count in counts.items()
    )
    return ", ".join(named) or "nothing"


def export_text(report: schemas.ExportReport) -> str:
    """Where the export went, in which format, and what it holds (the types it holds none
    of left out)."""
    held = counted({kind: n for kind, n in report.counts.items() if n})
    lines = [f"exported {held} ({report.scope}, {report.format}) to {report.export}"]
    return "\n".join(one_line(line) for line in [*lines, *(f"- {w}" for w in report.warnings)])


def memory_import_text(report: schemas.MemoryImportReport) -> str:
    """How many memories came in (and were updated), and the other records by type (and the
    messages deleted and sessions ended)."""
    others = {
        kind: n["imported"]
        for kind, n in report.records.items()
        if kind != "memory" and n["imported"]
    }
    deleted = report.records.get("message", {}).get("deleted", 0)
    others |= {"deleted message": deleted} if deleted else {}
    ended = report.records.get("session", {}).get("updated", 0)  # found by review: unsaid
    others |= {"ended session": ended} if ended else {}
    extra = f"; also {counted(others)}" if others else ""
    updated = f", {report.updated} updated" if report.updated else ""
    return one_line(
        f"imported {counted({'memory': report.imported})} from {report.path} "
        f"({report.skipped} already there{updated}){extra}"
    )


def generic_text(result: BaseModel) -> str:
    """Any other result, one ``key: value`` line per field (values as compact JSON)."""
    fields = result.model_dump(mode="json")
    return printable(
        "\n".join(
            f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in fields.items()
        )
    )


VIEWS: dict[type[BaseModel], Callable[[Any], str]] = {
    schemas.WordPage: words_text,
    schemas.InstancePage: instances_text,
    schemas.MemoryPage: memories_text,
    schemas.Memory: memory_line,
    schemas.SessionPage: sessions_text,
    schemas.ConversationPage: conversation_text,
    schemas.MessageChunk: chunk_text,
    schemas.HealthReport: health_text,
    schemas.BackupReport: backup_text,
    schemas.DeleteResult: deleted_text,
    schemas.Diary: diary_text,
    schemas.ExportReport: export_text,
    schemas.MemoryImportReport: memory_import_text,
}


def render(result: BaseModel) -> str:
    """The text view of ``result``, by its type (:data:`VIEWS`), else its fields."""
    view = VIEWS.get(type(result), generic_text)
    return view(result)
