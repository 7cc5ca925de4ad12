"""One tokenizer truth: memstore's query splitter and the index split every code point alike.

The index is SQLite's unicode61 over a text's index form (each CJK character a token, see
memstore.text.cjk); the splitter is memstore.text.tokens, built from the table in
memstore.text.unicode61. Both walks below cover all of Unicode, U+0000 to U+10FFFF.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from contextlib import closing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.repository.messages import REMOVED_LEAD
from memstore.store.unicode61 import SURROGATES, TOKENIZE, sqlite_folds, sqlite_roles
from memstore.text import cjk, tokens, unicode61
from memstore.text.fts_query import build_match
from memstore.text.tokens import index_spans, tokenize

CHUNK = 2048
SEGMENT = 10  # characters of each code point's segment


def test_the_table_is_what_the_linked_sqlite_does() -> None:
    # Failing after a SQLite upgrade: print the table afresh with
    # python -m memstore.store.unicode61 > memstore/text/unicode61_table.py
    assert unicode61.roles() == sqlite_roles()
    removed = {code: None for code, role in enumerate(sqlite_roles()) if role == "m"}
    folds = unicode61.fold_table()
    changed = {code: folded for code, folded in enumerate(folds) if folded != code}
    assert changed == sqlite_folds() | removed


def test_the_folding_pattern_matches_exactly_the_characters_above_ascii_that_fold() -> None:
    """fold() lowercases the ASCII capitals of a text the pattern finds nothing in (a review
    found folding each hit's text the cost of a phrase matched as written)."""
    folds = unicode61.fold_table()
    pattern = tokens.non_ascii_folding_pattern()
    found = {code for code in range(0x110000) if pattern.match(chr(code))}
    assert found == {code for code, folded in enumerate(folds) if folded != code and code >= 128}


FOLDING = [chr(code) for code, folded in enumerate(unicode61.fold_table()) if folded != code]
SOME_TEXT = st.text(st.sampled_from([*FOLDING[:200], *FOLDING[-60:], "事", "。", "す", "a", "é"]))


@given(SOME_TEXT, st.data())
def test_a_text_holds_a_phrase_folded_just_when_its_fold_does(
    text: str, data: st.DataObject
) -> None:
    """holds_folded's shortcut (the literal run, the removed characters) decides as folding
    the text does, for a piece of the folded text, and that piece with a CJK character."""
    folded = tokens.fold(text)
    start = data.draw(st.integers(0, len(folded)))
    piece = folded[start : start + data.draw(st.integers(1, 5))]
    written = data.draw(st.sampled_from([piece, piece + "事", "事" + piece]))
    literal = tokens.literal_run(written)
    assert tokens.holds_folded(text, written, literal) == (written in folded)


def test_every_character_the_fold_removes_starts_with_the_lead_byte() -> None:
    removed = [chr(code) for code, folded in enumerate(unicode61.fold_table()) if folded is None]
    assert removed and all(char.encode()[:1] == REMOVED_LEAD for char in removed)


@pytest.mark.parametrize(
    ("folded", "literal"),
    [("す。ok", "す。"), ("ン・", "ン・"), ("a後bc映画。d", "映画。"), ("\uff21。", "\uff21。")],
)
def test_the_literal_run_is_the_longest_no_other_character_folds_to(
    folded: str, literal: str
) -> None:
    assert tokens.literal_run(folded) == literal


@given(st.text(st.characters(codec=None, exclude_categories=())))
def test_fold_is_the_translation_of_each_character(text: str) -> None:
    """Lone surrogates included: a hypothesis example of the clipping tests held one."""
    assert tokens.fold(text) == text.translate(unicode61.fold_table())


def segment(code: int) -> str:
    """A code point alone, inside a word, and after a CJK character."""
    char = chr(code)
    return f" {char} q{char}q 中{char} "


def test_every_code_point_is_split_by_memstore_as_by_the_index() -> None:
    # For each code point, the tokens memstore predicts (index_spans, boundaries included)
    # are as many as SQLite makes of the index form, and line up: each segment's terms
    # start where memstore says. 4,394 assigned code points once differed (emoji newer than
    # Unicode 6.1 among them).
    codes = [code for code in range(0x110000) if code not in SURROGATES]
    differing = []
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{TOKENIZE}')")
        connection.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        for start in range(0, len(codes), CHUNK):
            chunk = codes[start : start + CHUNK]
            text = "".join(map(segment, chunk))
            connection.execute("DELETE FROM t")
            connection.execute("INSERT INTO t (text) VALUES (?)", (cjk.index_form(text) or text,))
            terms = [term for (term,) in connection.execute("SELECT term FROM v ORDER BY offset")]
            predicted = Counter(start // SEGMENT for start, _ in index_spans(text))
            at = 0
            for index, code in enumerate(chunk):
                got = terms[at : at + predicted[index]]
                if not got or "q" not in "".join(got) or "中" not in got:
                    differing.append(hex(code))
                at += predicted[index]
            if at != len(terms):
                differing.append(f"chunk from {hex(chunk[0])}: {at} != {len(terms)}")
    assert differing == []


def test_a_word_searched_finds_the_text_it_came_from() -> None:
    # The new emoji the splitter once dropped: found in every mode, inside words too.
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{TOKENIZE}')")
        text = "I love \U0001f951toast \U0001f916 and 部署v2-hotfix后回滚"
        connection.execute("INSERT INTO t (text) VALUES (?)", (cjk.index_form(text),))
        for word in [*tokenize(text), "🥑toast", "🤖", "回滚", "部署", "hotfix"]:
            for mode in ("any", "all", "phrase"):
                match = build_match(word, mode)
                assert connection.execute("SELECT 1 FROM t WHERE t MATCH ?", (match,)).fetchone()
