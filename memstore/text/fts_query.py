"""Turn user text into a literal FTS5 query.

User text never reaches FTS5 as syntax: it is split into words the way the index splits
it (:mod:`memstore.text.tokens`), and each word is written as a double-quoted FTS5 string; a
run of CJK characters as the phrase of its characters (:mod:`memstore.text.cjk`). Quotes,
AND/OR/NOT/NEAR, ``*``, ``^``, ``:``, ``-``, ``.`` and parentheses are therefore either
separators or plain text inside a string, never operators.

Ranking splits a query into parts (:func:`ranking_tiers`): each word, on the exact index or on
the index by word stem, and each pair of adjacent content words as a two-word phrase, every
one a literal FTS5 query of its own, so that each can be weighted (see
:mod:`memstore.text.ranking`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from memstore.errors import InvalidQuery
from memstore.kinds import Mode, values
from memstore.text import cjk, dates
from memstore.text.query_stopwords import query_stopwords
from memstore.text.tokens import fold, tokenize

MODES = values(Mode)
MAX_QUERY_CHARS = 512
MAX_DISTINCT_TOKENS = 32
LONG_RUN_CHARS = 4  # a longer CJK run in an any or all query is searched as its pairs
INVISIBLE = "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"
"""Zero-width spaces, joiners and direction marks, the word joiner and the byte order mark."""
QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "「": "」", "『": "』"}
"""Each opening quotation mark and its closing one."""
PartKind = Literal["word", "pair", "phrase", "filter"]
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


def symbols_only(text: str) -> bool:
    """Whether ``text`` is a query of punctuation or symbols alone (``"``, ``*``, ``()``):
    within the length limit, not blank, and without a word. No message holds such text as a
    word, so recall finds nothing for it rather than refusing it: the query-literal rule
    wants no error for it (found by review: ``"`` alone raised InvalidQuery)."""
    return len(text) <= MAX_QUERY_CHARS and bool(text.strip()) and not tokenize(text)


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


def written_sequence(text: str, mode: Mode) -> str | None:
    """The folded text every hit of a ``phrase`` query must hold as written, or None: for a
    query without spaces holding a CJK character and anything else, punctuation ("ン・",
    "た。", "「映画") or other letters ("後v2"). The index drops punctuation, and an index
    form's run ends before it and before other letters as it does before a space, so the
    phrase of the words alone was too wide ("ン・" matched "ジョンとスミス", "後v2" matched
    "後 v2"): issue 16 asks a CJK phrase to match exactly the texts holding it (found by
    review). A run of CJK characters alone is the phrase of its characters, exact as it is.
    Spaces and invisible marks (a pasted zero-width space or byte order mark) around it are no
    part of it, nor are quotation marks around the whole of it, which mark a phrase (found by
    review: "映画" in quotes, as an agent writes a phrase, found nothing)."""
    written = text.strip().strip(INVISIBLE).strip()
    if len(written) > 2 and QUOTES.get(written[0]) == written[-1]:
        written = written[1:-1].strip()
    if mode != "phrase" or written.isascii() or any(c.isspace() for c in written):
        return None
    if not cjk.holds_cjk(written) or cjk.is_cjk(written):
        return None
    return fold(written)


CONTEXT_WORDS = 256
"""The most distinct words of a request that rank the memories of its context: a message of
several paragraphs, searched once per turn over the memories index (small beside history)."""


def content_match(text: str, mode: Mode) -> str | None:
    """For an ``any`` query, the MATCH of its content words (see :func:`content_words`), or
    None: in another mode, or when its words are all content words or all stopwords. The
    memories it finds rank above those holding only the query's stopwords, as history hits
    do (see :func:`ranking_tiers`; found by review: "Diego asked what the plan was" ranked
    first among memories for "what was in the garden")."""
    return content_words(pairs_of_long_runs(query_tokens(text))) if mode == "any" else None


def content_words(tokens: Iterable[str]) -> str | None:
    """The any-word MATCH of the distinct content words among ``tokens`` (those not in
    :func:`query_stopwords`), or None when they hold no stopword or only stopwords."""
    distinct = list(dict.fromkeys(tokens))
    stop = query_stopwords(distinct)
    content = [token for token in distinct if fold(token) not in stop]
    return " OR ".join(map(quote, content)) if 0 < len(content) < len(distinct) else None


def ranking_match(text: str) -> tuple[str, str | None, str | None] | None:
    """An any-word MATCH expression that ranks by ``text`` of any length, the MATCH of its
    content words among them (see :func:`content_words`) and that of its first
    :data:`CONTEXT_WORDS` pairs of adjacent content words (see :func:`pairs_match`); or
    None for no word.

    For the per-turn context, where the user's whole message ranks memories and must never
    fail: at most :data:`CONTEXT_WORDS` distinct words, the content words first, in the
    message's order, then stopwords while there is room (found by review: the first 32 words
    of a long request, its stopwords among them, left out the word at its end that named the
    memory; and again with 32 content words: a request of 60 words).
    """
    tokens = pairs_of_long_runs(tokenize(text))
    distinct: dict[str, str] = {}
    for token in tokens:
        distinct.setdefault(fold(token), token)
    stop = query_stopwords(distinct.values())
    words = sorted(distinct.values(), key=lambda word: fold(word) in stop)[:CONTEXT_WORDS]
    if not words:
        return None
    pairs = [part.match for part in pair_parts(tokens, stop)][:CONTEXT_WORDS]
    return " OR ".join(map(quote, words)), content_words(words), " OR ".join(pairs) or None


@dataclass(frozen=True)
class QueryPart:
    """One literal FTS5 query of a recall's ranking.

    ``kind`` says how its bm25 is weighted (see :mod:`memstore.text.ranking`): a
    ``word``, a ``pair`` of adjacent content words, the ``phrase`` of phrase mode, or a
    ``filter`` that only selects. ``role`` says how it selects: a hit matches at least one
    ``gate`` part and no ``veto`` part; a ``rank`` part only ranks. ``stemmed`` parts run on
    the index by word stem (``messages_stem_fts``, SQLite's porter stemmer, which stems the
    query's words as it stems the indexed ones), the others on the exact index.
    """

    match: str
    kind: PartKind
    role: PartRole
    stemmed: bool = False
    within: str | None = None


def word_parts(
    tokens: Iterable[str], kind: PartKind, role: PartRole, *, stemmed: bool = False
) -> list[QueryPart]:
    """One part per distinct token as written (the disjuncts of the ``any`` query)."""
    return [QueryPart(quote(token), kind, role, stemmed) for token in dict.fromkeys(tokens)]


BRIDGE_WORDS = 2
"""The most stopwords between two content words that still make a pair ("cup of tea",
"lord of the rings")."""


def pair_parts(tokens: list[str], stop: frozenset[str]) -> list[QueryPart]:
    """A phrase per pair of neighbouring, different content words of the query (not in
    ``stop``, folded; CJK runs left out: a pair of them is no phrase the index holds), with
    the stopwords between them when there are at most :data:`BRIDGE_WORDS` ("cup of tea":
    found by review, a message holding it ranked no higher than one where the words stood
    apart)."""
    kept = [at for at, token in enumerate(tokens) if not cjk.is_cjk(token)]
    held = set(kept)  # a long context request has thousands of words (review: quadratic)
    content = [at for at in kept if fold(tokens[at]) not in stop]
    pairs = {
        " + ".join(map(quote, tokens[first : second + 1])): None
        for first, second in itertools.pairwise(content)
        if fold(tokens[first]) != fold(tokens[second])
        and second - first - 1 <= BRIDGE_WORDS
        and all(at in held for at in range(first, second + 1))
    }
    return [QueryPart(match, "pair", "rank") for match in pairs]


def pairs_match(text: str, mode: Mode) -> str | None:
    """The MATCH of the documents holding a pair of adjacent content words of ``text``
    (:func:`pair_parts`); None for no pair, or in ``phrase`` mode. A memory it finds ranks
    higher (see :data:`~memstore.text.ranking.MEMORY_PAIR_WEIGHT`)."""
    if mode == "phrase":
        return None
    tokens = pairs_of_long_runs(query_tokens(text))
    return " OR ".join(part.match for part in pair_parts(tokens, query_stopwords(tokens))) or None


def ranking_tiers(text: str, mode: Mode) -> list[list[QueryPart]]:
    """The parts that select and rank the hits of ``text`` in ``mode``, tier by tier: every
    hit of a tier ranks above every hit of the next, and no hit is in two tiers.

    ``any``: first the hits holding a content word or a word of the same stem ("painted"
    for "painting"), ranked by the content words' stems and their adjacent pairs; then the
    hits holding only stopwords (as written), ranked by those. A query of stopwords alone is
    ranked by them, as written, in one tier. ``all``: :func:`build_match`'s query selects
    (every word as written); the content words' stems (or the stopwords, when there is no
    content word), each ``within`` that query, and pairs rank. ``phrase``: the phrase alone,
    as written.

    Raises:
        InvalidQuery: For a bad query (see :func:`query_tokens`) or an unknown mode.
    """
    selection = build_match(text, mode)
    if mode == "phrase":
        return [[QueryPart(selection, "phrase", "gate")]]
    tokens = pairs_of_long_runs(query_tokens(text))
    stop = query_stopwords(tokens)
    content = [token for token in tokens if fold(token) not in stop]
    if mode == "all":
        if not content and [quote(token) for token in dict.fromkeys(tokens)] == [selection]:
            return [word_parts(tokens, "word", "gate")]  # one stopword: it is the query
        ranked = word_parts(content, "word", "rank", stemmed=True) or word_parts(
            tokens, "word", "rank"
        )
        within = [dataclasses.replace(part, within=selection) for part in ranked]
        return [[*within, QueryPart(selection, "filter", "gate"), *pair_parts(tokens, stop)]]
    if not content:
        return [word_parts(tokens, "word", "gate")]
    tiers = [[*word_parts(content, "word", "gate", stemmed=True), *pair_parts(tokens, stop)]]
    stopped = [token for token in tokens if fold(token) in stop]
    if stopped:
        vetoes = word_parts(content, "filter", "veto", stemmed=True)
        tiers.append([*word_parts(stopped, "word", "gate"), *vetoes])
    return tiers


def time_words_match(query: str, gates: Sequence[str]) -> str | None:
    """When ``query`` asks when, the MATCH of the messages that ``gates`` (MATCH expressions:
    a tier's gate parts) find and that hold a word placing a happening in time
    (:data:`~memstore.text.dates.TIME_WORDS`); else None. Recall runs it on the stem index,
    so that the time words count by stem in every mode. One expression, so that FTS5
    intersects the lists instead of testing each hit."""
    if not gates or not dates.asks_when(query):
        return None
    said = " OR ".join(map(quote, dates.TIME_WORDS))
    return f"({said}) AND ({' OR '.join(f'({gate})' for gate in gates)})"
