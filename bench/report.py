"""Step 11: the printed report: the machine, the data, the chosen cases, the step times, then
one table of throughput, p50 latencies and peak memory, memstore against raw."""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3

from bench.cases import Query
from bench.common import HITS
from bench.fidelity import Fidelity
from bench.peak import PeakMemory
from bench.recall import UNCLIPPED_CHARS, RecallTimes
from bench.remember import BENCH_KEY
from bench.rows import Results, table
from bench.startup import StartupTimes
from bench.timing import Steps
from memstore.schemas import HealthReport
from memstore.text import ranking


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


def yes(flag: bool) -> str:
    """yes or NO."""
    return "yes" if flag else "NO"


def check_text(checked: HealthReport) -> str:
    """``ok``, or FAILED with what ``check`` found."""
    return "ok" if checked.ok else "FAILED: " + "; ".join(checked.problems)


def filters_text(case: Query) -> str:
    """``, since ... until ... UTC`` for a windowed case, ``, role ...`` for one with a
    role, else nothing."""
    text = "" if case.role is None else f", role {case.role}"
    if case.window is None:
        return text
    since, until = case.window
    return f", since {since:%Y-%m-%d %H:%M} until {until:%Y-%m-%d %H:%M} UTC{text}"


def recall_line(r: RecallTimes) -> str:
    """The line of one recall case: its query, whether both sides gave the same hits, and
    each side's p50."""
    return (
        f"recall {r.case.label}: {r.case.text!r} (mode {r.case.mode}, {r.case.hits} matching "
        f"messages{' before the filters' if filters_text(r.case) else ''}"
        f"{filters_text(r.case)}); raw runs memstore's repository (memory hits, part "
        f"counts, ranked hits, partners); same hits in the same order: {yes(r.same)}; the "
        f"plain query (bm25 top {HITS}, each with its neighbour): {r.plain_ms:.2f} ms; memstore "
        f"{r.memstore_ms:.2f} ms, with recall_chars {UNCLIPPED_CHARS} (nothing clipped) "
        f"{r.unclipped_ms:.2f} ms; the careful query (the stem index, ranked before rows are "
        f"read): {r.careful_ms:.2f} ms (memstore / careful = {r.memstore_ms / r.careful_ms:.2f}x);"
        f" back to back, each alone: memstore "
        f"{r.memstore_alone_ms:.2f} ms, the plain query {r.plain_alone_ms:.2f} ms = "
        f"{r.memstore_alone_ms / r.plain_alone_ms:.2f}x, the careful query "
        f"{r.careful_alone_ms:.2f} ms = {r.memstore_alone_ms / r.careful_alone_ms:.2f}x"
    )


def history_lines(results: Results) -> list[str]:
    """The lines of the import, recall, search_words and word_instances steps."""
    times, words = results.times, results.words
    lines = [
        f"import: memstore {times.memstore_messages} msgs in {times.memstore_seconds:.2f} s, "
        f"raw {times.raw_messages} in {times.raw_seconds:.2f} s; "
        f"rows differing between the two databases: {times.differing}; memstore check after "
        f"its import: {check_text(results.checked)}",
        f"database size per message: memstore {times.memstore_bytes / times.memstore_messages:.0f}"
        f" bytes, raw {times.raw_bytes / times.raw_messages:.0f} bytes",
        f"history index segments after the imports (each term lookup reads every one): "
        f"memstore {times.segments[0]}, raw {times.segments[1]}",
    ]
    lines += [recall_line(r) for r in results.recalls]
    lines.append(fidelity_line(results.fidelity))
    lines.append(
        f"search_words: prefix {words.prefix!r} ({words.total} words), first page of {HITS}; "
        f"same page and total on both sides: {yes(words.same)}"
    )
    lines += [
        f"word_instances {case.label}: {case.word!r} ({case.total} occurrences in "
        f"{case.documents} messages), first page of {HITS}; same instances (time, text; "
        f"offsets and token indexes differ in CJK records, see bench.words) and total on "
        f"both sides: "
        f"{yes(case.same)}"
        for case in results.instances
    ]
    return lines


