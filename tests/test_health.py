"""`check` / health(): every finding says what is wrong and where; damaged files and files
that are not databases give a JSON report, never a traceback."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from memstore import FileError, MemoryService, StoreBusy, StoreDamaged, StoreError
from memstore.adapters.cli import cli
from memstore.store.sqlite_errors import translate_errors
from tests.test_backup import leave_free


def check(runner: CliRunner, path: Path) -> tuple[int, dict, str]:
    result = runner.invoke(cli, ["--database", str(path), "check"])
    return result.exit_code, json.loads(result.stdout), result.stderr


def execute(path: Path, *statements: str) -> None:
    """Statements on a plain connection, as a damaging program or a person would run them."""
    with closing(sqlite3.connect(path)) as connection, connection:
        for statement in statements:
            connection.execute(statement)


@contextmanager
def held_write_lock(path: Path) -> Iterator[None]:
    """Another connection holding the write lock of ``path`` (a write begun, not committed)
    for the duration of the block."""
    with closing(sqlite3.connect(path, isolation_level=None)) as blocker:
        blocker.execute("BEGIN IMMEDIATE")
        blocker.execute("DELETE FROM sessions WHERE id = 'none'")
        try:
            yield
        finally:
            blocker.execute("ROLLBACK")


@pytest.fixture
def filled(service: MemoryService) -> MemoryService:
    session = service.start_session(session_id="ses_check")
    for n in range(20):
        service.record_message(session.id, "user", f"la lavanda número {n} necesita sol")
    service.remember("Diego grows lavender.")
    service.close()
    return service


def test_a_sound_database_is_ok_with_no_problems(runner: CliRunner, filled: MemoryService) -> None:
    code, report, stderr = check(runner, filled.path)
    assert code == 0 and stderr == ""
    assert report["ok"] is True and report["problems"] == []
    assert report["integrity"] == "ok" and report["foreign_key_errors"] == []
    assert [(f["index"], f["ok"]) for f in report["fts"]] == [
        ("messages_fts", True),
        ("messages_stem_fts", True),
        ("memories_fts", True),
        ("memories_stem_fts", True),
    ]
    assert report["schema_version"] == report["code_version"] == 7
    assert report["counts"]["messages"] == 20 and report["counts"]["memories"] == 1


def test_a_broken_fts_index_is_named_and_its_rebuild_repairs_it(
    runner: CliRunner, filled: MemoryService
) -> None:
    # An index entry whose row does not exist: search would return a ghost.
    execute(filled.path, "INSERT INTO memories_fts(rowid, content) VALUES (424242, 'fantasma')")
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False
    assert [(f["index"], f["ok"]) for f in report["fts"]] == [
        ("messages_fts", True),
        ("messages_stem_fts", True),
        ("memories_fts", False),
        ("memories_stem_fts", True),
    ]
    assert report["integrity"] == "ok"  # the file itself is sound
    (problem,) = report["problems"]
    assert problem.startswith("FTS5 index memories_fts failed its integrity-check")
    rebuild = problem.split("rebuild it with ", 1)[1]
    execute(filled.path, rebuild)  # the advice given works
    code, report, _ = check(runner, filled.path)
    assert code == 0 and report["ok"] is True


@pytest.mark.parametrize("index", ["messages_fts", "messages_stem_fts", "memories_fts"])
def test_an_fts_index_without_its_segment_index_is_named_and_rebuilt(
    runner: CliRunner, filled: MemoryService, index: str
) -> None:
    # Found by review: with its _idx rows deleted, FTS5's integrity-check passed, while on a
    # large index a search found nothing.
    execute(filled.path, f"DELETE FROM {index}_idx")
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False
    assert [f["index"] for f in report["fts"] if not f["ok"]] == [index]
    (problem,) = report["problems"]
    assert problem.startswith(f"FTS5 index {index} failed its integrity-check")
    assert f"{index}_idx" in problem
    execute(filled.path, problem.split("rebuild it with ", 1)[1])
    assert check(runner, filled.path)[0] == 0


def test_a_dropped_fts_index_is_named_missing_without_a_rebuild_that_fails(
    runner: CliRunner, filled: MemoryService
) -> None:
    # Its rebuild statement failed with "no such table" (found by review).
    execute(filled.path, "DROP TABLE memories_fts")
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False
    problems = [p for p in report["problems"] if p.startswith("FTS5 index memories_fts")]
    assert problems and all("rebuild it with" not in p for p in problems)
    assert "is missing" in problems[0] and "restore a verified backup" in problems[0]


def test_a_missing_fts_trigger_is_a_problem(runner: CliRunner, filled: MemoryService) -> None:
    # Found by a new-user trial: with a trigger dropped, the index passed its integrity-check
    # and check said ok, while new messages were never indexed.
    execute(filled.path, "DROP TRIGGER messages_fts_ai")
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False and report["integrity"] == "ok"
    (problem,) = report["problems"]
    assert problem.startswith("trigger messages_fts_ai is missing: changes to its table")


@pytest.mark.parametrize(
    ("damage", "error"),
    [
        ("DROP INDEX ix_messages_place", "no such index: ix_messages_place"),
        # Still usable, but scanned whole for each hit instead of sought.
        (
            "DROP INDEX ix_messages_place; CREATE INDEX ix_messages_place ON messages (speaker)",
            None,
        ),
        (
            "DROP INDEX ix_messages_place; CREATE INDEX ix_messages_place ON sessions (id)",
            "no such index: ix_messages_place",
        ),
        (
            "DROP INDEX ix_messages_place; CREATE INDEX ix_messages_place "
            "ON messages (pk, session_id, sequence) WHERE role = 'user'",
            "no query solution",
        ),
    ],
    ids=["dropped", "other-columns", "other-table", "partial"],
)
def test_a_missing_place_index_is_a_problem_and_its_statement_repairs_it(
    runner: CliRunner, filled: MemoryService, damage: str, error: str | None
) -> None:
    # Found by a new-user trial: with the index recall names in INDEXED BY dropped, recall
    # failed with "no such index" and sent the user to check, which said ok.
    execute(filled.path, *damage.split("; "))
    if error is not None:
        with pytest.raises(StoreError, match=error):
            MemoryService(filled.path).recall("lavanda")
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False and report["integrity"] == "ok"
    assert report["problems"] == [
        "index ix_messages_place is missing or changed: recall fails or slows without it; "
        "drop any index of that name and recreate it as alembic/versions/0006_message_places.py "
        "does"
    ]
    execute(
        filled.path,
        "DROP INDEX IF EXISTS ix_messages_place",
        "CREATE INDEX ix_messages_place ON messages (pk, session_id, sequence)",
    )
    assert check(runner, filled.path)[1]["ok"] is True
    assert MemoryService(filled.path).recall("lavanda").conversations


@pytest.mark.parametrize(
    "damage",
    [
        "DROP INDEX ix_messages_requests",
        "DROP INDEX ix_messages_requests; CREATE INDEX ix_messages_requests "
        "ON messages (session_id, sequence) WHERE role = 'user' AND status = 'completed'",
        "DROP INDEX ix_messages_requests; "
        "CREATE INDEX ix_messages_requests ON messages (session_id, sequence)",
        "DROP INDEX ix_messages_requests; "
        "CREATE INDEX ix_messages_requests ON messages (sequence) WHERE role = 'user'",
    ],
    ids=["dropped", "other-condition", "every-row", "other-columns"],
)
def test_a_missing_requests_index_is_a_problem_and_its_statement_repairs_it(
    runner: CliRunner, filled: MemoryService, damage: str
) -> None:
    # Found by a review: without revision 0007's index, recall still runs but pairs each hit
    # by reading its session, and check said ok.
    execute(filled.path, *damage.split("; "))
    assert MemoryService(filled.path).recall("lavanda").conversations
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False and report["integrity"] == "ok"
    assert report["problems"] == [
        "index ix_messages_requests is missing or changed: recall slows without it; drop any "
        "index of that name and recreate it as alembic/versions/0007_message_requests.py does"
    ]
    execute(
        filled.path,
        "DROP INDEX IF EXISTS ix_messages_requests",
        "create  index IX_MESSAGES_REQUESTS on messages (session_id, sequence)\n"
        "  where role = 'user'",  # any case of the words and the name, any spaces
    )
    assert check(runner, filled.path)[1]["ok"] is True


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        ("DROP INDEX ux_memories_active_key", "ux_memories_active_key"),
        (
            "DROP INDEX ux_memories_active_normalized; CREATE INDEX ux_memories_active_normalized"
            " ON memories (normalized_content) WHERE status = 'active'",  # no longer unique
            "ux_memories_active_normalized",
        ),
        ("DROP INDEX ix_messages_created_at", "ix_messages_created_at"),
        ("DROP INDEX ix_messages_speaker", "ix_messages_speaker"),
        ("DROP INDEX ix_memory_sources_memory_id", "ix_memory_sources_memory_id"),
        ("DROP INDEX ix_memory_sources_message_id", "ix_memory_sources_message_id"),
    ],
    ids=["key", "content-not-unique", "times", "speakers", "sources", "source-messages"],
)
def test_every_index_of_the_schema_is_checked(
    runner: CliRunner, filled: MemoryService, damage: str, named: str
) -> None:
    # Found by review: check said ok with the unique indexes that keep one active memory per
    # key and per content dropped, and four others.
    execute(filled.path, *damage.split("; "))
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False and report["integrity"] == "ok"
    (problem,) = report["problems"]
    assert problem.startswith(f"index {named} is missing or changed: ")
    assert problem.endswith("does") and "alembic/versions/000" in problem


def test_the_place_index_is_found_whatever_the_case_of_its_name(
    runner: CliRunner, filled: MemoryService
) -> None:
    # SQLite's names ignore case: recall finds IX_MESSAGES_PLACE, and so must check.
    execute(
        filled.path,
        "DROP INDEX ix_messages_place",
        "CREATE INDEX IX_MESSAGES_PLACE ON messages (pk, session_id, sequence)",
    )
    assert MemoryService(filled.path).recall("lavanda").conversations
    assert check(runner, filled.path)[1]["ok"] is True


@pytest.mark.parametrize(
    "damage",
    [
        "DROP VIEW memories_search",
        # Still a view over the index, but no longer what Datasette looks for (content="T").
        "DROP VIEW memories_search; CREATE VIEW memories_search AS "
        "SELECT rowid, memories_fts AS memories_search, content FROM memories_fts",
    ],
    ids=["dropped", "unmarked"],
)
def test_a_search_view_datasette_cannot_use_is_a_problem(
    runner: CliRunner, filled: MemoryService, damage: str
) -> None:
    execute(filled.path, *damage.split("; "))
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False
    problem = next(p for p in report["problems"] if p.startswith("view "))
    assert problem.startswith("view memories_search is missing or changed: Datasette no longer")
    assert problem.endswith("recreate it as alembic/versions/0005_datasette.py does")


def test_a_busy_check_whose_copy_finds_no_room_names_the_folder(
    filled: MemoryService, small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: with the temporary folder full, the check beside a writer failed with
    # a bare OSError, "No space left on device", outside memstore's errors, naming no folder.
    import tempfile

    leave_free(small_disk, 8192)
    monkeypatch.setattr(tempfile, "tempdir", str(small_disk))
    filled.health()
    expected = f"could not be written in {small_disk}"
    with held_write_lock(filled.path), pytest.raises(StoreError, match=expected) as raised:
        filled.health()
    assert "set TMPDIR to a folder with room" in str(raised.value)
    assert list(small_disk.iterdir()) == [small_disk / "filler"]


def test_a_busy_check_whose_copy_cannot_be_opened_names_the_folder(
    filled: MemoryService, small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by the re-check: room for the copy but not for its -shm gave "SQLite failed: disk
    # I/O error; run memstore check", the command that failed, naming no folder.
    import tempfile

    filled.health()
    leave_free(small_disk, filled.path.stat().st_size + 8192)
    monkeypatch.setattr(tempfile, "tempdir", str(small_disk))
    expected = f"could not be opened in {small_disk}"
    with held_write_lock(filled.path), pytest.raises(StoreError, match=expected) as raised:
        filled.health()
    assert "(disk I/O error); set TMPDIR to a folder with room" in str(raised.value)


@pytest.mark.parametrize(
    "damage",
    [
        "DROP TABLE messages_fts",
        "UPDATE messages_fts_data SET block = randomblob(length(block)) WHERE id > 10",
        "UPDATE messages_fts_config SET v = 999 WHERE k = 'version'",
    ],
)
def test_a_sound_view_over_a_damaged_index_is_not_called_missing(
    runner: CliRunner, filled: MemoryService, damage: str
) -> None:
    # Found by review: a search through the view failed with its index, so the view, byte
    # for byte as made, was called "missing or changed" beside the index's own finding.
    execute(filled.path, damage)
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False
    assert [f["index"] for f in report["fts"] if not f["ok"]] == ["messages_fts"]
    assert any(p.startswith("FTS5 index messages_fts") for p in report["problems"])
    assert not [p for p in report["problems"] if p.startswith("view ")]


def test_a_changed_view_is_reported_beside_another_index_damaged(
    runner: CliRunner, filled: MemoryService
) -> None:
    # Found by the re-check: any damaged index left every view unprobed, so a view changed to
    # search nothing (its comment kept, which Datasette's test reads) went unreported.
    execute(
        filled.path,
        "DROP VIEW messages_search",
        "CREATE VIEW messages_search AS\n"
        '-- VIRTUAL TABLE ... USING FTS ... content="messages" as that table\'s index.\n'
        "SELECT rowid, content AS messages_search, content FROM messages",
        "UPDATE memories_stem_fts_data SET block = x'0000' WHERE id > 10",
    )
    code, report, _ = check(runner, filled.path)
    assert code == 1 and [f["index"] for f in report["fts"] if not f["ok"]] == ["memories_stem_fts"]
    views = [p for p in report["problems"] if p.startswith("view ")]
    assert len(views) == 1 and views[0].startswith("view messages_search is missing or changed")


def test_a_foreign_key_violation_names_table_row_column_and_parent(
    runner: CliRunner, filled: MemoryService
) -> None:
    # Written with foreign keys off (the SQLite default of other programs).
    execute(filled.path, "UPDATE messages SET session_id = 'ses_gone' WHERE sequence = 7")
    with closing(sqlite3.connect(filled.path)) as connection:
        (rowid,) = connection.execute("SELECT rowid FROM messages WHERE sequence = 7").fetchone()
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False
    (found,) = report["foreign_key_errors"]
    assert found == {
        "table": "messages",
        "rowid": rowid,
        "parent": "sessions",
        "fkid": 0,
        "column": "session_id",
    }
    assert report["problems"] == [
        f"foreign key: messages row {rowid} has a session_id that matches no sessions row"
    ]


@pytest.mark.parametrize(
    "content",
    [b"", b"just some notes, not a database\n", bytes(range(256)) * 40],
    ids=["empty", "text", "binary"],
)
def test_a_file_that_is_not_a_database_is_a_report_and_is_left_untouched(
    runner: CliRunner, tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "notes.sqlite3"
    path.write_bytes(content)
    if not content:  # an empty file holds nothing wrong, and is left as it is
        code, report, stderr = check(runner, path)
        assert (code, report["ok"], report["schema_version"]) == (0, True, 0)
        assert "holds no tables yet" in stderr and path.read_bytes() == b""
        return
    code, report, stderr = check(runner, path)
    assert code == 1 and stderr == ""
    assert report["ok"] is False and report["counts"] == {}
    (problem,) = report["problems"]
    assert problem.startswith(f"{path}: ") and "file is not a database" in problem
    assert "restore a verified backup" in problem
    assert path.read_bytes() == content  # the check wrote nothing into it


def test_other_commands_on_a_file_that_is_not_a_database_give_a_json_error(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "notes.sqlite3"
    path.write_bytes(b"just some notes, not a database\n")
    result = runner.invoke(cli, ["--database", str(path), "recall", "lavanda"])
    assert result.exit_code == 1 and result.stdout == ""
    error = json.loads(result.stderr)["error"]
    assert error["type"] == "StoreDamaged" and "file is not a database" in error["message"]
    # found by review: the most likely cause, the wrong file, was not named
    assert "check --database" in error["message"]


def test_schema_text_holding_a_byte_that_is_not_utf8_is_damage_never_a_traceback(
    runner: CliRunner, filled: MemoryService
) -> None:
    # Found by review: SQLite's error message quotes the schema text it cannot parse, and
    # Python's sqlite3 failed to decode it: every command, check included, and the API
    # raised UnicodeDecodeError.
    data = filled.path.read_bytes()
    at = data.index(b"PRIMARY KEY, block BLOB") + 10
    filled.path.write_bytes(data[:at] + b"\xd3" + data[at + 1 :])
    damaged = filled.path.read_bytes()
    code, report, stderr = check(runner, filled.path)
    assert code == 1 and stderr == "" and report["ok"] is False
    assert "not UTF-8" in report["problems"][0]
    for command in (["recall", "lavanda"], ["memories"], ["remember", "Diego grows thyme."]):
        result = runner.invoke(cli, ["--database", str(filled.path), *command])
        assert result.exit_code == 1, command
        assert json.loads(result.stderr)["error"]["type"] == "StoreDamaged", command
    with pytest.raises(StoreDamaged, match="not UTF-8"):
        MemoryService(filled.path).list_memories()
    assert filled.path.read_bytes() == damaged


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE messages SET content = content || CAST(x'ff' AS TEXT) WHERE sequence = 3",
        "UPDATE messages SET created_at = '2026-30-05T07:40:31.000000+00:00' WHERE sequence = 3",
    ],
)
@pytest.mark.parametrize(
    "command", [["recall", "lavanda"], ["instances", "lavanda"], ["conversation", "ses_check"]]
)
def test_text_or_a_time_no_longer_readable_is_store_damaged_not_a_traceback(
    runner: CliRunner, filled: MemoryService, damage: str, command: list[str]
) -> None:
    # Found by review: Python's own "Could not decode to UTF-8" error carries no SQLite code,
    # and reading it failed as an AttributeError; a flipped digit in a date as a ValueError.
    execute(filled.path, damage)
    result = runner.invoke(cli, ["--database", str(filled.path), *command, "--limit", "50"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stderr)["error"]["type"] == "StoreDamaged"


NO_TIME, NOT_TEXT = "which is no time", "which is not text"


VALUE_DAMAGE = [
    # found by review: check said ok of a file every reading command calls StoreDamaged
    (
        "UPDATE messages SET created_at = 'yesterday' WHERE sequence = 3",
        "messages.created_at",
        NO_TIME,
    ),
    ("UPDATE memories SET expires_at = 'now'", "memories.expires_at", NO_TIME),
    ("UPDATE sessions SET started_at = 2461000.5", "sessions.started_at", NO_TIME),
    # found by review: check said ok of these, which later commands read with a traceback
    ("UPDATE sessions SET metadata = '{not json'", "sessions.metadata", "not a JSON object"),
    ("UPDATE sessions SET metadata = '[1, 2]'", "sessions.metadata", "not a JSON object"),
    ("UPDATE sessions SET metadata = 42", "sessions.metadata", "not a JSON object"),
    (
        "UPDATE messages SET sequence = 'abc' WHERE sequence = 2",
        "messages.sequence",
        "not an integer",
    ),
    ("UPDATE messages SET speaker = x'ff00' WHERE sequence = 2", "messages.speaker", NOT_TEXT),
    ("UPDATE messages SET content = x'6869' WHERE sequence = 2", "messages.content", NOT_TEXT),
    ("UPDATE memories SET key = x'6b6579'", "memories.key", NOT_TEXT),
    # found by review: the JSON export of metadata holding NaN failed with a traceback
    ("""UPDATE sessions SET metadata = '{"x": NaN}'""", "sessions.metadata", "not a JSON object"),
]


@pytest.mark.parametrize(("damage", "found", "says"), VALUE_DAMAGE)
def test_a_stored_value_no_command_reads_is_a_problem_check_names(
    runner: CliRunner, filled: MemoryService, damage: str, found: str, says: str
) -> None:
    execute(filled.path, damage)
    code, report, _ = check(runner, filled.path)
    assert code == 1 and report["ok"] is False
    assert any(p.startswith(found) and says in p for p in report["problems"])


@pytest.mark.parametrize(("damage", "found", "says"), VALUE_DAMAGE)
def test_a_stored_value_check_names_is_store_damaged_in_every_command_never_a_traceback(
    runner: CliRunner, filled: MemoryService, tmp_path: Path, damage: str, found: str, says: str
) -> None:
    # Found by review: a list as metadata, text as a sequence number or a blob as content
    # failed sessions, conversation, message and export with a traceback.
    message_id = filled.messages("ses_check")[1].id
    execute(filled.path, damage)
    reads = [
        ["sessions"],
        ["conversation", "ses_check"],
        ["message", message_id],
        ["memories"],
        ["recall", "lavanda", "--limit", "50"],
    ]
    for command in reads:
        result = runner.invoke(cli, ["--database", str(filled.path), *command])
        assert result.exception is None or isinstance(result.exception, SystemExit), command
        if result.exit_code:
            assert json.loads(result.stderr)["error"]["type"] == "StoreDamaged", command
    export = runner.invoke(cli, ["--database", str(filled.path), "export", str(tmp_path / "x")])
    error = json.loads(export.stderr)["error"]
    assert export.exit_code == 1 and error["type"] == "StoreDamaged"
    assert found in error["message"] or says == NO_TIME
    assert not (tmp_path / "x").exists()


def test_a_blob_the_index_still_finds_is_store_damaged_in_instances_and_the_context(
    runner: CliRunner, filled: MemoryService
) -> None:
    # Found by review: instances and the per-turn context failed on it with a TypeError.
    execute(
        filled.path,
        "UPDATE messages SET content = CAST('la lavanda rota' AS BLOB) WHERE sequence = 2",
        "UPDATE memories SET content = CAST('Diego grows lavender.' AS BLOB)",
    )
    for command in (
        ["instances", "lavanda", "--limit", "50"],
        ["instances", "lavender", "--scope", "memories"],
    ):
        result = runner.invoke(cli, ["--database", str(filled.path), *command])
        error = json.loads(result.stderr)["error"]
        assert result.exit_code == 1 and error["type"] == "StoreDamaged", command
        assert ".content of the row with id" in error["message"]
    with pytest.raises(StoreDamaged, match="memories.content"):
        MemoryService(filled.path).context("lavender")


def test_a_category_written_around_its_check_is_store_damaged(
    runner: CliRunner, filled: MemoryService
) -> None:
    # Found by review: memories and recall failed on it with a pydantic traceback.
    execute(
        filled.path,
        "PRAGMA ignore_check_constraints = ON",
        "UPDATE memories SET category = 'bogus'",
    )
    for command in (["memories"], ["recall", "lavender"]):
        result = runner.invoke(cli, ["--database", str(filled.path), *command])
        error = json.loads(result.stderr)["error"]
        assert result.exit_code == 1 and error["type"] == "StoreDamaged", command
        assert "memories.category" in error["message"] and "'bogus'" in error["message"]


def test_damaged_pages_are_reported_with_where_and_what_to_do(
    runner: CliRunner, filled: MemoryService
) -> None:
    # Overwrite the root page of the sessions table with garbage.
    with closing(sqlite3.connect(filled.path)) as connection:
        (root,) = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'sessions'"
        ).fetchone()
        (page_size,) = connection.execute("PRAGMA page_size").fetchone()
    with filled.path.open("r+b") as file:
        file.seek((root - 1) * page_size)
        file.write(b"\x13" * page_size)
    code, report, stderr = check(runner, filled.path)
    assert code == 1 and stderr == ""
    assert report["ok"] is False and report["integrity"] != "ok"
    problems = report["problems"]
    # SQLite gives up on the whole file; checked table by table, the damage has a name.
    assert "integrity_check: table sessions: database disk image is malformed" in problems
    assert problems[-1].startswith("the file is damaged") and "backup" in problems[-1]


def test_a_busy_database_is_checked_on_a_copy_never_a_broken_index(
    filled: MemoryService,
) -> None:
    # The FTS5 integrity-check needs the write lock: a writer holding it past the 500 ms wait
    # made the check fail as StoreBusy (never reporting the indexes as broken), and so did
    # any write committed while it read, every time on a store of 60,000 messages beside a
    # write every 0.2 s (found by review). Past its retries, the check probes a private copy.
    filled.health()  # migrated and warm
    with held_write_lock(filled.path):
        report = filled.health()
    assert report.ok is True and report.read_only is False
    assert [check.ok for check in report.fts] == [True] * len(report.fts) and report.fts


def test_a_check_waits_for_a_write_of_its_own_process_instead_of_failing(
    filled: MemoryService,
) -> None:
    # A write another thread committed while the check read made its FTS5 integrity-check
    # fail at once (SQLITE_BUSY_SNAPSHOT, reported as a 500 ms lock wait): health() failed 10
    # times out of 10 beside a thread writing every 10 ms (found by review).
    filled.health()
    session = filled.start_session()
    writing, reports = threading.Event(), []

    def slow_write() -> None:
        with filled._db.write() as connection:  # the service's own database, another thread
            writing.set()
            time.sleep(0.3)
            connection.execute("UPDATE sessions SET metadata = '{}' WHERE id = ?", (session.id,))

    writer = threading.Thread(target=slow_write)
    writer.start()
    writing.wait()
    try:
        reports.append(filled.health())
    finally:
        writer.join()
    stop = threading.Event()

    def keep_writing() -> None:
        while not stop.is_set():
            filled.record_message(session.id, "user", "one more note")
            time.sleep(0.005)

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        reports += [filled.health() for _ in range(3)]
    finally:
        stop.set()
        writer.join()
    assert [report.ok for report in reports] == [True] * 4


def test_a_write_from_a_stale_read_is_store_busy_saying_so(db_path: Path) -> None:
    # The snapshot error comes from writing in a read transaction another connection has
    # committed past, not from a lock held too long: its message says which.
    MemoryService(db_path).start_session()
    with closing(sqlite3.connect(db_path, isolation_level=None)) as reader:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM sessions").fetchone()
        execute(db_path, "UPDATE sessions SET ended_at = started_at")
        stale = "changed the database while this read it"
        with pytest.raises(StoreBusy, match=stale), translate_errors(db_path):
            reader.execute("UPDATE sessions SET ended_at = NULL")
        reader.execute("ROLLBACK")


@pytest.mark.parametrize(
    "code", [sqlite3.SQLITE_READONLY_RECOVERY, sqlite3.SQLITE_READONLY_CANTINIT]
)
def test_a_reader_meeting_the_wal_mid_recovery_is_store_busy_not_read_only(
    db_path: Path, code: int
) -> None:
    # Found by review: 1 read in 3,500 of a read-only store beside an owner opening and
    # closing it was StoreReadOnly, as if a write had been refused; it is passing, as a
    # lock is. SQLite's own error, its extended code as the module sets it, stands in.
    error = sqlite3.OperationalError("attempt to write a readonly database")
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    with pytest.raises(StoreBusy, match="opening or recovering"), translate_errors(db_path):
        raise error


def test_a_check_waits_for_another_processs_short_write_as_a_write_does(
    filled: MemoryService,
) -> None:
    # Found by review: begun as a read, the check failed as StoreBusy after 7 ms when
    # another process held the write lock for 200 ms; a write beside it waited and succeeded.
    import subprocess
    import sys

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            f"c = sqlite3.connect({str(filled.path)!r}, isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE'); c.execute(\"DELETE FROM sessions WHERE id = 'x'\")\n"
            "print('locked', flush=True); time.sleep(0.2); c.execute('COMMIT')\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    with holder:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert MemoryService(filled.path).health().ok is True


# What a first import killed during its migration leaves: SQLite's header in WAL mode, and a
# transaction that made tables but never committed.
KILLED_MIGRATION = """
import os, signal, sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("PRAGMA journal_mode = WAL")
connection.execute("BEGIN IMMEDIATE")
connection.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY)")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_first_import_killed_before_its_tables_passes_check_untouched(
    runner: CliRunner, tmp_path: Path
) -> None:
    # Found by review: 5 of 26 first imports killed at random were refused by check ("not
    # a memstore database"), though importing again worked.
    path = tmp_path / "memory.sqlite3"
    killed = subprocess.run([sys.executable, "-c", KILLED_MIGRATION, str(path)], timeout=60)
    assert killed.returncode == -9 and path.stat().st_size > 0
    before = path.read_bytes()
    code, report, stderr = check(runner, path)
    assert (code, report["ok"], report["schema_version"], report["problems"]) == (0, True, 0, [])
    assert "holds no tables yet" in stderr
    assert path.read_bytes() == before
    MemoryService(path).remember("Diego likes jazz.")
    code, report, _ = check(runner, path)
    assert (code, report["ok"], report["counts"]["memories"]) == (0, True, 1)


