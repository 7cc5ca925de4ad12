"""The database file: only a missing or empty file becomes a store, foreign files and FIFOs
are refused untouched, one schema truth, read-only stores, private permissions."""

from __future__ import annotations

import gc
import json
import os
import pwd
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from alembic.config import Config
from click.testing import CliRunner

from alembic import command as alembic_command
from memstore import FileError, MemoryService, SchemaError, StoreBusy, StoreReadOnly
from memstore.adapters.cli import cli
from memstore.errors import InvalidQuery
from memstore.store import probe
from memstore.store.database import Database
from tests.conftest import ALEMBIC_BASE, REPO, at_base
from tests.test_migrations import downgrade, upgrade

EXAMPLES = REPO / "examples" / "logs"
SPEAKERS = ["--speaker", "Diego=user", "--speaker", "Morgan=assistant"]
WRITERS = [
    ["remember", "Diego likes tea."],
    ["import", str(EXAMPLES), *SPEAKERS],
]
READERS = [["recall", "tea"], ["check"], ["words"], ["memories"], ["backup", "{tmp}/b.sqlite3"]]


def memstore(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess (a hang fails the test instead of blocking the suite)."""
    command = [sys.executable, "-m", "memstore", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def error_of(completed: subprocess.CompletedProcess[str]) -> dict[str, str]:
    error: dict[str, str] = json.loads(completed.stderr.strip().splitlines()[-1])["error"]
    return error


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    """Another application's SQLite database, in rollback journal mode."""
    path = tmp_path / "notes.db"
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE notes (body TEXT)")
        connection.execute("INSERT INTO notes VALUES ('mine')")
        connection.commit()
    return path


@pytest.mark.parametrize("command", WRITERS + READERS)
def test_every_command_refuses_another_applications_database_byte_for_byte(
    foreign: Path, tmp_path: Path, command: list[str]
) -> None:
    before = foreign.read_bytes()
    args = [part.replace("{tmp}", str(tmp_path)) for part in command]
    completed = memstore("--database", str(foreign), *args)
    assert completed.returncode == 1
    assert error_of(completed)["type"] == "FileError"
    assert foreign.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]  # no -wal, no -shm


OTHER_TOOLS_RECORDS = {  # table, its columns, a row
    # found by review: each was switched to WAL, a traceback, or a MemoryError
    "sequel": ("schema_migrations", "filename TEXT", "'1_init.rb'"),
    "text version": ("schema_migrations", "version TEXT", "'v1.2'"),
    "null version": ("schema_migrations", "version INTEGER", "NULL"),
    "rails": ("schema_migrations", "version", "20230101120000"),
    "golang-migrate": ("schema_migrations", "version INTEGER, dirty INTEGER", "3, 0"),
    "alembic app": ("alembic_version", "version_num TEXT", "'ae1027a6acf'"),
    "alembic columns": ("alembic_version", "revision TEXT", "'0007'"),
}


EMPTY_VERSION_TABLES = {  # found by review: each was a SchemaError ("a newer memstore")
    "golang-migrate alone": ("schema_migrations (version INTEGER, dirty INTEGER)", False),
    "golang-migrate with its tables": ("schema_migrations (version INTEGER, dirty INTEGER)", True),
    "an alembic app's, before its first revision": ("alembic_version (version_num TEXT)", True),
    # found by a later review: taken over as a store at Alembic's base, then refused for good
    "an alembic_version of other columns alone": (
        "alembic_version (version_num VARCHAR(32) PRIMARY KEY, extra TEXT)",
        False,
    ),
}


@pytest.mark.parametrize("case", EMPTY_VERSION_TABLES)
def test_another_tools_empty_version_table_makes_a_database_another_applications(
    runner: CliRunner, tmp_path: Path, case: str
) -> None:
    table, with_tables = EMPTY_VERSION_TABLES[case]
    path = tmp_path / "app.db"
    with closing(sqlite3.connect(path)) as connection:
        connection.execute(f"CREATE TABLE {table}")
        if with_tables:
            connection.execute("CREATE TABLE users (name TEXT)")
        connection.commit()
    before = path.read_bytes()
    for command in (["recall", "tea"], ["remember", "Diego likes tea."]):
        result = runner.invoke(cli, ["--database", str(path), *command])
        assert result.exit_code == 1 and json.loads(result.stderr)["error"]["type"] == "FileError"
    assert path.read_bytes() == before


def utf16_database(path: Path, encoding: str, *statements: str) -> Path:
    """An empty SQLite file that stores text in ``encoding``, after ``statements``."""
    with closing(sqlite3.connect(path)) as connection:
        connection.execute(f"PRAGMA encoding = '{encoding}'")
        for statement in statements or ("CREATE TABLE t (x)", "DROP TABLE t", "VACUUM"):
            connection.execute(statement)
        connection.commit()
    return path


