"""Scale benchmark: memstore against plain sqlite3 on the same schema and data, in one run.

Usage:
    .venv/bin/python -m bench.run [--scale N] [--out DIR] [--repeat K] [--profile]

(or ``.venv/bin/python bench/run.py ...``; ``make bench`` runs it with ``$(BENCH_ARGS)``).

Steps, all in one run so that both sides share the machine's state (each step's time is
printed to stderr as it finishes, and summed up in the report):

1. Generate (or reuse, cached under ``--out``) a scale set of about N messages with
   ``../shared/tools/corpus2logs.py``.
2. Import its daily logs with ``MemoryService.import_markdown`` into a fresh database, then
   run ``check`` on it (``MemoryService.health``, off the clock).
3. Insert the same rows with plain ``sqlite3`` ``executemany`` into a second fresh database
   migrated to the same schema, one transaction per file, through the same FTS triggers.
4. Time recall of a rare word, a common word and three words (mode any), a rare pair of
   words (mode all), the same pair as a phrase, and the common word in a one-week window
   and with the role user (which bounds no pk range: its filter is checked per hit):
   memstore's ``recall`` against three raw sides on the raw database. First the statements
   it runs, executed by memstore's repository on a plain ``sqlite3`` connection (memory
   hits, each ranking part's document count, the first tier with hits weighted and ranked
   with its neighbours, the first batch's messages and pair partners), checking that both
   give the same hits in the same order: memstore's overhead above its repository. Then the
   plain FTS5 query a user would write on the same schema (``MATCH ? ORDER BY bm25 LIMIT 8``,
   the window and the role as a plain ``WHERE`` on ``messages``), each hit with its pair
   neighbour so that it returns as many messages: whether recall is as fast as what it
   wraps. Then the careful
   query: the same on the stem index that memstore matches by, ranked before the page's rows
   are read. Each query on a connection of its own, every side in one read transaction; the
   calls alternate, then memstore's and each query's run back to back, each alone (see
   ``bench.recall``). Then, for up to 40 queries drawn from random messages' words whose
   first tier is ranked a set of candidates at a time (over ``ranking.EXACT_HITS``
   documents), whether the first page is the one the exact ranking gives.
5. Time ``search_words`` for the two-letter prefix with the most words (first page) against
   the fts5vocab ``row`` query it wraps (page and total), and ``word_instances`` of the rare
   and the common word (first page) against the fts5vocab ``instance`` query it wraps (page
   ordered by the record's time, total, one highlight() per record on the page).
6. Time ``record_message`` into a live session on the imported database against one
   ``BEGIN IMMEDIATE; SELECT max(sequence); INSERT; COMMIT`` per message on the raw one.
7. Time ``remember`` on two fresh databases: memstore against the same writes in plain
   ``sqlite3`` (duplicate and key-holder lookups, supersession, insert through the FTS
   trigger), one transaction per call, for distinct utterances of the manifest, every 5th
   with a key that repeats so that supersession happens.
8. Remember 1,000 utterances on two more fresh databases (memstore, and raw the same way),
   then time the per-turn context for a real user utterance: memstore's ``context`` against
   one SELECT of the memories in force, one bm25 MATCH of the query's words and a string join.
9. Peak memory of importing one daily log just under 16 MiB (utterances of the manifest,
   repeated as needed): the peak RSS of a subprocess importing it with memstore, minus that
   of a subprocess that only imports memstore and opens the service; against a subprocess
   that reads the file, cuts its records naively one at a time and ``executemany``-inserts
   them as they come, minus one that only opens the connection.
10. Start-up: ``memstore --help`` and ``memstore recall WORD`` (the rare word, on the
    imported database), each a fresh process, against ``python -c "import sqlite3"``.
11. Print one table: throughput, p50 latencies and peak memory, memstore against raw, with
    the machine.

Both databases are migrated before the clock starts, so the import times cover only the
import itself. The raw side's rows are precomputed from ``manifest.jsonl`` (ids, times,
source references), so its time is SQLite's work and nothing else: it is the floor.
With ``--profile``, the report ends with cProfile statistics of a second memstore import
and of each memstore call over 1.3 times its raw path.
"""

from __future__ import annotations

import argparse
import gc
import sqlite3
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # run as a script: import bench from the repository, not from bench/
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.cases import choose_queries, vocabulary, word_prefix
from bench.common import OWNER, migrated, raw_connect
from bench.context import CONTEXT_MEMORIES, ContextTimes, compare_contexts
from bench.corpus import memory_contents, read_manifest, require_shared, scale_set
from bench.fidelity import compare_fidelity
from bench.imports import compare_imports
from bench.peak import PeakMemory, compare_peaks
from bench.profiling import profiles
from bench.recall import PlainSides, compare_recalls
from bench.records import RecordTimes, compare_records
from bench.remember import RememberTimes, compare_remembers, remember_writes
from bench.report import report
from bench.rows import Results
from bench.startup import compare_startup
from bench.timing import Steps
from bench.words import compare_all_instances, compare_words, raw_vocab_tables
from memstore import MemoryService

