"""Step 9: peak memory of importing one daily log just under 16 MiB, each side in a
subprocess: memstore's ``import_markdown`` against reading the file, cutting its records
naively one at a time and ``executemany``-inserting them as they come, each minus the peak of
a subprocess that only opens the service (or the connection)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import fetch_all, migrated
from bench.corpus import session_id_for

PEAK_LOG_BYTES = 16 * 1024 * 1024  # memstore refuses larger files
PEAK_DAY = "2023-12-31"  # before the scale set's first day
PEAK_STAMP = "[{:02d}:{:02d}:{:02d} +0100] "
# Runs the command in argv, then prints the peak RSS (KiB) of its process tree.
MEASURE = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
# argv: database [log]. Opens the service; with a log, imports it and prints the seconds.
MEMSTORE_CHILD = """
import sys, time
from memstore import MemoryService
service = MemoryService(sys.argv[1])
service.get_session("none")
if len(sys.argv) > 2:
    start = time.perf_counter()
    report = service.import_markdown(
        [sys.argv[2]], speakers={"Diego": "user", "Morgan": "assistant"}, include_tail=True
    )
    if report.errors:
        sys.exit(f"memstore import failed: {report.files[0].error}")
    print(time.perf_counter() - start)
"""
# argv: database [log session_id]. Opens the connection; with a log, reads it, splits its
# records naively (on a blank line then "[" and two digits and ":", which corpus2logs never
# leaves inside a message), inserts them in one transaction, prints the seconds. The records
# are cut from the file and handed to executemany one at a time, as a careful user would
# (a list of every row first peaked at 96 MiB above the baseline, this at about 19).
RAW_CHILD = """
import itertools, re, sqlite3, sys, time, uuid
from datetime import UTC, datetime
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("PRAGMA journal_mode = WAL")
connection.execute("PRAGMA foreign_keys = ON")

def records(data, path, session_id):
    day = path.rsplit("/", 1)[-1][:10]
    roles = {"Diego": "user", "Morgan": "assistant"}
    marks = re.finditer(rb"\\n\\n\\[(?=\\d\\d:)", data)
    mark = next(marks, None)
    for sequence in itertools.count(1):
        if mark is None:
            return
        following = next(marks, None)
        piece = data[mark.end() : len(data) if following is None else following.start()]
        stamp, _, rest = piece.decode().partition("\\n")
        speaker, _, content = rest.partition(": ")
        zone = stamp[9:12] + ":" + stamp[12:14]
        when = datetime.fromisoformat(day + "T" + stamp[:8] + zone).astimezone(UTC)
        yield (
            "msg_" + uuid.uuid4().hex, session_id, sequence, roles[speaker], content,
            when.isoformat(timespec="microseconds"), "completed", f"{path}#byte={mark.end() - 1}",
        )
        mark = following

if len(sys.argv) > 2:
    start = time.perf_counter()
    path, session_id = sys.argv[2], sys.argv[3]
    with open(path, "rb") as log:
        data = log.read()
    rows = records(data, path, session_id)
    first = next(rows)
    connection.execute("BEGIN IMMEDIATE")
    connection.execute(
        "INSERT INTO sessions (id, started_at, ended_at, metadata) VALUES (?, ?, NULL, '{}')",
        (session_id, first[5]),
    )
    connection.executemany(
        "INSERT INTO messages (id, session_id, sequence, role, content, created_at, status, "
        "source_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        itertools.chain([first], rows),
    )
    connection.execute("COMMIT")
    print(time.perf_counter() - start)
