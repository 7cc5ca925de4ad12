"""Recall's search bounded to the pk range of its time window, session and speaker
(memstore.repository.search_bounds.pk_bounds): the bounds change how much of the index is read,
never what recall returns, even where pks do not follow time.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore import MemoryConfig, MemoryService, RecallResult
from memstore.queries import RecallFilters
from memstore.repository import recall as search
from memstore.repository import search_bounds as bounds_sql
from memstore.text import ranking
from memstore.text.fts_query import ranking_tiers

START = datetime(2026, 3, 1, tzinfo=UTC)
DAYS = 20
WORDS = ("riego", "lavanda", "semillas", "balcón", "tomates")
SPEAKERS = ("Ana", "Bo", None)
WINDOW = ("since", "until")  # the fields of a time window


@pytest.fixture(scope="module")
def shuffled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MemoryService, list[str]]]:
    """Three sessions whose messages were written on random days, stored in another order
    than they were written (pks do not follow time), by speakers taking random turns (Bo
    only in the last 50); the sessions' ids."""
    path = tmp_path_factory.mktemp("bounds") / "memory.sqlite3"
    service = MemoryService(path, config=MemoryConfig(max_results=50))
    rng = random.Random(20261201)
    sessions = [service.start_session().id for _ in range(3)]
    for n in range(150):
        session = sessions[n % 3]
        written = START + timedelta(days=rng.randrange(DAYS), minutes=rng.randrange(1440))
        text = f"{rng.choice(WORDS)} {rng.choice(WORDS)} n{n}"
        role = "user" if n % 2 == 0 else "assistant"
        speaker = rng.choice(SPEAKERS[:1] + SPEAKERS[2:] if n < 100 else SPEAKERS)
        service.record_message(session, role, text, created_at=written, speaker=speaker)
    yield service, sessions
    service.close()


def unbounded(connection: object, filters: RecallFilters, hits: int = 0) -> bounds_sql.PkBounds:
    return bounds_sql.PkBounds()


