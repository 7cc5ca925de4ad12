"""Text shown to a person at a terminal, made safe to print.

Stored text is untrusted: a message may hold terminal escape sequences, or bidirectional
overrides (U+202E) that make a line read differently from what it holds. Every text view
passes it through :func:`printable`, which shows control characters (other than tab and
line feed), invisible format characters such as the zero-width space, the bidi controls and
the line and paragraph separators as escapes such as ``\\x1b`` or ``\\u202e``.
"""

from __future__ import annotations

import json
import re

# Controls (not tab or line feed), the soft hyphen, invisible format characters (zero-width
# space, word joiner, BOM, the combining grapheme joiner, interlinear annotation, musical
# beams, the tag characters that can smuggle text past a reader; not the joiners
# U+200C/U+200D that emoji and scripts need), bidi controls, the line and paragraph
# separators, and the Hangul fillers: letters that print as nothing (found by review). Then
# the other format characters (Arabic, Syriac and Kaithi number signs, Egyptian and shorthand
# format controls), Khmer's invisible vowels and Mongolian's variation selectors (which the
# guard also drops), and a run of two or more other variation selectors, which can carry hidden
# data after one character: one alone is an emoji's or an ideograph's (found by review).
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u180e\u200b\u200e\u200f"
    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U0001d173-\U0001d17a\U000e0000-\U000e007f"
    "\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\u17b4\u17b5\u180b-\u180d\u180f]|[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}"
)


def printable(text: str) -> str:
    """``text`` with control, bidi and separator characters escaped (tab and line feed kept);
    a carriage return before a line feed is part of the line break, and shown as that line
    feed (found by review: a message stored with Windows line ends showed ``\\x0d`` at each
    line's end, and its code block's closing fence was not one)."""
    return UNSAFE.sub(escape, text.replace("\r\n", "\n"))


def one_line(text: str) -> str:
    """``text`` with every character :func:`printable` escapes escaped, its carriage returns,
    line feeds and tabs too: a value that a text view shows within one line, such as a path
    (found by review: a folder named with a line feed printed a second line of ``check``'s
    verdict; a carriage return before it must show, or the path named is another file's)."""
    return UNSAFE.sub(escape, text).replace("\t", "\\t").replace("\n", "\\n")


def escape(found: re.Match[str]) -> str:
    """The escapes shown for the unsafe characters of one match."""
    return "".join(map(escaped, found.group()))


def escaped(char: str) -> str:
    """The escape shown for one unsafe character."""
    code = ord(char)
    if code > 0xFFFF:
        return f"\\U{code:08x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def json_printable(document: str) -> str:
    """The JSON ``document`` with the characters :func:`printable` escapes written as JSON
    escapes (``\\u202e``): the same document to a reader, and a terminal shows it as it
    reads (found by review: an error naming a path that holds U+202E printed reversed)."""
    return UNSAFE.sub(lambda found: json.dumps(found.group())[1:-1], document)
