"""The import's bulk indexing (memstore.repository.bulk_index): files stored in batches, each
batch's messages indexed together at its end, the triggers back for live writes after.

Real logs, real databases; each index is compared with the messages it should hold.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager, closing
from pathlib import Path

import pytest

from memstore import FileImport, MemoryService
from memstore.concerns.importing import BATCH_BYTES, BATCH_FILES, BATCH_RECORDS
from memstore.store.fts_names import FTS_TRIGGERS, MESSAGES_FTS, MESSAGES_STEM_FTS
from tests import factories

SPEAKERS = {"Diego": "user", "Morgan": "assistant"}
SEARCHABLE = "SELECT count(*) FROM messages WHERE role IN ('user', 'assistant')"


def day_log(folder: Path, day: int, records: int) -> Path:
    """A daily log of ``records`` alternating messages, each holding a word of its own
    (``w<day>x<n>``)."""
    folder.mkdir(exist_ok=True)
    name = f"2026-03-{day:02}"
    text = f"Morgan Log \u2014 {name}"
    for n in range(records):
        speaker = "Diego" if n % 2 == 0 else "Morgan"
        text += f"\n\n[09:{n // 60 % 60:02}:{n % 60:02} +0000] \n{speaker}: riego w{day}x{n} hoy"
    path = folder / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def indexed(db_path: Path) -> dict[str, int]:
    """Documents in each history index, and the searchable messages they should hold."""
    with closing(sqlite3.connect(db_path)) as connection:
        counts = {
            index: connection.execute(f"SELECT count(*) FROM {index}_docsize").fetchone()[0]
            for index in (MESSAGES_FTS, MESSAGES_STEM_FTS)
        }
        counts["searchable"] = connection.execute(SEARCHABLE).fetchone()[0]
    return counts


def schema(db_path: Path) -> list[tuple[str, str]]:
    """sqlite_master's objects in its own order: what a dump of the database shows."""
    with closing(sqlite3.connect(db_path)) as connection:
        return connection.execute("SELECT name, sql FROM sqlite_master").fetchall()


def triggers(db_path: Path) -> set[str]:
    with closing(sqlite3.connect(db_path)) as connection:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        return {name for (name,) in rows}


def found(service: MemoryService, word: str) -> list[str]:
    """The contents of the matched messages of a recall."""
    result = service.recall(word)
    return [m.content for c in result.conversations for m in c.messages if m.id == c.matched_id]


