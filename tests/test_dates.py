"""The months and years a recall query names (the date signal of memstore.text.ranking)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore import MemoryService
from memstore.concerns.recall import local_place, named_periods
from memstore.store.database import Database
from memstore.text.dates import MONTHS, TIME_WORDS, NamedTime, asks_when, named_time
from memstore.text.tokens import tokenize
from memstore.times import month_start
from tests.test_recall import chat

Seeded = Callable[[], AbstractContextManager[None]]


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("When did Melanie go camping in June?", NamedTime((6,), ())),
        ("Which places was Evan visiting in July 2023?", NamedTime((7,), (2023,))),
        ("what happened in 1999 and 2023, or 2023", NamedTime((), (1999, 2023))),
        ("May or June? March!", NamedTime((5, 6, 3), ())),
        ("you may march on", None),  # lower case: verbs
        ("Junes, in 12023 or 1899 or 2100", None),  # no month, no year of 1900-2099
        ("the 2023-05-08 log", NamedTime((), (2023,))),  # a word of its own between dashes
        ("", None),
    ],
)
def test_named_time(query: str, named: NamedTime | None) -> None:
    assert named_time(query) == named


@given(st.text(max_size=200))
def test_named_time_reads_only_capitalised_months_and_years(query: str) -> None:
    named = named_time(query)
    words = tokenize(query)
    months = {MONTHS.index(word) + 1 for word in words if word in MONTHS}
    years = {int(word) for word in words if word.isascii() and word.isdigit() and len(word) == 4}
    years = {year for year in years if 1900 <= year <= 2099}
    if named is None:
        assert not months and not years
    else:
        assert set(named.months) == months and set(named.years) == years


def test_month_start_rolls_over_into_the_next_year() -> None:
    assert month_start(2023, 13, UTC) == datetime(2024, 1, 1, tzinfo=UTC)
    assert month_start(2023, 2, UTC) == datetime(2023, 2, 1, tzinfo=UTC)


def test_a_month_without_a_year_is_that_month_of_every_year_of_the_history(
    db_path: Path, seeded: Seeded
) -> None:
    with seeded():
        chat(("user", "early"), at=datetime(2021, 3, 10, tzinfo=UTC))
        chat(("user", "late"), at=datetime(2023, 8, 1, tzinfo=UTC))
    place = local_place()
    with Database(db_path).read() as connection:
        june = named_periods(connection, "camping in June")
        years = named_periods(connection, "in 2022 or 2030")
        nothing = named_periods(connection, "camping")
    first, last = 2021, 2023  # local years of the two messages (mid-month, any zone)
    assert june == [
        (month_start(year, 6, place), month_start(year, 7, place))
        for year in range(first, last + 1)
    ]
    assert years == [
        (month_start(2022, 1, place), month_start(2022, 13, place)),
        (month_start(2030, 1, place), month_start(2030, 13, place)),
    ]
    assert nothing == []


def test_no_history_names_no_period(db_path: Path, seeded: Seeded) -> None:
    with seeded():
        pass
    with Database(db_path).read() as connection:
        assert named_periods(connection, "in June") == []


@pytest.mark.parametrize(
    "moment",
    [datetime(1, 1, 1, 0, 30, tzinfo=UTC), datetime(9999, 12, 31, 23, 0, tzinfo=UTC)],
)
@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo", "UTC"])
def test_a_history_at_the_ends_of_the_calendar_still_ranks_by_month(
    db_path: Path,
    seeded: Seeded,
    monkeypatch: pytest.MonkeyPatch,
    moment: datetime,
    zone: str,
) -> None:
    # Found by review: the span's first time at year 1 overflowed in a zone west of UTC.
    monkeypatch.setattr("memstore.concerns.recall.local_place", lambda: ZoneInfo(zone))
    with seeded():
        chat(("user", "garden note"), at=moment)
        chat(("user", "garden plan"), at=datetime(2023, 6, 10, tzinfo=UTC))
    with Database(db_path).read() as connection:
        periods = named_periods(connection, "garden June")
    place = ZoneInfo(zone)
    years = range(1900, 2024) if moment.year == 1 else range(2023, 2100)
    assert periods == [(month_start(y, 6, place), month_start(y, 7, place)) for y in years]
    found = MemoryService(db_path).recall("garden June").conversations
    assert len(found) == 2


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("When did Melanie go camping?", True),
        ("so, when", True),
        ("WHEN?", True),
        ("whén", True),  # folded as the index folds it
        ("whenever you like", False),
        ("Where did Melanie go?", False),
        ("", False),
    ],
)
def test_a_query_asks_when_by_the_word_when(query: str, asks: bool) -> None:
    assert asks_when(query) is asks


def test_the_time_words_are_folded_index_words_without_the_verbs_may_and_march() -> None:
    assert all(word == word.casefold() and tokenize(word) == [word] for word in TIME_WORDS)
    assert "may" not in TIME_WORDS
    assert "march" not in TIME_WORDS
    assert {"yesterday", "last", "week", "june"} <= set(TIME_WORDS)
