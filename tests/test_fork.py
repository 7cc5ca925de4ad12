"""A service used again in a child process forked from its own (multiprocessing's default
start on Linux): the child opens connections and takes turns of its own, and never touches
the connections it inherited."""

from __future__ import annotations

import os
import signal
import threading
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from memstore import MemoryService
from memstore.store import database

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
CHILD_SECONDS = 10
"""The child is killed after this long: before the fix its first write waited 30 s."""


def fork_and_run(child: Callable[[], None]) -> int:
    """Fork; in the child run ``child`` (killed after CHILD_SECONDS) and exit 0, or 1 with
    the traceback on stderr; in the parent wait for the child and return its exit code."""
    with warnings.catch_warnings():  # Python 3.12 warns of fork() in a threaded process
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child process: never back into pytest
        code = 1
        try:
            signal.alarm(CHILD_SECONDS)
            child()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_a_child_forked_while_a_parent_thread_writes_writes_at_once(db_path: Path) -> None:
    # A thread of the parent held the writer turn at the fork: the child, which has no such
    # thread, waited 30 s for it (found by review of the writer turns).
    service = MemoryService(db_path)
    session = service.start_session()
    service.record_message(session.id, "user", "before the fork")
    db = service._db  # the Database the service's units of work run on
    parent_pool = db.pool
    holding, release = threading.Event(), threading.Event()

    def hold_the_turn() -> None:
        with db._writers.turn():
            holding.set()
            release.wait()

    def child() -> None:
        service.record_message(session.id, "assistant", "from the child")
        found = service.recall("child").conversations
        assert [c.messages[-1].content for c in found] == ["from the child"]
        assert db.pool is not parent_pool
        assert parent_pool in database.INHERITED_POOLS

    holder = threading.Thread(target=hold_the_turn)
    holder.start()
    holding.wait()
    try:
        code = fork_and_run(child)
    finally:
        release.set()
        holder.join()
    assert code == 0
    contents = [m.content for m in service.messages(session.id)]
    assert contents == ["before the fork", "from the child"]
    assert service.health().ok
