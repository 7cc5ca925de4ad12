"""The regular-expression tokenizer and the fold against per-character code.

The reference functions below are oracles: they look up every character's role in unicode61's
table one by one (which test_unicode61 holds to the linked SQLite), and split CJK characters
apart, which is slow and obviously right.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import sys
from contextlib import closing

from hypothesis import given, settings
from hypothesis import strategies as st

from memstore.store.unicode61 import TOKENIZE
from memstore.text import cjk, unicode61
from memstore.text.tokens import (
    fold,
    index_spans,
    index_token_pattern,
    token_pattern,
    token_spans,
    tokens_at,
    word_spans,
)

PLANE = 0x10000
# Characters the tokenizer treats specially, so that random text holds them often: marks
# (Mn, Mc, Me; BMP and not), private use (BMP and planes 15-16), emoji and joiners, "_"
# (a word character to regular expressions, a separator to unicode61), numbers of several
# kinds, letters whose fold is longer, shorter or empty, controls and JSON escapes.
SPECIAL = list(
    "a Z 0 _ - ' \" \\ \t \n \r \x00 \x01 \x1f \x7f ß ǅ ﬁ é ñ Å 日 本 シ ｼ 가 \u0661 ½ ² Ⅻ ℃ ㎞"
    "\u0300\u0301\u0305\u0345\u0903\u093f\u20dd\u0e31\u3099\ufe0f\u200d\ufeff\u00a0\u3000"
    "\ue000\uf8ff\ufc5e\ufdfa\uff9e"
    "\U0001d165\U0001d16d\U000101fd\U000e0100\U000e01ef\U0001f916\U0001f3fd\U0001f1ea"
    "\U000f0000\U000ffffd\U00100000\U0010fffd\U00020000\U0001d400\U000e0001\U0001e94a"
)
TEXT = st.text(st.one_of(st.characters(), st.sampled_from(SPECIAL)), max_size=120)


def reference_is_token_char(char: str) -> bool:
    """unicode61's table: ``w`` and ``m`` characters are inside tokens."""
    return unicode61.role(ord(char)) in "wm"


def reference_is_mark(char: str) -> bool:
    return unicode61.role(ord(char)) == "m"


def reference_is_cjk(char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in cjk.RANGES)