@pytest.mark.parametrize("encoding", ["UTF-16le", "UTF-16be"])
@pytest.mark.parametrize("base", [False, True])
@pytest.mark.parametrize(
    "command",
    [["remember", "Diego likes tea."], ["check"], ["recall", "tea"], ["diary", "2026-10-05"]],
)
def test_a_utf16_database_is_never_made_a_store(
    runner: CliRunner, tmp_path: Path, encoding: str, base: bool, command: list[str]
) -> None:
    """Found by review: an import wrote UTF-8 bytes that SQLite read as UTF-16, cutting a
    byte off each message of odd length ("Hola Morgan" was stored as "Hola Morga"); then
    ``check`` called such a file one a `remember` sets up, and a file at Alembic's base was
    still set up."""
    statements = (f"CREATE TABLE {ALEMBIC_BASE}",) if base else ()
    path = utf16_database(tmp_path / "utf16.sqlite3", encoding, *statements)
    before = path.read_bytes()
    result = runner.invoke(cli, ["--database", str(path), *command])
    error = json.loads(result.stderr)["error"]
    assert result.exit_code == 1 and error["type"] == "FileError"
    assert f"stores text as {encoding}" in error["message"]
    with pytest.raises(FileError, match=f"stores text as {encoding}"):
        MemoryService(path).remember("Diego likes tea.")
    assert path.read_bytes() == before


def test_a_store_an_earlier_memstore_made_in_utf16_is_refused(
    runner: CliRunner, tmp_path: Path
) -> None:
    """Such a store (set up by Alembic, as earlier code did) cut imported text; it is left as
    it is, with the reason."""
    path = utf16_database(tmp_path / "utf16.sqlite3", "UTF-16le")
    upgrade(path, "0003")  # on a connection of its own, past memstore's refusal
    before = path.read_bytes()
    for arguments in (["check"], ["recall", "tea"], ["remember", "Diego likes tea."]):
        result = runner.invoke(cli, ["--database", str(path), *arguments])
        assert result.exit_code == 1, arguments
        message = json.loads(result.stderr)["error"]["message"]
        assert "stores text as UTF-16le" in message and ".dump" in message
    config = Config(str(REPO / "alembic.ini"))  # nor does a maintainer's upgrade take it
    config.set_main_option("sqlalchemy.url", f"sqlite:///{path}")
    with pytest.raises(SystemExit, match="stores text as UTF-16le"):
        alembic_command.upgrade(config, "head")
    assert path.read_bytes() == before


@pytest.mark.parametrize("command", [["recall", "tea"], ["check"], ["memories"], ["sessions"]])
def test_a_file_at_alembic_base_is_refused_by_reading_commands_as_an_empty_one_is(
    runner: CliRunner, tmp_path: Path, command: list[str]
) -> None:
    # Found by review: they upgraded it, and check called the new empty store ok.
    path = at_base(tmp_path / "base.sqlite3")
    before = path.read_bytes()
    result = runner.invoke(cli, ["--database", str(path), *command])
    error = json.loads(result.stderr)["error"]
    assert result.exit_code == 1 and error["type"] == "FileError"
    assert "not a memstore database" in error["message"]
    assert path.read_bytes() == before and sorted(tmp_path.iterdir()) == [path]


