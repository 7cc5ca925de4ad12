"""Pure helpers of word-level retrieval: locating highlighted tokens and cutting excerpts.

highlight() wraps each matching token of a record in two marker strings. Removing them while
walking the text gives each token's Python character offsets in the original text, exactly
where SQLite's own tokenizer put its boundaries. Markers are chosen so that they do not occur
in the record, so the walk is never confused by the text itself.
"""

from __future__ import annotations

MARKER_CANDIDATES = (
    ("\x02", "\x03"),
    ("\ue000", "\ue001"),
    ("\x1e\ue002", "\x1f\ue003"),
    ("\U000f0000", "\U000f0001"),
)
EXCERPT_BEFORE = 60
EXCERPT_AFTER = 60
EXCERPT_MAX = 400


def markers_for(text: str) -> tuple[str, str]:
    """A pair of markers absent from ``text``.

    Raises:
        ValueError: If every candidate occurs in the text (no real text does).
    """
    for open_mark, close_mark in MARKER_CANDIDATES:
        if open_mark not in text and close_mark not in text:
            return open_mark, close_mark
    raise ValueError("every highlight marker occurs in the text")


def marked_spans(marked: str, open_mark: str, close_mark: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans, in the unmarked text, of the regions between markers."""
    spans: list[tuple[int, int]] = []
    removed = 0
    index = marked.find(open_mark)
    while index >= 0:
        close = marked.index(close_mark, index + len(open_mark))
        start = index - removed
        removed += len(open_mark)
        end = close - removed
        removed += len(close_mark)
        spans.append((start, end))
        index = marked.find(open_mark, close + len(close_mark))
    return spans


def mark(text: str, spans: list[tuple[int, int]], open_mark: str, close_mark: str) -> str:
    """``text`` with each ``[start, end)`` span (ascending, disjoint) wrapped in the markers:
    the inverse of :func:`marked_spans`."""
    parts: list[str] = []
    done = 0
    for start, end in spans:
        parts += [text[done:start], open_mark, text[start:end], close_mark]
        done = end
    parts.append(text[done:])
    return "".join(parts)


def excerpt(text: str, start: int, end: int) -> tuple[str, int]:
    """A short window of ``text`` around ``[start, end)`` and where it starts."""
    low = max(0, start - EXCERPT_BEFORE)
    high = min(len(text), end + EXCERPT_AFTER, low + EXCERPT_MAX)
    return text[low:high], low
