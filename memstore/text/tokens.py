"""Word tokens the way memstore's index makes them: SQLite's ``unicode61`` tokenizer (runs
of token characters, as its own table in :mod:`memstore.text.unicode61` says) over a text's
index form (:mod:`memstore.text.cjk`), where each CJK character is a token of its own.
Offsets are Python character offsets into the original text; :func:`fold` lowercases and
removes diacritics as the index does.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterator, Sequence

from memstore.text import cjk, unicode61
from memstore.text.unicode61 import fold_table

BMP_SIZE = 0x10000
NON_BMP = re.compile("[\U00010000-\U0010ffff]")
STAND_INS = {"m": "\u0300", "w": "a", ".": " ", "c": "\u4e00"}  # a BMP character per role
ASCII_TOKEN = re.compile("[0-9A-Za-z]+")
"""The tokens of an ASCII text, as each pattern below finds them there: below U+0080
unicode61's token characters are the letters and digits, and none is CJK or a diacritic.
Building those patterns' Unicode classes takes about 10 ms, which a process that meets only
ASCII text (an English query and archive) need not pay (issue 18's start-up)."""


def char_class(roles: str, wanted: str) -> str:
    """The inside of a regular-expression class matching the characters whose role is in
    ``wanted``, as ranges; ``roles`` holds one role per code point, from U+0000."""
    runs = (match.span() for match in re.finditer(f"[{wanted}]+", roles))
    return "".join(f"{re.escape(chr(start))}-{re.escape(chr(end - 1))}" for start, end in runs)


@functools.cache
def bmp_roles() -> str:
    """The role of each BMP character: unicode61's (``w``, ``m`` or ``.``), and ``c`` for a
    CJK character (a ``w`` that is a token alone)."""
    roles = list(unicode61.roles()[:BMP_SIZE])
    for low, high in cjk.RANGES:
        if low < BMP_SIZE:
            roles[low : high + 1] = "c" * (high + 1 - low)
    return "".join(roles)


@functools.cache
def token_pattern(join_cjk: bool) -> re.Pattern[str]:
    """Finds the tokens of a text rewritten by :func:`bmp_text`: each CJK character (each
    run of them when ``join_cjk``), and each maximal run of other token
    characters from its first character the fold keeps, as SQLite's own offsets start a
    token (diacritics before it are no part of it, and diacritics alone no token).

    Its classes list BMP characters only, which a regular expression looks up in a table: it
    would test a character against a class's non-BMP ranges one by one, several times slower.
    The negated classes match any non-BMP character, and :func:`bmp_text` leaves none. A run
    of diacritics is passed over in linear time: a match fails at once on each of them.
    """
    cjk_class, other = token_classes()
    joined = "+" if join_cjk else ""
    return re.compile(rf"[{cjk_class}]{joined}|{other}")


@functools.cache
def index_token_pattern() -> re.Pattern[str]:
    """Finds the tokens of the index form of a text rewritten by :func:`bmp_text`, in order:
    each CJK character, an empty match (the boundary token) after each run of them, and the
    other tokens as :func:`token_pattern` finds them. A regular expression walks the text in
    C, where a loop over a run's characters took most of ``word_instances``' Python time."""
    cjk_class, other = token_classes()
    return re.compile(rf"[{cjk_class}]|(?<=[{cjk_class}])(?![{cjk_class}])|{other}")


@functools.cache
def token_classes() -> tuple[str, str]:
    """The class of the CJK characters, and the pattern of any other token: a maximal run of
    token characters from its first character the fold keeps (see :func:`token_pattern`)."""
    roles = bmp_roles()
    ends = char_class(roles, ".c")  # what ends a run: separators and CJK characters
    starts = char_class(roles, ".mc")  # what a run's first character is not
    return char_class(roles, "c"), f"[^{starts}][^{ends}]*"


@functools.cache
def separator() -> re.Pattern[str]:
    """Matches a BMP character unicode61 separates tokens with (not a CJK character, which
    is a token of its own in an index form)."""
    return re.compile(f"[{char_class(bmp_roles(), '.')}]")


@functools.cache
def non_bmp_roles() -> tuple[list[int], str]:
    """The runs of one role above the BMP: their first code points and roles."""
    roles = unicode61.roles()
    characters = {
        code for low, high in cjk.RANGES if high >= BMP_SIZE for code in range(low, high + 1)
    }
    starts: list[int] = []
    kinds: list[str] = []
    for code in range(BMP_SIZE, len(roles)):
        kind = "c" if code in characters else roles[code]
        if not kinds or kinds[-1] != kind:
            starts.append(code)
            kinds.append(kind)
    return starts, "".join(kinds)


def bmp_stand_in(match: re.Match[str]) -> str:
    """A BMP character with the matched non-BMP character's role."""
    starts, kinds = non_bmp_roles()
    return STAND_INS[kinds[bisect.bisect_right(starts, ord(match[0])) - 1]]


def bmp_text(text: str) -> str:
    """``text`` with each non-BMP character replaced by its stand-in (offsets unchanged)."""
    return NON_BMP.sub(bmp_stand_in, text)


def found_spans(
    text: str, pattern: Callable[[], re.Pattern[str]], start: int = 0
) -> Iterator[tuple[int, int]]:
    """The ``[start, end)`` of each match of ``pattern()`` in ``text`` rewritten by
    :func:`bmp_text`, from offset ``start``; in an ASCII text, those of :data:`ASCII_TOKEN`,
    without building ``pattern()``."""
    if text.isascii():
        return map(re.Match.span, ASCII_TOKEN.finditer(text, start))
    return map(re.Match.span, pattern().finditer(bmp_text(text), start))


def token_spans(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` character spans of the index tokens of ``text``, in order (the
    boundary tokens of its index form left out).

    A run of diacritics alone is no token: the fold removes it, and unicode61 keeps no empty
    token; as an FTS5 string it would be an empty phrase, which makes an ``all`` query match
    nothing. Diacritics before a token's first other character are not in its span.
    """
    return list(each_token_span(text))


def each_token_span(text: str, start: int = 0) -> Iterator[tuple[int, int]]:
    """:func:`token_spans`, one at a time, for a caller that may stop at the first it wants;
    from ``start``, which must not be inside a token (0, or a separator's offset)."""
    return found_spans(text, lambda: token_pattern(False), start)


def word_spans(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` character spans of the words of ``text``: its tokens, except that
    adjacent CJK characters make one word (a run)."""
    return list(found_spans(text, lambda: token_pattern(True)))


def tokenize(text: str) -> list[str]:
    """Split ``text`` into words as written (case and accents kept), in order: each run of
    CJK characters is one word (see :func:`word_spans`)."""
    return [text[start:end] for start, end in word_spans(text)]


def index_spans(text: str) -> Iterator[tuple[int, int]]:
    """The original ``[start, end)`` of each token of the index form of ``text``, in the
    order (the token positions) SQLite gives them: a boundary token as the empty span at the
    end of its run (see :func:`index_token_pattern`)."""
    return found_spans(text, index_token_pattern)


def tokens_at(text: str, positions: Sequence[int], width: int) -> list[tuple[int, tuple[int, int]]]:
    """For each instance of ``width`` index tokens at the token ``positions`` of ``text``'s
    index form (see :func:`index_spans`): its token index in ``text`` and its original
    ``[start, end)``, from one pass over the text up to the last of them.

    The token index is the position less the boundary tokens before it, which stand in the
    index only (found by review: 'heron' in '我爱你 heron' was token 4, not 3); one pass,
    since a second tokenization of a record holding CJK cost ``word_instances`` a third of
    its time (0.31 to 0.42 ms in the 20k bench)."""
    if not positions:
        return []
    spans = list(itertools.islice(index_spans(text), max(positions) + width))
    boundaries = list(itertools.accumulate((start == end for start, end in spans), initial=0))
    return [
        (at - boundaries[at], (spans[at][0], spans[at + width - 1][1]))
        for at in positions
        if at + width <= len(spans)  # past the text's end: an index it was changed behind
    ]


@functools.cache
def non_ascii_folding_pattern() -> re.Pattern[str]:
    """Matches a character above ASCII that :func:`fold` changes or removes. A text without
    one folds as its ASCII capitals lowercase, which the bytes of its UTF-8 do in C about
    four times faster than translate rewrites it (9 against 37 microseconds for 1,000
    characters of CJK dialogue: found by review, a phrase matched as written folded each
    hit's text)."""
    folds = enumerate(fold_table())
    marks = "".join("." if code < 128 or folded == code else "f" for code, folded in folds)
    return re.compile(f"[{char_class(marks, 'f')}]")


@functools.cache
def fold_results() -> frozenset[str]:
    """The characters :func:`fold` makes of other characters ("e" of "É")."""
    table = fold_table()
    return frozenset(chr(folded) for code, folded in enumerate(table) if folded not in (code, None))


@functools.cache
def removed_pattern() -> re.Pattern[str]:
    """Matches a character :func:`fold` removes (combining marks such as U+0307)."""
    removed = (chr(code) for code, folded in enumerate(fold_table()) if folded is None)
    return re.compile(f"[{''.join(map(re.escape, removed))}]")


def literal_run(folded: str) -> str:
    """The longest run of characters of the ``folded`` text that :func:`fold` makes of no
    other character (the first of the longest)."""
    results = fold_results()
    runs = "".join("\0" if char in results else char for char in folded).split("\0")
    return max(runs, key=len)


def holds_folded(text: str, written: str, literal: str) -> bool:
    """Whether the :func:`fold` of ``text`` holds the folded ``written``, whose
    :func:`literal_run` is ``literal``. Where ``text`` holds no character the fold removes,
    its characters fold one to one, so it holds ``literal`` as it is if its fold holds
    ``written``: only then is it folded."""
    if written in text:
        return True
    if literal not in text and removed_pattern().search(text) is None:
        return False
    return written in fold(text)


def fold(text: str) -> str:
    """Case- and accent-fold ``text`` as SQLite's ``unicode61`` (``remove_diacritics 2``)
    folds the characters of its tokens: each on its own, to one character or none
    (:func:`memstore.text.unicode61.fold_table`; "É" to "e", "\u0301" to nothing); "ﬁ", "ß",
    "²" and full-width letters stay as they are, as the index keeps them, and so does a
    separator. The fold of a text is the join of its characters' folds, never longer."""
    if text.isascii():
        return text.lower()
    if non_ascii_folding_pattern().search(text) is None:  # only ASCII capitals fold
        return text.encode(errors="surrogatepass").lower().decode(errors="surrogatepass")
    return text.translate(fold_table())
