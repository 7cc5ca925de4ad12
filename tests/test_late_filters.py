"""A large tier's filters checked last (memstore.repository.tier_hits.LATE_TIER_HITS): on
the hits of best own rank first, then on every hit only when too few of those pass. The
candidates and the hits near them are those of checking every hit first, whatever the
filters keep, and recall, which checks a role alone last, returns the same page.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore import MemoryConfig, MemoryService
from memstore.queries import RecallFilters
from memstore.repository import recall as search
from memstore.repository import search_bounds as bounds_sql
from memstore.repository import tier_hits as tiers
from memstore.repository.speaker_names import named_speakers
from memstore.text import ranking
from memstore.text.fts_query import ranking_tiers
from tests.raw_sql import statements_connection

START = datetime(2026, 5, 1, tzinfo=UTC)
DAYS = 10
WORDS = ("riego", "lavanda", "semillas", "balcón")
QUERIES = ("riego", "lavanda semillas", "Ana riego")  # one part, several parts, a speaker
SPEAKERS = ("Ana", "Bo", None)


@pytest.fixture(scope="module")
def garden(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    """Four sessions of 240 messages written on random days, "riego" mostly in the user's
    requests (a role filter keeps few or most of its hits), by speakers taking random
    turns; the file and the sessions' ids."""
    path = tmp_path_factory.mktemp("late") / "memory.sqlite3"
    service = MemoryService(path)
    rng = random.Random(20261206)
    sessions = [service.start_session().id for _ in range(4)]
    for n in range(240):
        role = "user" if n % 2 == 0 else "assistant"
        words = [rng.choice(WORDS[1:]) for _ in range(rng.randrange(1, 4))]
        if rng.random() < (0.8 if role == "user" else 0.1):
            words.append("riego")
        written = START + timedelta(days=rng.randrange(DAYS), minutes=rng.randrange(1440))
        service.record_message(
            sessions[n % 4],
            role,
            " ".join(words) + f" n{n}",
            created_at=written,
            speaker=rng.choice(SPEAKERS),
        )
    service.close()
    yield path, sessions


def first_tier(connection: sqlite3.Connection, query: str) -> dict[str, Any]:
    """The parameters of the first tier of ``query`` in any mode (see tier_hits.tier_parts)."""
    tier = ranking_tiers(query, "any")[0]
    documents = search.part_documents(connection, [tier])
    total = search.indexed_messages(connection)
    parts = tiers.tier_parts(query, ranking.weighted_parts(tier, documents, total))
    assert parts is not None
    return parts


FILTERS = st.fixed_dictionaries(
    {
        "role": st.sampled_from([None, "user", "assistant"]),
        "speaker": st.sampled_from([None, "Ana", "bo"]),
        "session": st.sampled_from([None, 0, 3]),
        "days": st.sampled_from([None, (0, 3), (2, DAYS)]),
    }
)


ROLE_ALONE = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant"]),
        "speaker": st.none(),
        "session": st.none(),
        "days": st.none(),
    }
)


def recall_filters(drawn: dict[str, Any], sessions: list[str]) -> RecallFilters:
    days = drawn["days"]
    return RecallFilters(
        session_id=None if drawn["session"] is None else sessions[drawn["session"]],
        role=drawn["role"],
        since=None if days is None else START + timedelta(days=days[0]),
        until=None if days is None else START + timedelta(days=days[1]),
        speaker=drawn["speaker"],
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    query=st.sampled_from(QUERIES[:2]),
    drawn=FILTERS,
    candidates=st.integers(1, 80),
    wide=st.integers(1, 300),
)
def test_checking_the_filters_last_reads_the_same_rows_as_checking_them_first(
    garden: tuple[Path, list[str]],
    query: str,
    drawn: dict[str, Any],
    candidates: int,
    wide: int,
) -> None:
    # Both branches: wide draws from below candidates (every hit checked) to every hit.
    path, sessions = garden
    filters = recall_filters(drawn, sessions)
    with statements_connection(path) as connection:
        tier = first_tier(connection, query)
        signals = (
            search.ranking_signals(named_speakers(connection, ""), [])
            | bounds_sql.PkBounds().params()
        )
        sizes = {"candidates": candidates, "wide": wide, "reach": 2, "around": 4}
        params = tier | filters.params() | signals | sizes
        first = connection.execute(tiers.TIER_HITS[tier["source"], True, True], params)
        checked_first = sorted(first, key=repr)
        checked_last = sorted(
            connection.execute(tiers.LATE_TIER_HITS[tier["source"]], params), key=repr
        )
    assert checked_last == checked_first
    if filters.role == "user" and query == "riego" and drawn["session"] is None:
        assert checked_last  # the drawn filters keep hits (the test compares rows)


class Used(dict[str, str]):
    """LATE_TIER_HITS, noting each source whose statement is read."""

    def __init__(self, statements: dict[str, str], used: list[str]) -> None:
        super().__init__(statements)
        self.used = used

    def __getitem__(self, source: str) -> str:
        self.used.append(source)
        return super().__getitem__(source)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.sampled_from(QUERIES), drawn=ROLE_ALONE | FILTERS, wide=st.integers(1, 40))
def test_a_large_tier_checks_a_role_alone_last_and_recall_returns_the_same_page(
    garden: tuple[Path, list[str]], query: str, drawn: dict[str, Any], wide: int
) -> None:
    path, sessions = garden
    filters = recall_filters(drawn, sessions)
    service = MemoryService(path, config=MemoryConfig(max_results=20))
    arguments = {
        "session_id": filters.session_id,
        "role": filters.role,
        "since": filters.since,
        "until": filters.until,
        "speaker": filters.speaker,
        "limit": 20,
    }
    used: list[str] = []
    first = {source: tiers.TIER_HITS[source, True, True] for source in tiers.LATE_TIER_HITS}
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(ranking, "EXACT_HITS", 10)  # every tier of "riego" is large
            patch.setattr(bounds_sql, "BOUNDED_MESSAGES", 0)  # no filter bounds the search
            patch.setattr(ranking, "CANDIDATES", 6)
            patch.setattr(tiers, "WIDE_CANDIDATES", wide)
            patch.setattr(tiers, "LATE_TIER_HITS", Used(tiers.LATE_TIER_HITS, used))
            last = service.recall(query, **arguments)
            patch.setattr(tiers, "LATE_TIER_HITS", first)
            checked_first = service.recall(query, **arguments)
    finally:
        service.close()
    assert last == checked_first
    # A named speaker weighs each hit by its row; a filter other than a role can keep far
    # fewer than half the hits, where checking every hit first costs less (a review).
    named = query.startswith("Ana")
    role_alone = filters.role is not None and filters == RecallFilters(role=filters.role)
    assert bool(used) == (role_alone and not named)