def test_a_file_at_alembic_base_claimed_by_an_application_is_not_taken(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = at_base(tmp_path / "claimed.sqlite3", "PRAGMA user_version = 42")
    before = path.read_bytes()
    result = runner.invoke(cli, ["--database", str(path), "remember", "Diego likes tea."])
    assert result.exit_code == 1 and json.loads(result.stderr)["error"]["type"] == "FileError"
    assert path.read_bytes() == before


@pytest.mark.parametrize("lost", [["memories"], ["memories", "messages", "sessions"]])
def test_a_store_that_lost_its_first_tables_is_damaged_not_another_applications(
    runner: CliRunner, db_path: Path, lost: list[str]
) -> None:
    # Found by review: check called it another application's database.
    MemoryService(db_path).remember("Diego likes tea.")
    with closing(sqlite3.connect(db_path)) as connection:
        connection.executescript(
            "DROP TABLE memory_sources;" + "".join(f"DROP TABLE {name};" for name in lost)
        )
    result = runner.invoke(cli, ["--database", str(db_path), "check"])
    report = json.loads(result.stdout)
    assert result.exit_code == 1 and report["ok"] is False
    assert any("no such table: memories" in problem for problem in report["problems"])


def test_analyze_on_a_file_at_alembic_base_leaves_it_at_base(
    runner: CliRunner, tmp_path: Path
) -> None:
    # Found by review: ANALYZE's sqlite_stat1 made it another application's.
    path = at_base(
        tmp_path / "base.sqlite3",
        "INSERT INTO alembic_version VALUES ('x')",
        "ANALYZE",
        "DELETE FROM alembic_version",
    )
    result = runner.invoke(cli, ["--database", str(path), "remember", "Diego likes tea."])
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("tool", OTHER_TOOLS_RECORDS)
@pytest.mark.parametrize("command", [["recall", "tea"], ["check"], ["diary", "2026-10-05"]])
def test_another_tools_version_tables_make_a_database_another_applications(
    foreign: Path, tmp_path: Path, tool: str, command: list[str]
) -> None:
    with closing(sqlite3.connect(foreign)) as connection:
        table, columns, row = OTHER_TOOLS_RECORDS[tool]
        connection.execute(f"CREATE TABLE {table} ({columns})")
        connection.execute(f"INSERT INTO {table} VALUES ({row})")
        connection.commit()
    before = foreign.read_bytes()
    completed = memstore("--database", str(foreign), *command)
    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    assert error_of(completed)["type"] == "FileError"
    assert foreign.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def test_a_foreign_database_in_wal_mode_is_refused_by_the_api_and_mcp_too(
    foreign: Path, runner: CliRunner
) -> None:
    with closing(sqlite3.connect(foreign)) as connection:
        connection.execute("PRAGMA journal_mode = WAL")
    before = foreign.read_bytes()
    with pytest.raises(FileError, match="not a memstore database") as caught:
        MemoryService(foreign).remember("Diego likes tea.")
    assert caught.value.path == str(foreign)
    result = runner.invoke(cli, ["--database", str(foreign), "mcp"], input="")
    assert result.exit_code == 1 and json.loads(result.stderr)["error"]["type"] == "FileError"
    assert foreign.read_bytes() == before


def test_an_empty_file_and_an_empty_sqlite_database_become_stores(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    blank = tmp_path / "blank.sqlite3"
    with closing(sqlite3.connect(blank)) as connection:
        connection.execute("PRAGMA user_version = 0")
        connection.execute("VACUUM")  # a header and no tables
    for path in (empty, blank):
        assert MemoryService(path).remember("Diego likes tea.").content == "Diego likes tea."


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("option", ["--database", "--config"])
@pytest.mark.parametrize("command", [["recall", "tea"], ["remember", "Diego likes tea."]])
def test_a_fifo_given_as_database_or_config_is_refused_at_once(
    fifo: Path, option: str, command: list[str]
) -> None:
    # Opening a FIFO blocks until someone opens its other end: memstore must not open it.
    completed = memstore(option, str(fifo), *command, timeout=20)
    assert completed.returncode == 1
    error = error_of(completed)
    assert error["type"] == "FileError" and "FIFO" in error["message"]


@pytest.mark.parametrize("companion", ["-journal", "-wal", "-shm"])
@pytest.mark.parametrize("command", [["check"], ["recall", "tea"], ["remember", "Diego is tall."]])
def test_a_fifo_beside_the_database_is_refused_at_once(
    tmp_path: Path, companion: str, command: list[str]
) -> None:
    # Found by review: SQLite opened a FIFO named <db>-journal while probing for a hot
    # journal, and every command blocked forever, past SIGTERM; a FIFO -wal was a bare
    # "disk I/O error".
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    database = tmp_path / "memory.sqlite3"
    assert memstore("--database", str(database), "remember", "Diego likes tea.").returncode == 0
    os.mkfifo(f"{database}{companion}")
    completed = memstore("--database", str(database), *command, timeout=30)
    assert completed.returncode == 1
    error = error_of(completed)
    assert error["type"] == "FileError"
    assert f"{companion} file" in error["message"] and "FIFO" in error["message"]


def test_a_fifo_beside_a_linked_databases_target_is_refused_at_once(tmp_path: Path) -> None:
    # Found by review: SQLite keeps its journal beside a symbolic link's target, where the
    # first fix did not look, and every command through the link blocked forever.
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").mkdir()
    target, link = tmp_path / "real" / "m.db", tmp_path / "link" / "m.db"
    assert memstore("--database", str(target), "remember", "Diego likes tea.").returncode == 0
    link.symlink_to(target)
    (tmp_path / "link" / "m.db-shm").mkdir()  # no file of SQLite's: it is never opened
    os.mkfifo(f"{target}-journal")
    completed = memstore("--database", str(link), "recall", "tea", timeout=30)
    assert completed.returncode == 1
    assert f"{target}-journal" in error_of(completed)["message"]


def test_an_in_memory_database_is_refused_instead_of_a_file_named_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileError, match="give a file path"):
        MemoryService(":memory:").recall("tea")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_or_device_as_database_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="a folder"):
        MemoryService(tmp_path).recall("tea")
    if Path("/dev/null").exists():
        with pytest.raises(FileError, match="character device"):
            MemoryService("/dev/null").remember("Diego likes tea.")


def test_another_applications_database_locked_by_its_writer_is_left_as_it_is(
    foreign: Path,
) -> None:
    # Found by review: the probe took a file locked past its wait for no database at all,
    # and the write that followed switched another application's database to WAL between
    # two of its writer's transactions.
    writing = threading.Event()
    writing.set()

    def write() -> None:
        with closing(sqlite3.connect(foreign, isolation_level=None)) as writer:
            while writing.is_set():
                writer.execute("BEGIN EXCLUSIVE")
                writer.execute("INSERT INTO notes VALUES ('theirs')")
                time.sleep(0.7)  # past the probe's 0.5 s wait
                writer.execute("COMMIT")
                time.sleep(0.3)  # a gap a write waiting for the lock gets in by

    thread = threading.Thread(target=write)
    thread.start()
    try:
        runs = [memstore("--database", str(foreign), "remember", "tea") for _ in range(4)]
    finally:
        writing.clear()
        thread.join()
    assert {error_of(run)["type"] for run in runs} <= {"StoreBusy", "FileError"}
    with closing(sqlite3.connect(foreign)) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        tables = connection.execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("notes",)]


HOT_JOURNAL = """
import os, sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("PRAGMA cache_size = 1")
connection.execute("BEGIN")
connection.execute("INSERT INTO notes SELECT randomblob(5000) FROM generate_series")
os._exit(0)  # killed mid-write: the -journal is left hot
"""


