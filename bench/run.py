"""Scale benchmark: memstore import and recall against plain sqlite3 on the same schema.

Usage:
    .venv/bin/python bench/run.py [--scale N] [--out DIR] [--repeat K] [--profile]

Steps, all in one run so that both sides share the machine's state:

1. Generate (or reuse, cached under ``--out``) a scale set of about N messages with
   ``../shared/tools/corpus2logs.py``.
2. Import its daily logs with ``MemoryService.import_markdown`` into a fresh database.
3. Insert the same rows with plain ``sqlite3`` ``executemany`` into a second fresh database
   migrated to the same schema, one transaction per file, through the same FTS triggers.
4. Time recall of a rare word, a common word and a phrase on both databases.
5. Print one table: throughput and p50 latencies, memstore against raw, with the machine.

Both databases are migrated before the clock starts, so the import times cover only the
import itself. The raw side's rows are precomputed from ``manifest.jsonl`` (ids, times,
source references), so its time is SQLite's work and nothing else: it is the floor.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import io
import itertools
import json
import os
import platform
import pstats
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memstore.models import format_utc
from memstore.repository.fts_query import fold, tokenize
from memstore.service import MemoryService

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CORPUS2LOGS = SHARED / "tools" / "corpus2logs.py"
SPEAKERS = {"Diego": "user", "Morgan": "assistant"}
OWNER = "diego"
HITS = 8  # memstore's default max_results

INSERT_SESSION = "INSERT INTO sessions (id, started_at, ended_at, metadata) VALUES (?, ?, NULL, ?)"
INSERT_MESSAGE = (
    "INSERT INTO messages (id, session_id, sequence, role, content, created_at, status, "
    "source_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_IMPORT = (
    "INSERT INTO imports (path, session_id, sealed_size, sealed_sha256, imported_at) "
    "VALUES (?, ?, ?, ?, ?)"
)
RAW_HITS = (
    "SELECT m.* FROM (SELECT rowid, bm25(messages_fts) r FROM messages_fts "
    "WHERE messages_fts MATCH ?) h JOIN messages m ON m.pk = h.rowid ORDER BY r LIMIT ?"
)
NEIGHBOUR_BEFORE = (
    "SELECT * FROM messages WHERE session_id = ? AND sequence < ? "
    "AND role IN ('user', 'assistant') AND status = 'completed' ORDER BY sequence DESC LIMIT 1"
)
NEIGHBOUR_AFTER = (
    "SELECT * FROM messages WHERE session_id = ? AND sequence > ? "
    "AND role IN ('user', 'assistant') AND status = 'completed' ORDER BY sequence LIMIT 1"
)
# The columns both imports must agree on, per table (random ids, pks and times of the import
# itself aside).
COMPARED = {
    "sessions": "id, started_at, ended_at, metadata",
    "messages": "session_id, sequence, role, content, created_at, status, source_ref",
    "imports": "path, session_id, sealed_size, sealed_sha256",
}


# Data set


def require_shared() -> None:
    """Exit with a clear message when ../shared (and its corpus2logs tool) is missing."""
    if not CORPUS2LOGS.is_file():
        sys.exit(
            f"bench: {CORPUS2LOGS} not found. The benchmark needs the shared folder beside the "
            f"repository ({SHARED}) with tools/corpus2logs.py and corpora/."
        )


def scale_set(out: Path, scale: int) -> Path:
    """The ``scale`` folder of a corpus2logs run for ``scale`` messages, generated once.

    A ``complete`` marker is written after a successful run, so an interrupted generation is
    redone rather than reused.
    """
    root = out / f"corpus-{scale}"
    marker = root / "complete"
    if not marker.is_file():
        shutil.rmtree(root, ignore_errors=True)
        print(f"generating the scale set ({scale} messages) in {root} ...", flush=True)
        command = [sys.executable, str(CORPUS2LOGS), str(root), "--scale", str(scale)]
        subprocess.run(command, check=True)
        marker.write_text(f"{scale}\n")
    return root / "scale"


def read_manifest(scale_dir: Path) -> list[dict[str, Any]]:
    """The manifest records of the scale set, in file then byte order."""
    with open(scale_dir / "manifest.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


# Raw rows, precomputed


@dataclass
class FileRows:
    """Everything the raw side inserts for one daily log, ready for ``executemany``."""

    session: tuple[str, str, str]
    messages: list[tuple[Any, ...]]
    imports: tuple[str, str, int, str, str]


def session_id_for(path: str) -> str:
    """The synthetic session id memstore gives a daily log path."""
    return "log_" + hashlib.sha256(path.encode()).hexdigest()[:24]


def stored_time(iso: str) -> str:
    """A manifest UTC time as memstore stores it (fixed-width UTC text)."""
    return format_utc(datetime.fromisoformat(iso))


def message_row(
    session_id: str, sequence: int, record: dict[str, Any], path: str
) -> tuple[Any, ...]:
    """One messages row: id, session_id, sequence, role, content, created_at, status, source_ref."""
    return (
        "msg_" + uuid.uuid4().hex,
        session_id,
        sequence,
        SPEAKERS[record["speaker"]],
        record["content"],
        stored_time(record["created_at"]),
        "completed",
        f"{path}#byte={record['byte']}",
    )


def file_rows(path: str, records: Sequence[dict[str, Any]], now: str) -> FileRows:
    """The session, message and imports rows of one file's manifest records.

    The imports row (sealed size and SHA-256 of the whole file) is what memstore records
    after an ``include_tail`` import, so both sides write the same rows.
    """
    session_id = session_id_for(path)
    metadata = json.dumps({"source": "daily_log", "path": path, "boundaries": "unknown"})
    data = Path(path).read_bytes()
    return FileRows(
        session=(session_id, stored_time(records[0]["created_at"]), metadata),
        messages=[
            message_row(session_id, sequence, record, path)
            for sequence, record in enumerate(records, start=1)
        ],
        imports=(path, session_id, len(data), hashlib.sha256(data).hexdigest(), now),
    )


def raw_plan(corpus_root: Path, manifest: Sequence[dict[str, Any]]) -> list[FileRows]:
    """Per-file raw rows for the whole manifest, files in name order (as memstore imports)."""
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in manifest:
        by_file[record["file"]].append(record)
    now = format_utc(datetime.now(UTC))
    return [
        file_rows(str((corpus_root / name).resolve()), by_file[name], now)
        for name in sorted(by_file)
    ]


# Import


def migrated(path: Path) -> Path:
    """A fresh database file at ``path`` with memstore's schema (migrations run)."""
    for stale in path.parent.glob(path.name + "*"):
        stale.unlink()
    MemoryService(path).health()
    return path