FIDELITY_QUERIES = 40  # drawn queries whose first tier is bounded (step 4)


MIN_SCALE = 1500
"""The smallest scale set the cases can be drawn from, with a margin: a rare phrase of plain
words, the context step's 1,000 distinct utterances (found by review: 100 to 1,000 failed
midway; 1,200 was the least that ran through)."""


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--scale", type=int, default=20000, help=f"messages (default 20000, at least {MIN_SCALE})"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memstore-bench",
        help="work folder; the generated logs are cached here (default: %(default)s)",
    )
    parser.add_argument(
        "--repeat", type=int, default=50, help="timed runs per latency case (default 50)"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile a second memstore import and each memstore call over 1.3x raw",
    )
    return parser.parse_args(argv)


@dataclass
class Bench:
    """What the steps of one run share: the command line, the step clock, the scale set's
    logs, the work folder, and the imported databases (memstore's service and raw's
    connection)."""

    args: argparse.Namespace
    steps: Steps
    logs: Path
    work: Path
    service: MemoryService
    raw: sqlite3.Connection


def measure(bench: Bench) -> tuple[Results, list[str]]:
    """Steps 2 to 10 on the imported databases: everything measured, and the contents
    (utterances of the manifest) the memory steps drew from."""
    args, steps, service, raw = bench.args, bench.steps, bench.service, bench.raw
    with steps.step("import"):
        times = compare_imports(service, raw, bench.logs)
    with steps.step("check"):
        checked = service.health()
    gc.collect()
    with steps.step("choose cases"):
        vocab = vocabulary(raw)
        cases = choose_queries(raw, vocab)
        prefix = word_prefix(vocab)
        raw_vocab_tables(raw)
    with steps.step("recall"), plain_sides(bench.work / "raw.sqlite3") as sides:
        recalls = compare_recalls(service, raw, sides, cases, args.repeat)
    with steps.step("fidelity"):
        fidelity = compare_fidelity(service, raw, FIDELITY_QUERIES)
    with steps.step("search_words"):
        words = compare_words(service, raw, prefix, args.repeat)
    with steps.step("word_instances"):
        instances = compare_all_instances(service, raw, cases, args.repeat)
    writes, contents = measure_writes(bench)
    with steps.step("start-up"):
        startup = compare_startup(bench.work / "memstore.sqlite3", cases[0].text, args.repeat)
    measured = (times, checked, recalls, fidelity, words, instances, *writes, startup)
    return Results(*measured), contents


def measure_writes(
    bench: Bench,
) -> tuple[tuple[RecordTimes, RememberTimes, ContextTimes, PeakMemory], list[str]]:
    """Steps 7 to 9: record_message, remember, context and the peak memory of an import,
    and the contents (utterances of the manifest) they drew from."""
    args, steps, service, raw = bench.args, bench.steps, bench.service, bench.raw
    with steps.step("manifest"):
        manifest = read_manifest(bench.logs.parent)
        contents = memory_contents(manifest, max(2 * (args.repeat + 1), CONTEXT_MEMORIES))
    gc.collect()
    timed = contents[: args.repeat + 1]
    with steps.step("record_message"):
        records = compare_records(service, raw, timed)
    with steps.step("remember"):
        remembers = compare_remembers(bench.work, remember_writes(timed))
    with steps.step("context"):
        contexts = compare_contexts(bench.work, manifest, contents[:CONTEXT_MEMORIES], args.repeat)
    with steps.step("peak memory"):
        peak = compare_peaks(bench.work, manifest)
    return (records, remembers, contexts, peak), contents


@contextmanager
def plain_sides(path: Path) -> Iterator[PlainSides]:
    """The plain and the careful query's connections to the raw database, closed after."""
    with closing(raw_connect(path)) as plain, closing(raw_connect(path)) as careful:
        yield PlainSides(plain, careful)


def run(args: argparse.Namespace) -> str:
    """Run every step and return the report (plus the profiles with ``--profile``)."""
    steps = Steps()
    with steps.step("generate"):
        logs = scale_set(args.out, args.scale) / OWNER
    work = args.out / "run"
    work.mkdir(parents=True, exist_ok=True)
    service = MemoryService(migrated(work / "memstore.sqlite3"))
    raw = raw_connect(migrated(work / "raw.sqlite3"))
    results, contents = measure(Bench(args, steps, logs, work, service, raw))
    text = report(args, results, steps)
    if args.profile:
        spare = contents[args.repeat + 1 :]
        text += profiles(service, work, logs, results, spare, args.repeat)
    raw.close()
    service.close()
    return text


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: check ../shared, run, print the report."""
    require_shared()
    args = arguments(argv)
    if args.scale < MIN_SCALE or args.repeat < 1:
        sys.exit(f"bench: --scale must be at least {MIN_SCALE} and --repeat at least 1")
    print(run(args))


if __name__ == "__main__":
    main()
