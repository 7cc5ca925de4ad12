"""Shared fixtures: an isolated environment, a fresh migrated database per test, the CLI runner."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, closing, contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import settings

from memstore import MemoryService
from memstore.store.database import Database
from tests import factories

# No timed assertion in a test, hypothesis' 200 ms deadline included: the first example of a
# test that builds the Unicode tables failed it on a machine loaded by other workers.
settings.register_profile("untimed", deadline=None)
settings.load_profile("untimed")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's data directory inside its own tmp_path."""
    monkeypatch.setenv("MEMSTORE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MEMSTORE_DATABASE", raising=False)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.sqlite3"


@pytest.fixture
def service(db_path: Path) -> MemoryService:
    """A service over a fresh database file (migrated on first use, as in real use)."""
    return MemoryService(db_path)


@pytest.fixture
def seeded(db_path: Path) -> Callable[[], AbstractContextManager[None]]:
    """Open a write transaction that the factories write into; it commits on exit."""
    database = Database(db_path)

    @contextmanager
    def transaction() -> Iterator[None]:
        with database.orm_session() as session:
            factories.bind(session)
            yield

    return transaction


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture(scope="session")
def shared() -> Path:
    """../shared beside the repository (as in CI); tests needing it skip without it."""
    if not (SHARED / "tools" / "corpus2logs.py").is_file():
        pytest.skip("../shared is not present beside the repository")
    return SHARED


@pytest.fixture(scope="session")
def corpus_logs(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The daily logs and manifests that ../shared/tools/corpus2logs.py writes (once per run)."""
    out = tmp_path_factory.mktemp("corpus-logs")
    subprocess.run(
        [sys.executable, str(shared / "tools" / "corpus2logs.py"), str(out)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MiB tmpfs, where the tests may mount one (root on Linux); else a skip."""
    mount = tmp_path / "small"
    mount.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root and mount(8)")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True
    )
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


ALEMBIC_BASE = "alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)"
"""The table `alembic downgrade base` leaves of a store: the version table, empty."""


def at_base(path: Path, *statements: str) -> Path:
    """A file as `alembic downgrade base` leaves a store, after ``statements``."""
    with closing(sqlite3.connect(path)) as connection:
        connection.execute(f"CREATE TABLE {ALEMBIC_BASE}")
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    return path
