"""Step 6: ``record_message`` into a live session of the imported database against one
``BEGIN IMMEDIATE; SELECT max(sequence); INSERT; COMMIT`` per message on the raw one."""

from __future__ import annotations

import functools
import itertools
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from bench.common import INSERT_MESSAGE, INSERT_SESSION, fetch_all, utc_now, write_transaction
from bench.timing import median_ms, paired_seconds
from memstore import MemoryService
from memstore.text.cjk import index_form

ROLES = ("user", "assistant")
RAW_LAST_SEQUENCE = "SELECT max(sequence) FROM messages WHERE session_id = ?"
# (sequence, role, content, status) of a session's messages, in sequence.
SESSION_MESSAGES = (
    "SELECT sequence, role, content, status FROM messages WHERE session_id = ? ORDER BY sequence"
)


@dataclass(frozen=True)
class RecordTimes:
    """p50 milliseconds of both sides' record_message calls and whether they stored the same
    (sequence, role, content) rows."""

    calls: int
    memstore_ms: float
    raw_ms: float
    differing: int


def raw_record(raw: sqlite3.Connection, session_id: str, role: str, content: str) -> int:
    """One message appended to ``session_id`` with plain sqlite3 in one transaction: the next
    sequence number, then the insert (through the FTS trigger). Returns the row's pk."""
    now = utc_now()
    with write_transaction(raw):
        highest = raw.execute(RAW_LAST_SEQUENCE, (session_id,)).fetchone()[0]
        row = (
            "msg_" + uuid.uuid4().hex,
            session_id,
            (highest or 0) + 1,
            role,
            content,
            now,
            "completed",
            None,
            None,
            index_form(content),
        )
        pk = raw.execute(INSERT_MESSAGE, row).lastrowid
    assert pk is not None
    return pk


def compare_records(
    service: MemoryService, raw: sqlite3.Connection, contents: Sequence[str]
) -> RecordTimes:
    """Each content recorded (user and assistant in turn) into a new live session of the
    imported databases, memstore then raw; the first pair is the warm-up, the p50 is over
    the rest."""
    session_id = service.start_session().id
    raw_session = "ses_" + uuid.uuid4().hex
    raw.execute(INSERT_SESSION, (raw_session, utc_now(), "{}"))
    memstore_s, raw_s = paired_seconds(
        (
            functools.partial(service.record_message, session_id, role, content),
            functools.partial(raw_record, raw, raw_session, role, content),
        )
        for role, content in zip(itertools.cycle(ROLES), contents)
    )
    left = set(fetch_all(service.path, SESSION_MESSAGES, (session_id,)))
    right = set(raw.execute(SESSION_MESSAGES, (raw_session,)).fetchall())
    return RecordTimes(
        calls=len(contents) - 1,
        memstore_ms=median_ms(memstore_s[1:]),
        raw_ms=median_ms(raw_s[1:]),
        differing=len(left ^ right),
    )