def test_an_import_of_several_batches_indexes_every_message_once(
    service: MemoryService, db_path: Path, tmp_path: Path
) -> None:
    records = 500
    days = range(1, 2 * BATCH_RECORDS // records + 3)  # three batches, the last one short
    paths = [day_log(tmp_path / "logs", day, records) for day in days]
    committed: list[FileImport] = []
    report = service.import_markdown(
        paths, speakers=SPEAKERS, include_tail=True, progress=committed.append
    )
    assert (report.imported, report.errors) == (len(paths) * records, 0)
    assert [file.path for file in committed] == [str(path) for path in paths]
    total = len(paths) * records
    assert indexed(db_path) == {MESSAGES_FTS: total, MESSAGES_STEM_FTS: total, "searchable": total}
    assert service.health().ok
    assert triggers(db_path) >= set(FTS_TRIGGERS)
    for day, n in ((days[0], 0), (days[-1], records - 1), (3, 250)):
        assert found(service, f"w{day}x{n}") == [f"riego w{day}x{n} hoy"]


def test_live_writes_after_an_import_are_indexed_by_the_triggers(
    service: MemoryService, db_path: Path, tmp_path: Path
) -> None:
    service.import_markdown([day_log(tmp_path / "logs", 1, 10)], speakers=SPEAKERS)
    session = service.start_session()
    service.record_message(session.id, "user", "lavanda en el balcón")
    assert found(service, "lavanda") == ["lavanda en el balcón"]
    assert indexed(db_path)["searchable"] == indexed(db_path)[MESSAGES_STEM_FTS] == 10


def test_a_file_refused_halfway_leaves_nothing_and_the_others_are_indexed(
    service: MemoryService,
    db_path: Path,
    tmp_path: Path,
    seeded: Callable[[], AbstractContextManager[None]],
) -> None:
    # The middle file is refused at its 250th record, after two statements of its rows
    # went in: its savepoint takes them back, and the index never sees them.
    logs = tmp_path / "logs"
    first, refused, last = (day_log(logs, day, 300) for day in (1, 2, 3))
    data = refused.read_bytes()
    byte = data.rindex(b"\n\n[", 0, data.index(b"riego w2x250 ")) + 2
    with seeded():
        factories.MessageFactory(content="otra cosa", source_ref=f"{refused.resolve()}#byte={byte}")
    report = service.import_markdown([first, refused, last], speakers=SPEAKERS)
    assert [file.imported for file in report.files] == [299, 0, 299]  # tails deferred
    assert report.files[1].error is not None
    assert "review the file manually" in report.files[1].error
    assert indexed(db_path) == {MESSAGES_FTS: 599, MESSAGES_STEM_FTS: 599, "searchable": 599}
    assert found(service, "w2x10") == []
    assert found(service, "w3x10") == ["riego w3x10 hoy"]
    assert service.health().ok


def test_an_import_that_stores_nothing_leaves_the_schema_as_it_was(
    service: MemoryService, db_path: Path, tmp_path: Path
) -> None:
    path = day_log(tmp_path / "logs", 1, 20)
    service.import_markdown([path], speakers=SPEAKERS, include_tail=True)
    before = schema(db_path)
    again = service.import_markdown([path], speakers=SPEAKERS, include_tail=True)
    assert (again.imported, again.skipped) == (0, 20)
    assert schema(db_path) == before


@pytest.mark.parametrize("include_tail", [True, False])
def test_messages_after_the_largest_rowid_are_indexed_by_the_triggers(
    service: MemoryService,
    db_path: Path,
    tmp_path: Path,
    seeded: Callable[[], AbstractContextManager[None]],
    include_tail: bool,
) -> None:
    # Past the largest rowid SQLite picks free ones at random: new messages are no longer
    # "the pks after the last one", so the triggers index them as they go in.
    with seeded():
        factories.MessageFactory(pk=2**63 - 1, content="semillas nuevas")
    path = day_log(tmp_path / "logs", 1, 40)
    report = service.import_markdown([path], speakers=SPEAKERS, include_tail=include_tail)
    assert report.imported == (40 if include_tail else 39)
    expected = report.imported + 1
    assert indexed(db_path) == {
        MESSAGES_FTS: expected,
        MESSAGES_STEM_FTS: expected,
        "searchable": expected,
    }
    assert found(service, "w1x7") == ["riego w1x7 hoy"]
    assert found(service, "semillas") == ["semillas nuevas"]
    assert service.health().ok


def commits_seen(db_path: Path, run: Callable[[Callable[[FileImport], None]], object]) -> int:
    """How many commits another connection sees while ``run(progress)`` imports: ``PRAGMA
    data_version`` changes with every commit of another connection, read at each file's
    report."""
    with closing(sqlite3.connect(db_path)) as watcher:
        versions = set()
        run(lambda _: versions.add(watcher.execute("PRAGMA data_version").fetchone()[0]))
        return len(versions)


def test_a_batch_ends_after_so_many_records_read_even_when_none_is_new(
    service: MemoryService, db_path: Path, tmp_path: Path
) -> None:
    # A re-import stores nothing new: its batches are bounded by the records they read, so
    # that a live write gets the lock between them (found by review: one transaction held
    # the lock for the whole re-import, and a live write failed after 500 ms).
    paths = [day_log(tmp_path / "logs", day, 200) for day in range(1, 31)]  # 6,000 records
    service.import_markdown(paths, speakers=SPEAKERS, include_tail=True)

    def again(progress: Callable[[FileImport], None]) -> None:
        report = service.import_markdown(
            paths, speakers=SPEAKERS, include_tail=True, progress=progress
        )
        assert (report.imported, report.skipped) == (0, 6000)

    assert commits_seen(db_path, again) >= 6000 // BATCH_RECORDS


def test_a_batch_ends_after_so_many_bytes_read(
    service: MemoryService, db_path: Path, tmp_path: Path
) -> None:
    # A few long messages are a batch too: the WAL holds all of a transaction's writes
    # (found by review: 30 files of long messages were one transaction and 358 MiB of WAL).
    logs = tmp_path / "logs"
    logs.mkdir()
    word = "x" * (BATCH_BYTES // 2)  # a file just over half a batch
    paths = []
    for day in range(1, 7):  # six files of one long message: two files a batch
        path = logs / f"2026-03-{day:02}.md"
        path.write_text(f"Morgan Log \u2014 2026-03-{day:02}\n\n[09:00:00 +0000] \nDiego: {word}")
        paths.append(path)

    def first(progress: Callable[[FileImport], None]) -> None:
        report = service.import_markdown(
            paths, speakers=SPEAKERS, include_tail=True, progress=progress
        )
        assert report.imported == 6

    assert commits_seen(db_path, first) >= 3
    assert service.health().ok


def test_a_batch_ends_after_so_many_files_however_small(
    service: MemoryService, db_path: Path, tmp_path: Path
) -> None:
    # Each file costs its savepoint, session and imports row: 5,000 one-line files were one
    # transaction of over a second (found by review of issue 18).
    folders = range(2 * BATCH_FILES // 28 + 1)  # a daily log a day of March, folder by folder
    paths = [day_log(tmp_path / f"logs{n}", day, 1) for n in folders for day in range(1, 29)]

    def first(progress: Callable[[FileImport], None]) -> None:
        report = service.import_markdown(
            paths, speakers=SPEAKERS, include_tail=True, progress=progress
        )
        assert report.imported == len(paths)

    assert commits_seen(db_path, first) >= len(paths) // BATCH_FILES + 1
    assert indexed(db_path)["searchable"] == indexed(db_path)[MESSAGES_FTS] == len(paths)


@pytest.mark.parametrize("long_message", [False, True])
def test_pks_near_the_largest_rowid_are_indexed_by_the_triggers(
    service: MemoryService,
    db_path: Path,
    tmp_path: Path,
    seeded: Callable[[], AbstractContextManager[None]],
    long_message: bool,
) -> None:
    # Two pks below the largest rowid SQLite starts picking free ones at random, so the
    # import's messages are not "the pks after the last one" (found by review: eight of ten
    # were left out of both indexes). A message of over a MiB is written after its row and
    # indexed again (also found by review).
    with seeded():
        factories.MessageFactory(pk=2**63 - 3, content="semillas nuevas")
    path = day_log(tmp_path / "logs", 1, 10)
    if long_message:
        with path.open("a", encoding="utf-8") as log:
            log.write("\n\n[10:00:00 +0000] \nMorgan: " + "palabralarga " * 100_000)
    report = service.import_markdown([path], speakers=SPEAKERS, include_tail=True)
    expected = 11 + long_message
    assert report.imported == expected - 1
    assert indexed(db_path) == {
        MESSAGES_FTS: expected,
        MESSAGES_STEM_FTS: expected,
        "searchable": expected,
    }
    assert service.health().ok
    assert found(service, "w1x9") == ["riego w1x9 hoy"]
    if long_message:
        assert service.word_instances("palabralarga").total == 100_000
