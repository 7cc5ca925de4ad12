"""Revision 0003 on a user's real, full database: a 0002 database built by the code of 0002
(the commit before 0003, taken from git) from the 20,000-message scale set of
../shared/tools/corpus2logs.py, plus memories, then upgraded by this code.

Skipped without ../shared or without the repository's git history (a source archive).
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

from memstore import MemoryService
from memstore.text.cjk import index_form
from tests.conftest import REPO
from tests.test_migrations import drift

pytestmark = pytest.mark.corpora

REVISION_0003 = "alembic/versions/0003_speakers_cjk.py"
SCALE = 20_000
MEMORIES = ("Diego 喜欢看电影和数据库迁移", "Diego likes green tea.", "映画館は駅の近くです")
BUILD = """
import sys
from memstore import MemoryService
service = MemoryService(sys.argv[1])
report = service.import_markdown([sys.argv[2]], speakers={"Diego": "user", "Morgan": "assistant"})
assert report.errors == 0, report
for memory in sys.argv[3:]:
    service.remember(memory)
print(report.imported)
"""
UPGRADE = "import sys; from memstore import MemoryService; MemoryService(sys.argv[1]).health()"


@dataclass(frozen=True)
class Built:
    """The 0002 database, and what the test compares after the upgrade."""

    path: Path
    imported: int


def git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def previous_code(into: Path, revision: str) -> Path:
    """The code of the commit before the file ``revision`` was added, unpacked into ``into``."""
    try:
        added = git("log", "--diff-filter=A", "--format=%H", "--", revision).splitlines()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"no git history: the code before {revision} cannot be taken from it")
    if not added:
        pytest.skip(f"{revision} is not committed yet")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", f"{added[-1]}^", "memstore", "alembic", "alembic.ini"],
        check=True,
        capture_output=True,
    ).stdout
    into.mkdir()
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def build_before(revision: str, shared: Path, root: Path) -> Built:
    """A database in ``root`` filled by the code before the file ``revision`` (the scale set
    and :data:`MEMORIES`), at the version before it."""
    old = previous_code(root / "code", revision)
    logs = root / "logs"
    subprocess.run(
        [
            sys.executable,
            str(shared / "tools" / "corpus2logs.py"),
            str(logs),
            "--scale",
            str(SCALE),
        ],
        check=True,
        capture_output=True,
    )
    path = root / "memory-before.sqlite3"
    completed = subprocess.run(
        [sys.executable, "-c", BUILD, str(path), str(logs / "scale" / "diego"), *MEMORIES],
        cwd=old,
        env={**os.environ, "PYTHONPATH": str(old)},
        check=True,
        capture_output=True,
        text=True,
    )
    before = f"{int(Path(revision).name[:4]) - 1:04d}"
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == (before,)
    return Built(path, int(completed.stdout))


@pytest.fixture(scope="module")
def built(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_before(REVISION_0003, shared, tmp_path_factory.mktemp("upgrade-0003"))


def snapshot(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row's identity and content, table by table."""
    with closing(sqlite3.connect(path)) as connection:
        return {
            "sessions": connection.execute(
                "SELECT rowid, id FROM sessions ORDER BY rowid"
            ).fetchall(),
            "messages": connection.execute(
                "SELECT pk, id, session_id, sequence, role, content, status, source_ref "
                "FROM messages ORDER BY pk"
            ).fetchall(),
            "memories": connection.execute(
                "SELECT pk, id, content, status FROM memories ORDER BY pk"
            ).fetchall(),
            "imports": connection.execute("SELECT * FROM imports ORDER BY path").fetchall(),
        }


def copy_of(built: Built, tmp_path: Path) -> Path:
    target = tmp_path / "memory.sqlite3"
    shutil.copyfile(built.path, target)
    return target


def test_the_upgrade_keeps_every_row_and_makes_every_message_searchable_the_new_way(
    built: Built, tmp_path: Path
) -> None:
    path = copy_of(built, tmp_path)
    before = snapshot(path)
    assert len(before["messages"]) == built.imported > 19_000
    started = time.perf_counter()
    report = MemoryService(path).health()
    seconds = time.perf_counter() - started
    print(f"0002 -> head of {built.imported} messages: {seconds:.2f} s")
    assert report.ok and report.schema_version == 7, (
        report
    )  # 0003, 0004's stem index, 0005, 0006, 0007
    assert snapshot(path) == before
    with closing(sqlite3.connect(path)) as connection:
        rows = connection.execute("SELECT content, index_text FROM messages").fetchall()
        speakers = connection.execute("SELECT count(*) FROM messages WHERE speaker IS NOT NULL")
        assert speakers.fetchone() == (0,)  # the logs are not read again: names stay unknown
    assert all(form == index_form(content) for content, form in rows)
    cjk = [content for content, form in rows if form is not None]
    assert len(cjk) > 100
    service = MemoryService(path)
    for content in cjk[:: max(1, len(cjk) // 40)]:
        word = next(run for run in index_form(content).split() if len(run) == 1 and run > "\u3000")
        found = service.recall(word, mode="phrase").conversations
        assert found, word
    memory = service.recall("电影", history=False).memories
    assert [m.content for m in memory] == [MEMORIES[0]]
    with closing(sqlite3.connect(path)) as connection:  # 0004 indexed every one by stem too
        exact, stemmed = (
            connection.execute(f"SELECT count(*) FROM {index}_docsize").fetchone()
            for index in ("messages_fts", "messages_stem_fts")
        )
    assert exact == stemmed and exact[0] > 19_000


def test_the_upgraded_schema_has_no_drift_from_the_models(built: Built, tmp_path: Path) -> None:
    path = copy_of(built, tmp_path)
    MemoryService(path).health()
    assert drift(path) == []


def killed_upgrade(path: Path) -> bool:
    """Run the upgrade of ``path`` in a process and kill it (SIGKILL) once it has written a
    MiB of its transaction into the WAL; whether it was killed before it ended."""
    wal = Path(f"{path}-wal")
    upgrade = subprocess.Popen([sys.executable, "-c", UPGRADE, str(path)], cwd=REPO)
    while upgrade.poll() is None and not (wal.exists() and wal.stat().st_size > 1 << 20):
        time.sleep(0.001)
    if upgrade.poll() is not None:
        return False
    os.kill(upgrade.pid, signal.SIGKILL)
    upgrade.wait()
    return True


def test_a_kill_during_the_upgrade_leaves_the_0002_database_intact(
    built: Built, tmp_path: Path
) -> None:
    path = copy_of(built, tmp_path)
    before = snapshot(path)
    for _ in range(5):  # a machine fast enough to finish first gets another try
        if killed_upgrade(path):
            break
        shutil.copyfile(built.path, path)
        for companion in ("-wal", "-shm"):
            Path(f"{path}{companion}").unlink(missing_ok=True)
    else:
        pytest.fail("the upgrade always ended before it could be killed")
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == ("0002",)
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        columns = {row[1] for row in connection.execute("PRAGMA table_info(messages)")}
        assert "speaker" not in columns and "index_text" not in columns
    assert snapshot(path) == before
    report = MemoryService(path).health()  # and the next run upgrades it whole
    assert report.ok and report.schema_version == 7
