"""Tests of the daily log import (LOGFORMAT.md, "Import rules"): real files, real databases.

Each test writes a few hand-made log bytes into ``tmp_path`` and imports them through
``MemoryService.import_markdown`` into a fresh migrated SQLite file; nothing is mocked.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore import FileImport, ImportReport, InvalidInput, MemoryService, Message
from memstore.logs.syntax import MAX_LOG_BYTES
from tests import factories

NAME = "2026-10-05.md"
HEAD = "Morgan Log \u2014 2026-10-05"
BOM = b"\xef\xbb\xbf"
SPEAKERS = {"Diego": "user", "Morgan": "assistant", "System": "system"}


def entry(stamp: str, speaker: str, text: str) -> str:
    """One record as the writer appends it: blank line, stamp line, speaker line."""
    return f"\n\n[{stamp}] \n{speaker}: {text}"


FIRST = entry("09:00:00 +0000", "Diego", "Hola Morgan")
SECOND = entry("09:00:05 +0000", "Morgan", "Hola Diego.\nSegunda l\u00ednea.")
THIRD = entry("09:01:00 +0000", "Diego", "\u00bfQu\u00e9 tal?")
FOURTH = entry("09:01:30 +0000", "Morgan", "Bien, gracias.")


def log_bytes(*entries: str) -> bytes:
    return (HEAD + "".join(entries)).encode()


def write(folder: Path, data: bytes, name: str = NAME) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return path


def append(path: Path, *entries: str) -> None:
    with path.open("ab") as file:
        file.write("".join(entries).encode())


def ref(path: Path, data: bytes, stamp: str) -> str:
    """The source reference of the record whose stamp starts with ``[stamp``."""
    return f"{path.resolve()}#byte={data.index(b'[' + stamp.encode())}"


def run(
    service: MemoryService,
    *paths: Path | str,
    include_tail: bool = False,
    speakers: dict[str, str] | None = None,
) -> ImportReport:
    return service.import_markdown(
        list(paths), speakers=SPEAKERS if speakers is None else speakers, include_tail=include_tail
    )


def one(report: ImportReport) -> FileImport:
    (file,) = report.files
    return file


def stored(service: MemoryService, file: FileImport) -> list[Message]:
    assert file.session_id is not None
    return service.messages(file.session_id, limit=1000)


def contents(messages: list[Message]) -> list[str]:
    return [message.content for message in messages]


def snapshot(db_path: Path) -> list[str]:
    """Every row of every table, as SQL text, to compare a database before and after."""
    with closing(sqlite3.connect(db_path)) as connection:
        return list(connection.iterdump())


# --- sealing --------------------------------------------------------------------------------------


def test_final_record_is_deferred_by_default(service: MemoryService, tmp_path: Path) -> None:
    # The writer may still be appending to the last record, so it waits for the next one.
    data = log_bytes(FIRST, SECOND)
    path = write(tmp_path, data)
    file = one(run(service, path))
    assert (file.imported, file.skipped, file.deferred, file.error) == (1, 0, 1, None)
    assert file.sealed_size == data.index(b"[09:00:05")
    assert contents(stored(service, file)) == ["Hola Morgan"]


def test_include_tail_accepts_the_final_record(service: MemoryService, tmp_path: Path) -> None:
    # A closed file's last record is complete; --include-tail says so.
    data = log_bytes(FIRST, SECOND)
    file = one(run(service, write(tmp_path, data), include_tail=True))
    assert (file.imported, file.deferred, file.sealed_size) == (2, 0, len(data))
    assert contents(stored(service, file)) == ["Hola Morgan", "Hola Diego.\nSegunda l\u00ednea."]


@pytest.mark.parametrize("end", ["", "\n"])
def test_include_tail_reports_a_final_stamp_without_its_speaker(
    service: MemoryService, tmp_path: Path, end: str
) -> None:
    # Found by review: a file ending just after its last stamp line counted that record as
    # deferred, with no warning, while reporting the whole file accepted.
    data = log_bytes(FIRST) + f"\n\n[09:01:00 +0000]{end}".encode()
    file = one(run(service, write(tmp_path, data), include_tail=True))
    assert (file.imported, file.deferred, file.sealed_size) == (1, 0, len(data))
    assert [warning.kind for warning in file.warnings] == ["malformed_speaker"]


def test_later_record_seals_the_previous_one(service: MemoryService, tmp_path: Path) -> None:
    # Appending records seals the old tail: exactly the newly sealed ones are imported.
    path = write(tmp_path, log_bytes(FIRST, SECOND))
    run(service, path)
    append(path, THIRD, FOURTH)
    data = path.read_bytes()
    file = one(run(service, path))
    assert (file.imported, file.skipped, file.deferred) == (2, 1, 1)
    assert [m.source_ref for m in stored(service, file)] == [
        ref(path, data, "09:00:00"),
        ref(path, data, "09:00:05"),
        ref(path, data, "09:01:00"),
    ]


def test_second_import_imports_nothing_and_counts_skipped(
    service: MemoryService, tmp_path: Path
) -> None:
    # Import is idempotent: records already stored are skipped, not duplicated.
    path = write(tmp_path, log_bytes(FIRST, SECOND, THIRD))
    first = one(run(service, path, include_tail=True))
    again = one(run(service, path, include_tail=True))
    assert (first.imported, first.skipped) == (3, 0)
    assert (again.imported, again.skipped, again.deferred) == (0, 3, 0)
    assert len(stored(service, again)) == 3


def test_a_second_import_with_fewer_speakers_counts_the_stored_records_as_skipped(
    service: MemoryService, tmp_path: Path
) -> None:
    # Found by review: stored records of a speaker left out of the second --speaker map
    # were reported as "unknown speakers not imported", none skipped, and the import failed.
    path = write(tmp_path, log_bytes(FIRST, SECOND, THIRD))
    run(service, path, include_tail=True)
    report = run(service, path, include_tail=True, speakers={"Nobody": "user"})
    assert (report.imported, report.skipped, report.unknown_speakers) == (0, 3, {})
    assert one(report).warnings == []


def test_tail_accepted_once_stays_accepted_without_include_tail(
    service: MemoryService, tmp_path: Path
) -> None:
    # The sealed prefix never shrinks: a later plain import skips the accepted tail.
    data = log_bytes(FIRST, SECOND)
    path = write(tmp_path, data)
    run(service, path, include_tail=True)
    file = one(run(service, path))
    assert (file.imported, file.skipped, file.deferred, file.sealed_size) == (0, 2, 0, len(data))


def test_partial_first_stamp_is_not_sealed(service: MemoryService, tmp_path: Path) -> None:
    # A file caught mid-write ("[0") must not seal the bytes where its first record starts.
    path = write(tmp_path, log_bytes() + b"\n\n[0")
    assert one(run(service, path)).sealed_size == len(log_bytes()) + 2
    with path.open("ab") as file:
        file.write(b"9:00:00 +0000] \nDiego: still typing")
    file_import = one(run(service, path))
    assert (file_import.imported, file_import.deferred, file_import.error) == (0, 1, None)


@pytest.mark.parametrize(
    ("written", "rest"),
    [
        (b"\n\n[09:01:00 +0000] \nDiego: caf\xc3", b"\xa9 listo"),  # inside a character
        (b"\n\n[09:01", b":00 +0000] \nDiego: caf\xc3\xa9 listo"),  # inside its stamp
        (b"\n\n[09:01:00 +0000] \nDie", b"go: caf\xc3\xa9 listo"),  # inside the speaker
        (b"\n\n[09:01:00 +0000] \nDiego: ", "caf\u00e9 listo".encode()),  # before its text
    ],
)
def test_a_final_record_half_written_is_deferred_without_a_warning(
    service: MemoryService, tmp_path: Path, written: bytes, rest: bytes
) -> None:
    # Found by review: it was reported as text left out ("not imported"), and the next
    # import, once the writer had finished it, took it.
    path = write(tmp_path, log_bytes(FIRST) + written)
    file = one(run(service, path))
    assert (file.imported, file.deferred, file.warnings, file.warning_counts) == (1, 1, [], {})
    with path.open("ab") as log:
        log.write(rest + FOURTH.encode())
    file = one(run(service, path))
    assert file.imported == 1 and file.warnings == []
    assert contents(stored(service, file))[-1] == "caf\u00e9 listo"


def test_a_final_record_still_bad_with_include_tail_is_a_warning(
    service: MemoryService, tmp_path: Path
) -> None:
    path = write(tmp_path, log_bytes(FIRST) + b"\n\n[09:01:00 +0000] \nDiego: caf\xc3")
    file = one(run(service, path, include_tail=True))
    assert (file.imported, file.deferred, file.warning_counts) == (1, 0, {"invalid_utf8": 1})


def test_unterminated_fence_keeps_tail_deferred_even_with_include_tail(
    service: MemoryService, tmp_path: Path
) -> None:
    # An open fence means the code block (and its record) is still being written.
    code = "mira:\n```python\nprint(1)\n\n[10:00:07 -0500] \nDiego: esto es c\u00f3digo"
    path = write(tmp_path, log_bytes(FIRST, entry("09:00:05 +0000", "Morgan", code)))
    file = one(run(service, path, include_tail=True))
    assert (file.imported, file.deferred) == (1, 1)
    with path.open("ab") as handle:
        handle.write(b"\n```")
    file = one(run(service, path, include_tail=True))
    assert (file.imported, file.skipped, file.deferred) == (1, 1, 0)
    assert stored(service, file)[-1].content == code + "\n```"


# --- identity: source references, paths, sessions -------------------------------------------------


def test_reimporting_same_path_is_idempotent_and_a_copy_is_another_source(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The resolved path is the identity: relative or via its folder, it is one source;
    # a copy elsewhere is another source with its own session.
    data = log_bytes(FIRST, SECOND)
    path = write(tmp_path / "logs", data)
    copy = write(tmp_path / "backup", data)
    monkeypatch.chdir(tmp_path)
    original = one(run(service, path, include_tail=True))
    relative = one(run(service, Path("logs") / NAME, include_tail=True))
    folder = one(run(service, tmp_path / "logs", include_tail=True))
    copied = one(run(service, copy, include_tail=True))
    assert original.session_id == relative.session_id == folder.session_id
    assert (relative.imported, folder.imported) == (0, 0)
    assert copied.imported == 2
    assert copied.session_id != original.session_id
    assert [m.source_ref for m in stored(service, copied)] == [
        ref(copy, data, "09:00:00"),
        ref(copy, data, "09:00:05"),
    ]


def test_source_ref_is_resolved_absolute_path_and_byte_offset(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A path given with ".." and relative to the working directory is stored resolved.
    data = log_bytes(FIRST, SECOND)
    write(tmp_path / "logs", data)
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")
    file = one(run(service, Path("..") / "logs" / NAME, include_tail=True))
    base = f"{(tmp_path / 'logs' / NAME).resolve()}#byte="
    assert file.path == str((tmp_path / "logs" / NAME).resolve())
    # Header (25 bytes) + blank line -> 27; + stamp line (18) + "Diego: Hola Morgan" + 2 -> 65.
    assert [m.source_ref for m in stored(service, file)] == [base + "27", base + "65"]


def test_source_ref_offsets_count_the_bom_and_both_bytes_of_crlf(
    service: MemoryService, tmp_path: Path
) -> None:
    # Offsets are raw byte positions: the 3-byte BOM and every "\r" count.
    data = (
        BOM
        + (
            HEAD + "\r\n\r\n[09:00:00 +0000] \r\nDiego: hola\r\nadi\u00f3s\r\n"
            "\r\n[09:01:00 +0000] \nMorgan: hi\n\r\n[09:02:00 +0000] \r\nDiego: bye"
        ).encode()
    )
    path = write(tmp_path, data)
    file = one(run(service, path, include_tail=True))
    messages = stored(service, file)
    # BOM 3 + header 25 + CRLF CRLF 4 = 32; + stamp line 19 + "Diego: hola" CRLF 13
    # + "adi\u00f3s" CRLF 8 + CRLF 2 = 74; + stamp line LF 18 + "Morgan: hi" LF 11 + CRLF 2 = 105.
    assert [m.source_ref for m in messages] == [f"{path.resolve()}#byte={n}" for n in (32, 74, 105)]
    assert [data[n : n + 3] for n in (32, 74, 105)] == [b"[09"] * 3
    assert contents(messages) == ["hola\nadi\u00f3s", "hi", "bye"]


def test_synthetic_session_is_stable_and_says_boundaries_are_unknown(
    service: MemoryService, tmp_path: Path
) -> None:
    # A daily file has no real session boundaries: one deterministic session per path.
    path = write(tmp_path, log_bytes(FIRST, SECOND))
    first = one(run(service, path))
    append(path, THIRD)
    second = one(run(service, path))
    elsewhere = one(run(MemoryService(tmp_path / "other.sqlite3"), path))
    assert first.session_id is not None
    assert first.session_id == second.session_id == elsewhere.session_id
    session = service.get_session(first.session_id)
    assert session is not None
    assert session.metadata["boundaries"] == "unknown"
    assert session.started_at == datetime(2026, 10, 5, 9, 0, tzinfo=UTC)


# --- what is stored -------------------------------------------------------------------------------


def test_imported_messages_have_roles_sequences_in_file_order_and_completed_status(
    service: MemoryService, tmp_path: Path
) -> None:
    # Each file is one conversation in file order; sequences continue across imports.
    closing_note = entry("09:30:00 +0000", "System", "Session closed.")
    path = write(tmp_path, log_bytes(FIRST, SECOND, closing_note))
    run(service, path, include_tail=True)
    append(path, THIRD)
    file = one(run(service, path, include_tail=True))
    messages = stored(service, file)
    assert [(m.sequence, m.role, m.status) for m in messages] == [
        (1, "user", "completed"),
        (2, "assistant", "completed"),
        (3, "system", "completed"),
        (4, "user", "completed"),
    ]
    assert contents(messages) == [
        "Hola Morgan",
        "Hola Diego.\nSegunda l\u00ednea.",
        "Session closed.",
        "\u00bfQu\u00e9 tal?",
    ]


def test_sequences_start_at_one_beside_other_sessions(
    service: MemoryService,
    tmp_path: Path,
    seeded: Callable[[], AbstractContextManager[None]],
) -> None:
    # Sequences are per session: existing history elsewhere does not shift them.
    with seeded():
        factories.SessionFactory(id="ses_live")
        factories.conversation("ses_live", [("user", "hi"), ("assistant", "hello")])
    file = one(run(service, write(tmp_path, log_bytes(FIRST, SECOND)), include_tail=True))
    assert [m.sequence for m in stored(service, file)] == [1, 2]
    assert len(service.messages("ses_live")) == 2


def test_created_at_is_stored_in_utc(service: MemoryService, tmp_path: Path) -> None:
    # The file's date plus the stamp's local time and offset, converted to UTC.
    late = entry("23:30:00 -0500", "Diego", "tarde")
    early = entry("01:15:00 +0530", "Morgan", "temprano")
    file = one(run(service, write(tmp_path, log_bytes(late, early)), include_tail=True))
    assert [m.created_at for m in stored(service, file)] == [
        datetime(2026, 10, 6, 4, 30, tzinfo=UTC),
        datetime(2026, 10, 4, 19, 45, tzinfo=UTC),
    ]


def test_speakers_are_matched_without_regard_to_case(
    service: MemoryService, tmp_path: Path
) -> None:
    # "--speaker diego=user" must match "Diego:" (and "\u00c9LODIE" must match "\u00c9lodie").
    data = log_bytes(FIRST, SECOND, entry("09:02:00 +0000", "\u00c9lodie", "Bonjour"))
    speakers = {"DIEGO": "user", "morgan": "assistant", "\u00e9LODIE": "user"}
    file = one(run(service, write(tmp_path, data), include_tail=True, speakers=speakers))
    assert [m.role for m in stored(service, file)] == ["user", "assistant", "user"]
    assert file.warnings == []


def test_unknown_speaker_is_reported_and_not_imported(
    service: MemoryService, tmp_path: Path
) -> None:
    # The parser never guesses a role: an unmapped name is a warning, not a message.
    data = log_bytes(FIRST, entry("09:00:05 +0000", "Stranger", "who am I?"), SECOND)
    file = one(run(service, write(tmp_path, data), include_tail=True))
    assert [(w.kind, w.byte) for w in file.warnings] == [
        ("unknown_speaker", data.index(b"[09:00:05 +0000] \nStranger"))
    ]
    assert "Stranger" in file.warnings[0].message
    assert file.imported == 2
    assert "who am I?" not in contents(stored(service, file))


def test_a_speaker_named_on_a_later_import_takes_its_place_in_the_order(
    service: MemoryService, tmp_path: Path
) -> None:
    # Bug: the record of a speaker mapped only on the second import got the next sequence,
    # after the records that follow it in the log, so reading and pairing saw it last.
    stranger = entry("09:00:30 +0000", "Ana", "Yo también, Diego.")
    path = write(tmp_path, log_bytes(FIRST, stranger, SECOND, THIRD))
    first = one(run(service, path, include_tail=True))
    assert first.imported == 3 and first.warnings[0].kind == "unknown_speaker"
    # a host may record into the log's session through the API: that message stays last
    assert first.session_id is not None
    service.record_message(first.session_id, "assistant", "added by a host")
    with_ana = {**SPEAKERS, "Ana": "user"}
    second = one(run(service, path, include_tail=True, speakers=with_ana))
    assert second.imported == 1 and not second.warnings
    messages = stored(service, second)
    assert contents(messages) == [
        "Hola Morgan",
        "Yo también, Diego.",
        "Hola Diego.\nSegunda l\u00ednea.",
        "\u00bfQu\u00e9 tal?",
        "added by a host",
    ]
    assert [m.sequence for m in messages] == [1, 2, 3, 4, 5]
    assert MemoryService(service.path).health().ok
    # a third import finds everything in place and changes nothing
    assert one(run(service, path, include_tail=True, speakers=with_ana)).imported == 0
    assert stored(service, second) == messages


def test_empty_content_record_is_reported(service: MemoryService, tmp_path: Path) -> None:
    # A message with only white space carries nothing to store; the import says where it was.
    data = log_bytes(FIRST, entry("09:00:05 +0000", "Morgan", "  \n \t"), THIRD)
    file = one(run(service, write(tmp_path, data), include_tail=True))
    assert [(w.kind, w.byte) for w in file.warnings] == [
        ("empty_content", data.index(b"[09:00:05"))
    ]
    assert contents(stored(service, file)) == ["Hola Morgan", "\u00bfQu\u00e9 tal?"]


@pytest.mark.parametrize(
    "speakers",
    [{}, {"Diego": "human"}, {"Diego": "user", "Morgan": "Assistant"}],
    ids=["no speakers", "unknown role", "role in wrong case"],
)
def test_missing_speaker_map_or_bad_role_is_invalid_input(
    service: MemoryService, tmp_path: Path, speakers: dict[str, str]
) -> None:
    # There is no default role: the whole call is refused before any file is read.
    path = write(tmp_path, log_bytes(FIRST, SECOND))
    with pytest.raises(InvalidInput):
        run(service, path, speakers=speakers)


# --- history is never silently replaced -----------------------------------------------------------


def shorten(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:40])


def rewrite_first_record(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(b"Hola Morgan", b"Hola Morgen"))


def rewrite_and_extend(path: Path) -> None:
    rewrite_first_record(path)
    append(path, THIRD, FOURTH)


@pytest.mark.parametrize("change", [shorten, rewrite_first_record, rewrite_and_extend])
def test_changed_imported_prefix_is_reported_and_nothing_is_imported(
    service: MemoryService, db_path: Path, tmp_path: Path, change: Callable[[Path], None]
) -> None:
    # Once imported, a log's sealed bytes are history; a changed file needs a person to look.
    path = write(tmp_path, log_bytes(FIRST, SECOND, THIRD))
    run(service, path)
    before = snapshot(db_path)
    change(path)
    file = one(run(service, path))
    assert file.error is not None
    assert str(path.resolve()) in file.error
    assert "review the file manually" in file.error
    assert (file.imported, file.skipped, file.deferred) == (0, 0, 0)
    assert snapshot(db_path) == before


def test_recorded_message_with_same_source_is_skipped(
    service: MemoryService, tmp_path: Path, seeded: Callable[[], AbstractContextManager[None]]
) -> None:
    # The recorder stores live turns under the log's reference; the import must not double them.
    data = log_bytes(FIRST, SECOND)
    path = write(tmp_path, data)
    with seeded():
        factories.MessageFactory(
            content="Hola Morgan", source_ref=ref(path, data, "09:00:00"), sequence=1
        )
    file = one(run(service, path, include_tail=True))
    assert (file.imported, file.skipped, file.error) == (1, 1, None)


def test_recorded_message_with_other_content_is_reported(
    service: MemoryService,
    db_path: Path,
    tmp_path: Path,
    seeded: Callable[[], AbstractContextManager[None]],
) -> None:
    # An accepted record whose text differs from the log is reported, never overwritten.
    data = log_bytes(FIRST, SECOND)
    path = write(tmp_path, data)
    with seeded():
        factories.MessageFactory(
            content="something else", source_ref=ref(path, data, "09:00:00"), sequence=1
        )
    before = snapshot(db_path)
    file = one(run(service, path, include_tail=True))
    assert file.error is not None
    assert "review the file manually" in file.error
    assert file.imported == 0
    assert snapshot(db_path) == before


def test_deleted_message_is_not_resurrected_by_reimport(
    service: MemoryService, tmp_path: Path
) -> None:
    # Deleting a message tombstones its reference: the log must not bring it back.
    path = write(tmp_path, log_bytes(FIRST, SECOND, THIRD))
    file = one(run(service, path, include_tail=True))
    first, *rest = stored(service, file)
    assert service.delete_message(first.id)
    again = one(run(service, path, include_tail=True))
    assert (again.imported, again.skipped, again.error) == (0, 3, None)
    assert stored(service, again) == rest


# --- files refused, files kept --------------------------------------------------------------------


@pytest.mark.parametrize("target", ["file", "folder"])
def test_symbolic_link_is_refused(service: MemoryService, tmp_path: Path, target: str) -> None:
    # A link could make one log two sources (or point anywhere); import the real file instead.
    real = write(tmp_path / "real", log_bytes(FIRST, SECOND))
    link = tmp_path / ("link" if target == "folder" else NAME)
    link.symlink_to(real.parent if target == "folder" else real)
    file = one(run(service, link))
    assert file.error is not None
    assert "is a symbolic link; import what it points to instead" in file.error  # a folder too
    assert (file.imported, file.session_id) == (0, None)
    assert one(run(service, real)).imported == 1
    # Found by the re-check: a link to nothing was told to import what it points to.
    gone = real if target == "file" else real.parent
    if gone.is_dir():
        shutil.rmtree(gone)
    else:
        gone.unlink()
    assert one(run(service, link)).error == f"{link}: is a symbolic link to nothing ({gone})"
    link.unlink()
    link.symlink_to(link)
    assert one(run(service, link)).error == f"{link}: is a loop of symbolic links"
    looped = tmp_path / "a" / NAME  # and a file in a folder that loops (found by review:
    (tmp_path / "a").symlink_to(tmp_path / "b")  # a RuntimeError traceback)
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert one(run(service, looped)).error == f"{looped}: lies in a loop of symbolic links"


def test_file_over_16_mib_is_refused(service: MemoryService, tmp_path: Path) -> None:
    # A daily log that large is not a daily log; refuse it rather than load it whole.
    path = write(tmp_path, log_bytes(FIRST, SECOND))
    os.truncate(path, MAX_LOG_BYTES + 1)  # sparse: fast to make, still too big
    file = one(run(service, path))
    assert file.error is not None
    assert "16 MiB" in file.error
    assert file.imported == 0


def test_file_of_exactly_16_mib_is_read(service: MemoryService, tmp_path: Path) -> None:
    # The limit is "over 16 MiB": the boundary itself is still a log (its tail is NUL padding).
    path = write(tmp_path, log_bytes(FIRST, SECOND))
    os.truncate(path, MAX_LOG_BYTES)
    file = one(run(service, path))
    assert (file.error, file.imported, file.deferred) == (None, 1, 1)


def test_missing_path_and_bad_name_fail_alone_while_other_files_import(
    service: MemoryService, tmp_path: Path
) -> None:
    # A file-level problem is that file's error, never an exception for the whole call.
    good = write(tmp_path, log_bytes(FIRST, SECOND))
    notes = write(tmp_path, log_bytes(FIRST, SECOND), name="notes.md")
    missing = tmp_path / "2026-10-06.md"
    too_long = tmp_path / ("9" * 300 + ".md")
    report = run(service, missing, notes, too_long, good)
    assert [f.path for f in report.files] == [str(p) for p in (missing, notes, too_long, good)]
    assert [f.error is not None for f in report.files] == [True, True, True, False]
    assert (report.errors, report.imported) == (3, 1)
    assert all(f.imported == 0 and f.session_id is None for f in report.files[:3])


def test_folder_that_is_not_utf8_is_a_file_error(service: MemoryService, tmp_path: Path) -> None:
    # Source references are UTF-8 text; a path that cannot be one is refused, not a crash.
    folder = os.path.join(os.fsencode(tmp_path), b"logs-\xff")
    try:
        os.mkdir(folder)
    except OSError:
        pytest.skip("this file system only accepts UTF-8 names")
    with open(os.path.join(folder, os.fsencode(NAME)), "wb") as file:
        file.write(log_bytes(FIRST, SECOND))
    report = run(service, os.fsdecode(folder))
    assert report.errors == 1
    assert report.files[0].path.endswith("logs-\\xff/" + NAME)
    report.model_dump_json()  # printable as the CLI prints it


def test_folder_expands_to_its_md_files_sorted_not_recursively(
    service: MemoryService, tmp_path: Path
) -> None:
    # Sorted names are days in order; subfolders hold other things (archived code, say).
    folder = tmp_path / "logs"
    later = write(folder, log_bytes(FIRST, SECOND).replace(b"10-05", b"10-06"), "2026-10-06.md")
    earlier = write(folder, log_bytes(FIRST, SECOND), "2026-10-05.md")
    write(folder / "2026-10-05", log_bytes(FIRST, SECOND), "2026-10-07.md")
    write(folder, b"not a log", "todo.txt")
    report = run(service, folder)
    assert [f.path for f in report.files] == [str(earlier), str(later)]
    assert (report.errors, report.imported) == (0, 2)


def test_a_folder_s_hidden_files_and_subfolders_are_passed_over(
    service: MemoryService, tmp_path: Path
) -> None:
    # Found by review: a copy's "._2026-10-05.md" (macOS) and a subfolder named like a log
    # were each an error, and the import exited 1, where a shell's *.md lists neither.
    folder = tmp_path / "logs"
    log = write(folder, log_bytes(FIRST, SECOND))
    write(folder, b"\x00\x05\x16\x07", "._" + NAME)
    (folder / "2026-10-09.md").mkdir()
    report = run(service, folder)
    assert [f.path for f in report.files] == [str(log)]
    assert (report.errors, report.imported) == (0, 1)
    hidden_only = tmp_path / "copies"
    write(hidden_only, log_bytes(FIRST, SECOND), "." + NAME)
    (empty,) = run(service, hidden_only).files
    assert empty.error is not None and "holds no daily log" in empty.error


def test_a_file_named_itself_and_through_its_folder_is_one_file(
    service: MemoryService, tmp_path: Path
) -> None:
    # Found by review: the summary counted it twice ("from 5 files" for 4).
    folder = tmp_path / "logs"
    earlier = write(folder, log_bytes(FIRST, SECOND), "2026-10-05.md")
    report = run(service, folder, earlier, folder / ".." / "logs" / earlier.name)
    assert [f.path for f in report.files] == [str(earlier)]
    assert (report.imported, report.skipped) == (1, 0)


def test_a_nul_in_a_log_path_is_listed_for_the_import_to_refuse(tmp_path: Path) -> None:
    # Found by review: finding each file once raised a bare ValueError for it.
    assert MemoryService.log_files([f"{tmp_path}/a\x00b.md"]) == [tmp_path / "a\x00b.md"]


def test_original_files_are_never_modified(service: MemoryService, tmp_path: Path) -> None:
    # The logs are the user's own record: import only ever reads them.
    good = write(tmp_path / "a", log_bytes(FIRST, SECOND, THIRD))
    bad = write(tmp_path / "b", b"not a header\n\n[09:00:00 +0000] \nDiego: hi")
    fenced = write(tmp_path / "c", log_bytes(FIRST, entry("09:00:05 +0000", "Morgan", "```")))
    files = (good, bad, fenced)
    before = [(p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_mode) for p in files]
    run(service, *files)
    run(service, *files, include_tail=True)
    run(service, tmp_path / "a", include_tail=True)
    after = [(p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_mode) for p in files]
    assert after == before


# --- never raises on any bytes --------------------------------------------------------------------


STAMPS = [
    "[09:15:02 +0200] ",
    "[23:59:59 -1400]",
    "[00:00:00 +1459]",
    "[25:61:00 +0000]",
    "[07:00:02]",
    "[09:",
]
TEXT = st.text(
    alphabet=st.sampled_from(list("\n\n\r\t [09:+-]`~#\u00e9\u65e5\u2028\x85\x0b\x0c\x00a: ")),
    max_size=30,
)
RECORD = st.builds(
    lambda newline, stamp, name, text: f"{newline}{newline}{stamp}{newline}{name}: ok {text}",
    st.sampled_from(["\n", "\n", "\r\n"]),
    st.sampled_from(STAMPS),
    st.sampled_from(["Diego", "MORGAN", "Diego", "Nobody", "", "   ```"]),
    TEXT,
)
LOG_TEXT = st.builds(
    lambda head, parts: head + "".join(parts),
    st.sampled_from([HEAD, HEAD, "\ufeff# " + HEAD, "Morgan Log \u2014 2026-10-06", ""]),
    st.lists(
        st.one_of(
            RECORD, RECORD, RECORD, TEXT.map("\n".__add__), st.sampled_from(["\n```", "\n~~~"])
        ),
        max_size=12,
    ),
).map(str.encode)
CORRUPTED = st.builds(
    lambda data, at, junk: data[:at] + junk + data[at:],
    LOG_TEXT,
    st.integers(min_value=0, max_value=400),
    st.sampled_from([b"\xff", b"\xe2\x80", b"\xed\xa0\x80", b"\xc0\xaf"]),
)
# Mostly valid text, so that most examples reach the records; now and then raw or broken bytes.
ANY_BYTES = st.integers(0, 9).flatmap(
    lambda n: st.binary(max_size=300) if n == 0 else CORRUPTED if n == 1 else LOG_TEXT
)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated empty database to copy for each example (migrating each time is slow)."""
    path = tmp_path_factory.mktemp("template") / "memory.sqlite3"
    MemoryService(path).get_session("none")  # the first call creates and migrates it
    return path


@contextmanager
def fresh_database(template: Path) -> Iterator[MemoryService]:
    """A service over a new copy of ``template`` that disappears afterwards."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "memory.sqlite3"
        with closing(sqlite3.connect(template)) as source, closing(sqlite3.connect(path)) as copy:
            source.backup(copy)
        yield MemoryService(path)


@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(data=ANY_BYTES, include_tail=st.booleans())
def test_any_bytes_are_reported_never_raised(
    migrated: Path, data: bytes, include_tail: bool
) -> None:
    # Logs come from outside: whatever is in the file, the import reports it and carries on.
    with fresh_database(migrated) as service, tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder), data)
        file = one(run(service, path, include_tail=include_tail))
        if file.error is not None:
            assert (file.imported, file.session_id) == (0, None)
            return
        messages = stored(service, file)
        assert len(messages) == file.imported
        assert file.sealed_size <= len(data)
        for message in messages:
            offset = int(message.source_ref.rsplit("=", 1)[1]) if message.source_ref else -1
            assert offset < file.sealed_size
            assert data[offset : offset + 1] == b"["
        again = one(run(service, path, include_tail=include_tail))
        assert (again.imported, again.skipped) == (0, file.imported)


def test_a_record_cut_inside_a_character_is_a_warning_and_the_rest_imports(
    service: MemoryService, tmp_path: Path
) -> None:
    # The failing input: a recorder append cut short by a full disk ends inside "ñ", and
    # later records follow it; the whole day's log used to fail with "Invalid UTF-8".
    torn = "\n\n[09:00:03 +0000] \nMorgan: Espa\u00f1a".encode()[:-2]  # half of "ñ" and "a"
    data = log_bytes(FIRST) + torn + "".join([SECOND, THIRD]).encode()
    path = write(tmp_path, data)
    file = one(run(service, path, include_tail=True))
    bad = len(log_bytes(FIRST)) + len(torn) - 1
    assert [(w.kind, w.byte) for w in file.warnings] == [("invalid_utf8", bad)]
    assert file.error is None and file.imported == 3
    assert [m.content for m in stored(service, file)] == [
        "Hola Morgan",
        "Hola Diego.\nSegunda l\u00ednea.",
        "\u00bfQu\u00e9 tal?",
    ]


def test_a_log_with_no_valid_record_starts_its_session_on_its_own_day(
    service: MemoryService, tmp_path: Path
) -> None:
    # Found by review: a log whose only record was refused made a session started at the
    # time of the import, listed among today's sessions.
    path = write(tmp_path, log_bytes(entry("09:00:00 +0000", "Diego:", "no speaker")))
    file = one(run(service, path, include_tail=True))
    assert file.imported == 0 and [w.kind for w in file.warnings] == ["malformed_speaker"]
    assert file.session_id is not None
    session = service.get_session(file.session_id)
    assert session is not None and session.started_at == datetime(2026, 10, 5, tzinfo=UTC)
    assert service.list_sessions(since=datetime(2026, 10, 6, tzinfo=UTC)).total == 0
    # Found by review: a record appended later left the session at midnight, where an
    # import of the whole file at once starts it at the record.
    with path.open("ab") as log:
        log.write((FIRST + SECOND).encode())
    again = one(run(service, path, include_tail=True))
    assert (again.session_id, again.imported) == (file.session_id, 2)
    session = service.get_session(file.session_id)
    assert session is not None and session.started_at == datetime(2026, 10, 5, 9, tzinfo=UTC)


def test_thousands_of_warnings_are_listed_up_to_a_hundred_and_counted(
    service: MemoryService, tmp_path: Path
) -> None:
    # Wrong --speaker names on a long log once gave one warning per record; the report now
    # lists the first 100 and counts every one, and names each unknown speaker once.
    entries = [entry(f"09:{n // 60:02d}:{n % 60:02d} +0000", "Caroline", "hi") for n in range(500)]
    path = write(tmp_path, log_bytes(*entries))
    file = one(run(service, path, include_tail=True))
    assert file.imported == 0 and file.unknown_speakers == {"Caroline": 500}
    assert file.warning_counts == {"unknown_speaker": 500}
    assert len(file.warnings) == 101 and file.warnings[-1].kind == "more_warnings"
    assert "400 more warnings" in file.warnings[-1].message


def test_a_fifo_named_like_a_log_is_refused_without_blocking(
    service: MemoryService, tmp_path: Path
) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(tmp_path / NAME)
    file = one(run(service, tmp_path))
    assert file.error is not None and "FIFO" in file.error and file.imported == 0