def reference_token_spans(text: str) -> list[tuple[int, int]]:
    """Runs of token characters, character by character, each CJK character a run of its
    own, without the runs of marks alone."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for index, char in enumerate(text):
        if reference_is_cjk(char):
            if start is not None:
                spans.append((start, index))
            spans.append((index, index + 1))
            start = None
        elif reference_is_token_char(char):
            start = index if start is None else start
        elif start is not None:
            spans.append((start, index))
            start = None
    if start is not None:
        spans.append((start, len(text)))
    kept = [(s, e) for s, e in spans if not all(map(reference_is_mark, text[s:e]))]
    # A token starts at its first character the fold keeps, as SQLite's offsets do.
    return [(next(i for i in range(s, e) if not reference_is_mark(text[i])), e) for s, e in kept]


@functools.cache
def sqlite_fold(char: str) -> str:
    """What the linked SQLite's unicode61 makes of ``char`` inside a token, asked of it:
    the term of ``q{char}q`` without its ``q``s (a separator is left as it is)."""
    if not reference_is_token_char(char):
        return char
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{TOKENIZE}')")
        connection.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        connection.execute("INSERT INTO t (text) VALUES (?)", (f"q{char}q",))
        (term,) = connection.execute("SELECT term FROM v").fetchone()
    return str(term)[1:-1]


def reference_fold(token: str) -> str:
    return "".join(map(sqlite_fold, token))


@settings(max_examples=1000)
@given(TEXT)
def test_token_spans_equal_the_per_character_reference(text: str) -> None:
    assert token_spans(text) == reference_token_spans(text)


def pattern_spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [match.span() for match in pattern.finditer(text)]


@settings(max_examples=1000)
@given(st.text(st.characters(max_codepoint=0x7F), max_size=120))
def test_ascii_text_is_split_as_the_unicode_patterns_split_it(text: str) -> None:
    # An ASCII text takes a shortcut past the patterns built from the Unicode tables.
    assert token_spans(text) == reference_token_spans(text)
    assert token_spans(text) == pattern_spans(token_pattern(False), text)
    assert word_spans(text) == pattern_spans(token_pattern(True), text)
    assert list(index_spans(text)) == pattern_spans(index_token_pattern(), text)
    assert not cjk.is_cjk(text)
    assert cjk.index_form(text) is None


@settings(max_examples=300)
@given(st.lists(st.sampled_from(SPECIAL), max_size=40).map("".join))
def test_token_spans_on_special_characters_only(text: str) -> None:
    assert token_spans(text) == reference_token_spans(text)


@settings(max_examples=500)
@given(TEXT)
def test_fold_equals_the_per_character_reference(text: str) -> None:
    assert fold(text) == reference_fold(text)
    assert [fold(text[s:e]) for s, e in token_spans(text)] == [
        reference_fold(text[s:e]) for s, e in reference_token_spans(text)
    ]


@settings(max_examples=500)
@given(TEXT, TEXT)
def test_fold_works_character_by_character(first: str, second: str) -> None:
    # clipping.first_found folds all the tokens of a text in one go, joined, and relies on it.
    assert fold(first + second) == fold(first) + fold(second)


def test_a_long_run_of_marks_alone_is_no_token() -> None:
    # Milliseconds (no timed assertion: speed is measured by make bench); trying a match at
    # every mark of the runs took over half a minute, which the suite's time would show.
    marks = "\u0301" * 100_000
    assert token_spans(f"x {marks} y{marks}") == [(0, 1), (100_003, 200_004)]
    assert token_spans(marks) == []


def test_every_code_point_is_classed_by_its_table_role() -> None:
    # Each code point alone between spaces is a token exactly when it is a token character
    # but no mark; after a letter, it extends the letter's token exactly when it is a token
    # character but no CJK one (which is a token of its own). The tokenizer's classes hold
    # the BMP only and replace the other planes' characters by stand-ins, so this covers
    # every plane (0..sys.maxunicode).
    for plane in range(0, sys.maxunicode + 1, PLANE):
        chars = [chr(code) for code in range(plane, plane + PLANE) if not 0xD800 <= code < 0xE000]
        words = [reference_is_token_char(c) and not reference_is_mark(c) for c in chars]
        after_a = [
            [(3 * index, 3 * index + 1), (3 * index + 1, 3 * index + 2)]
            if reference_is_cjk(c)
            else [(3 * index, 3 * index + 1 + reference_is_token_char(c))]
            for index, c in enumerate(chars)
        ]
        assert token_spans(" ".join(chars)) == [
            (2 * index, 2 * index + 1) for index, word in enumerate(words) if word
        ], hex(plane)
        assert token_spans(" ".join("a" + c for c in chars)) == [
            span for spans in after_a for span in spans
        ], hex(plane)


@settings(max_examples=300)
@given(TEXT)
def test_each_token_folds_to_the_term_the_index_holds(text: str) -> None:
    # fold goes character by character; SQLite folds the token as a whole.
    tokens = [text[s:e] for s, e in reference_token_spans(text) if not reference_is_cjk(text[s])]
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{TOKENIZE}')")
        connection.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        for token in tokens:
            connection.execute("DELETE FROM t")
            connection.execute("INSERT INTO t (text) VALUES (?)", (token,))
            assert [term for (term,) in connection.execute("SELECT term FROM v")] == [fold(token)]


@settings(max_examples=500)
@given(TEXT)
def test_the_spans_of_chosen_positions_are_those_of_every_token(text: str) -> None:
    # instances.located reads only up to the page's last instance, counting CJK runs.
    every = list(index_spans(text))
    tokens = [at for at, (start, end) in enumerate(every) if start < end]  # no boundary
    indexes = {at: index for index, at in enumerate(tokens)}  # boundaries not counted
    assert tokens_at(text, tokens, 1) == [(indexes[at], every[at]) for at in tokens]
    assert tokens_at(text, tokens[::3], 1) == [(indexes[at], every[at]) for at in tokens[::3]]
