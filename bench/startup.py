"""Step 10: start-up. ``memstore --help`` and ``memstore recall WORD`` on the imported
database, each a fresh process, against ``python -c "import sqlite3"``: the least a Python
program that reads SQLite costs to start (issue 18's yardstick).

The yardstick runs in a bare virtual environment made from the same interpreter in a
temporary folder, with nothing installed. The project's own environment is not a fair one:
its ``site`` start-up runs the editable install's import hook (about 10 ms here), which a
plain Python and a regular install of memstore never pay. That environment's figure is
reported beside it. memstore itself runs from the project's environment, hook included (a
review measured a regular install 1-4 ms faster).

Two floors show what the fixed stack costs before memstore's own code runs: the bare
Python importing click (every command), and importing pydantic and building one model
(every result is a pydantic model). Both read the project environment's packages from
``sys.path`` without its ``.pth`` hooks.

Both sides load bytecode: the standard library's is compiled when Python is installed, and
memstore's modules are compiled first here, as ``pip install`` and ``make`` do (an editable
install otherwise compiles them on every start where PYTHONDONTWRITEBYTECODE is set)."""

from __future__ import annotations

import compileall
import subprocess
import sys
import sysconfig
import tempfile
import venv
from dataclasses import dataclass
from pathlib import Path

from bench.timing import median_ms, seconds

PACKAGE = Path(__file__).resolve().parents[1] / "memstore"
CLICK_FLOOR = "import sqlite3, click"
PYDANTIC_FLOOR = "import sqlite3, pydantic\nclass One(pydantic.BaseModel):\n    n: int"


@dataclass(frozen=True)
class StartupTimes:
    """p50 milliseconds of each process, start to exit, and whether the recall printed
    the rare word's hits."""

    word: str
    sqlite_ms: float
    """``import sqlite3`` in the bare environment: the yardstick."""
    installed_sqlite_ms: float
    """``import sqlite3`` in the project's environment (its editable install's hook)."""
    click_ms: float
    pydantic_ms: float
    help_ms: float
    recall_ms: float
    found: bool


def memstore_command() -> list[str]:
    """The ``memstore`` console script beside this interpreter (a venv's), else
    ``python -m memstore``."""
    script = Path(sys.executable).with_name("memstore")
    return [str(script)] if script.exists() else [sys.executable, "-m", "memstore"]


def bare_python(folder: Path) -> str:
    """The interpreter of a new virtual environment made in the empty ``folder``, with
    nothing installed, from the interpreter this one runs on."""
    venv.EnvBuilder(with_pip=False).create(folder)
    return str(folder / "bin" / "python")


def floor_code(statements: str) -> str:
    """``statements`` run after the project environment's packages are put on ``sys.path``
    (no ``.pth`` hooks run)."""
    packages = sysconfig.get_paths()["purelib"]
    return f"import sys\nsys.path.append({packages!r})\n{statements}"


def run_quietly(command: list[str]) -> None:
    """Run ``command`` to its end with its output thrown away; fail on a non-zero exit."""
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def rotated_p50s_ms(commands: list[list[str]], repeat: int) -> list[float]:
    """Median milliseconds of each command's process over ``repeat`` rounds, after one
    warm-up run of each. Each round starts one command later than the one before: a process
    run right after a long one starts about 1 ms slower (a review measured it), and no
    command should always be the one that pays it."""
    for command in commands:
        run_quietly(command)
    times: list[list[float]] = [[] for _ in commands]
    for round_ in range(repeat):
        for step in range(len(commands)):
            at = (round_ + step) % len(commands)
            times[at].append(seconds(lambda at=at: run_quietly(commands[at])))
    return [median_ms(column) for column in times]


def compare_startup(database: Path, word: str, repeat: int) -> StartupTimes:
    """The processes, interleaved (see :func:`rotated_p50s_ms`; memstore's modules
    compiled to bytecode first)."""
    compileall.compile_dir(PACKAGE, quiet=1)
    with tempfile.TemporaryDirectory(prefix="memstore-bare-venv-") as folder:
        return timed_startup(bare_python(Path(folder)), database, word, repeat)


def timed_startup(bare: str, database: Path, word: str, repeat: int) -> StartupTimes:
    """:func:`compare_startup` with the bare environment's interpreter ``bare``."""
    memstore = memstore_command()
    recall = [*memstore, "--database", str(database), "recall", word]
    commands = [
        [bare, "-c", "import sqlite3"],
        [sys.executable, "-c", "import sqlite3"],
        [bare, "-c", floor_code(CLICK_FLOOR)],
        [bare, "-c", floor_code(PYDANTIC_FLOOR)],
        [*memstore, "--help"],
        recall,
    ]
    times = rotated_p50s_ms(commands, repeat)
    printed = subprocess.run(recall, capture_output=True, text=True, check=True).stdout
    return StartupTimes(word, *times, '"matched_id"' in printed)