@pytest.mark.parametrize("through_a_link", [False, True])
def test_another_applications_database_with_a_hot_journal_is_left_as_it_is(
    foreign: Path, through_a_link: bool
) -> None:
    # Found by review: a read-only probe cannot roll a hot journal back, took the file for no
    # database, and the write that followed rolled it back and switched the file to WAL;
    # through a symbolic link, the journal beside the link's target went unseen (its page 1
    # torn, the file then read as no database).
    with closing(sqlite3.connect(foreign)) as connection, connection:
        connection.execute("CREATE TABLE generate_series AS SELECT 1 AS x")
        connection.execute(
            "INSERT INTO generate_series WITH RECURSIVE r(i) AS (SELECT 2 UNION ALL "
            "SELECT i + 1 FROM r WHERE i < 200) SELECT i FROM r"
        )
    subprocess.run([sys.executable, "-c", HOT_JOURNAL, str(foreign)], check=True)
    journal = Path(f"{foreign}-journal")
    assert journal.exists()
    given = foreign
    if through_a_link:
        with foreign.open("r+b") as torn:
            torn.write(bytes(100))
        given = foreign.with_name("link.db")
        given.symlink_to(foreign)
    before = foreign.read_bytes(), journal.read_bytes()
    completed = memstore("--database", str(given), "remember", "Diego likes tea.")
    assert completed.returncode == 1 and "-journal" in error_of(completed)["message"]
    assert (foreign.read_bytes(), journal.read_bytes()) == before


KILLED_WRITE = """
import os, sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("PRAGMA cache_size = 1")
connection.execute("BEGIN")
connection.execute(
    "CREATE TABLE junk AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r "
    "WHERE i < 300) SELECT randomblob(4000) AS b FROM r"
)
os._exit(0)  # killed mid-write: the -journal is left hot
"""


def test_memstores_own_database_with_a_hot_journal_is_rolled_back_and_used(
    tmp_path: Path,
) -> None:
    # Found by review: refusing every hot journal refused, for good, a store killed while it
    # switched to WAL (a backup, in rollback journal mode, on its first open).
    live, backup = tmp_path / "live.sqlite3", tmp_path / "backup.sqlite3"
    MemoryService(live).remember("Diego likes tea.")
    MemoryService(live).backup(backup)
    subprocess.run([sys.executable, "-c", KILLED_WRITE, str(backup)], check=True)
    assert Path(f"{backup}-journal").exists()
    listed = json.loads(memstore("--database", str(backup), "memories").stdout)
    assert [memory["content"] for memory in listed["memories"]] == ["Diego likes tea."]
    with closing(sqlite3.connect(backup)) as connection:
        assert (
            connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'junk'").fetchall() == []
        )


@pytest.mark.parametrize("command", [["remember", "Diego likes tea."], ["recall", "tea"]])
def test_a_symbolic_link_to_nothing_as_database_is_a_file_error(
    tmp_path: Path, command: list[str]
) -> None:
    # Found by review: a write through it failed as a bare FileNotFoundError (an "OSError"
    # in the CLI), outside the MemstoreError tree, and the tools logged a traceback.
    link = tmp_path / "memory.sqlite3"
    link.symlink_to(tmp_path / "gone.sqlite3")
    completed = memstore("--database", str(link), *command)
    assert completed.returncode == 1
    error = error_of(completed)
    assert error["type"] == "FileError" and "symbolic link" in error["message"]
    with pytest.raises(FileError, match="symbolic link"):
        MemoryService(link).remember("Diego likes tea.")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["memory.sqlite3"]


def set_alembic(path: Path, revision: str | None) -> None:
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("DELETE FROM alembic_version")
        if revision is not None:
            connection.execute("INSERT INTO alembic_version VALUES (?)", (revision,))
        connection.commit()


@pytest.mark.parametrize(
    ("revision", "said"),
    [("0099", "0099"), ("ffff1234", "ffff1234"), ("0001", "version 1"), (None, "[]")],
)
@pytest.mark.parametrize("command", [["check"], ["recall", "tea"], ["remember", "x y z"]])
def test_an_unknown_or_disagreeing_alembic_revision_is_a_schema_error_for_every_command(
    db_path: Path, revision: str | None, said: str, command: list[str]
) -> None:
    MemoryService(db_path).remember("Diego likes tea.")
    set_alembic(db_path, revision)
    before = db_path.read_bytes()
    completed = memstore("--database", str(db_path), *command)
    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    error = error_of(completed)
    assert error["type"] == "SchemaError"
    assert said in error["message"]
    assert "schema_migrations holds versions [1, 2, 3, 4, 5, 6, 7]" in error["message"]
    assert db_path.read_bytes() == before


def test_a_long_unknown_revision_is_not_repeated_whole(db_path: Path) -> None:
    # Found by review: a revision of 100,000 characters made an error of as many.
    MemoryService(db_path).remember("Diego likes tea.")
    set_alembic(db_path, "x" * 100_000)
    completed = memstore("--database", str(db_path), "check")
    message = error_of(completed)["message"]
    assert completed.returncode == 1 and len(message) < 1_000
    assert "(100000 characters)" in message