def test_a_file_that_only_looks_empty_is_not_reported_as_holding_nothing(
    runner: CliRunner, tmp_path: Path
) -> None:
    # Found by review of the check above: one byte (which SQLite reads as an empty
    # database), and a store whose first page lost its table list, were called files that
    # hold nothing, and `remember` then wrote a new schema over the damaged one.
    one_byte = tmp_path / "one.sqlite3"
    one_byte.write_bytes(b"x")
    emptied = tmp_path / "emptied.sqlite3"
    with MemoryService(emptied) as service:
        service.remember("Diego likes jazz.")
    execute(emptied, "PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA journal_mode = DELETE")
    page = bytearray(emptied.read_bytes())
    page[100], page[103], page[104] = 0x0D, 0, 0  # page 1: a leaf without cells
    emptied.write_bytes(bytes(page))
    for path in (one_byte, emptied):
        before = path.read_bytes()
        result = runner.invoke(cli, ["--database", str(path), "check"])
        assert result.exit_code == 1 and "holds no tables yet" not in result.stderr, path
        assert path.read_bytes() == before
    # and no write sets a new store up over the damaged one (found by the next review)
    for command in (["check"], ["remember", "Diego likes tea."]):
        result = runner.invoke(cli, ["--database", str(emptied), *command])
        error = json.loads(result.stderr)["error"]
        assert (result.exit_code, error["type"]) == (1, "FileError")
        assert "holds no table, but" in error["message"]
    with pytest.raises(FileError, match="a store whose schema was damaged"):
        MemoryService(emptied).health()
    assert emptied.read_bytes() == before
