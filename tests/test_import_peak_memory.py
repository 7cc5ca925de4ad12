"""Tests of importing large daily logs: memory held, statement-sized inserts, UTF-8 checks.

A large log is imported one multi-row INSERT at a time with each record's content decoded
from the file's bytes only then; these tests pin what that must not change (nothing of a
rejected file lands, offsets of UTF-8 errors are exact) and keep the memory from regressing.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from contextlib import AbstractContextManager, closing
from pathlib import Path
from typing import Any

import pytest

from memstore import FileImport, MemoryService
from memstore.concerns import import_files
from memstore.concerns import import_records as importer
from memstore.concerns.import_files import LoadedLog
from memstore.concerns.import_records import store
from memstore.logs.parse import parse_log
from memstore.repository.imports import ROWS_PER_INSERT
from memstore.text import cjk
from tests import factories
from tests.logrecords import records_of, warnings_of

NAME = "2026-10-05.md"
HEAD = "Morgan Log \u2014 2026-10-05"
SPEAKERS = {"Diego": "user", "Morgan": "assistant"}
BLOCK = 64 * 1024  # what the UTF-8 check decodes at once (at least, up to a line ending)
# About 200 bytes, some of them characters of two, three and four bytes, as real logs have.
TEXT = (
    "Ma\u00f1ana revisamos el informe \u2014 {} \u2014 y despu\u00e9s la lista de tareas "
    "pendientes para la semana que viene \U0001f4cb, con las notas de la reuni\u00f3n de ayer."
)


def entry(index: int) -> str:
    """The record number ``index``: a blank line, its stamp line and its speaker line."""
    second = index % 86400
    stamp = f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d} +0000"
    speaker = "Diego" if index % 2 == 0 else "Morgan"
    return f"\n\n[{stamp}]\n{speaker}: {TEXT.format(index)}"


def large_log(folder: Path, size: int) -> tuple[Path, int]:
    """A log of at least ``size`` bytes; its path and number of records."""
    entries = [HEAD]
    total = len(HEAD.encode())
    while total < size:
        entries.append(entry(len(entries) - 1))
        total += len(entries[-1].encode())
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NAME
    path.write_text("".join(entries), encoding="utf-8")
    return path, len(entries) - 1


def snapshot(db_path: Path) -> list[str]:
    """Every row of every table, as SQL text, to compare a database before and after."""
    with closing(sqlite3.connect(db_path)) as connection:
        return list(connection.iterdump())


def test_parsing_keeps_offsets_not_text(tmp_path: Path) -> None:
    # Records are kept as offsets and times, about the size of the file for records of about
    # 200 bytes; lines, contents and a decoded copy of the whole file (four bytes a character
    # here) once took over twelve times the file.
    path, records = large_log(tmp_path, 1024 * 1024)
    data = path.read_bytes()
    tracemalloc.start()
    try:
        log = parse_log(data, NAME)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(log.spans) == records
    assert peak < 2 * len(data)


def test_storing_holds_one_statement_of_rows_at_a_time(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Storing adds about one statement's rows to what loading holds (a few hundred KiB
    # whatever the file's size); building every row first once took over four times the file.
    path, records = large_log(tmp_path / "large", 3 * 1024 * 1024)
    warm_up, _ = large_log(tmp_path / "warm-up", 1)  # the first import's one-off allocations
    service.import_markdown([warm_up], speakers=SPEAKERS, include_tail=True)
    added: list[int] = []

    def measured_store(*args: Any) -> FileImport:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = store(*args)
        added.append(tracemalloc.get_traced_memory()[1] - before)
        return result

    monkeypatch.setattr(importer, "store", measured_store)
    tracemalloc.start()
    try:
        report = service.import_markdown([path], speakers=SPEAKERS, include_tail=True)
    finally:
        tracemalloc.stop()
    assert (report.imported, report.errors) == (records, 0)
    assert added[0] < path.stat().st_size / 4


@pytest.mark.parametrize(
    ("ending", "lone_cr"), [("\n", "notas"), ("\r\n", "\rnotas"), ("\r\n", "notas\r")]
)
def test_every_record_of_several_statements_is_stored_in_order(
    service: MemoryService, tmp_path: Path, ending: str, lone_cr: str
) -> None:
    # Contents decoded from the bytes at insert time: CRLF endings become LF, a lone CR
    # stays; sequences run on across the statements.
    path, records = large_log(tmp_path, 3 * ROWS_PER_INSERT * 200)
    text = path.read_text(encoding="utf-8")
    path.write_bytes(text.replace("\n", ending).replace("notas", lone_cr).encode())
    (file,) = service.import_markdown([path], speakers=SPEAKERS, include_tail=True).files
    assert (file.imported, file.error) == (records, None)
    assert file.session_id is not None
    stored = service.messages(file.session_id, limit=records)
    expected = [TEXT.format(index).replace("notas", lone_cr) for index in range(records)]
    assert [message.content for message in stored] == expected
    assert [message.sequence for message in stored] == list(range(1, records + 1))


def test_conflict_after_many_new_records_imports_nothing(
    service: MemoryService,
    db_path: Path,
    tmp_path: Path,
    seeded: Callable[[], AbstractContextManager[None]],
) -> None:
    # Statements of new rows already ran when a later record turns out to differ from the
    # message stored under its reference: the file's transaction must take them all back.
    path, records = large_log(tmp_path, 3 * ROWS_PER_INSERT * 200)
    data = path.read_bytes()
    late = data.index(entry(records - 2).encode()) + 2
    with seeded():
        factories.MessageFactory(
            content="something else", source_ref=f"{path.resolve()}#byte={late}", sequence=1
        )
    before = snapshot(db_path)
    (file,) = service.import_markdown([path], speakers=SPEAKERS, include_tail=True).files
    assert file.error is not None
    assert f"record at byte {late} differs" in file.error
    assert file.imported == 0
    assert snapshot(db_path) == before


def first_invalid_byte(data: bytes) -> int:
    """Where decoding the whole file at once fails."""
    with pytest.raises(UnicodeDecodeError) as caught:
        data.decode("utf-8")
    return caught.value.start


@pytest.mark.parametrize("offset", [-3, -1, 0, 1, 2, 3, 500, -BLOCK // 2])
@pytest.mark.parametrize("bad", [b"\xff", b"\xf0\x9f", b"\xed\xa0\x80"])
@pytest.mark.parametrize("blocks", [1, 5])
def test_invalid_utf8_is_reported_where_decoding_the_whole_file_fails(
    tmp_path: Path, offset: int, bad: bytes, blocks: int
) -> None:
    # The check decodes a block of lines at a time; the error's offset must not move. The
    # record holding it is left out with a warning, every other record is read.
    path, records = large_log(tmp_path, (blocks + 1) * BLOCK)
    data = bytearray(path.read_bytes())
    at = data.index(b"\n", blocks * BLOCK) + offset
    data[at : at + len(bad)] = bad
    expected = first_invalid_byte(bytes(data))
    log = parse_log(bytes(data), NAME)
    (warning,) = warnings_of(log)
    assert (warning.kind, warning.byte) == ("invalid_utf8", expected)
    assert f"from byte {expected} " in warning.message
    assert records - 2 <= len(log.spans) < records  # a replaced line ending joins two


def test_character_across_the_block_size_is_valid() -> None:
    # Blocks end after a line ending, never inside a character.
    start = f"{HEAD}\n\n[09:00:00 +0000]\nDiego: ".encode()
    text = "a" * (BLOCK - 2 - len(start)) + "\U0001f4cb" + " fin"
    log = parse_log(start + text.encode(), NAME)
    assert [record.content for record in records_of(log)] == [text]


# Peak memory in a real process, for the line shapes that once took 60 times the file

# The peak RSS of this process alone (VmHWM: ru_maxrss would carry over pytest's own peak
# through fork and exec), before and after the import.
CHILD = """
import sys
from memstore import MemoryService

