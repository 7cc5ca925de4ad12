"""Chinese, Japanese and Korean characters, searched one character at a time.

unicode61 makes a whole run of CJK characters one token, so a word inside a run could not be
found. memstore therefore indexes, for a text holding CJK characters, its *index form*: each
CJK character a token of its own, and after each run the token :data:`BOUNDARY`. A word of CJK
characters is searched as the phrase of its characters. Two CJK characters are consecutive
tokens of an index form only when they are adjacent in one run of the original (the boundary
token stands between runs, and no query holds it), so that phrase matches exactly the texts
that hold the word.

A CJK character here is a token character of unicode61 in the Han, Hiragana, Katakana,
Bopomofo and Hangul blocks (:data:`RANGES`); the kana voicing marks and the katakana middle
dot, separators for unicode61, are not.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

RANGES = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x3005, 0x3007),  # iteration mark, closing mark, ideographic zero
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3031, 0x3035),  # kana repeat marks
    (0x3038, 0x303C),
    (0x3041, 0x3098),  # Hiragana
    (0x309D, 0x309F),
    (0x30A1, 0x30FA),  # Katakana
    (0x30FC, 0x30FF),
    (0x3105, 0x312F),  # Bopomofo
    (0x3131, 0x318F),  # Hangul Compatibility Jamo
    (0x31A0, 0x31BF),  # Bopomofo Extended
    (0x31F0, 0x31FF),  # Katakana Phonetic Extensions
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xA960, 0xA97F),  # Hangul Jamo Extended-A
    (0xAC00, 0xD7FF),  # Hangul Syllables, Hangul Jamo Extended-B
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0xFF66, 0xFFDC),  # halfwidth Katakana and Hangul
    (0x1B000, 0x1B16F),  # Kana Supplement, Kana Extended-A
    (0x20000, 0x3FFFF),  # Supplementary and Tertiary Ideographic Planes
)
"""The CJK characters, as inclusive ranges of code points."""
CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in RANGES)
"""The inside of a regular-expression class matching a CJK character."""
BOUNDARY = "一一"
"""The token after each run in an index form. Two CJK characters: no index form holds them
as one token anywhere else, and no query asks for it."""


@functools.cache
def run_pattern() -> re.Pattern[str]:
    """Matches a run of CJK characters. Compiled on first use: Python compiles a class by
    walking each of its BMP code points (about 50,000 here, 1.5 ms), which a process that
    meets only ASCII text (an English query, archive or help) need not pay (issue 18's
    start-up). An ASCII text holds no CJK character: every range lies above U+1100."""
    return re.compile(f"[{CLASS}]+")


def is_cjk(word: str) -> bool:
    """Whether ``word`` is a run of CJK characters and nothing else (a word of
    :func:`memstore.text.tokens.tokenize` is either such a run or holds none)."""
    return not word.isascii() and run_pattern().fullmatch(word) is not None


def holds_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character."""
    return not text.isascii() and run_pattern().search(text) is not None


FORM_PIECE_CHARS = 65_536
"""About how many characters of a text :func:`index_form` rewrites at a time."""


def spaced_run(run: re.Match[str]) -> str:
    """A matched run as its characters between spaces, followed by the boundary token; a
    long run spaced a slice of :data:`FORM_PIECE_CHARS` at a time (found by review: joined
    at once, a run of eight million characters held a string per character, 533 MiB)."""
    text = run[0]
    if len(text) <= FORM_PIECE_CHARS:
        return f" {' '.join(text)} {BOUNDARY} "
    slices = (text[at : at + FORM_PIECE_CHARS] for at in range(0, len(text), FORM_PIECE_CHARS))
    return f" {' '.join(map(' '.join, slices))} {BOUNDARY} "


def index_form(text: str) -> str | None:
    """What the index holds for ``text`` when it holds a CJK character, else None (the index
    holds the text itself): each CJK character between spaces, :data:`BOUNDARY` after each
    run. The form is longer than the text: offsets into it are not offsets into the text.

    It is rewritten a piece at a time, each cut before a character outside the runs: at
    once, a rewrite keeps a string per run until it joins them, 490 MiB for a message of
    four million one-character lines (found by review: a 16 MiB log of them took 606 MiB)."""
    if not holds_cjk(text):
        return None
    if len(text) <= FORM_PIECE_CHARS:
        return run_pattern().sub(spaced_run, text)
    return "".join(index_form_pieces(text))


def index_form_pieces(text: str) -> Iterator[str]:
    """The index form of ``text``, which holds a CJK character, a piece at a time (see
    :func:`index_form`)."""
    return (run_pattern().sub(spaced_run, piece) for piece in form_pieces(text))


def form_pieces(text: str) -> Iterator[str]:
    """``text`` in consecutive pieces of about :data:`FORM_PIECE_CHARS` characters or more,
    each but the last cut just before a character that is no CJK character (a run stays
    whole)."""
    start = 0
    while start < len(text):
        found = outside_pattern().search(text, start + FORM_PIECE_CHARS)
        end = found.start() if found else len(text)
        yield text[start:end]
        start = end


@functools.cache
def outside_pattern() -> re.Pattern[str]:
    """Matches a character that is no CJK character (compiled on first use, as
    :func:`run_pattern` is)."""
    return re.compile(f"[^{CLASS}]")


def spaced(word: str) -> str:
    """A word as a query gives it to FTS5: a CJK run as its characters between spaces (a
    phrase of them), any other word as it is."""
    return " ".join(word) if is_cjk(word) else word


LEAD_BYTES = re.compile(rb"[\xe1\xe3-\xed\xef\xf0]")
"""The first bytes of the UTF-8 of every CJK character (and of other characters too)."""


def stored_index_form(content: str | bytes | memoryview) -> str | None:
    """:func:`index_form` of content as the importer stores it (text, or its UTF-8 bytes),
    looking only for the first bytes of CJK characters in bytes before decoding them."""
    if isinstance(content, str):
        return index_form(content)
    if LEAD_BYTES.search(content) is None:
        return None
    return index_form(bytes(content).decode())
