"""Start-up: what a command imports before it runs (issue 18: import what a command needs
when it needs it). Checked by the modules a fresh process holds, never by timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memstore import MemoryService

HEAVY = (
    "sqlalchemy",
    "pydantic",
    "alembic",
    "detect_secrets",
    "memstore.service",
    "memstore.adapters.cli.views",
    "tzlocal",  # time zones are looked up when a command needs one
    "zoneinfo",
)

# Runs the CLI in-process as the console script does, then reports the heavy modules loaded.
CHILD = """
import json, sys
from memstore.adapters.cli import main
try:
    main()
except SystemExit:
    pass
heavy = {heavy!r}
print(json.dumps([name for name in heavy if name in sys.modules]), file=sys.stderr)
"""


def loaded(*args: str) -> tuple[list[str], str]:
    """The heavy modules a fresh ``memstore ARGS`` process imported, and its stdout."""
    completed = subprocess.run(
        [sys.executable, "-c", CHILD.format(heavy=HEAVY), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(completed.stderr.splitlines()[-1]), completed.stdout


@pytest.mark.parametrize(
    "args", [["--help"], ["recall", "--help"], ["recall"], ["export", "--help"]]
)
def test_help_and_usage_errors_import_neither_the_service_nor_its_libraries(
    args: list[str],
) -> None:
    heavy, _ = loaded(*args)
    assert heavy == []


def test_recall_on_an_up_to_date_database_imports_no_sqlalchemy_alembic_or_guard(
    tmp_path: Path,
) -> None:
    path = tmp_path / "memory.sqlite3"
    service = MemoryService(path)
    session = service.start_session()
    service.record_message(session.id, "user", "the zebra crossed")
    service.close()
    heavy, out = loaded("--database", str(path), "recall", "zebra")
    assert json.loads(out)["conversations"][0]["messages"][0]["content"] == "the zebra crossed"
    assert "alembic" not in heavy and "detect_secrets" not in heavy
    assert "sqlalchemy" not in heavy  # the store's own pool serves every unit of work
    assert "memstore.adapters.cli.views" not in heavy  # piped: JSON, no text view


def test_a_pending_migration_still_runs_through_alembic(tmp_path: Path) -> None:
    heavy, out = loaded(
        "--database", str(tmp_path / "new.sqlite3"), "remember", "zebras are striped"
    )
    assert json.loads(out)["content"] == "zebras are striped"
    assert "alembic" in heavy and "sqlalchemy" in heavy and "detect_secrets" in heavy