def raw_connect(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection: autocommit mode (explicit BEGIN), WAL, foreign keys."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def import_memstore(service: MemoryService, logs: Path) -> tuple[int, float]:
    """Messages imported and seconds taken by ``import_markdown`` of the folder ``logs``."""
    start = time.perf_counter()
    report = service.import_markdown([logs], speakers=SPEAKERS, include_tail=True)
    elapsed = time.perf_counter() - start
    if report.errors:
        sys.exit(f"bench: memstore import reported {report.errors} file errors")
    return report.imported, elapsed


def import_raw(connection: sqlite3.Connection, plan: Sequence[FileRows]) -> tuple[int, float]:
    """Messages inserted and seconds taken inserting ``plan``, one transaction per file."""
    start = time.perf_counter()
    for rows in plan:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(INSERT_SESSION, rows.session)
        connection.executemany(INSERT_MESSAGE, rows.messages)
        connection.execute(INSERT_IMPORT, rows.imports)
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - start
    return sum(len(rows.messages) for rows in plan), elapsed


def differing_rows(memstore_db: Path, raw: sqlite3.Connection) -> int:
    """Rows of sessions, messages and imports present in one database but not the other."""
    raw.execute("ATTACH DATABASE ? AS other", (str(memstore_db),))
    try:
        count = 0
        for table, columns in COMPARED.items():
            for left, right in (("main", "other"), ("other", "main")):
                query = (
                    f"SELECT count(*) FROM (SELECT {columns} FROM {left}.{table} "
                    f"EXCEPT SELECT {columns} FROM {right}.{table})"
                )
                count += raw.execute(query).fetchone()[0]
        return count
    finally:
        raw.execute("DETACH DATABASE other")


# Query choice


@dataclass(frozen=True)
class Query:
    """One recall benchmark case: its label, user text, memstore mode and FTS5 MATCH."""

    label: str
    text: str
    mode: str
    match: str
    hits: int = 0


def plain_word(term: str, shortest: int) -> bool:
    """True for an ASCII alphabetic term of at least ``shortest`` letters."""
    return term.isascii() and term.isalpha() and len(term) >= shortest


def vocabulary(raw: sqlite3.Connection) -> list[tuple[str, int]]:
    """(term, document count) of the messages index, most documents first, then by term."""
    raw.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, messages_fts, row)"
    )
    return raw.execute("SELECT term, doc FROM temp.vocab ORDER BY doc DESC, term").fetchall()


def rare_word(vocab: Sequence[tuple[str, int]]) -> str:
    """The most frequent plain word found in 3 to 10 documents."""
    return next(term for term, docs in vocab if 3 <= docs <= 10 and plain_word(term, 5))


