"""The host's one persistence entry point: the daily Markdown log, then SQLite.

Each accepted user message and each finished (or interrupted) reply is appended to today's
daily log and recorded in SQLite under the same source reference, with exactly the content
an import of that log reads back. The two are separate stores, not one transaction: when the
database fails, the failure is logged under the ``memstore`` logger and kept in
:attr:`Recorder.memory_error`, the Markdown log and the turn go on, and the message waits:
the recorder's next write (or its close) records it first, in its session and order. What a
recorder could not catch up on (it stopped first, or held over 100 such messages) a later
import of the log recovers, without duplicates. Private turns write nothing anywhere.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from memstore.adapters.log_speakers import DEFAULT_SPEAKERS, log_speakers
from memstore.adapters.waiting import MOST_PENDING, Pending, same
from memstore.arguments import checked, valid_unicode
from memstore.errors import InvalidInput, MemstoreError, NotFound
from memstore.kinds import MessageStatus, Role
from memstore.logs.write import (
    DayLogFull,
    LogWriter,
    Written,
    loggable,
    stamp_time,
)
from memstore.schemas import Message
from memstore.service import MemoryService

log = logging.getLogger(__name__)


class Recorder:
    """Records a host's conversation, message by message, before or after each turn.

    Args:
        service: The memory store (its config says whether history is stored).
        speakers: Role -> the name written in the log (``{"user": "Diego", "assistant":
            "Morgan", "system": "System"}``); the assistant's name heads new log files.
            Unnamed roles keep :data:`DEFAULT_SPEAKERS`.
        log_dir: The daily log folder; the configuration's ``log_dir`` by default.
        session_id: An existing session to append to; a new one is started when needed:
            when it has ended, and after :meth:`close`.

    Raises:
        NotFound: For a ``session_id`` the store does not hold (found by review: every
            message then waited for it, as for a database failure).
    """

    def __init__(
        self,
        service: MemoryService,
        *,
        speakers: Mapping[str, str] = DEFAULT_SPEAKERS,
        log_dir: str | Path | None = None,
        session_id: str | None = None,
    ) -> None:
        self.service = service
        self.speakers = log_speakers(speakers)
        folder = service.log_dir if log_dir is None else Path(log_dir)
        self.writer = LogWriter(folder, self.speakers["assistant"])
        self.session_id = session_id
        self._recording = threading.Lock()  # one message at a time, and close: see record
        self.memory_error: str | None = None
        """The last database failure, or None once a write succeeds again."""
        self.failures = 0
        """How many of its writes to the database failed (a turn's count them: a failure of
        its request stays known after its reply is stored; found by review)."""
        self.last_failure: str | None = None
        """The last database failure, kept when a later write succeeds."""
        self._pending: list[Pending] = []  # the log's messages the database failed to take
        self._ended: str | None = None  # a session ended: no message goes there
        if session_id is not None and self.stores_history:
            self._known(session_id)

    def _known(self, session_id: str) -> None:
        """Raise NotFound unless the store holds the session, InvalidInput for an id that is
        none; a database failure is only kept (see :attr:`memory_error`), as the writes that
        follow would keep it."""
        try:
            found = self.service.get_session(session_id)
        except InvalidInput:
            raise
        except MemstoreError as error:
            log.warning("could not look up session %s: %s", session_id, error)
            self._failed(error)
            return
        if found is None:
            raise NotFound("session", session_id)

    def waiting(self) -> int:
        """How many messages the log holds that wait for the database (see :meth:`_catch_up`)."""
        return len(self._pending)

    @property
    def stores_history(self) -> bool:
        """Whether messages go to SQLite (``enabled`` and ``store_history``)."""
        config = self.service.config
        return config.enabled and config.store_history

    @checked
    def record(
        self,
        role: Role,
        content: str,
        *,
        status: MessageStatus = "completed",
        private: bool = False,
        when: datetime | None = None,
    ) -> Message | None:
        """Append one whole message (never a partial one) to the log and the database (only
        the database, with a warning, when the day's log would pass the 16 MiB imports read).

        Args:
            role, content: ``user``, ``assistant`` or ``system``; the message (not a blank one).
            status: ``completed``, or ``interrupted`` / ``error`` for a reply cut short.
            private: A private turn: nothing is written anywhere.
            when: Aware time of the message (whole seconds, as stamps hold); now by default.

        Returns:
            The stored message, or None (private, blank, history off, or a database failure:
            see :attr:`memory_error`).

        Raises:
            OSError: When the log cannot be written (as it was then), or is full with history
                off (DayLogFull); MemstoreError: when full, if the database fails too.
            FileError: When the log folder or the day's log is not a folder or regular file,
                or the day's log is one no import could read (its first line no header).
            InvalidInput: For an argument of the wrong type, an unknown role, content that is
                not valid Unicode, a speaker name a log cannot hold, or a ``when`` that is
                naive, leaves the calendar in UTC or has an offset a log stamp cannot hold
                (nothing is written).
        """
        self._check(role, content)
        text = loggable(content)
        if private or not text.strip():
            return None
        moment = stamp_time(datetime.now().astimezone() if when is None else when)
        with self._recording:  # threads number messages in the log's order (found by review)
            written = self._append(moment, role, text)
            return self._store(role, text, status, moment, written) if self.stores_history else None

    def _append(self, moment: datetime, role: Role, text: str) -> Written | None:
        """Append the message to the day's log: where it went, or None when the log had no
        room for it (see :class:`~memstore.logs.write.DayLogFull`), which a warning says.

        Raises:
            DayLogFull: When the log has no room and history is off: nothing would keep it.
        """
        try:
            return self.writer.append(moment, self.speakers[role], text)
        except DayLogFull as full:  # the database alone keeps it: the log stays readable
            if not self.stores_history:
                raise  # nothing would keep it (found by review: lost, with a false warning)
            log.warning("%s; the message is kept in the database only", full)
            return None

    def _check(self, role: str, content: str) -> None:
        """Raise InvalidInput for an unknown role, or content that is not valid Unicode (found
        by review: it failed inside the log writer)."""
        if role not in self.speakers:
            raise InvalidInput("role", f"is {role!r}; use user, assistant or system.")
        if not valid_unicode(content):
            raise InvalidInput(
                "content", "holds text that is not valid Unicode (a lone surrogate)."
            )

    def close(self) -> None:
        """Record what the database failed to take (see :meth:`_catch_up`; found by review:
        not when even the first write had failed) and end the recorder's session, if the
        database is reachable (a failure is logged and kept in :attr:`memory_error`). A
        message recorded after it starts a new session (found by review: it went into the
        ended one)."""
        if not self.stores_history:
            return
        try:
            with self._recording:  # no message goes in between (found by review)
                self._catch_up()
                self.memory_error = None  # nothing waits (found by review: the failure stayed)
                if self.session_id is not None:
                    self.service.end_session(self.session_id)
                    self._ended = self.session_id
        except MemstoreError as error:
            log.warning("could not end session %s: %s", self.session_id, error)
            self._failed(error)

    def _store(
        self,
        role: Role,
        text: str,
        status: MessageStatus,
        moment: datetime,
        written: Written | None,
    ) -> Message | None:
        """Record in SQLite a message the log already holds, under its source reference (none
        for a message the day's log had no room for), after the messages the database failed
        to take before it (see :meth:`_catch_up`).

        Returns:
            The stored message, or None when the database failed: the failure is then
            logged and kept in :attr:`memory_error`, and the message waits for the next one.
        """
        ref = None if written is None else written.source_ref
        pending = Pending(role, text, status, moment, ref)
        try:
            self._catch_up()
            message = self._record(pending)
        except MemstoreError as error:
            if written is None:
                raise  # the day's log had no room for it either (found by review)
            log.warning("memory database write failed, the Markdown log has it: %s", error)
            self._failed(error)
            self._wait(pending)
            return None
        self.memory_error = None
        return message

    def _record(self, pending: Pending, *, waited: bool = False) -> Message | None:
        """Record one message in the recorder's session. When another message holds its
        source reference already (or, for a new one, its tombstone does), the day's log was
        cut back or removed while the host ran, and its place in the log written anew: the
        message is recorded without one, and a warning says so (found by review: the new
        message was dropped in silence, the old one returned in its place). A ``waited``
        message (see :meth:`_catch_up`) whose reference was deleted stays deleted."""
        message = self._insert(pending)
        if pending.source_ref is None or same(message, pending) or (waited and message is None):
            return message
        log.warning(
            "%s is another message's already (its log was cut back or removed): the new "
            "message is recorded without it, and an import of the log will not find it",
            pending.source_ref,
        )
        return self._insert(dataclasses.replace(pending, source_ref=None))

    def _insert(self, pending: Pending) -> Message | None:
        """``record_message`` of one message in the recorder's session."""
        return self.service.record_message(
            self._session(pending.moment),
            pending.role,
            pending.text,
            status=pending.status,
            created_at=pending.moment,
            source_ref=pending.source_ref,
            speaker=self.speakers[pending.role],
        )

    def _catch_up(self) -> None:
        """Record, in order, the messages the database failed to take before (found by review:
        a reply recovered only by importing the log landed in the log's own session, apart
        from its question, where recall leaves an orphan reply out). Each goes in under its
        source reference: one an import took meanwhile is that message, and one deleted
        since stays deleted (found by review: it came back without a reference).

        Raises:
            MemstoreError: When the database fails again; the messages not yet recorded wait.
        """
        while self._pending:
            self._record(self._pending[0], waited=True)
            self._pending.pop(0)

    def _wait(self, pending: Pending) -> None:
        """Keep a message the database failed to take for the next write, the oldest given up
        past :data:`MOST_PENDING` (an import of the log still recovers it)."""
        self._pending.append(pending)
        del self._pending[:-MOST_PENDING]

    def _failed(self, error: MemstoreError) -> None:
        """Keep a database failure (see :attr:`memory_error`, :attr:`failures`)."""
        self.memory_error = self.last_failure = str(error)
        self.failures += 1

    def _session(self, moment: datetime) -> str:
        """The recorder's session id, starting a session at ``moment`` when it has none or
        it ended, by :meth:`close` or elsewhere (another recorder's close, the host's
        ``end_session``: found by review, messages went in after its end): one, whatever
        threads record at once, as each message holds the recording lock (found by review:
        four threads started four).

        Raises:
            MemstoreError: When the database fails (the message then waits).
        """
        if self.session_id is not None and self.session_id != self._ended:
            session = self.service.get_session(self.session_id)
            if session is not None and session.ended_at is not None:
                self._ended = self.session_id
        if self.session_id is None or self.session_id == self._ended:
            self.session_id = self.service.start_session(started_at=moment).id
        return self.session_id
