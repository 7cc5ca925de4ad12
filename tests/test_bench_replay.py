"""The bench's replay of recall's statements in plain sqlite3 (``bench.recall``) keeps up with
the statements: it passes every parameter they take and finds the same hits, so that
``make bench`` cannot break unseen when recall's SQL changes."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from bench.cases import Query
from bench.recall import plain_recall, same_hits
from memstore import MemoryService
from memstore.kinds import Mode
from memstore.text.fts_query import build_match, ranking_tiers
from tests.raw_sql import statements_connection
from tests.test_recall import chat

Seeded = Callable[[], AbstractContextManager[None]]


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("zebra", "any"),
        ("When did the zebra run?", "any"),  # the time words' match
        ("zebra lion", "all"),
        ("the zebra", "phrase"),
        ("the", "any"),  # stopwords alone: one tier of words as written
    ],
)
def test_the_bench_replays_recall_and_finds_the_same_hits(
    service: MemoryService, db_path: Path, seeded: Seeded, text: str, mode: Mode
) -> None:
    with seeded():
        chat(("user", "did the zebra run?"), ("assistant", "the zebra ran yesterday"))
        chat(("assistant", "Morning! The zebra and the lion woke up."), ("user", "Good."))
        chat(("user", "nothing about it"), ("assistant", "the lion sleeps"))
    tiers = tuple(map(tuple, ranking_tiers(text, mode)))
    case = Query("test", text, mode, build_match(text, mode), tiers=tiers)
    with statements_connection(db_path) as raw:
        assert same_hits(service, raw, case)


def test_the_careful_query_matches_by_stem_as_memstore_does(
    service: MemoryService, db_path: Path, seeded: Seeded
) -> None:
    """The bench's careful baseline runs the plain query on the stem index, so it finds the
    other forms of a word that memstore finds and the plain query does not."""
    with seeded():
        chat(("user", "the zebras ran"), ("assistant", "two zebras"))
        chat(("user", "a zebra"), ("assistant", "one zebra"))
    case = Query("test", "zebra", "any", build_match("zebra", "any"))
    with statements_connection(db_path) as raw:
        plain = {row[5] for row in plain_recall(raw, case)}
        careful = {row[5] for row in plain_recall(raw, case, careful=True)}
    assert plain == {"a zebra", "one zebra"}
    assert careful == {"the zebras ran", "two zebras", "a zebra", "one zebra"}
    recalled = service.recall("zebra")
    assert {m.content for c in recalled.conversations for m in c.messages} == careful


def test_a_case_with_a_role_filters_every_side_by_it(
    service: MemoryService, db_path: Path, seeded: Seeded
) -> None:
    with seeded():
        chat(("user", "the zebras ran"), ("assistant", "two zebras"))
        chat(("user", "a zebra"), ("assistant", "one zebra"))
    case = Query("test", "zebra", "any", build_match("zebra", "any"), role="user")
    with statements_connection(db_path) as raw:
        # Each side's hits, each followed by its reply: the requests only are hits.
        plain = [row[5] for row in plain_recall(raw, case)]
        careful = [row[5] for row in plain_recall(raw, case, careful=True)]
        assert same_hits(service, raw, case)
    assert plain == ["a zebra", "one zebra"]
    assert sorted(careful) == ["a zebra", "one zebra", "the zebras ran", "two zebras"]
    recalled = service.recall("zebra", role="user").conversations
    assert sorted(c.matched_id for c in recalled) == sorted(
        m.id for c in recalled for m in c.messages if m.role == "user"
    )


def test_the_bench_empties_memstores_caches_where_they_are_now() -> None:
    # Found running the bench: the layout moved a cached function, and the bench's reset
    # named it where it was, failing at its first recall.
    from bench.recall import forget_answers

    forget_answers()