def test_a_pending_version_with_an_unknown_revision_never_reaches_alembic(db_path: Path) -> None:
    # schema_migrations says 1 is applied, alembic_version names a revision nobody ships:
    # the upgrade would end in Alembic's "Can't locate revision" traceback.
    MemoryService(db_path).health()
    with closing(sqlite3.connect(db_path)) as connection:
        connection.execute("DELETE FROM schema_migrations WHERE version >= 2")
        connection.commit()
    set_alembic(db_path, "0099")
    with pytest.raises(SchemaError) as caught:
        MemoryService(db_path).recall("tea")
    assert caught.value.alembic_revision == "0099" and caught.value.database_version == 1


def test_without_alembic_version_the_schema_is_refused(db_path: Path) -> None:
    MemoryService(db_path).health()
    with closing(sqlite3.connect(db_path)) as connection:
        connection.execute("DROP TABLE alembic_version")
    with pytest.raises(SchemaError, match="alembic_version holds no table"):
        MemoryService(db_path).health()


# Read-only stores


def read_only_runner(work: Callable[[], Any]) -> Any:
    """Run ``work`` where the database cannot be written: as the user nobody in a forked
    child when the tests run as root (who may write anything), else as this user. The
    result comes back as JSON through a pipe."""
    if os.geteuid() != 0:
        return work()
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody to drop privileges to")
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.close(reader)
        try:
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            outcome: Any = {"result": work()}
        except BaseException as error:
            outcome = {"error": f"{type(error).__name__}: {error}"}
        os.write(writer, json.dumps(outcome).encode())
        os._exit(0)
    os.close(writer)
    data = b""
    while chunk := os.read(reader, 1 << 16):
        data += chunk
    os.waitpid(child, 0)
    outcome = json.loads(data)
    assert "error" not in outcome, outcome
    return outcome["result"]


@pytest.fixture
def read_only_store(runner: CliRunner) -> Iterator[Path]:
    """A store with history and a memory in a folder and file nobody else may write (under
    the system's temporary folder: pytest's own is private to this user)."""
    top = Path(tempfile.mkdtemp(prefix="memstore-ro-"))
    top.chmod(0o755)
    folder = top / "mounted"
    path = folder / "memory.sqlite3"
    result = runner.invoke(cli, ["--database", str(path), "import", str(EXAMPLES), *SPEAKERS])
    assert result.exit_code == 0, result.stderr
    with MemoryService(path) as service:  # closed: its -wal and -shm go away
        service.remember("Diego likes green tea.")
    for command in (["check"], ["recall", "tea"], ["instances", "cafe"], ["words", "caf"]):
        runner.invoke(cli, ["--database", str(path), *command])  # loads every module first
    os.chmod(path, 0o444 if os.geteuid() else 0o644)
    os.chmod(folder, 0o555)
    yield path
    os.chmod(folder, 0o755)
    shutil.rmtree(top)


def cli_json(path: Path, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["--database", str(path), *args])
    return {"exit": result.exit_code, "out": result.stdout, "err": result.stderr}


def test_a_read_only_store_is_read_and_checked_without_being_written(
    read_only_store: Path,
) -> None:
    before = read_only_store.read_bytes()

    def work() -> dict[str, Any]:
        return {
            name: cli_json(read_only_store, *args)
            for name, args in {
                "check": ["check"],
                "recall": ["recall", "tea"],
                "instances": ["instances", "cafe"],
                "remember": ["remember", "Diego likes coffee."],
            }.items()
        }

    outcome = read_only_runner(work)
    assert outcome["check"]["exit"] == 0, outcome["check"]["err"]
    check = json.loads(outcome["check"]["out"])
    assert outcome["check"]["exit"] == 0 and check["ok"] is True
    assert check["read_only"] is True and check["read_only_reason"]
    assert [index["ok"] for index in check["fts"]] == [True] * 4
    recall = json.loads(outcome["recall"]["out"])
    assert [m["content"] for m in recall["memories"]] == ["Diego likes green tea."]
    assert json.loads(outcome["instances"]["out"])["total"] >= 1
    assert outcome["remember"]["exit"] == 1
    error = json.loads(outcome["remember"]["err"])["error"]
    assert error["type"] == "StoreReadOnly" and str(read_only_store) in error["message"]
    assert read_only_store.read_bytes() == before
    assert sorted(p.name for p in read_only_store.parent.iterdir()) == ["memory.sqlite3"]


@pytest.mark.parametrize("size", [0, 3, 32, 567])
def test_a_read_only_store_beside_an_empty_wal_is_read_without_a_shm(
    read_only_store: Path, size: int
) -> None:
    # Found by review: a copy that left the -shm out, its -wal of 0 bytes beside it, was
    # refused ("its -wal holds writes SQLite reads only through a -shm file"); then, by the
    # re-check, one too short to hold a frame (a header and the smallest page: 568 bytes).
    wal = Path(f"{read_only_store}-wal")
    read_only_store.parent.chmod(0o755)
    wal.write_bytes(b"\0" * size)
    read_only_store.parent.chmod(0o555)

    def work() -> dict[str, Any]:
        return {
            "check": cli_json(read_only_store, "check"),
            "recall": cli_json(read_only_store, "recall", "tea"),
        }

    outcome = read_only_runner(work)
    assert outcome["check"]["exit"] == 0, outcome["check"]["err"]
    assert json.loads(outcome["check"]["out"])["read_only"] is True
    recall = json.loads(outcome["recall"]["out"])
    assert [m["content"] for m in recall["memories"]] == ["Diego likes green tea."]
    assert sorted(p.name for p in read_only_store.parent.iterdir()) == [
        "memory.sqlite3",
        "memory.sqlite3-wal",
    ]
    assert wal.stat().st_size == size


