"""The bench's replay of recall's statements in plain sqlite3 (``bench.recall``) keeps up with
the statements: it passes every parameter they take and finds the same hits, so that
``make bench`` cannot break unseen when recall's SQL changes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from bench.cases import Query
from bench.recall import same_hits
from memstore import MemoryService
from memstore.kinds import Mode
from memstore.text.fts_query import build_match, ranking_tiers
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
    with sqlite3.connect(db_path) as raw:
        assert same_hits(service, raw, case)
