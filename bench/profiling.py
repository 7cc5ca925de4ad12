"""``--profile``: cProfile statistics of a second memstore import and of each memstore call
whose p50 is over 1.3 times its raw path's."""

from __future__ import annotations

import cProfile
import functools
import io
import itertools
import pstats
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.common import SPEAKERS, migrated
from bench.recall import memstore_recall
from bench.rows import Results, own_statements
from bench.timing import Call
from memstore import MemoryService


def profile_text(profiler: cProfile.Profile, top: int) -> str:
    """The ``top`` functions of a profile by own time, then by cumulative time."""
    stream = io.StringIO()
    for key in ("tottime", "cumulative"):
        pstats.Stats(profiler, stream=stream).sort_stats(key).print_stats(top)
    return stream.getvalue()


def profile_import(logs: Path, path: Path, top: int = 25) -> str:
    """cProfile statistics (by own time, then cumulative) of a memstore import into a fresh
    database at ``path``."""
    service = MemoryService(migrated(path))
    profiler = cProfile.Profile()
    profiler.runcall(service.import_markdown, [logs], speakers=SPEAKERS, include_tail=True)
    return profile_text(profiler, top)


def profile_calls(label: str, call: Call, runs: int, top: int = 25) -> str:
    """cProfile statistics of ``runs`` calls of ``call``, titled with the row's label."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        call()
    profiler.disable()
    return f"profile of memstore, {label}, {runs} calls:\n" + profile_text(profiler, top)


def memstore_calls(
    service: MemoryService, work: Path, results: Results, spare: Sequence[str]
) -> dict[str, Callable[[], object]]:
    """Row label -> one memstore call of that row, for profiling. Writes go to the same
    databases as the timed ones: record_message into a new session, remember with contents
    not yet remembered there."""
    calls: dict[str, Callable[[], object]] = {}
    for case in (r.case for r in results.recalls):
        calls[f"{own_statements(case)} p50 ms"] = functools.partial(memstore_recall, service, case)
    calls["search_words p50 ms"] = functools.partial(service.search_words, results.words.prefix)
    for case in results.instances:
        calls[f"word_instances {case.label} p50 ms"] = functools.partial(
            service.word_instances, case.word
        )
    session_id = service.start_session().id
    texts = itertools.cycle(spare)
    calls["record_message p50 ms"] = lambda: service.record_message(session_id, "user", next(texts))
    remembering = MemoryService(work / "remember-memstore.sqlite3")
    unseen = iter(spare)
    calls["remember p50 ms"] = lambda: remembering.remember(next(unseen))
    contexts = MemoryService(work / "context-memstore.sqlite3")
    calls["context p50 ms"] = functools.partial(contexts.context, results.contexts.query)
    return calls


def profiles(
    service: MemoryService,
    work: Path,
    logs: Path,
    results: Results,
    spare: Sequence[str],
    runs: int,
) -> str:
    """What ``--profile`` appends to the report: ``runs`` calls of each slow row's memstore
    call (``spare`` are contents not yet written), then a second import of ``logs``."""
    text = ""
    calls = memstore_calls(service, work, results, spare)
    for row in results.rows():
        if row.slow() and row.label in calls:
            text += "\n\n" + profile_calls(row.label, calls[row.label], runs)
    return (
        text + "\n\nprofile of memstore, import:\n" + profile_import(logs, work / "profile.sqlite3")
    )