def test_a_read_only_store_of_an_earlier_schema_is_checked_on_a_copy_and_said_so(
    read_only_store: Path,
) -> None:
    # Found by review: check refused a mounted backup of an earlier memstore as read-only
    # ("it needs an upgrade"), with no report and no way forward.
    read_only_store.parent.chmod(0o755)
    read_only_store.chmod(0o644)
    downgrade(read_only_store, "0004")
    read_only_store.chmod(0o444 if os.geteuid() else 0o644)
    read_only_store.parent.chmod(0o555)
    before = read_only_store.read_bytes()

    def work() -> dict[str, Any]:
        return {
            "check": cli_json(read_only_store, "check"),
            "recall": cli_json(read_only_store, "recall", "tea"),
        }

    outcome = read_only_runner(work)
    assert outcome["check"]["exit"] == 1, outcome["check"]["err"]
    check = json.loads(outcome["check"]["out"])
    assert (check["ok"], check["read_only"], check["schema_version"]) == (False, True, 4)
    assert check["problems"][0].startswith("schema version is 4; this code expects 7, and the")
    assert "memstore backup" in check["problems"][0] and len(check["problems"]) == 1
    assert [index["ok"] for index in check["fts"]] == [True] * 4  # the upgraded copy's
    assert check["counts"]["memories"] == 1
    error = json.loads(outcome["recall"]["err"])["error"]
    assert (
        error["type"] == "StoreReadOnly"
        and "once upgraded to version 7), so nothing was written. Fix its permissions"
        in error["message"]
    )
    assert read_only_store.read_bytes() == before
    assert sorted(p.name for p in read_only_store.parent.iterdir()) == ["memory.sqlite3"]


@pytest.mark.parametrize("harm", ["damaged", "clashing"])
def test_a_read_only_store_of_an_earlier_schema_that_cannot_be_upgraded_is_a_report(
    read_only_store: Path, harm: str
) -> None:
    # Found by the re-check: a damaged one made check fail as StoreDamaged, and one whose
    # copy's upgrade failed as a SchemaError naming the deleted copy.
    read_only_store.parent.chmod(0o755)
    downgrade(read_only_store, "0004")
    if harm == "clashing":  # revision 0006 makes an index of this name
        with closing(sqlite3.connect(read_only_store)) as connection:
            connection.execute("CREATE INDEX ix_messages_place ON messages (pk)")
    else:
        with closing(sqlite3.connect(read_only_store)) as connection:  # a page of messages
            (page,) = connection.execute(
                "SELECT rootpage FROM sqlite_master WHERE name = 'messages'"
            ).fetchone()
        with read_only_store.open("r+b") as file:
            file.seek(4096 * (page - 1))
            file.write(b"\xff" * 4096)
    read_only_store.parent.chmod(0o555)
    before = read_only_store.read_bytes()
    outcome = read_only_runner(lambda: cli_json(read_only_store, "check"))
    assert outcome["exit"] == 1, outcome["err"]
    check = json.loads(outcome["out"])
    assert (check["ok"], check["read_only"], check["schema_version"]) == (False, True, 4)
    problems = "\n".join(check["problems"])
    assert "cannot be upgraded where it is" in problems and "copy.sqlite3" not in problems
    if harm == "clashing":
        assert f"The upgrade of the database {read_only_store} from schema version 4" in problems
    assert read_only_store.read_bytes() == before


def test_a_writable_store_beside_another_users_wal_is_checked_on_a_copy_and_said_so(
    read_only_store: Path,
) -> None:
    # Found by review: the file and its folder writable, its -wal and -shm left by another
    # user (a process of theirs killed): each index's integrity-check was reported failed,
    # to be rebuilt, when SQLite only refused the check's write.
    if os.geteuid() != 0:
        pytest.skip("needs another user's -wal and -shm: runs as root")
    folder = read_only_store.parent
    folder.chmod(0o777)
    read_only_store.chmod(0o666)
    left = "import os, sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\n"
    left += "c.execute('PRAGMA wal_autocheckpoint = 0')\nc.execute('CREATE TABLE x (a)')\n"
    left += "c.commit()\nos._exit(0)"
    subprocess.run([sys.executable, "-c", left, str(read_only_store)], check=True)
    for companion in ("-wal", "-shm"):
        Path(f"{read_only_store}{companion}").chmod(0o644)
    outcome = read_only_runner(lambda: cli_json(read_only_store, "check"))
    check = json.loads(outcome["out"])
    assert check["ok"] is False and check["read_only"] is False
    assert check["problems"][0].startswith("writes are refused although the file may be")
    assert [index["ok"] for index in check["fts"]] == [True] * 4  # checked on a copy