"""


def large_log(manifest: Sequence[dict[str, Any]], folder: Path) -> tuple[Path, int]:
    """A daily log just under 16 MiB in folder/PEAK_DAY.md, in the format corpus2logs writes,
    of the manifest's utterances with their speakers in order (repeated from the start as
    needed), stamps spread over the day. Returns its path and number of records."""
    folder.mkdir(parents=True, exist_ok=True)
    header = f"Morgan Log — {PEAK_DAY}".encode()
    stamp_bytes = len(PEAK_STAMP.format(0, 0, 0).encode())
    bodies: list[bytes] = []
    size = len(header)
    for record in itertools.cycle(manifest):
        body = f"{record['speaker']}: {record['content']}".encode()
        grown = size + 2 + stamp_bytes + 1 + len(body)  # blank line, stamp line, body
        if grown > PEAK_LOG_BYTES - 1024:
            break
        bodies.append(body)
        size = grown
    data = bytearray(header)
    for index, body in enumerate(bodies):
        second = index * 86399 // len(bodies)
        stamp = PEAK_STAMP.format(second // 3600, second // 60 % 60, second % 60)
        data += b"\n\n" + stamp.encode() + b"\n" + body
    path = folder / f"{PEAK_DAY}.md"
    path.write_bytes(bytes(data))
    return path, len(bodies)


@dataclass(frozen=True)
class PeakMemory:
    """The large log, and for each side its stored messages, import seconds, and the peak RSS
    (MiB) of the importing subprocess and of its baseline."""

    log_bytes: int
    records: int
    memstore_messages: int
    memstore_seconds: float
    memstore_mib: float
    memstore_baseline_mib: float
    raw_messages: int
    raw_seconds: float
    raw_mib: float
    raw_baseline_mib: float

    def net(self) -> tuple[float, float]:
        """(memstore, raw) peak MiB above their baselines."""
        return (
            self.memstore_mib - self.memstore_baseline_mib,
            self.raw_mib - self.raw_baseline_mib,
        )


def measured(code: str, *argv: str) -> tuple[float, float | None]:
    """Peak RSS (MiB) of ``python -c code argv...`` run in a fresh measuring process (so no
    earlier child counts), and the seconds the child printed (None when it printed none)."""
    command = [sys.executable, "-c", MEASURE, sys.executable, "-c", code, *argv]
    result = subprocess.run(command, check=False, stdout=subprocess.PIPE, text=True)
    if result.returncode:
        sys.exit(f"bench: a peak-memory subprocess failed with {argv} (its error is above)")
    lines = result.stdout.split()
    return int(lines[-1]) / 1024, float(lines[0]) if len(lines) > 1 else None


def message_count(path: Path) -> int:
    """Messages stored in the database at ``path``."""
    return int(fetch_all(path, "SELECT count(*) FROM messages")[0][0])


def compare_peaks(work: Path, manifest: Sequence[dict[str, Any]]) -> PeakMemory:
    """Import the large log with memstore and raw, each in a subprocess, on fresh migrated
    databases; and the same subprocesses without the import, as baselines."""
    log, records = large_log(manifest, work / "peak-log")
    paths = {
        name: migrated(work / f"peak-{name}.sqlite3")
        for name in ("memstore", "memstore-base", "raw", "raw-base")
    }
    memstore_base, _ = measured(MEMSTORE_CHILD, str(paths["memstore-base"]))
    memstore_mib, memstore_s = measured(MEMSTORE_CHILD, str(paths["memstore"]), str(log))
    raw_base, _ = measured(RAW_CHILD, str(paths["raw-base"]))
    session_id = session_id_for(str(log.resolve()))
    raw_mib, raw_s = measured(RAW_CHILD, str(paths["raw"]), str(log.resolve()), session_id)
    return PeakMemory(
        log_bytes=log.stat().st_size,
        records=records,
        memstore_messages=message_count(paths["memstore"]),
        memstore_seconds=memstore_s or 0.0,
        memstore_mib=memstore_mib,
        memstore_baseline_mib=memstore_base,
        raw_messages=message_count(paths["raw"]),
        raw_seconds=raw_s or 0.0,
        raw_mib=raw_mib,
        raw_baseline_mib=raw_base,
    )
