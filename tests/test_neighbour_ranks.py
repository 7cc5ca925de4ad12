"""A hit's neighbours' share of its rank, added in Python over a tier's hits
(memstore.text.neighbours.neighbour_ranks), the hits handed out best first in batches
(best_first), and a large tier ranked by its best candidates and the hits near them
(memstore.repository.tier_hits): the same ranks as a join of the hits on their session and
sequence, whatever order the messages were stored in.
"""

from __future__ import annotations

import itertools
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore import MemoryConfig, MemoryService
from memstore.concerns import recall as recall_concern
from memstore.queries import RecallFilters
from memstore.repository import recall as search
from memstore.repository import search_bounds
from memstore.repository import tier_hits as tiers
from memstore.repository.speaker_names import named_speakers
from memstore.text import neighbours, ranking
from memstore.text.fts_query import ranking_tiers
from tests.raw_sql import statements_connection

WORDS = ("riego", "lavanda", "semillas", "balcón")


def test_a_hit_adds_half_of_each_hit_next_to_it_and_a_fifth_two_away() -> None:
    hits = [
        (10, "a", 1, -4.0),
        (11, "a", 2, -2.0),
        (12, "a", 3, -1.0),
        (13, "a", 5, -8.0),  # sequence 4 is no hit: 5 is two away from 3, nothing from 2
        (14, "b", 2, -16.0),  # another session: never a neighbour of "a" 1 to 3
    ]
    ranks, owns = neighbours.neighbour_ranks(hits)
    assert dict((pk, rank) for rank, pk in ranks) == {
        10: pytest.approx(-4.0 + 0.5 * -2.0 + 0.2 * -1.0),
        11: pytest.approx(-2.0 + 0.5 * (-4.0 + -1.0)),
        12: pytest.approx(-1.0 + 0.5 * -2.0 + 0.2 * (-4.0 + -8.0)),
        13: pytest.approx(-8.0 + 0.2 * -1.0),
        14: -16.0,
    }
    assert owns == {"a": {1: -4.0, 2: -2.0, 3: -1.0, 5: -8.0}, "b": {2: -16.0}}


def test_a_hit_left_out_of_the_ranked_lends_its_rank_and_gets_none() -> None:
    hits = [(20, "a", 1, -1.0), (21, "a", 3, -3.0), (22, "a", 4, -5.0)]
    ranks, _ = neighbours.neighbour_ranks(hits, ranked={20, 21})
    assert dict((pk, rank) for rank, pk in ranks) == {
        20: pytest.approx(-1.0 + 0.2 * -3.0),
        21: pytest.approx(-3.0 + 0.5 * -5.0 + 0.2 * -1.0),
    }


@given(st.lists(st.tuples(st.floats(-50, 0), st.integers(1, 10**6)), unique_by=lambda r: r[1]))
def test_best_first_hands_out_every_rank_in_order_in_growing_batches(
    ranks: list[tuple[float, int]],
) -> None:
    batches = list(neighbours.best_first(ranks, 4))
    assert [rank for batch in batches for rank in batch] == sorted(ranks)
    assert [len(batch) for batch in batches[:-1]] == [4 * 2**n for n in range(len(batches) - 1)]
    assert all(batches)


