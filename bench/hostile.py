"""Hostile shapes: the inputs that once hung or blew up memstore, timed and measured.

Usage:
    .venv/bin/python bench/hostile.py [--out DIR] [--repeat K]

1. ``word_instances`` on one message holding one word 400,000 times (the hostile-inputs
   review measured 51 s for its first page, highlight() being quadratic in the matches):
   p50 of the first page, a page in the middle and the last page. The raw side is the
   query a user would write, the whole record's highlight() with the page's fts5vocab
   rows; it runs once on a message of 40,000 occurrences (at 400,000 it takes about a
   minute), and its time is printed beside memstore's on that same message.
2. Importing 16 MiB logs of awkward line shapes, each in a fresh process: 8M one-letter
   lines (one record of 8M words), 5.5M one-letter CRLF lines and 16M blank lines; the peak
   RSS growth of the importing process (VmHWM) over its size after opening the service,
   and that growth divided by the file's size.

Needs Linux (/proc) for the peak memory.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.timing import median_ms, seconds  # noqa: E402
from memstore import MemoryService  # noqa: E402
from tests.test_import_peak_memory import CHILD as IMPORT_CHILD  # noqa: E402  # prints its growth

WORD = "painting"
OCCURRENCES = 400_000
RAW_OCCURRENCES = 40_000
LOG_BYTES = 16 * 1024 * 1024 - 1024
HEAD = "Morgan Log \u2014 2026-10-05\n\n[09:00:00 +0000]\nDiego: start\n".encode()
SHAPES = {"8M short lines": b"x\n", "5.5M short CRLF lines": b"x\r\n", "16M blank lines": b"\n"}
RAW_PAGE = (
    "SELECT i.doc, i.offset FROM temp.vocab_instance AS i JOIN messages AS m ON m.pk = i.doc "
    "WHERE i.term = ? ORDER BY m.created_at DESC, m.id, i.offset LIMIT 8"
)
RAW_HIGHLIGHT = (
    "SELECT highlight(messages_fts, 0, char(2), char(3)) FROM messages_fts "
    "WHERE messages_fts MATCH ? AND rowid = ?"
)


def p50_ms(call: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls, in milliseconds."""
    return median_ms(seconds(call) for _ in range(repeat))


def one_long_message(path: Path, occurrences: int) -> MemoryService:
    """A store holding one message of ``occurrences`` times :data:`WORD`."""
    service = MemoryService(path)
    session = service.start_session()
    service.record_message(session.id, "user", " ".join([WORD] * occurrences))
    return service


def raw_first_page(path: Path) -> float:
    """Seconds of the plain first page: the fts5vocab rows, then highlight() of the record."""
    with closing(sqlite3.connect(path)) as connection:
        connection.execute(
            "CREATE VIRTUAL TABLE temp.vocab_instance USING fts5vocab(main, messages_fts, instance)"
        )
        start = time.perf_counter()
        rows = connection.execute(RAW_PAGE, (WORD,)).fetchall()
        for doc in {doc for doc, _ in rows}:
            connection.execute(RAW_HIGHLIGHT, (f'"{WORD}"', doc)).fetchone()
        return time.perf_counter() - start


def instances_report(work: Path, repeat: int) -> list[str]:
    """The word_instances lines of the report."""
    service = one_long_message(work / "long.sqlite3", OCCURRENCES)
    pages = {"first": 0, "middle": OCCURRENCES // 2, "last": OCCURRENCES - 8}
    times = {
        name: p50_ms(lambda at=offset: service.word_instances(WORD, offset=at), repeat)
        for name, offset in pages.items()
    }
    small = one_long_message(work / "small.sqlite3", RAW_OCCURRENCES)
    small_ms = p50_ms(lambda: small.word_instances(WORD), repeat)
    raw_ms = raw_first_page(small.path) * 1000
    return [
        f"word_instances, one message holding {WORD!r} {OCCURRENCES:,} times, p50 ms: "
        + ", ".join(f"{name} page {ms:.1f}" for name, ms in times.items()),
        f"  at {RAW_OCCURRENCES:,} times: memstore first page {small_ms:.1f} ms, plain "
        f"fts5vocab page + highlight() of the record {raw_ms:.1f} ms "
        f"(memstore / raw = {small_ms / raw_ms:.2f})",
    ]


def import_peaks(work: Path) -> list[str]:
    """The import lines of the report: peak RSS growth per line shape."""
    lines = []
    for label, line in SHAPES.items():
        folder = work / label.replace(" ", "-")
        folder.mkdir()
        log = folder / "2026-10-05.md"
        log.write_bytes(HEAD + line * ((LOG_BYTES - len(HEAD)) // len(line)))
        start = time.perf_counter()
        completed = subprocess.run(
            [sys.executable, "-c", IMPORT_CHILD, str(folder / "m.sqlite3"), str(log)],
            capture_output=True,
            text=True,
            check=True,
        )
        seconds = time.perf_counter() - start
        grown, size = int(completed.stdout.split()[-1]), log.stat().st_size
        lines.append(
            f"import of a 16 MiB log of {label}: peak RSS +{grown / 2**20:.1f} MiB = "
            f"{grown / size:.2f}x the file, {seconds:.1f} s"
        )
    return lines


def main() -> None:
    """Run both measurements and print their lines."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="work folder (a temporary one by default)")
    parser.add_argument("--repeat", type=int, default=5, help="calls per timed page")
    args = parser.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="memstore-hostile-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print("\n".join([*instances_report(work, args.repeat), *import_peaks(work)]))
    finally:
        if args.out is None:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