def fidelity_line(fidelity: Fidelity) -> str:
    """The line of the bounded ranking's fidelity step."""
    if not fidelity.queries:
        return (
            f"bounded ranking: no drawn query has a tier of over {ranking.EXACT_HITS} "
            "documents; every tier is ranked whole"
        )
    return (
        f"bounded ranking (tiers of over {ranking.EXACT_HITS} documents, "
        f"{ranking.CANDIDATES} candidates at a time): the first page is the exact ranking's "
        f"for {fidelity.identical} of {fidelity.queries} drawn queries; on average "
        f"{fidelity.overlap:.1%} of the exact page's matched messages on it"
    )


def memory_lines(results: Results) -> list[str]:
    """The lines of the record_message, remember and context steps."""
    records, remembers, contexts = results.records, results.remembers, results.contexts
    return [
        f"record_message: {records.calls} interleaved calls per side into a new session of the "
        f"imported databases after one warm-up; messages differing: {records.differing}",
        f"remember: {remembers.calls} interleaved calls per side on fresh databases after one "
        f"warm-up, {remembers.keyed} with key {BENCH_KEY!r} ({remembers.superseded} superseded); "
        f"memories differing between the two databases: {remembers.differing}; the "
        f"credential guard alone (not on the raw side) takes {remembers.guard_ms:.2f} ms of it",
        f"context: {contexts.memories} memories, query {contexts.query!r} "
        f"({contexts.hits} matching memories); block shows {contexts.shown[0]} memories "
        f"(memstore, clipped) / {contexts.shown[1]} (raw, whole lines); "
        f"raw's are memstore's first: {yes(contexts.same_memories)}, in the same order: "
        f"{yes(contexts.same_order)} (memstore ranks memories holding two query words side "
        "by side higher; the plain query by bm25 alone)",
    ]


def peak_line(peak: PeakMemory) -> str:
    """The line of the peak memory step."""
    return (
        f"peak memory: one {peak.log_bytes / 2**20:.2f} MiB log of {peak.records} records; "
        f"memstore stored {peak.memstore_messages} in {peak.memstore_seconds:.1f} s, peak RSS "
        f"{peak.memstore_mib:.1f} MiB - baseline {peak.memstore_baseline_mib:.1f} (import "
        f"memstore, open the service); raw stored {peak.raw_messages} in "
        f"{peak.raw_seconds:.1f} s, peak RSS {peak.raw_mib:.1f} MiB - baseline "
        f"{peak.raw_baseline_mib:.1f} (open the connection)"
    )


def startup_line(startup: StartupTimes) -> str:
    """The line of the start-up step."""
    return (
        f"start-up: fresh processes, start to exit, memstore's modules compiled to bytecode "
        f"first (as pip install does); python -c 'import sqlite3' {startup.sqlite_ms:.1f} ms "
        f"in a bare venv (the yardstick; {startup.installed_sqlite_ms:.1f} ms in the project's "
        f"venv, whose editable install hook runs at every start), memstore --help "
        f"{startup.help_ms:.1f} ms, memstore recall {startup.word!r} on the imported database "
        f"{startup.recall_ms:.1f} ms (it printed the word's hits: {yes(startup.found)}); the "
        f"stack's floors in the bare venv: importing click {startup.click_ms:.1f} ms "
        f"({startup.click_ms / startup.sqlite_ms:.2f}x), importing pydantic and building one "
        f"model {startup.pydantic_ms:.1f} ms ({startup.pydantic_ms / startup.sqlite_ms:.2f}x)"
    )


def report(args: argparse.Namespace, results: Results, steps: Steps) -> str:
    """The printed report: machine, data, chosen cases, step times, then the table."""
    lines = machine_lines(args.scale, results.times.raw_messages, results.times.files)
    lines += [*history_lines(results), *memory_lines(results), peak_line(results.peak)]
    lines.append(startup_line(results.startup))
    lines.append(steps.line())
    lines.append(
        f"p50 over {args.repeat} interleaved runs after one warm-up; ratio = memstore/raw "
        "(throughput for import: > 1 means memstore faster; time for the p50 rows; peak RSS "
        "above the baseline for the 16 MiB log); targets: issue 18's for import, the plain "
        "query, the word queries and start-up, 1.3 for memstore's own statements replayed"
    )
    header = ["", "memstore", "raw", "ratio", "target"]
    return "\n".join([*lines, "", table([header, *(row.cells() for row in results.rows())])])
