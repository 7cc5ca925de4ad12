"""Word tokens the way SQLite's ``unicode61`` tokenizer makes them: runs of letters,
numbers, marks and private-use characters; everything else separates. Offsets are Python
character offsets; :func:`fold` lowercases and removes diacritics as the index does.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata

BMP_SIZE = 0x10000
NON_BMP = re.compile("[\U00010000-\U0010ffff]")
STAND_INS = {"m": "\u0300", "w": "a", ".": " "}  # a BMP character of each token_role


def token_role(category: str) -> str:
    """How unicode61 treats the characters of a Unicode general category: ``"m"`` for
    combining marks (M*), ``"w"`` for the other token characters (letters L*, numbers N*,
    private use Co), ``"."`` for separators."""
    if category[0] == "M":
        return "m"
    return "w" if category[0] in "LN" or category == "Co" else "."


def char_class(roles: str, wanted: str) -> str:
    """The inside of a regular-expression class matching the characters whose role is in
    ``wanted``, as ranges; ``roles`` holds one role per code point, from U+0000."""
    runs = (match.span() for match in re.finditer(f"[{wanted}]+", roles))
    return "".join(f"{re.escape(chr(start))}-{re.escape(chr(end - 1))}" for start, end in runs)


@functools.cache
def token_pattern() -> re.Pattern[str]:
    """Finds the tokens of a text rewritten by :func:`bmp_text`: maximal runs of token
    characters that hold a character other than a mark.

    Built once, from the Unicode database, in tens of milliseconds. Its classes list BMP
    characters only, which a regular expression looks up in a table: it would test a
    character against a class's non-BMP ranges one by one, several times slower. The negated
    classes, quicker to build, would match any non-BMP character, and :func:`bmp_text` leaves
    none. A match never starts right after a mark (a token's run starts after a separator or
    at the start of the text), so a long run of marks alone is passed over in linear time.
    """
    categories = list(map(unicodedata.category, map(chr, range(BMP_SIZE))))
    role_of = {category: token_role(category) for category in set(categories)}
    roles = "".join(map(role_of.__getitem__, categories))
    marks = char_class(roles, "m")
    separators = char_class(roles, ".")
    non_words = char_class(roles, ".m")  # separators and marks
    return re.compile(rf"(?<![{marks}])[{marks}]*+[^{non_words}][^{separators}]*")


def bmp_stand_in(match: re.Match[str]) -> str:
    """A BMP character with the matched character's role (see :func:`token_role`)."""
    return STAND_INS[token_role(unicodedata.category(match[0]))]


def bmp_text(text: str) -> str:
    """``text`` with each non-BMP character replaced by its stand-in (offsets unchanged)."""
    return NON_BMP.sub(bmp_stand_in, text)


def token_spans(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` character spans of the word tokens of ``text``, in order.

    A run of combining marks alone is no token: ``remove_diacritics`` folds it away or
    unicode61 separates at it, so it can never match, and as an FTS5 string it would be an
    empty phrase, which makes an ``all`` query match nothing.
    """
    return list(map(re.Match.span, token_pattern().finditer(bmp_text(text))))


def tokenize(text: str) -> list[str]:
    """Split ``text`` into word tokens as written (case and accents kept), in order."""
    return [text[start:end] for start, end in token_spans(text)]


@functools.cache
def combining_pattern() -> re.Pattern[str]:
    """Finds runs of the BMP characters :func:`fold` drops: those with a non-zero canonical
    combining class. Built once, in a few milliseconds; BMP only, as a class's ranges above
    it are tested one by one for every character (see :func:`token_pattern`)."""
    roles = "".join("c" if unicodedata.combining(chr(code)) else "." for code in range(BMP_SIZE))
    return re.compile(f"[{char_class(roles, 'c')}]+")


def fold(token: str) -> str:
    """Case- and accent-fold a token the way ``remove_diacritics 2`` compares it: case
    folded, decomposed (NFKD), combining characters dropped."""
    folded = token.casefold()
    if folded.isascii():  # already decomposed, and without combining characters
        return folded
    decomposed = unicodedata.normalize("NFKD", folded)
    if NON_BMP.search(decomposed) is None:
        return combining_pattern().sub("", decomposed)
    return "".join(itertools.filterfalse(unicodedata.combining, decomposed))