def common_word(vocab: Sequence[tuple[str, int]]) -> str:
    """The first plain word of three letters or more among the 20 most frequent terms."""
    return next(term for term, _ in vocab[:20] if plain_word(term, 3))


def rare_phrase(raw: sqlite3.Connection) -> str:
    """The most frequent two-word phrase of plain words found in 3 to 10 messages."""
    documents: Counter[tuple[str, str]] = Counter()
    for (content,) in raw.execute("SELECT content FROM messages_searchable"):
        words = [fold(token) for token in tokenize(content)]
        documents.update(set(itertools.pairwise(words)))
    candidates = sorted(
        (-docs, pair)
        for pair, docs in documents.items()
        if 3 <= docs <= 10 and all(plain_word(word, 4) for word in pair)
    )
    return " ".join(candidates[0][1])


def fts_string(word: str) -> str:
    """A word as an FTS5 string literal."""
    return '"' + word.replace('"', '""') + '"'


def choose_queries(raw: sqlite3.Connection) -> list[Query]:
    """The rare word, common word and phrase cases, chosen deterministically from the data."""
    vocab = vocabulary(raw)
    phrase = rare_phrase(raw)
    cases = [
        Query("rare", rare_word(vocab), "any", ""),
        Query("common", common_word(vocab), "any", ""),
        Query("phrase", phrase, "phrase", " + ".join(map(fts_string, phrase.split()))),
    ]
    return [with_hits(raw, case) for case in cases]


def with_hits(raw: sqlite3.Connection, case: Query) -> Query:
    """``case`` with its MATCH expression filled in and its number of matching messages."""
    match = case.match or fts_string(case.text)
    sql = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?"
    hits = raw.execute(sql, (match,)).fetchone()[0]
    return Query(case.label, case.text, case.mode, match, hits)


# Recall


def raw_recall(raw: sqlite3.Connection, match: str) -> list[tuple[Any, ...]]:
    """The top hits of ``match`` by bm25, each followed by its paired neighbour (if any)."""
    found: list[tuple[Any, ...]] = []
    for hit in raw.execute(RAW_HITS, (match, HITS)).fetchall():
        # messages columns: pk, id, session_id, sequence, role, ...
        neighbour = NEIGHBOUR_BEFORE if hit[4] == "assistant" else NEIGHBOUR_AFTER
        found.append(hit)
        found.extend(raw.execute(neighbour, (hit[2], hit[3])).fetchall())
    return found


def seconds(call: Callable[[], object]) -> float:
    """Wall-clock seconds one call of ``call`` takes."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def p50s_ms(calls: Sequence[Callable[[], object]], repeat: int) -> list[float]:
    """Median milliseconds of each of ``calls`` over ``repeat`` rounds, after one warm-up.

    The calls alternate within each round, so load from other processes on the machine
    falls on all of them alike rather than on whichever ran during a busy spell.
    """
    for call in calls:
        call()
    rounds = [[seconds(call) for call in calls] for _ in range(repeat)]
    return [statistics.median(column) * 1000 for column in zip(*rounds, strict=True)]


def recall_p50s(
    service: MemoryService, raw: sqlite3.Connection, case: Query, repeat: int
) -> tuple[float, float]:
    """(memstore, raw) median recall milliseconds for one case."""
    memstore_ms, raw_ms = p50s_ms(
        [lambda: service.recall(case.text, mode=case.mode), lambda: raw_recall(raw, case.match)],
        repeat,
    )
    return memstore_ms, raw_ms


# Report


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo, or the platform's processor string."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_lines(scale: int, messages: int, files: int) -> list[str]:
    """The header lines: data size and machine."""
    return [
        f"N = {scale} (scale set: {messages} messages in {files} daily logs)",
        f"platform: {platform.platform()}",
        f"cpu: {cpu_model()} ({os.cpu_count()} logical CPUs)",
        f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}",
    ]


def table(rows: Sequence[Sequence[str]]) -> str:
    """Rows as plain text, first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def import_row(memstore_rate: float, raw_rate: float) -> list[str]:
    """The import throughput row (ratio > 1 means memstore is faster)."""
    ratio = memstore_rate / raw_rate
    return ["import msgs/s", f"{memstore_rate:,.0f}", f"{raw_rate:,.0f}", f"{ratio:.2f}", "> 1"]


def recall_row(case: Query, memstore_ms: float, raw_ms: float) -> list[str]:
    """A recall latency row (ratio < 1.3 is the target)."""
    ratio = memstore_ms / raw_ms
    label = f"recall {case.label} p50 ms"
    return [label, f"{memstore_ms:.2f}", f"{raw_ms:.2f}", f"{ratio:.2f}", "< 1.3"]


