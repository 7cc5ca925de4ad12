"""What parsing a daily log gives: records as byte spans, kept compact, and warnings, capped.

A 16 MiB log can hold 700,000 minimal records, or as many malformed ones. Records are kept
as five machine integers each in arrays (about 40 bytes a record, not the 200 of an object
with its datetime and ints) and made into :class:`RecordSpan` objects only when read; the
warnings of a file list its first :data:`MAX_LISTED` and count the rest by kind. So what an
import holds stays proportional to the file whatever its shape.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import overload

MAX_LISTED = 100  # warnings listed per file; the rest are counted by kind
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class RecordSpan:
    """Where a valid record lies in the raw file; its content is left in the bytes until
    :meth:`content` decodes it.

    Attributes:
        byte: Offset in bytes, in the raw file, of the ``[`` that starts the record's stamp
            (counting a BOM and both bytes of each CRLF). It is the record's identity.
        speaker: The name exactly as written before ``": "``; mapping it to a role is the
            importer's job.
        created_at: Timezone-aware time in UTC: the file's date with the stamp's time and offset.
        text_start: Offset in bytes of the text after ``"Name: "``.
        end: Offset in bytes just past the record's last line (the next record boundary, or
            the end of the file).
    """

    byte: int
    speaker: str
    created_at: datetime
    text_start: int
    end: int

    def content(self, data: bytes | bytearray) -> str:
        """The record's content: the text after ``"Name: "`` plus the continuation lines, with
        line endings normalised to ``\\n`` and trailing line endings removed (never only white
        space). It is decoded from the file's bytes with one copy: trailing line endings are
        cut off the bytes before decoding, and each ``\\r\\n`` left inside becomes ``\\n``.

        Args:
            data: The raw file the offsets refer to.
        """
        text = str(memoryview(data)[self.text_start : self.content_end(data)], "utf-8")
        return text.replace("\r\n", "\n") if "\r" in text else text

    def stored(self, data: bytes | bytearray) -> str | memoryview:
        """The content to bind for ``CAST(? AS TEXT)``: the file's own UTF-8 bytes, without
        a copy, when no ``\\r`` needs changing (the parser checked they are UTF-8), else the
        decoded :meth:`content`. A 16 MiB message then costs SQLite's copy of it and not a
        Python string as well.

        Args:
            data: The raw file the offsets refer to.
        """
        end = self.content_end(data)
        if data.find(b"\r", self.text_start, end) >= 0:
            return self.content(data)
        return memoryview(data)[self.text_start : end]

    def content_end(self, data: bytes | bytearray) -> int:
        """Where the content's bytes end: before the trailing line endings (and their
        ``\\r``).

        Args:
            data: The raw file the offsets refer to.

        Returns:
            An offset in bytes, at least :attr:`text_start`.
        """
        end = self.end
        while end > self.text_start and data[end - 1] == 0x0A:  # "\n", with its "\r"
            end -= 2 if end - 2 >= self.text_start and data[end - 2] == 0x0D else 1
        return end


class Spans(Sequence[RecordSpan]):
    """The valid records of one log in file order, stored as arrays of integers: the byte
    offsets of the record, of its speaker's name and of its text and end, and its time in
    whole seconds since 1970 (UTC). A speaker's name is read again from the file's bytes
    when a record is, so a log of 600,000 records of as many speakers holds no name.

    Args:
        data: The file's bytes the offsets point into.
    """

    def __init__(self, data: bytes | bytearray) -> None:
        self._data = data
        self._bytes = array("q")
        self._seconds = array("q")
        self._names = array("q")
        self._text_starts = array("q")
        self._ends = array("q")

    def append(self, span: RecordSpan) -> None:
        """Add the next record.

        Args:
            span: A record of the same file, after those already added; its time is whole
                seconds, as stamps are, and its speaker name is read back from the bytes.
        """
        self._bytes.append(span.byte)
        self._seconds.append((span.created_at - EPOCH) // timedelta(seconds=1))
        self._names.append(span.text_start - len(f"{span.speaker}: ".encode()))
        self._text_starts.append(span.text_start)
        self._ends.append(span.end)

    def __len__(self) -> int:
        return len(self._bytes)

    @overload
    def __getitem__(self, index: int) -> RecordSpan: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[RecordSpan]: ...

    def __getitem__(self, index: int | slice) -> RecordSpan | Sequence[RecordSpan]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        text_start = self._text_starts[index]
        name = self._data[self._names[index] : text_start - 2].decode("utf-8")
        return RecordSpan(
            self._bytes[index],
            name,
            EPOCH + timedelta(seconds=self._seconds[index]),
            text_start,
            self._ends[index],
        )

    def __iter__(self) -> Iterator[RecordSpan]:
        return (self[i] for i in range(len(self)))


@dataclass(frozen=True)
class LogWarning:
    """A part of a log body that is not imported, and why.

    Attributes:
        kind: Short snake_case category: ``unexpected_text``, ``malformed_stamp``,
            ``time_out_of_range``, ``malformed_speaker``, ``empty_content``,
            ``invalid_utf8`` or (from the importer) ``unknown_speaker``.
        byte: Offset in bytes, in the raw file, where the problem starts.
        message: One sentence for a person: what is wrong and what happens to the text.
    """

    kind: str
    byte: int
    message: str


@dataclass
class Warnings:
    """The warnings of one file: the first :data:`MAX_LISTED` in the order added, and how
    many of each kind there are in all."""

    listed: list[LogWarning] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    first_unlisted: int | None = None
    """The byte of the first warning not listed, when there is one."""
    last: LogWarning | None = None
    """The last warning added, listed or not."""

    def add(self, warning: LogWarning) -> None:
        """Count a warning, and list it while fewer than :data:`MAX_LISTED` are.

        Args:
            warning: The next warning, in file order.
        """
        self.last = warning
        self.counts[warning.kind] += 1
        if len(self.listed) < MAX_LISTED:
            self.listed.append(warning)
        elif self.first_unlisted is None:
            self.first_unlisted = warning.byte

    def extend(self, other: Warnings) -> None:
        """Add the warnings another collection holds after these.

        Args:
            other: Its listed warnings are added as if one by one; its unlisted ones are
                only counted.
        """
        for warning in other.listed:
            self.add(warning)
        unlisted = other.counts - Counter(w.kind for w in other.listed)
        self.counts.update(unlisted)
        if unlisted and self.first_unlisted is None:
            self.first_unlisted = other.first_unlisted
        self.last = other.last or self.last

    def within(self, sealed: int) -> tuple[Warnings, int]:
        """These warnings but one of the final record when it starts past the first
        ``sealed`` bytes, and how many were left out (0 or 1): a record a writer is still
        writing (cut inside a character, its stamp or speaker half there) is deferred as a
        whole one is, not called left out (found by review: it was, and the next import
        took it)."""
        if self.last is None or self.last.byte < sealed:
            return self, 0
        return self.without_last(), 1

    def without_last(self) -> Warnings:
        """These warnings but the last one added."""
        assert self.last is not None
        counts = self.counts - Counter([self.last.kind])
        if sum(self.counts.values()) == len(self.listed):  # the last one is listed
            return Warnings(self.listed[:-1], counts)
        still_unlisted = sum(counts.values()) > len(self.listed)
        return Warnings(self.listed, counts, self.first_unlisted if still_unlisted else None)

    def shown(self) -> list[LogWarning]:
        """The listed warnings, then one ``more_warnings`` entry counting the others."""
        unlisted = sum(self.counts.values()) - len(self.listed)
        if not unlisted:
            return list(self.listed)
        listed = Counter(warning.kind for warning in self.listed)
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted((self.counts - listed).items()))
        message = f"{unlisted} more warnings are not listed ({kinds})."
        return [*self.listed, LogWarning("more_warnings", self.first_unlisted or 0, message)]