def unbounded_recall(service: MemoryService, word: str, query: dict[str, Any]) -> RecallResult:
    """The recall with its search bounded by no filter (every hit checked by them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bounds_sql, "pk_bounds", unbounded)
        return service.recall(word, **query)


def shown(result: RecallResult) -> list[tuple[str, list[str]]]:
    return [(c.matched_id, [m.id for m in c.messages]) for c in result.conversations]


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    word=st.sampled_from(WORDS),
    first=st.integers(0, DAYS),
    length=st.integers(0, DAYS),
    session=st.sampled_from([None, 0, 1, 2]),
    speaker=st.sampled_from([None, "Ana", "bo", "Zed"]),
    most=st.integers(0, 160),
    per_hit=st.integers(0, 12),
)
def test_the_bounds_never_change_what_recall_returns(
    shuffled: tuple[MemoryService, list[str]],
    word: str,
    first: int,
    length: int,
    session: int | None,
    speaker: str | None,
    most: int,
    per_hit: int,
) -> None:
    # The read limits drawn make each filter bound the search or not, whatever it keeps.
    service, sessions = shuffled
    since = START + timedelta(days=first)
    query = {
        "since": since,
        "until": since + timedelta(days=length),
        "session_id": None if session is None else sessions[session],
        "speaker": speaker,
        "limit": 50,
    }
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bounds_sql, "BOUNDED_MESSAGES", most)
        patch.setattr(bounds_sql, "SCAN_PER_HIT", per_hit)
        bounded = service.recall(word, **query)
    assert shown(bounded) == shown(unbounded_recall(service, word, query))
    with pytest.MonkeyPatch.context() as patch:  # every tier counted and weighted by it
        count = search.part_documents
        patch.setattr(search, "part_documents", lambda c, _: count(c, ranking_tiers(word, "any")))
        counted = service.recall(word, **query)
    assert shown(bounded) == shown(counted)


def test_a_window_finds_every_message_written_in_it_whatever_its_pk(
    shuffled: tuple[MemoryService, list[str]],
) -> None:
    service, _ = shuffled
    since, until = START + timedelta(days=5), START + timedelta(days=8)
    result = service.recall("riego", since=since, until=until, limit=50, full=True)
    matched = {m.id: m for c in result.conversations for m in c.messages if m.id == c.matched_id}
    assert matched and all(since <= m.created_at < until for m in matched.values())
    everything = service.recall("riego", limit=50, full=True)
    expected = {
        m.id
        for c in everything.conversations
        for m in c.messages
        if "riego" in m.content and since <= m.created_at < until
    }
    assert expected <= {m.id for c in result.conversations for m in c.messages}


def test_a_window_without_messages_and_one_over_the_bound(
    shuffled: tuple[MemoryService, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    service, _ = shuffled
    empty = START - timedelta(days=30)
    assert service.recall("riego", since=empty, until=START).conversations == []
    with service._db.read() as connection:  # the bounds themselves
        window = RecallFilters(since=START, until=START + timedelta(days=DAYS))
        assert bounds_sql.pk_bounds(
            connection, RecallFilters(since=empty, until=START)
        ).params() == {
            "low_pk": 1,
            "high_pk": 0,
        }
        assert bounds_sql.pk_bounds(connection, window) == bounds_sql.PkBounds(
            1, 150, implied=WINDOW
        )
        monkeypatch.setattr(bounds_sql, "BOUNDED_MESSAGES", 149)  # the window keeps 150
        assert bounds_sql.pk_bounds(connection, window) == bounds_sql.PkBounds(cut_short=True)


def test_a_query_with_a_long_list_reads_a_larger_filter(
    shuffled: tuple[MemoryService, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the fixed limit, a window is still read when the query's longest list holds at
    least 1/SCAN_PER_HIT as many documents as the window keeps messages (150 here): a fixed
    limit made a window one day over it slower than no window at all."""
    service, _ = shuffled
    monkeypatch.setattr(bounds_sql, "BOUNDED_MESSAGES", 149)
    monkeypatch.setattr(bounds_sql, "SCAN_PER_HIT", 8)
    window = RecallFilters(since=START, until=START + timedelta(days=DAYS))
    with service._db.read() as connection:
        assert bounds_sql.pk_bounds(connection, window, hits=19) == bounds_sql.PkBounds(
            1, 150, implied=WINDOW
        )
        assert bounds_sql.pk_bounds(connection, window, hits=18) == bounds_sql.PkBounds(
            cut_short=True
        )
        parts = ranking_tiers("riego lavanda", "any")
        documents = search.part_documents(connection, parts)
        longest = search.longest_list(parts, documents)
        counts = [
            connection.execute(
                "SELECT count(*) FROM messages_stem_fts WHERE messages_stem_fts MATCH ?", (word,)
            ).fetchone()[0]
            for word in ("riego", "lavanda")
        ]
        assert longest == max(counts) >= 19  # the longer word list of the first tier
    assert search.longest_list([], {}) == 0
    asked: list[int] = []
    bounds = bounds_sql.pk_bounds

    def seen(connection: Any, filters: RecallFilters, hits: int = 0) -> bounds_sql.PkBounds:
        asked.append(hits)
        return bounds(connection, filters, hits)

    monkeypatch.setattr(bounds_sql, "pk_bounds", seen)
    service.recall("riego lavanda", since=window.since, until=window.until)
    assert asked == [0, longest]  # cut short at the fixed limit, then read as far as it pays
    asked.clear()
    monkeypatch.setattr(bounds_sql, "SCAN_PER_HIT", 149 // longest)
    service.recall("riego lavanda", since=window.since, until=window.until)
    assert asked == [0]  # the list would not read further: no second read (a review's find)
    asked.clear()
    monkeypatch.setattr(bounds_sql, "BOUNDED_MESSAGES", 150)
    service.recall("riego lavanda", since=window.since, until=window.until)
    assert asked == [0]  # read whole at the fixed limit


@pytest.fixture(scope="module")
def in_order(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MemoryService, list[str]]]:
    """Four sessions of 40 messages written in order, each stored together (as an import
    stores a log), then a fifth written over the same days and stored after them; every
    seventh message of the first and the fourth deleted (a gap in the pks); the sessions'
    ids."""
    path = tmp_path_factory.mktemp("in-order") / "memory.sqlite3"
    service = MemoryService(path, config=MemoryConfig(max_results=50))
    rng = random.Random(20261206)
    sessions: list[str] = []
    deleted: list[str] = []
    for block in range(5):
        session = service.start_session().id
        sessions.append(session)
        for n in range(40):
            day = block * 4 + n // 10 if block < 4 else rng.randrange(DAYS)
            written = START + timedelta(days=day, minutes=n)
            text = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {rng.choice(WORDS)} n{n}"
            role = "user" if n % 2 == 0 else "assistant"
            speaker = "Ana" if block == 2 else rng.choice(SPEAKERS)
            message = service.record_message(
                session, role, text, created_at=written, speaker=speaker
            )
            if block in (0, 3) and n % 7 == 6:
                deleted.append(message.id)
    for message_id in deleted:  # after the others: a pk left free at the end is taken again
        service.delete_message(message_id)
    yield service, sessions
    service.close()


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    word=st.sampled_from(WORDS),
    first=st.integers(0, DAYS),
    length=st.integers(0, 6),
    session=st.sampled_from([None, 0, 2, 4]),
    speaker=st.sampled_from([None, "Ana", "bo"]),
    role=st.sampled_from([None, "user"]),
)
def test_filters_a_range_implies_are_not_checked_again_and_change_nothing(
    in_order: tuple[MemoryService, list[str]],
    word: str,
    first: int,
    length: int,
    session: int | None,
    speaker: str | None,
    role: str | None,
) -> None:
    service, sessions = in_order
    since = START + timedelta(days=first)
    query: dict[str, Any] = {
        "since": since,
        "until": since + timedelta(days=length),
        "session_id": None if session is None else sessions[session],
        "speaker": speaker,
        "role": role,
        "limit": 50,
        "full": True,
    }
    bounded = service.recall(word, **query)
    assert shown(bounded) == shown(unbounded_recall(service, word, query))


