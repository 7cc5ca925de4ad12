"""Pure helpers of word-level retrieval: cutting a text into pieces SQLite can highlight
cheaply, locating the highlighted tokens, and cutting excerpts.

highlight() wraps each matching token of a text in two marker strings; removing them while
walking the text gives each token's Python character offsets, exactly where SQLite's own
tokenizer put its boundaries. Two things would make that fragile, and neither depends on
the text here:

- The markers are U+0002 and U+0003. In the pieces given to highlight(), those characters
  and NUL (after which highlight() drops text) are replaced by U+0001. All four are control
  characters, which the unicode61 tokenizer treats as separators, so the replacement moves
  no token boundary and keeps every offset.
- highlight() builds its result by copying it whole at every match, so one call costs the
  text's length times its matches: 51 s for a message holding one word 400,000 times. The
  text is therefore highlighted a piece at a time (about :data:`PIECE_CHARS` characters, cut
  just after a separator so no token is split), and the walk stops at the last instance the
  page needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memstore.text.tokens import separator

OPEN = "\x02"
CLOSE = "\x03"
STAND_IN = "\x01"
UNSAFE = re.compile("[\x00\x02\x03]")
PIECE_CHARS = 2000
EXCERPT_BEFORE = 60
EXCERPT_AFTER = 60
EXCERPT_MAX = 400


def pieces(text: str, size: int = PIECE_CHARS) -> Iterator[tuple[int, str]]:
    """``text`` in consecutive pieces of about ``size`` characters or more, each cut just
    after a character unicode61 separates tokens with (:func:`~memstore.text.tokens.separator`:
    any of the BMP's, not only white space and ASCII punctuation, found by review: a word
    between em dashes 400,000 times took 32 s), with where it starts; NUL and the marker
    characters are replaced by U+0001 (see the module's docstring). A run without separators
    stays whole."""
    start = 0
    while start < len(text):
        found = separator().search(text, start + size) if start + size < len(text) else None
        end = found.end() if found else len(text)
        yield start, UNSAFE.sub(STAND_IN, text[start:end])
        start = end


def marked_spans(
    marked: str, open_mark: str = OPEN, close_mark: str = CLOSE
) -> list[tuple[int, int]]:
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


def excerpt(text: str, start: int, end: int) -> tuple[str, int]:
    """A short window of ``text`` around ``[start, end)`` and where it starts: at most
    :data:`EXCERPT_MAX` characters, up to :data:`EXCERPT_BEFORE` before the span and
    :data:`EXCERPT_AFTER` after it, and the whole span when it fits (found by review: a
    word of 350 characters was cut off in its excerpt); of a longer span, its start. The
    cap keeps a page within its budget (a review found a whole 2,600-character word in
    the excerpt pushing a page past it)."""
    low = max(0, min(start, max(start - EXCERPT_BEFORE, end - EXCERPT_MAX)))
    high = min(len(text), end + EXCERPT_AFTER, low + EXCERPT_MAX)
    return text[low:high], low
