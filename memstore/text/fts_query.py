"""Turn user text into a literal FTS5 query.

User text never reaches FTS5 as syntax: it is split into words the way the index splits
it (:mod:`memstore.text.tokens`), and each word is written as a double-quoted FTS5 string; a
run of CJK characters as the phrase of its characters (:mod:`memstore.text.cjk`). Quotes,
AND/OR/NOT/NEAR, ``*``, ``^``, ``:``, ``-``, ``.`` and parentheses are therefore either
separators or plain text inside a string, never operators.

Ranking splits a query into parts (:func:`ranking_tiers`): each word, each pair of adjacent
content words as a two-word phrase, and each content word's stem as a prefix query, every one
a literal FTS5 query of its own (the ``*`` of a stem is the one operator written, by this
module, after a quoted string), so that each can be weighted (see
:mod:`memstore.text.ranking`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from memstore.errors import InvalidQuery
from memstore.kinds import Mode, values
from memstore.text import cjk, stopwords
from memstore.text.tokens import fold, tokenize

MODES = values(Mode)
MAX_QUERY_CHARS = 512
MAX_DISTINCT_TOKENS = 32
STEM_MIN_CHARS = 4
STEM_CUT_CHARS = 3
LONG_RUN_CHARS = 4  # a longer CJK run in an any or all query is searched as its pairs
PartKind = Literal["word", "pair", "stem", "phrase", "filter"]
PartRole = Literal["gate", "rank", "veto"]


def quote(token: str) -> str:
    """A word as an FTS5 string literal: a CJK run as the phrase of its characters."""
    return '"' + cjk.spaced(token).replace('"', '""') + '"'


def pairs_of_long_runs(tokens: list[str]) -> list[str]:
    """``tokens`` with each CJK run of over :data:`LONG_RUN_CHARS` characters replaced by its
    overlapping character pairs (a question written without spaces is a run: it is searched
    by the pairs it holds, not as one exact sentence)."""
    split: list[str] = []
    for token in tokens:
        if cjk.is_cjk(token) and len(token) > LONG_RUN_CHARS:
            split.extend(token[at : at + 2] for at in range(len(token) - 1))
        else:
            split.append(token)
    return split


def phrase(tokens: list[str]) -> str:
    """The FTS5 phrase of ``tokens`` in order; after a CJK run that another word follows,
    the boundary token, as the index form holds it."""
    parts = []
    for token, following in itertools.zip_longest(tokens, tokens[1:]):
        parts.append(quote(token))
        if following is not None and cjk.is_cjk(token):
            parts.append(f'"{cjk.BOUNDARY}"')
    return " + ".join(parts)


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

    ``any`` matches any word, ``all`` every word in any order, ``phrase`` the words
    consecutively, repetitions kept. A CJK run matches where its characters stand together;
    in ``any`` and ``all``, a run of over four characters is searched as its pairs.

    Raises:
        InvalidQuery: For a bad query (see :func:`query_tokens`) or an unknown mode.
    """
    if mode not in MODES:
        raise InvalidQuery("mode", f"is {mode!r}; use one of {', '.join(MODES)}.")
    tokens = query_tokens(text)
    if mode == "phrase":
        return phrase(tokens)
    unique = list(dict.fromkeys(pairs_of_long_runs(tokens)))
    return (" OR " if mode == "any" else " AND ").join(quote(token) for token in unique)


def ranking_match(text: str) -> str | None:
    """An any-word MATCH expression that ranks by ``text`` of any length, or None.

    For the per-turn context, where the user's whole message ranks memories and must never
    fail: the first 32 distinct words are used and the rest ignored.
    """
    distinct: dict[str, str] = {}
    for token in pairs_of_long_runs(tokenize(text)):
        distinct.setdefault(fold(token), token)
        if len(distinct) == MAX_DISTINCT_TOKENS:
            break
    return " OR ".join(quote(token) for token in distinct.values()) or None