def test_a_store_made_writable_while_open_takes_writes_again(read_only_store: Path) -> None:
    # Found by review: a service opened on a read-only file stayed read-only for its life,
    # after the file was made writable: a long-running host (MCP, an agent) never wrote
    # again, and its recorder never caught up. The file and folder are the user's own here
    # (as nobody's when the tests run as root), so that user can make them writable.
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        for owned in (read_only_store.parent, read_only_store):
            os.chown(owned, nobody.pw_uid, nobody.pw_gid)

    def work() -> list[str]:
        service = MemoryService(read_only_store)
        outcomes = []
        for _ in range(2):
            try:
                outcomes.append(service.remember("Diego likes coffee.").content)
            except StoreReadOnly:
                outcomes.append("read-only")
            read_only_store.parent.chmod(0o755)
            read_only_store.chmod(0o644)
        return outcomes

    assert read_only_runner(work) == ["read-only", "Diego likes coffee."]


def test_a_read_only_store_refuses_writes_through_the_api(read_only_store: Path) -> None:
    def work() -> str:
        service = MemoryService(read_only_store)
        assert service.recall("tea").memories
        try:
            service.remember("Diego likes coffee.")
        except StoreReadOnly as error:
            return str(error)
        return "written"

    message = read_only_runner(work)
    assert str(read_only_store) in message and "read-only" in message


def test_a_read_only_service_sees_what_the_owner_writes_later(read_only_store: Path) -> None:
    # Found by review: its pooled connections, opened as immutable while no -wal was there,
    # went on reading the file as it was, and never saw the owner's later writes.
    ready, told = os.pipe(), os.pipe()

    def owner_writes() -> None:
        os.read(ready[0], 1)
        with MemoryService(read_only_store) as service:
            service.remember("Diego likes kiwi.")
        os.write(told[1], b"w")

    def work() -> list[int]:
        service = MemoryService(read_only_store)
        before = len(service.recall("kiwi").memories)
        os.write(ready[1], b"r")
        os.read(told[0], 1)
        return [before, len(service.recall("kiwi").memories)]

    owner = threading.Thread(target=owner_writes, daemon=True)  # a failed child never asks
    owner.start()
    try:
        assert read_only_runner(work) == [0, 1]
    finally:
        owner.join(timeout=60)
        for descriptor in (*ready, *told):
            os.close(descriptor)


def test_a_read_the_owner_checkpointed_under_is_busy_not_a_silent_mix(
    read_only_store: Path,
) -> None:
    # Found by review: a read of the file as immutable, while its owner closed the store
    # and wrote its WAL into it, went on reading pages of both (or failed as damaged).
    ready, told = os.pipe(), os.pipe()

    def owner_writes_and_closes() -> None:
        for fruit in ("kiwi", "mango"):
            os.read(ready[0], 1)
            with MemoryService(read_only_store) as service:
                service.remember(f"Diego likes {fruit}.")
            os.write(told[1], b"w")

    def work() -> list[str]:
        outcomes = []
        for own_error in (False, True):
            database = Database(read_only_store)
            try:
                with database.read() as connection:
                    connection.execute("SELECT count(*) FROM memories").fetchone()
                    os.write(ready[1], b"r")
                    os.read(told[0], 1)
                    if own_error:  # the caller's own error is its own, not StoreBusy
                        raise InvalidQuery("word", "is two words")
                    connection.execute("SELECT count(*) FROM memories").fetchone()
            except (StoreBusy, InvalidQuery) as error:
                outcomes.append(f"{type(error).__name__}: {error}")
        return outcomes

    owner = threading.Thread(target=owner_writes_and_closes, daemon=True)
    owner.start()
    try:
        busy, own = read_only_runner(work)
        assert busy.startswith("StoreBusy") and "owner was opening, closing or writing" in busy
        assert own == "InvalidQuery: word: is two words"
    finally:
        owner.join(timeout=60)
        for descriptor in (*ready, *told):
            os.close(descriptor)


@pytest.mark.parametrize("reading", ["recall", "probe then diary", "backup"])
def test_a_reader_decided_on_a_wal_gone_by_its_first_read_opens_again(
    read_only_store: Path, monkeypatch: pytest.MonkeyPatch, reading: str
) -> None:
    # Found by review: a -wal seen as the connection was decided on, and deleted by its
    # owner's close before the first read, failed the read as StoreReadOnly ("nothing was
    # written"), for SQLite then wanted a WAL index this user may not make; the diary's probe
    # took the file for no database, and a backup failed as StoreError (a later review).
    out = Path(tempfile.mkdtemp(prefix="memstore-ro-out-"))
    out.chmod(0o777)

    def work() -> list[str]:
        service = MemoryService(read_only_store)
        if reading != "probe then diary":
            service.health()
        stale = [False]
        real = probe.settled
        monkeypatch.setattr(probe, "settled", lambda path: stale.pop() if stale else real(path))
        if reading == "backup":
            return [str(service.backup(out / "copy.sqlite3").ok)]
        if reading == "probe then diary":
            return [memory.content for memory in service.diary(tz="UTC").memories]
        return [memory.content for memory in service.recall("tea").memories]

    expected = {"recall": ["Diego likes green tea."], "backup": ["True"]}
    try:
        found = read_only_runner(work)
    finally:
        shutil.rmtree(out)
    assert found == expected.get(reading, ["Diego likes green tea."])


# Private by default


