"""Acceptance: the real corpora of ../shared, written as daily logs, import exactly as listed.

``../shared/tools/corpus2logs.py`` (run once per test session by the ``corpus_logs`` fixture)
writes, per set, one folder of daily logs per owner with the ``--speaker`` options to import
it (``SPEAKERS``), and ``manifest.jsonl``: every record an import must store, byte-exact.
"""

from __future__ import annotations

import json
import shlex
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memstore import ImportReport, MemoryService, Message

pytestmark = pytest.mark.corpora

SETS = ["locomo", "multilingual", "edge"]


@dataclass(frozen=True)
class SetImport:
    """One set imported owner folder by owner folder into one database."""

    service: MemoryService
    reports: list[ImportReport]
    seconds: float


def speakers_of(owner: Path) -> dict[str, str]:
    """The ``--speaker "Name=role"`` options of an owner folder as a mapping."""
    words = shlex.split((owner / "SPEAKERS").read_text(encoding="utf-8"))
    assert words[0::2] == ["--speaker"] * (len(words) // 2)
    return dict(word.split("=", 1) for word in words[1::2])


def import_set(root: Path, service: MemoryService, *, include_tail: bool) -> SetImport:
    # Some edge-set conversations produce no log at all; a folder without one is reported
    # as an error (an import never stays silent), so only folders holding logs are given.
    owners = sorted(
        folder
        for folder in root.iterdir()
        if (folder / "SPEAKERS").is_file() and any(folder.glob("*.md"))
    )
    start = time.perf_counter()
    reports = [
        service.import_markdown([owner], speakers=speakers_of(owner), include_tail=include_tail)
        for owner in owners
    ]
    seconds = time.perf_counter() - start
    print(f"{root.name}: import (include_tail={include_tail}) took {seconds:.2f} s")
    return SetImport(service, reports, seconds)


def manifest(root: Path) -> list[dict[str, Any]]:
    lines = (root / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def source_ref(out: Path, row: dict[str, Any]) -> str:
    return f"{(out / row['file']).resolve()}#byte={row['byte']}"


def files(result: SetImport) -> list[Any]:
    return [file for report in result.reports for file in report.files]


def stored(result: SetImport) -> list[Message]:
    """Every message of every imported file, through the service, file by file in order."""
    messages: list[Message] = []
    for file in files(result):
        assert file.session_id is not None
        after = 0
        while page := result.service.messages(file.session_id, after=after, limit=500):
            messages.extend(page)
            after = page[-1].sequence
    return messages


@pytest.fixture(scope="module", params=SETS)
def corpus(request: pytest.FixtureRequest, corpus_logs: Path) -> Path:
    root = corpus_logs / request.param
    assert (root / "manifest.jsonl").is_file()
    return root


@pytest.fixture(scope="module")
def with_tail(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> SetImport:
    database = tmp_path_factory.mktemp(f"{corpus.name}-tail") / "memory.sqlite3"
    return import_set(corpus, MemoryService(database), include_tail=True)


@pytest.fixture(scope="module")
def without_tail(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> SetImport:
    database = tmp_path_factory.mktemp(f"{corpus.name}-sealed") / "memory.sqlite3"
    return import_set(corpus, MemoryService(database), include_tail=False)


def test_import_with_tail_stores_exactly_the_manifest(corpus: Path, with_tail: SetImport) -> None:
    # The manifest is what an import must store: every record, byte offset, role and time.
    rows = manifest(corpus)
    assert [(f.path, f.error, f.warnings) for f in files(with_tail) if f.error or f.warnings] == []
    assert sum(report.imported for report in with_tail.reports) == len(rows)
    messages = stored(with_tail)
    assert len(messages) == len(rows)
    expected = {
        source_ref(corpus.parent, row): (
            row["role"],
            row["content"],
            datetime.fromisoformat(row["created_at"]),
        )
        for row in rows
    }
    actual = {m.source_ref: (m.role, m.content, m.created_at) for m in messages}
    assert actual == expected
    assert all(m.created_at.utcoffset() == timedelta(0) for m in messages)
    assert all(m.status == "completed" for m in messages)


def test_each_file_is_one_session_in_file_order(with_tail: SetImport) -> None:
    # Sequences follow the records' byte order within each file's synthetic session.
    by_session: dict[str, list[Message]] = {}
    for message in stored(with_tail):
        by_session.setdefault(message.session_id, []).append(message)
    assert len(by_session) == len(files(with_tail))
    for messages in by_session.values():
        assert [m.sequence for m in messages] == list(range(1, len(messages) + 1))
        offsets = [int(str(m.source_ref).rsplit("=", 1)[1]) for m in messages]
        assert offsets == sorted(offsets)


def test_import_without_tail_defers_exactly_the_final_records(
    corpus: Path, without_tail: SetImport
) -> None:
    # Without --include-tail the last record of each file may still be written: it waits.
    rows = manifest(corpus)
    tails = [row for row in rows if row["tail"]]
    assert [f.error for f in files(without_tail) if f.error] == []
    assert sum(f.deferred for f in files(without_tail)) == len(tails)
    deferred_per_file = Counter(str((corpus.parent / row["file"]).resolve()) for row in tails)
    assert {f.path: f.deferred for f in files(without_tail)} == deferred_per_file
    stored_refs = {m.source_ref for m in stored(without_tail)}
    every_ref = {source_ref(corpus.parent, row) for row in rows}
    assert every_ref - stored_refs == {source_ref(corpus.parent, row) for row in tails}
    assert stored_refs <= every_ref


def test_second_import_imports_nothing_and_skips_everything(
    corpus: Path, with_tail: SetImport
) -> None:
    # Re-importing the same folders is idempotent: every record is already stored.
    again = import_set(corpus, with_tail.service, include_tail=True)
    assert sum(report.imported for report in again.reports) == 0
    assert sum(f.skipped for f in files(again)) == len(manifest(corpus))
    assert sum(f.deferred for f in files(again)) == 0
    assert sum(report.errors for report in again.reports) == 0