def test_a_session_stored_together_implies_itself_and_a_gap_implies_nothing(
    in_order: tuple[MemoryService, list[str]],
) -> None:
    service, sessions = in_order
    with service._db.read() as connection:
        bounds = [bounds_sql.pk_bounds(connection, RecallFilters(session_id=s)) for s in sessions]
        ana = bounds_sql.pk_bounds(connection, RecallFilters(speaker="Ana"))
        day = RecallFilters(since=START + timedelta(days=4), until=START + timedelta(days=5))
        (writers,) = connection.execute(
            "SELECT count(DISTINCT session_id) FROM messages WHERE created_at >= ? "
            "AND created_at < ?",
            (day.params()["since"], day.params()["until"]),
        ).fetchone()
        assert writers == 2  # the second session's first day, and the fifth's
        assert bounds_sql.pk_bounds(connection, day).implied == ()
    session = ("session_id",)
    assert [b.implied for b in bounds] == [(), session, session, (), session]  # gaps: none
    assert [b.high - b.low + 1 for b in bounds] == [40] * 5
    assert ana.implied == ()  # Ana speaks in other sessions too
    assert bounds_sql.PkBounds(implied=("session_id",)).unchecked(
        RecallFilters(session_id="s", role="user")
    ) == RecallFilters(role="user")


