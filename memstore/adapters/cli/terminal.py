"""The pieces of the text views: text escaped and dimmed or marked, local times, aligned
tables, paging lines."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from datetime import datetime

import click

from memstore.text.focus import form_prefixes
from memstore.text.printable import printable
from memstore.text.tokens import fold, token_spans
from memstore.times import local_time

INDENT = "    "


MAX_COLUMN = 40  # terminal columns a table pads a column to, at most


def dim(text: str) -> str:
    """``text`` escaped and dimmed (ids and other details a reader skips)."""
    return click.style(printable(text), dim=True)


def width(text: str) -> int:
    """The columns ``text`` takes in a terminal: two for a wide (CJK, emoji) character."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def local(moment: datetime) -> str:
    """``moment`` in the machine's local time, to the minute: ``2026-10-05 09:15``."""
    return local_time(moment).strftime("%Y-%m-%d %H:%M")


def marked(text: str, folded_terms: frozenset[str]) -> str:
    """``text`` escaped, each word among ``folded_terms`` (or another form of one: the same
    first letters recall's stem index goes by) in bold."""
    prefixes = form_prefixes(folded_terms)
    pieces, last = [], 0
    for start, end in token_spans(text):
        token = fold(text[start:end])
        if token in folded_terms or (prefixes and token.startswith(prefixes)):
            pieces += [
                printable(text[last:start]),
                click.style(printable(text[start:end]), bold=True),
            ]
            last = end
    pieces.append(printable(text[last:]))
    return "".join(pieces)


def table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> list[str]:
    """``rows`` under ``header`` in columns padded to their widest cell in terminal columns,
    at most :data:`MAX_COLUMN` (a longer cell overflows its column rather than widen every
    row); cells escaped."""
    cells = [[printable(cell) for cell in row] for row in [header, *rows]]
    widths = [
        min(max(width(row[column]) for row in cells), MAX_COLUMN) for column in range(len(header))
    ]
    lines = [
        "  ".join(cell + " " * (room - width(cell)) for cell, room in zip(row, widths, strict=True))
        for row in cells
    ]
    return [click.style(lines[0].rstrip(), bold=True), *(line.rstrip() for line in lines[1:])]


def paging(shown: int, total: int, next_offset: int | None) -> str:
    """The line under a page: which of how many it shows (``5 of 5``, ``9-16 of 40``), and
    the ``--offset`` that reads on. The page ends at ``next_offset``, or at the total."""
    if not shown:
        return dim(f"none of {total} here: the offset is past the last one")
    end = total if next_offset is None else next_offset
    start = end - shown + 1
    which = f"{shown} of {total}" if start == 1 else f"{start}-{end} of {total}"
    more = f"; next page: --offset {next_offset}" if next_offset is not None else ""
    return dim(which + more)


def nothing(what: str, total: int, next_offset: int | None) -> str:
    """The view of an empty page: ``No words.``, and where the offset stands when the
    listing holds some."""
    return f"No {what}." + (f" {paging(0, total, next_offset)}" if total else "")


def span(start: datetime, end: datetime | None) -> str:
    """From ``start`` to ``end`` in local time, the end's day left out when it is the same."""
    first = local(start)
    if end is None:
        return first
    last = local(end)
    return f"{first} - {last[11:] if last[:10] == first[:10] else last}"


def or_list(options: list[str]) -> str:
    """``", or a"``, ``", a, or b"``: further options after a first one, or nothing."""
    if not options:
        return ""
    return ", " + ", ".join([*options[:-1], f"or {options[-1]}"])
