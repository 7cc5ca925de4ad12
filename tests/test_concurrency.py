"""Several threads and several processes recording, remembering and recalling on one file at
once, while another connection now and then holds the write lock past the 500 ms wait.

Every write either lands or fails with StoreBusy after about that wait; nothing acknowledged
is lost and nothing refused lands; each worker reads its own writes back; the file passes
check afterwards. The long version (marker ``bench``) runs more workers for longer.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import closing, suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pytest

from memstore import FileError, MemoryConfig, MemoryService, StoreBusy
from memstore.config_file import read_section
from tests.test_probe import memstore

T = TypeVar("T")

SHARED_SESSION = "ses_shared"
SHARED_KEY = "favourite_colour"
WAIT_S = 0.5  # the documented lock wait
SLACK_S = 1.5  # scheduling on a loaded CI machine, on top of the wait
HOLD_S = 0.8  # the lock hog holds the write lock longer than the wait...
PAUSE_S = 2.5  # ...then lets the workers run this long


@dataclass(frozen=True)
class Plan:
    processes: int
    threads: int  # per process, and in the test's own process
    iterations: int  # per thread


FAST = Plan(processes=3, threads=2, iterations=12)
LONG = Plan(processes=6, threads=4, iterations=150)


@dataclass
class Outcome:
    """What one worker thread was told: only acknowledged writes are listed."""

    messages: list[tuple[str, str, str]] = field(default_factory=list)  # id, session, content
    memories: list[tuple[str, str]] = field(default_factory=list)  # id, content
    busy: list[tuple[str, float]] = field(default_factory=list)  # operation, seconds
    slowest_write: float = 0.0
    unexpected: list[str] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # own writes a recall did not find


def timed_write(outcome: Outcome, name: str, write: Callable[[], T]) -> T | None:
    """``write()``, timed; None when it failed with StoreBusy (recorded with its wait)."""
    started = time.monotonic()
    try:
        result = write()
    except StoreBusy:
        outcome.busy.append((name, time.monotonic() - started))
        return None
    except Exception as error:  # anything else is a failure of the test
        outcome.unexpected.append(f"{name}: {type(error).__name__}: {error}")
        return None
    outcome.slowest_write = max(outcome.slowest_write, time.monotonic() - started)
    return result


def read_back(service: MemoryService, outcome: Outcome, token: str, wanted: str) -> None:
    """Recall ``token`` (a word only one write used) and expect the record ``wanted``."""
    try:
        result = service.recall(token)
    except StoreBusy:
        outcome.busy.append(("recall", 0.0))
        return
    except Exception as error:
        outcome.unexpected.append(f"recall: {type(error).__name__}: {error}")
        return
    found = {m.id for m in result.memories}
    found |= {m.id for c in result.conversations for m in c.messages}
    if wanted not in found:
        outcome.unread.append(f"{token} -> {wanted}")


def work(service: MemoryService, worker: str, iterations: int) -> Outcome:
    """One worker's writes and reads: its own session, the shared session, unique memories
    and memories competing for one key."""
    outcome = Outcome()
    session_id = f"ses_{worker}"
    start = partial(service.start_session, session_id=session_id)
    while not timed_write(outcome, "start_session", start):
        if outcome.unexpected:
            return outcome
    for n in range(iterations):
        token = f"{worker}x{n}"
        text = f"{worker} escribe el mensaje {n} con la palabra {token}"
        own = timed_write(
            outcome, "record", partial(service.record_message, session_id, "user", text)
        )
        if own is not None:
            outcome.messages.append((own.id, session_id, text))
            read_back(service, outcome, token, own.id)
        if n % 3 == 0:
            shared_text = f"{worker} comparte el mensaje {n}"
            record = partial(service.record_message, SHARED_SESSION, "assistant", shared_text)
            shared = timed_write(outcome, "record", record)
            if shared is not None:
                outcome.messages.append((shared.id, SHARED_SESSION, shared_text))
        if n % 4 == 1:
            fact = f"Diego told {worker} fact {n} about {token}z."
            memory = timed_write(outcome, "remember", partial(service.remember, fact))
            if memory is not None:
                outcome.memories.append((memory.id, fact))
                read_back(service, outcome, f"{token}z", memory.id)
        if n % 10 == 2:
            colour = f"Diego's favourite colour is {worker} number {n}."
            remember = partial(service.remember, colour, category="preference", key=SHARED_KEY)
            keyed = timed_write(outcome, "remember", remember)
            if keyed is not None:
                outcome.memories.append((keyed.id, colour))
    return outcome


def run_threads(service: MemoryService, prefix: str, plan: Plan) -> list[Outcome]:
    """``plan.threads`` workers sharing one service, as a host's threads would."""
    outcomes: list[Outcome] = [Outcome() for _ in range(plan.threads)]

    def run(index: int) -> None:
        outcomes[index] = work(service, f"{prefix}t{index}", plan.iterations)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(plan.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def process_main(path: str, prefix: str, plan: Plan, sync: Any, results: Any) -> None:
    """A spawned process: one service, warmed up, then ``ready`` and waiting for ``go``;
    reports through ``results``."""
    ready, go = sync
    service = MemoryService(path)
    try:  # connect and check the schema before the race
        for _ in range(10):
            with suppress(StoreBusy):
                service.get_session(SHARED_SESSION)
                break
    finally:
        ready.release()  # a failure shows as this process's exit code, not as a hang
    go.wait()
    try:
        results.put(run_threads(service, prefix, plan))
    finally:
        service.close()


def wait_for(processes: list[Any], attempt: Callable[[], T | None], what: str) -> T:
    """``attempt()`` (which waits up to a second) until it gives a value; fails as soon as a
    worker process died, rather than waiting for its result forever."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        found = attempt()
        if found is not None:
            return found
        failed = [p.exitcode for p in processes if p.exitcode not in (None, 0)]
        assert not failed, f"a worker process failed with {failed} (its stderr is above)"
    raise AssertionError(f"timed out waiting for {what}")


def next_result(results: Any) -> list[Outcome] | None:
    try:
        found: list[Outcome] = results.get(timeout=1)
    except queue.Empty:
        return None
    return found


def hog_the_lock(path: Path, go: Any, done: threading.Event) -> int:
    """Hold the write lock past the wait at the start (so some writes must fail) and then
    every now and then until ``done``. Returns how many times it held it."""
    held = 0
    with closing(sqlite3.connect(path, isolation_level=None, timeout=60)) as connection:
        while not done.is_set():
            try:  # SQLite's lock is not a queue: among busy writers, waiting may take long
                connection.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                continue
            go.set()
            time.sleep(HOLD_S)
            connection.execute("ROLLBACK")
            held += 1
            done.wait(PAUSE_S)
    return held


def run_everything(service: MemoryService, plan: Plan) -> tuple[list[Outcome], int]:
    """Processes and threads at once, with the lock hog; every outcome and the hold count."""
    service.start_session(session_id=SHARED_SESSION)
    context = multiprocessing.get_context("spawn")
    ready, go, results = context.Semaphore(0), context.Event(), context.Queue()
    processes = [
        context.Process(
            target=process_main, args=(str(service.path), f"p{i}", plan, (ready, go), results)
        )
        for i in range(plan.processes)
    ]
    done, held = threading.Event(), []
    hog = threading.Thread(target=lambda: held.append(hog_the_lock(service.path, go, done)))
    try:
        for process in processes:
            process.start()
        for _ in processes:
            wait_for(processes, lambda: ready.acquire(timeout=1) or None, "the processes to start")
        hog.start()
        go.wait()
        outcomes = run_threads(service, "main", plan)
        for _ in processes:
            outcomes.extend(wait_for(processes, partial(next_result, results), "a result"))
    finally:
        done.set()
        for process in processes:
            process.join(timeout=60)
            if process.is_alive():
                process.kill()
        if hog.is_alive():
            hog.join()
    assert all(process.exitcode == 0 for process in processes)
    return outcomes, held[0]


def stored_messages(path: Path) -> dict[str, tuple[str, str, str]]:
    with closing(sqlite3.connect(path)) as connection:
        rows = connection.execute("SELECT id, session_id, content FROM messages")
        return {row[0]: row for row in rows}


def stored_rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute(sql).fetchall()


def check_outcomes(service: MemoryService, outcomes: list[Outcome], held: int) -> None:
    assert [u for o in outcomes for u in o.unexpected] == []
    assert [u for o in outcomes for u in o.unread] == []  # each worker read its own writes
    waits = [seconds for o in outcomes for name, seconds in o.busy if name != "recall"]
    assert held >= 1 and waits, "the lock hog never made a write wait past 500 ms"
    assert max(waits) < WAIT_S + SLACK_S
    assert min(waits) > WAIT_S * 0.8  # a refused write did wait for the lock first
    assert max(o.slowest_write for o in outcomes) < WAIT_S + SLACK_S

    acknowledged = {m[0]: m for o in outcomes for m in o.messages}
    assert stored_messages(service.path) == acknowledged  # nothing lost, nothing extra
    sequences: defaultdict[str, list[int]] = defaultdict(list)
    for session_id, sequence in stored_rows(
        service.path, "SELECT session_id, sequence FROM messages ORDER BY sequence"
    ):
        sequences[session_id].append(sequence)
    assert all(found == list(range(1, len(found) + 1)) for found in sequences.values())

    remembered = {m[0]: m[1] for o in outcomes for m in o.memories}
    assert dict(stored_rows(service.path, "SELECT id, content FROM memories")) == remembered
    active = stored_rows(
        service.path, f"SELECT id FROM memories WHERE key = '{SHARED_KEY}' AND status = 'active'"
    )
    assert len(active) == 1  # the competing writes under one key left exactly one in force
    assert service.health().ok


def test_threads_and_processes_write_and_read_one_file_at_once(service: MemoryService) -> None:
    outcomes, held = run_everything(service, FAST)
    check_outcomes(service, outcomes, held)


@pytest.mark.bench
def test_many_threads_and_processes_for_longer(service: MemoryService) -> None:
    outcomes, held = run_everything(service, LONG)
    check_outcomes(service, outcomes, held)


def test_threads_behind_another_writers_lock_are_refused_about_500_ms_after_asking(
    service: MemoryService,
) -> None:
    # Found by review: ten threads of one service behind another connection's write lock
    # took their turns one after the other, each waiting its own 500 ms: StoreBusy came
    # after 0.5, 1.0, ..., 5.0 s.
    session_id = service.start_session().id
    threads, waits = 8, queue.Queue[tuple[str, float]]()

    def write(n: int) -> None:
        started = time.monotonic()
        try:
            if n % 2:
                service.remember(f"fact number {n}")
            else:
                service.record_message(session_id, "user", f"message number {n}")
            waits.put(("landed", time.monotonic() - started))
        except StoreBusy:
            waits.put(("busy", time.monotonic() - started))

    with closing(sqlite3.connect(service.path, isolation_level=None)) as hog:
        hog.execute("BEGIN IMMEDIATE")
        workers = [threading.Thread(target=write, args=(n,)) for n in range(threads)]
        for worker in workers:
            worker.start()
        outcomes = [waits.get(timeout=60) for _ in range(threads)]  # the lock kept until all
        hog.execute("ROLLBACK")
    for worker in workers:
        worker.join()
    assert {outcome for outcome, _ in outcomes} == {"busy"}
    assert min(w for _, w in outcomes) > WAIT_S * 0.8
    assert max(w for _, w in outcomes) < WAIT_S + SLACK_S  # 4 s before: 8 turns of 500 ms
    service.remember("after the lock was let go")  # nothing kept the turn


def open_a_second_service(service: MemoryService, path: Path) -> None:
    # Its probe once read the database's header with a Python open and close (so did
    # holds_store and each read-only connection).
    assert MemoryService(path).health().ok


def refused_as_a_log(service: MemoryService, path: Path) -> None:
    (report,) = service.import_markdown([path], speakers={"Diego": "user"}).files
    assert report.error is not None and "own database" in report.error


def import_itself(service: MemoryService, path: Path) -> None:
    with pytest.raises(FileError, match="own database"):
        service.import_memories(path)
    refused_as_a_log(service, path)


def import_a_link_to_it(service: MemoryService, path: Path) -> None:
    folder = path.parent / "logs"
    folder.mkdir()
    os.link(path, folder / "2026-01-01.md")
    refused_as_a_log(service, folder)


def read_it_as_the_diarys_log(service: MemoryService, path: Path) -> None:
    folder = path.parent / "diary-logs"
    folder.mkdir()
    os.link(path, folder / "2026-01-01.md")
    reader = MemoryService(path, config=MemoryConfig(log_dir=str(folder)))
    assert reader.diary("2026-01-01").conversations == []


def read_it_as_a_configuration(service: MemoryService, path: Path) -> None:
    with pytest.raises(FileError, match="own database"):
        read_section(path)


@pytest.mark.parametrize(
    "suspect",
    [
        open_a_second_service,
        import_itself,
        import_a_link_to_it,
        read_it_as_the_diarys_log,
        read_it_as_a_configuration,
    ],
)
def test_nothing_drops_the_locks_this_process_holds_on_its_database(
    db_path: Path, suspect: Callable[[MemoryService, Path], None]
) -> None:
    # Found by review: each suspect opened and closed the database file as a Python file,
    # which dropped every POSIX lock this process's SQLite connections held on it. A CLI
    # process closing its last connection then found itself alone and deleted the WAL this
    # process still wrote to: an acknowledged CLI write was lost.
    first = MemoryService(db_path)
    first.remember("alpha memory")
    suspect(first, db_path)
    assert memstore("--database", str(db_path), "remember", "beta memory").returncode == 0
    assert Path(f"{db_path}-wal").exists()  # this process's connections still use it
    first.remember("gamma memory")
    assert memstore("--database", str(db_path), "remember", "delta memory").returncode == 0
    first.remember("epsilon memory")
    listed = json.loads(memstore("--database", str(db_path), "memories").stdout)
    greek = ["alpha", "beta", "delta", "epsilon", "gamma"]
    assert sorted(m["content"] for m in listed["memories"]) == [f"{g} memory" for g in greek]
