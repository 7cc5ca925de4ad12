"""Step 4, after the timings: how closely recall's bounded ranking of a large tier follows
the exact one.

A tier whose gate parts find over ``ranking.EXACT_HITS`` documents ranks its best
candidates by own rank and the hits next to them first (see memstore.text.ranking). This
step draws queries the way a person might type them, from the words of messages picked at
random (seeded: the same data gives the same queries), keeps those whose first tier is
bounded, and compares each first page (``recall(query)``, the default 8 conversations) with
the page the exact ranking gives, every hit ranked with its neighbours at once.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from memstore import MemoryService
from memstore.errors import InvalidQuery
from memstore.repository import recall as search
from memstore.text import ranking
from memstore.text.fts_query import ranking_tiers
from memstore.text.tokens import tokenize

SEED = 20261206
ATTEMPTS = 4000  # messages drawn at most, looking for queries with a bounded first tier


@dataclass(frozen=True)
class Fidelity:
    """Of ``queries`` drawn with a bounded first tier, how many first pages were the exact
    ranking's (the same conversations in the same order), and how many of the exact page's
    matched messages the bounded page held, on average (0 to 1)."""

    queries: int
    identical: int
    overlap: float


def drawn_queries(raw: sqlite3.Connection, wanted: int) -> Iterator[str]:
    """Up to ``wanted`` queries of one to three words of one random message each, whose
    first tier (in any mode) is bounded."""
    rng = random.Random(SEED)
    (last,) = raw.execute("SELECT max(pk) FROM messages").fetchone()
    found = 0
    for _ in range(ATTEMPTS):
        row = raw.execute("SELECT content FROM messages WHERE pk = ?", (rng.randint(1, last),))
        words = [word for (content,) in row for word in tokenize(content) if len(word) > 2]
        if len(words) < 3:
            continue
        query = " ".join(rng.sample(words, rng.randint(1, 3)))
        if bounded(raw, query):
            yield query
            found += 1
            if found == wanted:
                return


def bounded(raw: sqlite3.Connection, query: str) -> bool:
    """Whether recall ranks the first tier of ``query`` (any mode) a set of candidates at
    a time."""
    try:
        tiers = ranking_tiers(query, "any")
    except InvalidQuery:
        return False
    documents = search.part_documents(raw, tiers[:1])
    return ranking.gated_documents(tiers[0], documents) > ranking.EXACT_HITS


def page(service: MemoryService, query: str) -> list[str]:
    """The matched messages' ids of the first page of ``query``."""
    return [c.matched_id for c in service.recall(query).conversations]


def compare_fidelity(service: MemoryService, raw: sqlite3.Connection, wanted: int) -> Fidelity:
    """The bounded first pages of up to ``wanted`` drawn queries against the exact ones."""
    queries = list(drawn_queries(raw, wanted))
    pages = [page(service, query) for query in queries]
    bound = ranking.EXACT_HITS
    ranking.EXACT_HITS = 2**62  # every tier exact
    try:
        exact = [page(service, query) for query in queries]
    finally:
        ranking.EXACT_HITS = bound
    identical = sum(mine == theirs for mine, theirs in zip(pages, exact, strict=True))
    shares = [
        len(set(mine) & set(theirs)) / len(theirs)
        for mine, theirs in zip(pages, exact, strict=True)
        if theirs
    ]
    return Fidelity(len(queries), identical, sum(shares) / len(shares) if shares else 1.0)