@pytest.fixture(scope="module")
def interleaved(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Four sessions written in turns (so a session's neighbours are not pk neighbours),
    every seventh message deleted (gaps in the sequences), and a few messages in a role
    recall never shows."""
    path = tmp_path_factory.mktemp("neighbours") / "memory.sqlite3"
    service = MemoryService(path, config=MemoryConfig(max_results=50))
    rng = random.Random(20261206)
    sessions = [service.start_session().id for _ in range(4)]
    for n in range(240):
        role = rng.choice(["user", "assistant", "user", "assistant", "system"])
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 4)))
        message = service.record_message(rng.choice(sessions), role, f"{text} n{n}")
        if n % 7 == 3:
            service.delete_message(message.id)
    service.close()
    return path


# The neighbours' share the way the ranking query added it before the hits were ranked in
# Python: every hit joined with the hits up to two messages away in its session.
JOINED_RANKS = """
    WITH hits AS (
        SELECT json_extract(value, '$[0]') AS pk, json_extract(value, '$[1]') AS session_id,
               json_extract(value, '$[2]') AS sequence, json_extract(value, '$[3]') AS own
        FROM json_each(:hits))
    SELECT n.pk, sum(h.own * CASE abs(n.sequence - h.sequence)
                                WHEN 0 THEN 1 WHEN 1 THEN :near ELSE :far END)
    FROM hits AS n JOIN hits AS h ON h.session_id = n.session_id
         AND h.sequence BETWEEN n.sequence - 2 AND n.sequence + 2
    GROUP BY n.pk
"""
QUERIES = ["riego", "lavanda semillas", "balcón riego lavanda"]


def tier_rows(connection: sqlite3.Connection, query: str) -> list[tuple[int, str, int, float]]:
    """(pk, session_id, sequence, own rank) of every hit of the first tier of ``query`` in
    any mode."""
    tier = ranking_tiers(query, "any")[0]
    documents = search.part_documents(connection, [tier])
    total = search.indexed_messages(connection)
    parts = tiers.tier_parts(query, ranking.weighted_parts(tier, documents, total))
    assert parts is not None
    signals = search.ranking_signals(named_speakers(connection, query), [])
    signals |= search_bounds.pk_bounds(connection, RecallFilters()).params()
    statement = tiers.TIER_HITS[parts["source"], False, False]
    return connection.execute(statement, parts | RecallFilters().params() | signals).fetchall()


def joined_ranks(connection: sqlite3.Connection, query: str) -> dict[int, float]:
    """Every hit's rank of the first tier of ``query`` in any mode, by pk, from the join."""
    near, far = ranking.NEIGHBOUR_WEIGHTS
    params = {"hits": json.dumps(tier_rows(connection, query)), "near": near, "far": far}
    return dict(connection.execute(JOINED_RANKS, params).fetchall())


def found_ranks(connection: sqlite3.Connection, query: str) -> list[tuple[int, float]]:
    """(pk, rank) of each hit of ``query`` in any mode, in the order recall takes them."""
    pks = dict(connection.execute("SELECT id, pk FROM messages").fetchall())
    hits = search.history_hits(connection, query, "any", RecallFilters(), first=3)
    return [(pks[hit.id], hit.rank) for hit in hits]


@pytest.mark.parametrize("query", QUERIES)
def test_the_ranks_are_those_of_a_join_on_session_and_sequence(
    interleaved: Path, query: str
) -> None:
    with statements_connection(interleaved) as connection:
        joined = joined_ranks(connection, query)
        found = found_ranks(connection, query)
    assert len(found) == len(joined) > 40
    assert [rank for _, rank in found] == pytest.approx([joined[pk] for pk, _ in found])
    assert [rank for _, rank in found] == sorted(rank for _, rank in found)
    assert sorted(pk for pk, _ in found) == sorted(joined)


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("candidates", [1, 5, 16, 10**6])
def test_a_large_tier_ranks_its_best_candidates_and_their_neighbours_exactly(
    interleaved: Path, query: str, candidates: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every tier bounded, a few candidates at a time: each hit shown once, with the rank
    # the join gives it; first the candidates of best own rank and the hits up to two
    # messages from them, best first.
    monkeypatch.setattr(ranking, "EXACT_HITS", 0)
    monkeypatch.setattr(ranking, "CANDIDATES", candidates)
    with statements_connection(interleaved) as connection:
        rows = tier_rows(connection, query)
        joined = joined_ranks(connection, query)
        found = found_ranks(connection, query)
    assert sorted(pk for pk, _ in found) == sorted(joined)
    assert [rank for _, rank in found] == pytest.approx([joined[pk] for pk, _ in found])
    best = sorted(rows, key=lambda row: (row[3], row[0]))[:candidates]
    near = {
        pk
        for pk, session, sequence, _ in rows
        if any(s == session and abs(q - sequence) <= 2 for _, s, q, _ in best)
    }
    first = sorted(near, key=lambda pk: (round(joined[pk], 9), pk))  # the join adds in its order
    assert [pk for pk, _ in found[: len(first)]] == first


def test_a_bounded_tier_with_every_hit_a_candidate_is_the_exact_tier(
    interleaved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with statements_connection(interleaved) as connection:
        exact = found_ranks(connection, "lavanda semillas")
        monkeypatch.setattr(ranking, "EXACT_HITS", 0)
        bounded = found_ranks(connection, "lavanda semillas")
    assert [pk for pk, _ in bounded] == [pk for pk, _ in exact]
    assert [rank for _, rank in bounded] == pytest.approx([rank for _, rank in exact])


def test_a_bounded_pair_partner_far_from_the_candidates_still_counts_as_the_better_hit(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by a review: a request five messages before its reply (tool-call chains) was
    # beyond the hits read near the candidates, so its own rank was unknown and the reply,
    # a weaker hit, became the pair's matched message.
    service = MemoryService(db_path, config=MemoryConfig(max_results=50))
    other = service.start_session().id
    for n in range(40):
        service.record_message(other, "user", f"nothing to see here {n}")
    session = service.start_session().id
    request = service.record_message(session, "user", "apple pie recipe please")
    for step in range(5):
        service.record_message(session, "assistant", f"working on it, step {step}")
    reply = service.record_message(session, "assistant", "an apple, flour, butter, eggs, salt")
    service.record_message(session, "user", "thanks")
    service.record_message(session, "assistant", "apple apple apple")
    exact = service.recall("apple", full=True)
    monkeypatch.setattr(ranking, "EXACT_HITS", 0)
    monkeypatch.setattr(ranking, "CANDIDATES", 1)  # the last message; the reply is near it
    bounded = service.recall("apple", full=True)
    pair = next(c for c in bounded.conversations if reply.id in {m.id for m in c.messages})
    assert pair.matched_id == request.id
    assert {c.matched_id for c in bounded.conversations} == {
        c.matched_id for c in exact.conversations
    }


def test_a_bounded_tier_read_to_its_end_runs_its_statement_twice(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by a review: each further set of candidates ran the whole tier's statement
    # again, so reading every hit (a page of orphan replies) took hits / CANDIDATES runs.
    service = MemoryService(db_path, config=MemoryConfig(max_results=50))
    for n in range(30):
        service.record_message(service.start_session().id, "user", f"lavanda {n}")
    monkeypatch.setattr(ranking, "EXACT_HITS", 0)
    monkeypatch.setattr(ranking, "CANDIDATES", 2)
    statements: list[str] = []
    with statements_connection(db_path) as connection:
        connection.set_trace_callback(statements.append)
        found = list(search.history_hits(connection, "lavanda", "any", RecallFilters(), first=4))
    assert len(found) == len({hit.id for hit in found}) == 30
    assert sum("owned AS" in statement for statement in statements) == 2


@pytest.mark.parametrize(("first", "reads"), [(4, 3), (24, 1), (40, 1)])
def test_the_hits_are_read_first_at_a_time_then_twice_as_many(
    db_path: Path, first: int, reads: int
) -> None:
    service = MemoryService(db_path)
    for n in range(24):
        service.record_message(service.start_session().id, "user", f"lavanda {n}")
    statements: list[str] = []
    with statements_connection(db_path) as connection:
        connection.set_trace_callback(statements.append)
        found = search.history_hits(connection, "lavanda", "any", RecallFilters(), first=first)
        assert len(list(itertools.islice(found, 24))) == 24
    assert sum("AS page JOIN messages" in statement for statement in statements) == reads


@pytest.mark.parametrize("limit", [1, 8, 24])
def test_a_recall_reads_twice_its_page_of_hits_at_first(
    db_path: Path, limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by a review: a fixed first read of 16 hits made a page of 24 read three times.
    asked: list[int] = []
    history_hits = recall_concern.history_hits

    def spy(*args: Any, first: int) -> Iterator[Any]:
        asked.append(first)
        return history_hits(*args, first=first)

    monkeypatch.setattr(recall_concern, "history_hits", spy)
    service = MemoryService(db_path, config=MemoryConfig(max_results=50))
    service.record_message(service.start_session().id, "user", "lavanda")
    assert len(service.recall("lavanda", limit=limit).conversations) == 1
    assert asked == [2 * limit]