def peak():
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) * 1024

service = MemoryService(sys.argv[1])
service.health()
before = peak()
report = service.import_markdown([sys.argv[2]], speakers={"Diego": "user"}, include_tail=True)
print(report.imported, len(report.files[0].warnings), peak() - before)
"""


def shaped_log(folder: Path, line: bytes, size: int) -> Path:
    """A log of one record followed by ``line`` repeated up to about ``size`` bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NAME
    head = f"{HEAD}\n\n[09:00:00 +0000]\nDiego: start\n".encode()
    path.write_bytes(head + line * ((size - len(head)) // len(line)))
    return path


# Blank lines make no message: the file's bytes alone (1x). Short lines make one message of
# millions of one-letter words, written after the file's bytes are emptied, in pieces read
# again from the file, and indexed on its own (add_large): measured 3.5x, and 2.5x with CRLF,
# at 4 MiB (fixed costs weigh more); 3.1x and 2.1x at 16 MiB (make bench). With the second
# history index (by word stem, revision 0004) 4.5x at 4 MiB. At most 5x. One-character CJK
# lines make an index form 3.25 times the file's bytes (" 电 一一 " for "电"), which both
# history indexes read and tokenize whole: 10.3x at 4 MiB, 9.9x at 16 MiB (found by review:
# 34x, when the form was made whole at once and encoded beside it). At most 12x. One run of
# CJK characters: 6.0x (33x, when its characters were joined at once: found by the next
# review).
@pytest.mark.parametrize(
    ("line", "imported", "bound"),
    [
        (b"x\n", 1, 5.0),
        (b"\n", 1, 1.5),
        (b"x\r\n", 1, 5.0),
        ("\u7535\n".encode(), 1, 12.0),
        ("\u7535".encode(), 1, 8.0),
    ],
)
def test_peak_memory_stays_proportional_to_the_file_for_any_line_shape(
    tmp_path: Path, line: bytes, imported: int, bound: float
) -> None:
    # Short and blank lines were kept one object each: 8M short lines peaked at 1 GB for a
    # 16 MiB log. Here 4 MiB, measured in a fresh process (make bench measures 16 MiB).
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc to read the peak memory of one process")
    path = shaped_log(tmp_path / "logs", line, 4 * 1024 * 1024)
    completed = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "m.sqlite3"), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    stored, warnings, grown = map(int, completed.stdout.split())
    assert (stored, warnings) == (imported, 0)
    assert grown <= bound * path.stat().st_size


LIMITED = """
import resource, sys
from memstore.adapters.cli import main
import memstore.service  # the CLI imports it on first use: loaded before the limit is set
with open("/proc/self/status") as status:
    size = next(int(l.split()[1]) for l in status if l.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 12 * 1024 * 1024, resource.RLIM_INFINITY))
sys.argv = ["memstore", "--database", sys.argv[1], "import", sys.argv[2], "--speaker",
            "Diego=user", "--include-tail"]
main()
"""


def test_running_out_of_memory_is_the_json_error_and_stores_nothing(tmp_path: Path) -> None:
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc to set a memory limit near the process's size")
    database = tmp_path / "m.sqlite3"
    MemoryService(database).health()
    before = snapshot(database)
    path = shaped_log(tmp_path / "logs", b"x\n", 8 * 1024 * 1024 - 1024)
    completed = subprocess.run(
        [sys.executable, "-c", LIMITED, str(database), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 1, completed.stderr
    error = json.loads(completed.stderr.strip().splitlines()[-1])["error"]
    assert error["type"] == "MemoryError" and "Traceback" not in completed.stderr
    assert snapshot(database) == before
    assert MemoryService(database).health().ok


UNLOADABLE = """
import sys
from memstore.adapters.cli import main
sys.modules["sqlalchemy"] = None  # as a module that fails to map under a memory limit
sys.argv = ["memstore", "--database", sys.argv[1], "import", sys.argv[2], "--speaker",
            "Diego=user", "--include-tail"]
main()
"""


def test_a_library_that_cannot_be_loaded_is_the_json_error_and_stores_nothing(
    tmp_path: Path,
) -> None:
    # Found by review: under a memory limit, SQLAlchemy (loaded on first use, for a new
    # database's migration) failed to map and the import ended in a traceback.
    database = tmp_path / "m.sqlite3"
    path = shaped_log(tmp_path / "logs", b"x\n", 1024)
    completed = subprocess.run(
        [sys.executable, "-c", UNLOADABLE, str(database), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    error = json.loads(completed.stderr.strip().splitlines()[-1])["error"]
    assert error["type"] == "ModuleNotFoundError" and "could not be loaded" in error["message"]
    report = MemoryService(database).import_markdown(
        [path], speakers={"Diego": "user"}, include_tail=True
    )  # nothing half done stands in the way
    assert (report.imported, report.errors) == (1, 0)


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
@pytest.mark.parametrize("speaker", ["Diego", "System"])
def test_a_message_over_a_mib_is_stored_whole_indexed_once_and_checked_ok(
    service: MemoryService, tmp_path: Path, ending: str, speaker: str
) -> None:
    # Written in pieces through blob I/O and indexed in a statement of its own: the stored
    # text, the index and check must be exactly those of an ordinary insert.
    line = "una l\u00ednea con caf\u00e9 \U0001f4cb"
    text = "\n".join([line] * 50_000)
    log = f"{HEAD}\n\n[09:00:00 +0000]\n{speaker}: {text}\n\n".replace("\n", ending)
    path = tmp_path / NAME
    path.write_bytes(log.encode())
    assert len(text.encode()) > import_files.LARGE_TEXT_BYTES
    speakers = {"Diego": "user", "System": "system"}
    (file,) = service.import_markdown([path], speakers=speakers, include_tail=True).files
    assert (file.imported, file.error) == (1, None)
    assert file.session_id is not None
    (message,) = service.messages(file.session_id)
    assert message.content == text
    found = service.word_instances("cafe")
    assert found.total == (50_000 if speaker == "Diego" else 0)
    assert service.health().ok


def test_a_message_over_a_mib_with_cjk_is_indexed_as_its_index_form(
    service: MemoryService, tmp_path: Path
) -> None:
    # Its index form is made and written a piece at a time: it must be the one a message
    # recorded through the API gets, pieces cut anywhere between the runs.
    text = "\n".join(f"\u7535\u5f71{n} caf\u00e9 \U00020000\u674e\u96f7" for n in range(60_000))
    path = tmp_path / NAME
    path.write_bytes(f"{HEAD}\n\n[09:00:00 +0000]\nDiego: {text}\n\n".encode())
    assert len(text.encode()) > import_files.LARGE_TEXT_BYTES
    (file,) = service.import_markdown([path], speakers={"Diego": "user"}, include_tail=True).files
    assert (file.imported, file.error) == (1, None)
    with closing(sqlite3.connect(service.path)) as connection:
        (stored,) = connection.execute("SELECT index_text FROM messages").fetchone()
    assert stored == cjk.index_form(text)
    assert service.word_instances("\u7535\u5f71").total == 60_000
    assert service.health().ok


def test_a_log_with_a_message_over_a_mib_imports_again_and_grows(
    service: MemoryService, tmp_path: Path
) -> None:
    # The sealed prefix was hashed after storing the long message had emptied the log's
    # bytes: the hash of nothing, so every later import of the file was refused as changed
    # (found by review of issue 18).
    path = tmp_path / NAME
    long_text = "palabra " * 200_000
    path.write_text(f"{HEAD}\n\n[09:00:00 +0000] \nDiego: {long_text}\n\n", encoding="utf-8")
    with path.open("a", encoding="utf-8") as log:
        log.write("[09:00:05 +0000] \nMorgan: Entendido.")
    first = service.import_markdown([path], speakers=SPEAKERS, include_tail=True)
    assert (first.imported, first.errors) == (2, 0)
    again = service.import_markdown([path], speakers=SPEAKERS, include_tail=True)
    assert (again.imported, again.skipped, again.errors) == (0, 2, 0)
    with path.open("a", encoding="utf-8") as log:
        log.write("\n\n[09:01:00 +0000] \nDiego: Gracias.")
    grown = service.import_markdown([path], speakers=SPEAKERS, include_tail=True)
    assert (grown.imported, grown.skipped, grown.errors) == (1, 2, 0)
    assert service.health().ok


def test_a_long_message_changed_on_disk_before_it_is_read_again_imports_nothing(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A message of over a MiB is read again from the file after the file's bytes are
    # emptied; if the file changed meanwhile, the import must take nothing of it.
    text = "\n".join(["una l\u00ednea con caf\u00e9"] * 80_000)
    path = tmp_path / NAME
    path.write_bytes(
        f"{HEAD}\n\n[09:00:00 +0000]\nDiego: hola\n\n[09:00:01 +0000]\nDiego: {text}".encode()
    )
    before = snapshot(service.path) if service.path.exists() else None
    release = importer.release

    def release_then_rewrite(log: LoadedLog) -> None:
        release(log)
        with path.open("r+b") as file:  # same size, other bytes
            file.seek(-10, 2)
            file.write(b"X" * 10)

    monkeypatch.setattr(importer, "release", release_then_rewrite)
    (file,) = service.import_markdown([path], speakers=SPEAKERS, include_tail=True).files
    assert file.error is not None and "changed while its long messages" in file.error
    assert file.imported == 0
    assert service.list_memories(include_inactive=True).total == 0
    assert before is None or snapshot(service.path) == before
    with closing(sqlite3.connect(service.path)) as connection:
        assert connection.execute("SELECT count(*) FROM messages").fetchone() == (0,)
    assert service.health().ok
