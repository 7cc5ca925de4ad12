"""Turn user text into a literal FTS5 query.

User text never reaches FTS5 as syntax: it is split into word tokens the way SQLite's
``unicode61`` tokenizer splits them (runs of letters, numbers, marks and private-use
characters; everything else separates), and each token is written as a double-quoted FTS5
string. Quotes, AND/OR/NOT/NEAR, ``*``, ``^``, ``:``, ``-``, ``.`` and parentheses are
therefore either separators or plain text inside a string, never operators.

Ranking splits a query into parts (:func:`ranking_tiers`): each word, each pair of adjacent
content words as a two-word phrase, and each content word's stem as a prefix query, every one
a literal FTS5 query of its own (the ``*`` of a stem is the one operator written, by this
module, after a quoted string), so that each can be weighted (see
:mod:`memstore.text.ranking`).
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from memstore.errors import InvalidQuery
from memstore.kinds import Mode, values
from memstore.text import stopwords

MODES = values(Mode)
MAX_QUERY_CHARS = 512
MAX_DISTINCT_TOKENS = 32
STEM_MIN_CHARS = 4
STEM_CUT_CHARS = 3
PartKind = Literal["word", "pair", "stem", "phrase", "filter"]
PartRole = Literal["gate", "rank", "veto"]
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
    """A two-word phrase per pair of adjacent, different content words of the query."""
    pairs = {
        f"{quote(first)} + {quote(second)}": None
        for first, second in itertools.pairwise(tokens)
        if fold(first) != fold(second) and not (is_stopword(first) or is_stopword(second))
    }
    return [QueryPart(match, "pair", "rank") for match in pairs]


def stem_parts(tokens: Iterable[str]) -> list[QueryPart]:
    """A prefix query per content word of at least :data:`STEM_MIN_CHARS` characters, its
    last :data:`STEM_CUT_CHARS` cut (keeping at least the minimum), so that the word's other
    forms ("paint", "painted", "painting") add to the rank."""
    stems = {
        quote(token[: max(STEM_MIN_CHARS, len(token) - STEM_CUT_CHARS)]) + "*": None
        for token in tokens
        if len(token) >= STEM_MIN_CHARS
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
    tokens = query_tokens(text)
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
