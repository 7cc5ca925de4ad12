"""Start-up: what a command imports before it runs (issue 18: import what a command needs
when it needs it). Checked by the modules a fresh process holds, never by timing."""

from __future__ import annotations

import copy
import importlib
import json
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from memstore import MemoryService, schemas
from memstore.lazy_modules import LazyModule

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

# Runs the CLI in-process as the console script does, then reports the heavy modules loaded
# and which of the patterns built from Unicode tables it built.
CHILD = """
import json, sys
from memstore.adapters.cli import main
try:
    main()
except SystemExit:
    pass
heavy = [name for name in {heavy!r} if name in sys.modules]
from memstore.text import cjk, tokens, unicode61
patterns = (cjk.run_pattern, tokens.token_classes, unicode61.fold_table)
built = [made.__name__ for made in patterns if made.cache_info().currsize]
print(json.dumps({{"heavy": heavy, "built": built}}), file=sys.stderr)
"""


def child_report(*args: str, heavy: Sequence[str] = HEAVY) -> tuple[dict[str, list[str]], str]:
    """What a fresh ``memstore ARGS`` process imported of ``heavy`` and built (see CHILD),
    and its stdout."""
    completed = subprocess.run(
        [sys.executable, "-c", CHILD.format(heavy=tuple(heavy)), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(completed.stderr.splitlines()[-1]), completed.stdout


def loaded(*args: str) -> tuple[list[str], str]:
    """The heavy modules a fresh ``memstore ARGS`` process imported, and its stdout."""
    report, out = child_report(*args)
    return report["heavy"], out


@pytest.mark.parametrize(
    "args", [["--help"], ["recall", "--help"], ["recall"], ["export", "--help"]]
)
def test_help_and_usage_errors_import_neither_the_service_nor_its_libraries(
    args: list[str],
) -> None:
    heavy, _ = loaded(*args)
    assert heavy == []


COMMAND_MODULES = {
    "memstore.adapters.cli.history",
    "memstore.adapters.cli.maintenance",
    "memstore.adapters.cli.memories",
    "memstore.adapters.cli.search",
    "memstore.adapters.cli.transfer",
}


def command_modules(*args: str) -> list[str]:
    """The command modules a fresh ``memstore ARGS`` process imported."""
    report, _ = child_report(*args, heavy=sorted(COMMAND_MODULES))
    return report["heavy"]


def test_the_group_help_lists_every_command_without_importing_their_modules() -> None:
    assert command_modules("--help") == []
    _, listed = loaded("--help")
    assert "recall           Search past conversations and memories for QUERY." in listed


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("recall", "search"),
        ("import", "history"),
        ("delete-memory", "memories"),
        ("check", "maintenance"),
    ],
)
def test_a_command_imports_its_own_module_only(name: str, module: str) -> None:
    assert command_modules(name, "--help") == [f"memstore.adapters.cli.{module}"]


def one_message(tmp_path: Path, content: str) -> Path:
    """A database, up to date, holding one user message of ``content``."""
    path = tmp_path / "memory.sqlite3"
    service = MemoryService(path)
    session = service.start_session()
    service.record_message(session.id, "user", content)
    service.close()
    return path


def test_recall_on_an_up_to_date_database_imports_no_sqlalchemy_alembic_or_guard(
    tmp_path: Path,
) -> None:
    path = one_message(tmp_path, "the zebra crossed")
    heavy, out = loaded("--database", str(path), "recall", "zebra")
    assert json.loads(out)["conversations"][0]["messages"][0]["content"] == "the zebra crossed"
    assert "alembic" not in heavy and "detect_secrets" not in heavy
    assert "sqlalchemy" not in heavy  # the store's own pool serves every unit of work
    assert "memstore.adapters.cli.views" not in heavy  # piped: JSON, no text view


@pytest.mark.parametrize(
    ("word", "built"),
    [("zebra", []), ("斑马", ["run_pattern", "token_classes", "fold_table"])],
)
def test_recall_builds_the_unicode_patterns_only_for_text_that_is_not_ascii(
    tmp_path: Path, word: str, built: list[str]
) -> None:
    # Building them takes about 10 ms of a process's start (issue 18); ASCII needs none.
    path = one_message(tmp_path, "the zebra crossed, 斑马过了马路")
    report, out = child_report("--database", str(path), "recall", word)
    assert json.loads(out)["conversations"][0]["messages"][0]["content"].startswith("the zebra")
    assert report["built"] == built