def test_a_range_is_narrow_up_to_exact_hits_pks_and_never_when_cut_short() -> None:
    most = ranking.EXACT_HITS
    assert bounds_sql.PkBounds(1, 0).narrow()  # empty
    assert bounds_sql.PkBounds(1, most).narrow()
    assert not bounds_sql.PkBounds(1, most + 1).narrow()
    assert not bounds_sql.PkBounds().narrow()
    assert not bounds_sql.PkBounds(1, 2, cut_short=True).narrow()


def test_a_narrow_window_counts_no_lone_word_and_ranks_every_hit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tier of one word searched within at most EXACT_HITS pks has at most that many
    hits: its list is not counted (its weight only scales its ranks) and every hit is
    ranked exactly, however many documents the word finds in the whole history."""
    service = MemoryService(tmp_path / "memory.sqlite3")
    session = service.start_session().id
    for n in range(120):  # written in time order: a day is 12 consecutive pks
        role = "user" if n % 2 == 0 else "assistant"
        written = START + timedelta(hours=2 * n)
        text = " ".join(["riego"] * (n % 3 + 1) + ["agua"] * (n % 5) + [f"n{n}"])
        service.record_message(session, role, text, created_at=written)
    chosen: list[bool] = []
    search_tier = search.tier_hits

    def spied(*args: Any, bounded: bool, **kwargs: Any) -> Any:
        chosen.append(bounded)
        return search_tier(*args, bounded=bounded, **kwargs)

    monkeypatch.setattr(search, "tier_hits", spied)
    monkeypatch.setattr(ranking, "EXACT_HITS", 40)  # "riego" is in 120 messages
    statements: list[str] = []
    with service._db.read() as connection:
        connection.set_trace_callback(statements.append)
    day = {"since": START, "until": START + timedelta(days=1)}
    narrow = service.recall("riego", **day)
    assert not any("part.value" in statement for statement in statements)  # no count
    assert not any("messages AS h" in statement for statement in statements)  # no window check
    wide = service.recall("riego", since=START, until=START + timedelta(days=10))
    assert any("part.value" in statement for statement in statements)
    assert chosen == [False, True]  # 120 pks are more than 40: candidates first
    assert {m.content.split()[-1] for c in narrow.conversations for m in c.messages} == {
        f"n{n}" for n in range(12)
    }
    assert wide.conversations
    with pytest.MonkeyPatch.context() as patch:  # counted and weighted: the same ranking
        count = search.part_documents
        patch.setattr(
            search, "part_documents", lambda c, _: count(c, ranking_tiers("riego", "any"))
        )
        assert shown(service.recall("riego", **day)) == shown(narrow)
    service.close()


def test_a_session_bounds_the_search_to_its_messages(
    shuffled: tuple[MemoryService, list[str]], tmp_path: Path
) -> None:
    service, sessions = shuffled
    result = service.recall("lavanda", session_id=sessions[1], limit=50)
    assert result.conversations
    assert {c.session_id for c in result.conversations} == {sessions[1]}


def test_a_speaker_bounds_the_search_to_the_range_of_their_messages(
    shuffled: tuple[MemoryService, list[str]],
) -> None:
    service, _ = shuffled
    with service._db.read() as connection:
        (first, last), none = (
            connection.execute(
                "SELECT min(pk), max(pk) FROM messages WHERE speaker = 'Bo'"
            ).fetchone(),
            RecallFilters(speaker="Zed"),
        )
        assert 100 < first <= last <= 150  # Bo speaks only in the last 50
        assert bounds_sql.pk_bounds(connection, RecallFilters(speaker="BO")) == bounds_sql.PkBounds(
            first, last
        )
        assert bounds_sql.pk_bounds(connection, none) == bounds_sql.PkBounds(1, 0)
    said = service.recall("riego", speaker="bo", limit=50, full=True)
    assert said.conversations
    assert all(
        m.speaker == "Bo" for c in said.conversations for m in c.messages if m.id == c.matched_id
    )
