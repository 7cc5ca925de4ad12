"""Revision 0005 on a user's real, full database: a 0004 database built by the code of 0004
(the commit before 0005, taken from git) from the 20,000-message scale set of
../shared/tools/corpus2logs.py, plus memories, then upgraded by this code and opened in
Datasette.

Skipped without ../shared or without the repository's git history (a source archive).
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from datasette.app import Datasette

from memstore import MemoryService
from tests.conftest import REPO
from tests.test_migrations import drift
from tests.test_upgrade_0003 import Built, build_before, copy_of, snapshot

pytestmark = pytest.mark.corpora

REVISION_0005 = "alembic/versions/0005_datasette.py"
KILLED_AT = """
import os, signal, sys
from sqlalchemy import event
from sqlalchemy.engine import Engine
from memstore import MemoryService

@event.listens_for(Engine, "after_cursor_execute")
def kill(connection, cursor, statement, parameters, context, executemany):
    if statement == sys.argv[2]:
        os.kill(os.getpid(), signal.SIGKILL)

MemoryService(sys.argv[1]).health()
"""


@pytest.fixture(scope="module")
def built(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_before(REVISION_0005, shared, tmp_path_factory.mktemp("upgrade-0005"))


def used_bytes(path: Path) -> int:
    """The bytes of the database's pages in use (free pages left out), WAL included."""
    with closing(sqlite3.connect(path)) as connection:
        pages, free, size = (
            connection.execute(f"PRAGMA {pragma}").fetchone()[0]
            for pragma in ("page_count", "freelist_count", "page_size")
        )
    return int((pages - free) * size)


def test_the_upgrade_keeps_every_row_and_adds_no_bytes_per_message(
    built: Built, tmp_path: Path
) -> None:
    path = copy_of(built, tmp_path)
    before, size_before = snapshot(path), used_bytes(path)
    assert len(before["messages"]) == built.imported > 19_000 and len(before["sessions"]) == 100
    report = MemoryService(path).health()
    assert report.ok and report.schema_version == 7, report
    assert snapshot(path) == before  # every session keeps its old pk as its rowid
    with_requests = used_bytes(path)
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("DROP INDEX ix_messages_requests")  # 0007's, measured here
    with_places = used_bytes(path)
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("DROP INDEX ix_messages_place")  # 0006's, measured here
    size_after = used_bytes(path)
    per_message = (size_before / built.imported, size_after / built.imported)
    print(f"bytes per message before / after 0005: {per_message[0]:.1f} / {per_message[1]:.1f}")
    assert size_after - size_before < 16 * 4096  # the views' SQL, the rebuilt sessions' pages
    places = (with_places - size_after) / built.imported
    print(f"bytes per message of 0006's index on (pk, session_id, sequence): {places:.1f}")
    assert 30 < places < 60
    requests = (with_requests - with_places) / built.imported
    print(f"bytes per message of 0007's index of completed user messages: {requests:.1f}")
    assert 10 < requests < 40  # about half the messages, each (session_id, sequence, pk)


def test_datasette_searches_and_links_the_upgraded_database(built: Built, tmp_path: Path) -> None:
    path = copy_of(built, tmp_path)
    MemoryService(path).health()
    with closing(sqlite3.connect(path)) as connection:
        (session_id,) = connection.execute("SELECT id FROM sessions LIMIT 1 OFFSET 7").fetchone()
        expected = {
            id_
            for (id_,) in connection.execute(
                "SELECT id FROM messages WHERE pk IN "
                "(SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'garden')"
            )
        }
    assert len(expected) >= 5

    async def run() -> tuple[set[str], int, int]:
        client = Datasette([str(path)]).client
        found = await client.get("/memory/messages.json?_search=garden&_shape=array&_size=max")
        session = await client.get(f"/memory/sessions/{session_id}.json")
        listed = await client.get(f"/memory/messages.json?session_id={session_id}&_shape=array")
        assert found.status_code == session.status_code == listed.status_code == 200
        return {row["id"] for row in found.json()}, len(session.json()["rows"]), len(listed.json())

    found, sessions, listed = asyncio.run(run())
    assert found == expected
    assert sessions == 1 and listed > 0


def test_the_upgraded_schema_has_no_drift_from_the_models(built: Built, tmp_path: Path) -> None:
    path = copy_of(built, tmp_path)
    MemoryService(path).health()
    assert drift(path) == []


@pytest.mark.parametrize(
    "statement",
    ["DROP TABLE sessions", "DROP TABLE sessions_old"],
    ids=["sessions-dropped", "before-commit"],
)
def test_a_kill_during_the_upgrade_leaves_the_0004_database_intact(
    built: Built, tmp_path: Path, statement: str
) -> None:
    # Killed (SIGKILL) right after the old sessions table is gone, and right before the
    # commit with everything written: the file is 0004 as it was, and the next run upgrades.
    path = copy_of(built, tmp_path)
    before = snapshot(path)
    killed = subprocess.run([sys.executable, "-c", KILLED_AT, str(path), statement], cwd=REPO)
    assert killed.returncode == -9
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == ("0004",)
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        columns = {row[1] for row in connection.execute("PRAGMA table_info(sessions)")}
        views = connection.execute("SELECT name FROM sqlite_master WHERE name LIKE '%_search'")
        assert "pk" in columns and views.fetchall() == []
    assert snapshot(path) == before
    report = MemoryService(path).health()
    assert report.ok and report.schema_version == 7
    assert snapshot(path) == before
