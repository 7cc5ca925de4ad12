"""Crash safety: `memstore import` killed with SIGKILL at random points, several times over.

After every kill the database passes check, and each file is either wholly imported or not at
all (a savepoint per file, in transactions of about 2,000 records: a kill lands in a batch
once the first one is seen committed). Importing again then gives exactly the messages the
generator wrote: every source reference once, with its content, role and order. The long
version (marker ``bench``) uses more files, more records and more rounds.
"""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import pytest

from memstore import MemoryService
from memstore.concerns.import_records import session_id_for

SPEAKERS = {"Diego": "user", "Morgan": "assistant"}
WORDS = ("jardín", "azul", "lavanda", "café", "mañana", "riego", "garden", "lavender")
WORDS += ("watering", "seeds", "Straße", "naïve", "東京", "ümlaut", "🌱", "idea", "plan", "-", "*")


@dataclass(frozen=True)
class Expected:
    """One record the generator wrote."""

    session_id: str
    role: str
    content: str
    byte: int


@dataclass(frozen=True)
class Scale:
    files: int
    records: int  # per file
    rounds: int  # kills before the final import
    window: float  # seconds: once the import is seen writing, it is killed within this time


FAST = Scale(files=50, records=200, rounds=3, window=0.15)
LONG = Scale(files=200, records=200, rounds=15, window=0.3)


def content(rng: random.Random) -> str:
    """A message: a few lines of words, now and then a blank line inside it."""
    lines = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 14))))
        if rng.random() < 0.1:
            lines.append("")
    lines.append(f"¿fin {rng.randint(0, 10**6)}?")
    return "\n".join(lines)


def generate_logs(folder: Path, scale: Scale, seed: int) -> dict[str, Expected]:
    """Daily logs in the format of LOGFORMAT.md; returns source reference -> record."""
    rng = random.Random(seed)
    expected: dict[str, Expected] = {}
    folder.mkdir()
    for index in range(scale.files):
        day = (date(2026, 1, 1) + timedelta(days=index)).isoformat()
        path = folder / f"{day}.md"
        resolved = str(path.resolve())
        data = f"Morgan Log — {day}".encode()
        for n in range(scale.records):
            speaker = "Diego" if n % 2 == 0 else "Morgan"
            text = content(rng)
            seconds = 6 * 3600 + n * 7
            stamp = f"[{seconds // 3600:02}:{seconds // 60 % 60:02}:{seconds % 60:02} +0100] "
            byte = len(data) + 2
            data += f"\n\n{stamp}\n{speaker}: {text}".encode()
            expected[f"{resolved}#byte={byte}"] = Expected(
                session_id_for(resolved), SPEAKERS[speaker], text, byte
            )
        path.write_bytes(data)
    return expected


def import_command(database: Path, logs: Path) -> list[str]:
    speakers = [arg for name, role in SPEAKERS.items() for arg in ("--speaker", f"{name}={role}")]
    return [
        sys.executable,
        "-m",
        "memstore",
        "--database",
        str(database),
        "import",
        str(logs),
        *speakers,
        "--include-tail",
    ]


def stored(database: Path) -> list[tuple[str, str, str, str, int]]:
    """source_ref, session_id, role, content, sequence of every message (none if no schema)."""
    if not database.exists():
        return []
    with closing(sqlite3.connect(database)) as connection:
        try:
            return connection.execute(
                "SELECT source_ref, session_id, role, content, sequence FROM messages"
            ).fetchall()
        except sqlite3.OperationalError:  # no such table yet (killed before the migration)
            return []


def progress(database: Path) -> int:
    """How many messages are stored: -1 before the database file exists, 0 before its schema."""
    if not database.exists():
        return -1
    try:
        with closing(sqlite3.connect(database)) as connection:
            return int(connection.execute("SELECT count(*) FROM messages").fetchone()[0])
    except sqlite3.Error:
        return 0


def kill_while_importing(database: Path, logs: Path, window: float, rng: random.Random) -> int:
    """Start an import, wait until it is seen writing (or finished), then SIGKILL it after a
    random delay within ``window`` seconds. Returns its exit status (``-9`` when killed)."""
    before = progress(database)
    process = subprocess.Popen(
        import_command(database, logs), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    while process.poll() is None and progress(database) == before:
        time.sleep(0.02)
    time.sleep(rng.uniform(0, window))
    process.send_signal(signal.SIGKILL)
    return process.wait(timeout=60)


def assert_consistent(database: Path, expected: dict[str, Expected]) -> None:
    """check passes; what is stored is expected, and whole files only."""
    with MemoryService(database) as service:
        report = service.health()
    assert report.ok, report.problems
    rows = stored(database)
    assert len({row[0] for row in rows}) == len(rows)  # no duplicate source
    by_session: dict[str, int] = {}
    for source_ref, session_id, role, text, _ in rows:
        assert expected[source_ref] == Expected(session_id, role, text, expected[source_ref].byte)
        by_session[session_id] = by_session.get(session_id, 0) + 1
    per_file = len(expected) // len({e.session_id for e in expected.values()})
    assert set(by_session.values()) <= {per_file}  # a file is all in, or not at all


def crash_and_recover(tmp_path: Path, scale: Scale, seed: int) -> list[int]:
    rng = random.Random(seed)
    logs, database = tmp_path / "logs", tmp_path / "memory.sqlite3"
    expected = generate_logs(logs, scale, seed)
    statuses = []
    for _ in range(scale.rounds):
        statuses.append(kill_while_importing(database, logs, scale.window, rng))
        assert_consistent(database, expected)
    before_final = stored(database)

    with MemoryService(database) as service:  # the last import runs to its end
        final = service.import_markdown([logs], speakers=SPEAKERS, include_tail=True)
    assert final.errors == 0
    assert final.imported + len(before_final) == len(expected)
    assert_consistent(database, expected)
    rows = stored(database)
    assert {row[0] for row in rows} == set(expected)
    # Sequences follow the byte order of each file, from 1 without gaps.
    order = sorted(rows, key=lambda row: (row[1], expected[row[0]].byte))
    for session_id in {row[1] for row in rows}:
        sequences = [row[4] for row in order if row[1] == session_id]
        assert sequences == list(range(1, len(sequences) + 1))
    return statuses


def test_an_import_killed_at_random_points_resumes_to_exactly_the_expected_messages(
    tmp_path: Path,
) -> None:
    statuses = crash_and_recover(tmp_path, FAST, seed=20261005)
    assert -signal.SIGKILL in statuses  # at least one kill landed while it was importing


@pytest.mark.bench
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_many_kills_over_a_larger_import(tmp_path: Path, seed: int) -> None:
    statuses = crash_and_recover(tmp_path, LONG, seed=seed)
    assert statuses.count(-signal.SIGKILL) >= LONG.rounds // 2
