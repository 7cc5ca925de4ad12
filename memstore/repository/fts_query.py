"""Turn user text into a literal FTS5 query.

User text never reaches FTS5 as syntax: it is split into word tokens the way SQLite's
``unicode61`` tokenizer splits them (runs of letters, numbers, marks and private-use
characters; everything else separates), and each token is written as a double-quoted FTS5
string. Quotes, AND/OR/NOT/NEAR, ``*``, ``^``, ``:``, ``-``, ``.`` and parentheses are
therefore either separators or plain text inside a string, never operators.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

from memstore.errors import InvalidQuery

Mode = Literal["any", "all", "phrase"]
MODES: tuple[Mode, ...] = ("any", "all", "phrase")
MAX_QUERY_CHARS = 512
MAX_DISTINCT_TOKENS = 32


def is_token_char(char: str) -> bool:
    """True for characters unicode61 keeps inside a token (letters, numbers, marks, Co)."""
    category = unicodedata.category(char)
    return category[0] in "LNM" or category == "Co"


def is_mark(char: str) -> bool:
    """True for combining marks (Mn, Mc, Me)."""
    return unicodedata.category(char)[0] == "M"


def token_spans(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` character spans of the word tokens of ``text``, in order.

    A run of combining marks alone is no token: ``remove_diacritics`` folds it away or
    unicode61 separates at it, so it can never match, and as an FTS5 string it would be an
    empty phrase, which makes an ``all`` query match nothing.
    """
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for index, char in enumerate(text):
        if is_token_char(char):
            start = index if start is None else start
        elif start is not None:
            spans.append((start, index))
            start = None
    if start is not None:
        spans.append((start, len(text)))
    return [(start, end) for start, end in spans if not all(map(is_mark, text[start:end]))]


def tokenize(text: str) -> list[str]:
    """Split ``text`` into word tokens as written (case and accents kept), in order."""
    return [text[start:end] for start, end in token_spans(text)]


def fold(token: str) -> str:
    """Case- and accent-fold a token the way ``remove_diacritics 2`` compares it."""
    decomposed = unicodedata.normalize("NFKD", token.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def quote(token: str) -> str:
    """A token as an FTS5 string literal."""
    return '"' + token.replace('"', '""') + '"'


def query_tokens(text: str) -> list[str]:
    """The tokens of a recall query, validated.

    Raises:
        InvalidQuery: If ``text`` is over 512 characters, has no word, or over 32 distinct
            folded tokens.
    """
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidQuery(
            "query", f"is {len(text)} characters; at most {MAX_QUERY_CHARS} are allowed."
        )
    tokens = tokenize(text)
    if not tokens:
        raise InvalidQuery("query", "has no words to search for; type at least one word.")
    distinct = {fold(token) for token in tokens}
    if len(distinct) > MAX_DISTINCT_TOKENS:
        raise InvalidQuery(
            "query",
            f"has {len(distinct)} distinct words; at most {MAX_DISTINCT_TOKENS} are allowed.",
        )
    return tokens


def build_match(text: str, mode: Mode) -> str:
    """The FTS5 MATCH expression for ``text`` searched in ``mode``.

    ``any`` matches any token, ``all`` every token in any order, ``phrase`` the tokens
    consecutively, repetitions kept.

    Raises:
        InvalidQuery: For a bad query (see :func:`query_tokens`) or an unknown mode.
    """
    if mode not in MODES:
        raise InvalidQuery("mode", f"is {mode!r}; use one of {', '.join(MODES)}.")
    tokens = query_tokens(text)
    if mode == "phrase":
        return " + ".join(quote(token) for token in tokens)
    unique = list(dict.fromkeys(tokens))
    return (" OR " if mode == "any" else " AND ").join(quote(token) for token in unique)


def ranking_match(text: str) -> str | None:
    """An any-word MATCH expression that ranks by ``text`` of any length, or None.

    For the per-turn context, where the user's whole message ranks memories and must never
    fail: the first 32 distinct words are used and the rest ignored.
    """
    distinct: dict[str, str] = {}
    for token in tokenize(text):
        distinct.setdefault(fold(token), token)
        if len(distinct) == MAX_DISTINCT_TOKENS:
            break
    return " OR ".join(quote(token) for token in distinct.values()) or None