@pytest.mark.parametrize("umask", [0o000, 0o022])
def test_database_companions_logs_and_backups_are_owner_only(tmp_path: Path, umask: int) -> None:
    from memstore import Recorder

    previous = os.umask(umask)
    try:
        path = tmp_path / "new" / "deeper" / "memory.sqlite3"
        service = MemoryService(path)
        Recorder(service, log_dir=tmp_path / "logs" / "daily").record("user", "Hola, Morgan.")
        service.backup(tmp_path / "backups" / "copy.sqlite3")
        created = [
            path,
            Path(f"{path}-wal"),
            Path(f"{path}-shm"),
            *(tmp_path / "logs" / "daily").iterdir(),
            tmp_path / "backups" / "copy.sqlite3",
        ]
        folders = [path.parent, path.parent.parent, tmp_path / "logs", tmp_path / "backups"]
        assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in created} == {
            p.name: 0o600 for p in created
        }
        assert {stat.S_IMODE(p.stat().st_mode) for p in folders} == {0o700}
    finally:
        os.umask(previous)


def test_an_empty_sqlite_file_claimed_by_another_application_is_refused(tmp_path: Path) -> None:
    # No table yet, but its header names its application: not memstore's to take.
    for pragma in ("application_id = 1234567", "user_version = 7"):
        path = tmp_path / f"{pragma.split()[0]}.db"
        with closing(sqlite3.connect(path)) as connection:
            connection.execute(f"PRAGMA {pragma}")
            connection.commit()
        before = path.read_bytes()
        with pytest.raises(FileError, match="not a memstore database") as refused:
            MemoryService(path).remember("Diego likes tea.")
        assert "marked by its own application_id or user_version" in str(refused.value)
        assert "tables" not in str(refused.value)
        assert path.read_bytes() == before


def test_another_applications_tables_are_named_without_marks_it_has_not(tmp_path: Path) -> None:
    # Found by review: a plain "create table t(x)" file was said to carry its own
    # application_id or user_version, both 0 there.
    path = tmp_path / "other.db"
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE t (x)")
    with pytest.raises(FileError) as refused:
        MemoryService(path).remember("Diego likes tea.")
    assert "with 1 table, index or view)" in str(refused.value)
    assert "application_id" not in str(refused.value)


def test_a_folder_as_config_is_named_as_a_folder(tmp_path: Path) -> None:
    completed = memstore("--config", str(tmp_path), "recall", "tea")
    assert completed.returncode == 1
    error = error_of(completed)
    assert error["type"] == "FileError" and "this is a folder" in error["message"]


def deleted_files_open() -> int:
    """File descriptors of this process on files that are gone (Linux's /proc)."""
    links = [os.readlink(link) for link in Path("/proc/self/fd").iterdir() if link.is_symlink()]
    return sum(link.endswith(" (deleted)") for link in links)


def test_a_read_only_check_closes_its_scratch_copy(read_only_store: Path) -> None:
    # found by review: each check left the copy's file, -wal and -shm open until a
    # garbage collection
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc/self/fd")

    def work() -> list[int]:
        gc.disable()
        try:
            before = deleted_files_open()  # pytest's own capture files, say
            service = MemoryService(read_only_store)
            reports = [service.health() for _ in range(3)]
            assert all(report.ok and report.read_only for report in reports)
            return [before, deleted_files_open()]
        finally:
            gc.enable()

    before, after = read_only_runner(work)
    assert after == before


def test_a_wal_without_its_shm_in_a_folder_this_user_cannot_write_says_what_to_do(
    read_only_store: Path, tmp_path: Path
) -> None:
    # Found by review: a copy of a store and its -wal on a read-only mount was StoreBusy
    # ("retry in a moment") forever, though nobody was writing it.
    live = tmp_path / "live.sqlite3"
    writer = MemoryService(live)
    writer.remember("Diego likes figs.")  # in the -wal while the writer is open
    shutil.copyfile(live, read_only_store)
    shutil.copyfile(f"{live}-wal", f"{read_only_store}-wal")
    os.chmod(f"{read_only_store}-wal", 0o644)
    writer.close()

    def work() -> str:
        try:
            MemoryService(read_only_store).recall("figs")
        except FileError as error:
            return str(error)
        return "read"

    try:
        assert "-shm file beside it" in read_only_runner(work)
    finally:
        os.chmod(read_only_store.parent, 0o755)
        os.unlink(f"{read_only_store}-wal")


def test_a_first_write_committed_while_the_probe_reads_is_no_emptied_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: the probe read the count of tables (none), then another process's
    # first write set the store up, then the count of pages (45): a new store was refused
    # as an emptied one, "restore a verified backup".
    from memstore.store.readers import Reader

    path = tmp_path / "new.sqlite3"
    keeper = sqlite3.connect(path)  # a first writer's connection: the -wal stays
    keeper.execute("PRAGMA journal_mode = WAL")
    keeper.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the -wal is made
    other = f"from memstore import MemoryService; MemoryService({str(path)!r}).remember('tea')"
    original, raced = Reader.execute, []

    def execute(self: Reader, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql == "PRAGMA page_count" and not raced:
            raced.append(subprocess.run([sys.executable, "-c", other], check=True))
        return original(self, sql, *args)

    monkeypatch.setattr(Reader, "execute", execute)
    try:
        mine = MemoryService(path).remember("Diego likes coffee.")
    finally:
        keeper.close()
    assert raced and MemoryService(path).list_memories().total == 2
    assert MemoryService(path).get_memory(mine.id) == mine
