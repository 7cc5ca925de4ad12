"""Step 4's and 5's cases, chosen deterministically from the data: a rare word, a common word,
three words (mode any), a rare pair of words (mode all, and as a phrase), the commonest pair
of content words (mode all), the common word in a one-week window and with a role, and the
busiest two-letter prefix."""

from __future__ import annotations

import itertools
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bench.common import fts_string, plain_word
from memstore.kinds import Mode, SearchRole
from memstore.text.fts_query import QueryPart, ranking_tiers
from memstore.text.query_stopwords import is_stopword
from memstore.text.tokens import fold, tokenize
from memstore.times import parse_utc

VOCAB_ROW = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, messages_fts, row)"


@dataclass(frozen=True)
class Query:
    """One recall benchmark case: its label, user text, memstore mode and FTS5 MATCH."""

    label: str
    text: str
    mode: Mode
    match: str
    hits: int = 0
    tiers: tuple[tuple[QueryPart, ...], ...] = ()
    window: tuple[datetime, datetime] | None = None
    """``since`` and ``until`` (UTC), or None for no date filter."""
    role: SearchRole | None = None
    """The role filter, or None."""


def vocabulary(raw: sqlite3.Connection) -> list[tuple[str, int]]:
    """(term, document count) of the messages index, most documents first, then by term."""
    raw.execute(VOCAB_ROW)
    return raw.execute("SELECT term, doc FROM temp.vocab ORDER BY doc DESC, term").fetchall()


def rare_word(vocab: Sequence[tuple[str, int]]) -> str:
    """The most frequent plain word found in 3 to 10 documents; in a larger set, where every
    word repeats, the plain word in the fewest documents (at least 3)."""
    plain = [(docs, term) for term, docs in vocab if docs >= 3 and plain_word(term, 5)]
    few = [(-docs, term) for docs, term in plain if docs <= 10]
    return min(few)[1] if few else min(plain)[1]


def common_word(vocab: Sequence[tuple[str, int]]) -> str:
    """The first plain word of three letters or more among the 20 most frequent terms."""
    return next(term for term, _ in vocab[:20] if plain_word(term, 3))


def pair_documents(raw: sqlite3.Connection) -> Counter[tuple[str, str]]:
    """How many messages hold each two-word phrase, folded."""
    documents: Counter[tuple[str, str]] = Counter()
    for (content,) in raw.execute("SELECT content FROM messages_searchable"):
        words = [fold(token) for token in tokenize(content)]
        documents.update(set(itertools.pairwise(words)))
    return documents


def rare_phrase(documents: Counter[tuple[str, str]]) -> str:
    """The most frequent two-word phrase of plain words found in 3 to 10 messages; in a larger
    set, the one in the fewest messages (at least 3)."""
    plain = [
        (docs, pair)
        for pair, docs in documents.items()
        if docs >= 3 and all(plain_word(word, 4) for word in pair)
    ]
    few = [(-docs, pair) for docs, pair in plain if docs <= 10]
    return " ".join(min(few)[1] if few else min(plain)[1])


def common_pair(documents: Counter[tuple[str, str]]) -> str:
    """The two-word phrase of plain words, neither of them a stopword, found in the most
    messages (then the first in order): issue 18's "sounds like", where ``all`` mode scores
    the selection's words over their long lists."""
    content = [
        (-docs, pair)
        for pair, docs in documents.items()
        if all(plain_word(word, 4) and not is_stopword(word) for word in pair)
    ]
    return " ".join(min(content)[1])


def choose_queries(raw: sqlite3.Connection, vocab: Sequence[tuple[str, int]]) -> list[Query]:
    """The rare word, common word and phrase cases, chosen deterministically from the data
    (``vocab`` is the vocabulary of the messages index)."""
    pairs = pair_documents(raw)
    phrase, rare, common = rare_phrase(pairs), rare_word(vocab), common_word(vocab)
    three, both = f"{rare} {phrase}", common_pair(pairs)
    cases = [
        Query("rare", rare, "any", ""),
        Query("common", common, "any", ""),
        Query("any", three, "any", " OR ".join(map(fts_string, three.split()))),
        Query("all", phrase, "all", " AND ".join(map(fts_string, phrase.split()))),
        Query("all, common pair", both, "all", " AND ".join(map(fts_string, both.split()))),
        Query("phrase", phrase, "phrase", " + ".join(map(fts_string, phrase.split()))),
        Query("common, one week", common, "any", "", window=middle_week(raw)),
        Query("common, role user", common, "any", "", role="user"),
    ]
    return [with_hits(raw, case) for case in cases]


def middle_week(raw: sqlite3.Connection) -> tuple[datetime, datetime]:
    """The week that starts at the median message's time."""
    (count,) = raw.execute("SELECT count(*) FROM messages").fetchone()
    middle = "SELECT created_at FROM messages ORDER BY created_at LIMIT 1 OFFSET ?"
    (start,) = raw.execute(middle, (count // 2,)).fetchone()
    return parse_utc(start), parse_utc(start) + timedelta(days=7)


def with_hits(raw: sqlite3.Connection, case: Query) -> Query:
    """``case`` with its MATCH expression filled in and its number of matching messages."""
    match = case.match or fts_string(case.text)
    sql = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?"
    hits = raw.execute(sql, (match,)).fetchone()[0]
    tiers = tuple(tuple(tier) for tier in ranking_tiers(case.text, case.mode))
    return replace(case, match=match, hits=hits, tiers=tiers)


def word_prefix(vocab: Sequence[tuple[str, int]]) -> str:
    """The two-letter prefix of the most plain words of three letters or more (first in
    alphabetical order among equals)."""
    counts = Counter(term[:2] for term, _ in vocab if plain_word(term, 3))
    return max(sorted(counts), key=counts.__getitem__)