def test_a_pending_migration_still_runs_through_alembic(tmp_path: Path) -> None:
    heavy, out = loaded(
        "--database", str(tmp_path / "new.sqlite3"), "remember", "zebras are striped"
    )
    assert json.loads(out)["content"] == "zebras are striped"
    assert "alembic" in heavy and "sqlalchemy" in heavy and "detect_secrets" in heavy


AGENT_RECALL = """
import json, sys
from memstore import MemoryService, schemas
from memstore.lazy_modules import LazyModule
service = MemoryService(sys.argv[1])
found = service.recall("zebra").conversations[0].messages[0].content
concerns = sorted(name for name in sys.modules if name.startswith("memstore.concerns."))
models = sorted(name for name in sys.modules if name.startswith("memstore.schemas."))
print(json.dumps([found, concerns, models, "sqlalchemy" in sys.modules]))
"""


def test_a_service_call_imports_its_own_concerns_and_not_the_others(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    with MemoryService(path) as service:
        service.record_message(service.start_session().id, "user", "the zebra crossed")
    completed = subprocess.run(
        [sys.executable, "-c", AGENT_RECALL, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found, concerns, models, sqlalchemy = json.loads(completed.stdout)
    assert found == "the zebra crossed" and not sqlalchemy
    # the result models of recall, not those of reports and exports
    assert models == ["memstore.schemas.pages", "memstore.schemas.records"]
    assert "memstore.concerns.recall" in concerns
    for other in ("backup", "diary", "export", "importing", "memory_import", "health"):
        assert f"memstore.concerns.{other}" not in concerns


AGENT_TOOLS = """
import json, sys
from memstore import MemoryService
from memstore.adapters.tools import MemoryTools
tools = MemoryTools(MemoryService(sys.argv[1]))
toolset = None
if sys.argv[2] == "toolset":
    from memstore.adapters.toolset import memory_toolset
    toolset = memory_toolset(tools)
found = tools.recall("zebra")["result"]["conversations"][0]["messages"][0]["content"]
print(json.dumps([found, [name for name in sys.argv[3:] if name in sys.modules]]))
"""


@pytest.mark.parametrize("adapter", ["tools", "toolset"])
def test_the_agent_tools_on_an_up_to_date_database_import_no_alembic(
    tmp_path: Path, adapter: str
) -> None:
    # Issue 18: the agent tools must not pay for Alembic unless a migration is pending.
    if adapter == "toolset":
        pytest.importorskip("pydantic_ai")
    path = tmp_path / "memory.sqlite3"
    with MemoryService(path) as service:
        service.record_message(service.start_session().id, "user", "the zebra crossed")
    heavy = ["alembic", "sqlalchemy", "detect_secrets"]
    completed = subprocess.run(
        [sys.executable, "-c", AGENT_TOOLS, str(path), adapter, *heavy],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(completed.stdout) == ["the zebra crossed", []]


def test_a_lazy_module_imports_once_when_threads_first_read_it_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a slow module of its own, read by eight threads together
    (tmp_path / "slow_concern.py").write_text(
        "import sys, time\n"
        "sys.slow_concern_runs = getattr(sys, 'slow_concern_runs', 0) + 1\n"
        "time.sleep(0.2)\n"
        "value = 42\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    lazy = LazyModule("slow_concern")
    assert "slow_concern" not in sys.modules
    found: list[int] = []
    threads = [threading.Thread(target=lambda: found.append(lazy.value)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [42] * 8 and sys.slow_concern_runs == 1  # type: ignore[attr-defined]
    assert repr(lazy) == "<LazyModule slow_concern>"
    monkeypatch.setattr(lazy, "value", 7)  # a write reaches the module
    assert sys.modules["slow_concern"].value == 7
    monkeypatch.undo()
    assert sys.modules["slow_concern"].value == 42
    assert copy.copy(lazy).value == 42  # a copy stands for the same module
    assert not hasattr(object.__new__(LazyModule), "_name")  # no recursion without __init__
    sys.modules.pop("slow_concern")


def test_every_public_model_name_resolves_from_its_module() -> None:
    modules = [importlib.import_module(f"memstore.schemas.{name}") for name in schemas.MODULES]
    for name in schemas.__all__:
        assert any(getattr(module, name, None) is getattr(schemas, name) for module in modules)
    assert schemas.ExportReport.__module__ == "memstore.schemas.transfer"
    with pytest.raises(ImportError, match="Nope"):
        from memstore.schemas import Nope  # noqa: F401
