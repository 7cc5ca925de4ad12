"""The byte-level cut of a daily log into lines, and of its body into record segments.

Only ``\\n``, optionally preceded by ``\\r``, ends a line; U+2028, form feed, vertical tab,
U+0085 and a lone ``\\r`` are ordinary text. Offsets are in bytes of the raw file, counting
a leading BOM and both bytes of a CRLF.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from memstore.logs.fences import FenceTracker
from memstore.logs.syntax import speaker_text

BOM = b"\xef\xbb\xbf"
_BOUNDARY_BYTES = re.compile(rb"\[[0-9]{2}:")
_FENCE_STARTS = (b"```", b"~~~")


class Line(NamedTuple):
    """One line of the raw file: where it starts and ends in bytes, and its bytes."""

    byte: int
    end: int  # offset just past the line ending (or the end of the file)
    raw: bytes | bytearray  # without the line ending

    @property
    def text(self) -> str:
        """The line decoded (bytes that are not UTF-8 as U+FFFD: such a record is rejected
        before its text is used, so this only serves messages and boundaries)."""
        return self.raw.decode("utf-8", "replace")


def lines(data: bytes | bytearray) -> Iterator[Line]:
    """The lines of a raw file, one at a time, after a BOM.

    Args:
        data: The whole file.

    Returns:
        Each line split at ``\\n`` (a ``\\r`` before it dropped); the last one, up to the end
        of the file, even when empty.
    """
    start = len(BOM) if data.startswith(BOM) else 0
    while (newline := data.find(b"\n", start)) >= 0:
        end = newline + 1  # also the next line's start: one int for both
        yield Line(start, end, data[start:newline].removesuffix(b"\r"))
        start = end
    yield Line(start, len(data), data[start:])


@dataclass(slots=True)
class Segment:
    """A record boundary line and what the record needs of the lines up to the next one:
    the speaker line, whether any later line holds text, and where the segment ends. The
    continuation lines themselves are not kept, so a record of millions of lines costs no
    more than one of three."""

    stamp: Line
    end: int
    speaker: Line | None = None
    has_text: bool = False

    def add(self, line: Line) -> None:
        """Take in the next line of the segment.

        Args:
            line: The line after those already taken in.
        """
        self.end = line.end
        if self.speaker is None:
            self.speaker = line
        elif not self.has_text and line.raw.strip() and line.text.strip():
            self.has_text = True


class Segmenter:
    """Splits the body into the text before the first record boundary and boundary segments.

    A record boundary is a line that follows a blank line, is outside fenced code and starts
    with ``[`` and two digits and a colon (a valid stamp or a malformed one). Segments are
    handed out one at a time, and each keeps only what its record needs, so that memory does
    not grow with the number of lines.

    Attributes:
        stray: The first non-blank line before the first record boundary, or None.
        tail_start: Offset in bytes of the last record boundary read, or None.
    """

    def __init__(self) -> None:
        self.stray: Line | None = None
        self.tail_start: int | None = None
        self._fence = FenceTracker()

    @property
    def open_fence(self) -> bool:
        """Whether the lines read so far end inside fenced code."""
        return self._fence.is_open

    @property
    def fence_opening(self) -> str | None:
        """The run of backticks or tildes of the fence the lines read so far end inside."""
        return self._fence.opening

    def segments(self, body: Iterable[Line]) -> Iterator[Segment]:
        """Each segment of the body lines, once the line after it (or the end) is read.

        Args:
            body: The lines after the header, in file order.

        Returns:
            The record segments in file order; :attr:`stray`, :attr:`tail_start` and
            :attr:`open_fence` are up to date with the lines read.
        """
        segment: Segment | None = None
        after_blank = False
        fence = self._fence
        for line in body:
            raw = line.raw
            if not raw and segment is not None and segment.speaker is not None:
                segment.end = line.end  # an empty line of a message: nothing else to note
                after_blank = True
                continue
            if after_blank and not fence.is_open and _BOUNDARY_BYTES.match(raw):
                if segment is not None:
                    yield segment
                segment = Segment(line, line.end)
                self.tail_start = line.byte
            elif segment is None:
                if self.stray is None and not _is_blank(raw):
                    self.stray = line
                if _may_fence(raw):
                    fence.feed(line.text)
            else:
                speaker_line = segment.speaker is None
                segment.add(line)
                if speaker_line:
                    fence.feed(speaker_text(line.text))
                elif _may_fence(raw):
                    fence.feed(line.text)
            after_blank = _is_blank(raw)
        if segment is not None:
            yield segment


def _is_blank(raw: bytes | bytearray) -> bool:
    """Tell whether a line (without its ending) is empty or only spaces and tabs."""
    return not raw.strip(b" \t")


def _may_fence(raw: bytes | bytearray) -> bool:
    """Whether a line can open or close a fence: at most 3 spaces, then ``` or ~~~."""
    stripped = raw.lstrip(b" ")
    return len(raw) - len(stripped) <= 3 and stripped.startswith(_FENCE_STARTS)