# Profile


def profile_import(logs: Path, path: Path, top: int = 25) -> str:
    """cProfile statistics (by own time, then cumulative) of a memstore import into a fresh
    database at ``path``."""
    service = MemoryService(migrated(path))
    profiler = cProfile.Profile()
    profiler.runcall(service.import_markdown, [logs], speakers=SPEAKERS, include_tail=True)
    stream = io.StringIO()
    for key in ("tottime", "cumulative"):
        pstats.Stats(profiler, stream=stream).sort_stats(key).print_stats(top)
    return stream.getvalue()


# Main


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=int, default=20000, help="messages (default 20000)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memstore-bench",
        help="work folder; the generated logs are cached here (default: %(default)s)",
    )
    parser.add_argument("--repeat", type=int, default=50, help="recall runs per case (50)")
    parser.add_argument(
        "--profile", action="store_true", help="also cProfile a second memstore import"
    )
    return parser.parse_args(argv)


@dataclass(frozen=True)
class ImportTimes:
    """Both imports: files, messages stored and seconds taken, and how many rows differ."""

    files: int
    memstore_messages: int
    memstore_seconds: float
    raw_messages: int
    raw_seconds: float
    differing: int

    def rates(self) -> tuple[float, float]:
        """(memstore, raw) messages per second."""
        return (
            self.memstore_messages / self.memstore_seconds,
            self.raw_messages / self.raw_seconds,
        )


def compare_imports(service: MemoryService, raw: sqlite3.Connection, logs: Path) -> ImportTimes:
    """Import the logs with memstore, insert the same rows raw, and check both hold the same.

    The raw side's precomputed rows are built after memstore's import and live only inside
    this call, so neither memstore's import nor its recall runs beside that large heap
    (a large live heap makes every full collection, and so allocation-heavy code, slower).
    """
    imported, memstore_s = import_memstore(service, logs)
    plan = raw_plan(logs.parent.parent, read_manifest(logs.parent))
    inserted, raw_s = import_raw(raw, plan)
    differing = differing_rows(service.path, raw)
    return ImportTimes(len(plan), imported, memstore_s, inserted, raw_s, differing)


def compare_recalls(
    service: MemoryService, raw: sqlite3.Connection, repeat: int
) -> list[tuple[Query, float, float]]:
    """Each chosen case with its (memstore, raw) p50 milliseconds."""
    return [(case, *recall_p50s(service, raw, case, repeat)) for case in choose_queries(raw)]


def report(
    args: argparse.Namespace,
    times: ImportTimes,
    recalls: Sequence[tuple[Query, float, float]],
) -> str:
    """The printed report: machine, data, chosen queries, then the table."""
    lines = machine_lines(args.scale, times.raw_messages, times.files)
    lines.append(
        f"import: memstore {times.memstore_messages} msgs in {times.memstore_seconds:.2f} s, "
        f"raw {times.raw_messages} in {times.raw_seconds:.2f} s; "
        f"rows differing between the two databases: {times.differing}"
    )
    lines += [
        f"recall {case.label}: {case.text!r} (mode {case.mode}, {case.hits} matching messages)"
        for case, _, _ in recalls
    ]
    lines.append(
        f"recall p50 over {args.repeat} interleaved runs after one warm-up; ratio = memstore/raw "
        "(throughput for import: > 1 means memstore faster; time for recall)"
    )
    rows = [["", "memstore", "raw", "ratio", "target"], import_row(*times.rates())]
    rows += [recall_row(case, memstore_ms, raw_ms) for case, memstore_ms, raw_ms in recalls]
    return "\n".join([*lines, "", table(rows)])


def run(args: argparse.Namespace) -> str:
    """Run every step and return the report (plus the profile with ``--profile``)."""
    logs = scale_set(args.out, args.scale) / OWNER
    work = args.out / "run"
    work.mkdir(parents=True, exist_ok=True)
    service = MemoryService(migrated(work / "memstore.sqlite3"))
    raw = raw_connect(migrated(work / "raw.sqlite3"))
    times = compare_imports(service, raw, logs)
    gc.collect()
    text = report(args, times, compare_recalls(service, raw, args.repeat))
    if args.profile:
        text += "\n\n" + profile_import(logs, work / "profile.sqlite3")
    return text


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: check ../shared, run, print the report."""
    require_shared()
    args = arguments(argv)
    if args.scale < 1 or args.repeat < 1:
        sys.exit("bench: --scale and --repeat must be at least 1")
    print(run(args))


if __name__ == "__main__":
    main()