@dataclass(frozen=True)
class QueryPart:
    """One literal FTS5 query of a recall's ranking.

    ``kind`` says how its bm25 is weighted (see :mod:`memstore.text.ranking`): a
    ``word``, a ``pair`` of adjacent content words, a word's ``stem``, the ``phrase`` of
    phrase mode, or a ``filter`` that only selects. ``role`` says how it selects: a hit
    matches at least one ``gate`` part and no ``veto`` part; a ``rank`` part only ranks.
    """

    match: str
    kind: PartKind
    role: PartRole


@functools.cache
def folded_stopwords() -> frozenset[str]:
    """The built-in stopwords, folded (on first use, not at import)."""
    return frozenset(map(fold, stopwords.WORDS))


def is_stopword(token: str) -> bool:
    """Whether ``token`` (as written) folds to a very frequent function word."""
    return fold(token) in folded_stopwords()


def word_parts(tokens: Iterable[str], kind: PartKind, role: PartRole) -> list[QueryPart]:
    """One part per distinct token as written (the disjuncts of the ``any`` query)."""
    return [QueryPart(quote(token), kind, role) for token in dict.fromkeys(tokens)]


def pair_parts(tokens: list[str]) -> list[QueryPart]:
    """A two-word phrase per pair of adjacent, different content words of the query (CJK
    runs left out: a pair of them is no phrase the index holds)."""
    pairs = {
        f"{quote(first)} + {quote(second)}": None
        for first, second in itertools.pairwise(tokens)
        if fold(first) != fold(second)
        and not any(is_stopword(token) or cjk.is_cjk(token) for token in (first, second))
    }
    return [QueryPart(match, "pair", "rank") for match in pairs]


def stem_parts(tokens: Iterable[str]) -> list[QueryPart]:
    """A prefix query per content word of at least :data:`STEM_MIN_CHARS` characters, its
    last :data:`STEM_CUT_CHARS` cut (keeping at least the minimum), so that the word's other
    forms ("paint", "painted", "painting") add to the rank. A CJK run has no stem."""
    stems = {
        quote(token[: max(STEM_MIN_CHARS, len(token) - STEM_CUT_CHARS)]) + "*": None
        for token in tokens
        if len(token) >= STEM_MIN_CHARS and not cjk.is_cjk(token)
    }
    return [QueryPart(match, "stem", "rank") for match in stems]


def ranking_tiers(text: str, mode: Mode) -> list[list[QueryPart]]:
    """The parts that select and rank the hits of ``text`` in ``mode``, tier by tier: every
    hit of a tier ranks above every hit of the next, and no hit is in two tiers.

    ``any``: first the hits holding a content word, ranked by the content words, their
    adjacent pairs and their stems; then the hits holding only stopwords, ranked by those. A
    query of stopwords alone is ranked by them in one tier. Together the tiers hold exactly
    the hits of :func:`build_match`'s query: pairs and stems only rank, never select.
    ``all``: its query selects; the content words (or the stopwords, when there is no
    content word), pairs and stems rank. ``phrase``: the phrase alone.

    Raises:
        InvalidQuery: For a bad query (see :func:`query_tokens`) or an unknown mode.
    """
    selection = build_match(text, mode)
    if mode == "phrase":
        return [[QueryPart(selection, "phrase", "gate")]]
    tokens = pairs_of_long_runs(query_tokens(text))
    content = [token for token in tokens if not is_stopword(token)]
    ranked = content or tokens
    if mode == "all":
        words = word_parts(ranked, "word", "rank")
        if [part.match for part in words] == [selection]:  # one word: it is the query
            words = word_parts(ranked, "word", "gate")
        else:
            words.append(QueryPart(selection, "filter", "gate"))
        return [[*words, *pair_parts(tokens), *stem_parts(content)]]
    tiers = [[*word_parts(ranked, "word", "gate"), *pair_parts(tokens), *stem_parts(content)]]
    stopped = [token for token in tokens if is_stopword(token)]
    if content and stopped:
        tiers.append([*word_parts(stopped, "word", "gate"), *word_parts(content, "filter", "veto")])
    return tiers
