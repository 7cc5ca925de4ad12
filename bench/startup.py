"""Step 10: start-up. ``memstore --help`` and ``memstore recall WORD`` on the imported
database, each a fresh process, against ``python -c "import sqlite3"``: the least a Python
program that reads SQLite costs to start (issue 18's yardstick).

Both sides load bytecode: the standard library's is compiled when Python is installed, and
memstore's modules are compiled first here, as ``pip install`` and ``make`` do (an editable
install otherwise compiles them on every start where PYTHONDONTWRITEBYTECODE is set)."""

from __future__ import annotations

import compileall
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.timing import p50s_ms

IMPORT_SQLITE = (sys.executable, "-c", "import sqlite3")
PACKAGE = Path(__file__).resolve().parents[1] / "memstore"


@dataclass(frozen=True)
class StartupTimes:
    """p50 milliseconds of each process, start to exit, and whether the recall printed
    the rare word's hits."""

    word: str
    sqlite_ms: float
    help_ms: float
    recall_ms: float
    found: bool


def memstore_command() -> list[str]:
    """The ``memstore`` console script beside this interpreter (a venv's), else
    ``python -m memstore``."""
    script = Path(sys.executable).with_name("memstore")
    return [str(script)] if script.exists() else [sys.executable, "-m", "memstore"]


def run_quietly(command: list[str] | tuple[str, ...]) -> None:
    """Run ``command`` to its end with its output thrown away; fail on a non-zero exit."""
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def compare_startup(database: Path, word: str, repeat: int) -> StartupTimes:
    """The three processes, interleaved, after one warm-up run of each (memstore's
    modules compiled to bytecode first)."""
    compileall.compile_dir(PACKAGE, quiet=1)
    memstore = memstore_command()
    recall = [*memstore, "--database", str(database), "recall", word]
    sqlite_ms, help_ms, recall_ms = p50s_ms(
        [
            lambda: run_quietly(IMPORT_SQLITE),
            lambda: run_quietly([*memstore, "--help"]),
            lambda: run_quietly(recall),
        ],
        repeat,
    )
    printed = subprocess.run(recall, capture_output=True, text=True, check=True).stdout
    return StartupTimes(word, sqlite_ms, help_ms, recall_ms, '"matched_id"' in printed)
