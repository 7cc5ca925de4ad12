"""The MCP server's standard input, read as lines of JSON-RPC text.

A daemon thread reads it (:class:`StdinLines`): the SDK reads it in a worker thread that no
cancel stops, so after a Ctrl-C the server went on until the client's next line or the end
of its input (found by review). A JSON-RPC batch is read as its messages, one after another
(:func:`unbatched`). A line that is not UTF-8 is handed on as :class:`Undecodable`, which
the SDK cannot read and the server's reader answers with a parse error: the SDK read each
bad byte as U+FFFD, and a memory with them was stored and reported saved (found by review).
A byte order mark at the start of a line is left out, as JSON allows.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import sys
import threading
from collections import deque
from typing import BinaryIO

import anyio
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from memstore.json_text import top_level_keys

AHEAD = 16
"""Lines of standard input read ahead of the server."""
CANCELLED = (asyncio.CancelledError, concurrent.futures.CancelledError)
"""What a hand-over to the server's loop raises when a Ctrl-C cancelled it."""
BYTE_ORDER_MARK = "\ufeff"


class Undecodable(str):
    """A line that is not UTF-8, as the SDK is given it: text that is no JSON (so that it
    reports the line as unreadable); ``text`` is the line with U+FFFD for each bad byte (the
    request's id is read from it), ``why`` what is wrong with it."""

    text: str
    why: str

    def __new__(cls, line: bytes, error: UnicodeDecodeError) -> Undecodable:
        unread = super().__new__(cls, "\x00")
        unread.text = line.decode("utf-8", errors="replace")
        unread.why = f"the line is not UTF-8 (byte 0x{line[error.start]:02x} at {error.start})"
        return unread


def sent_json(line: str | None) -> object:
    """The JSON on ``line`` as Python's own JSON reader reads it (which takes a lone
    surrogate escape), or None when it reads none; an object's top-level keys alone when
    it is nested too deeply for that reader (see :func:`~memstore.json_text.top_level_keys`:
    found by review, such a request was answered with a null id)."""
    if line is None:
        return None
    text = line.text if isinstance(line, Undecodable) else line
    try:
        return json.loads(text, parse_int=long_int)
    except ValueError:
        return None
    except RecursionError:
        return top_level_keys(text)


def long_int(digits: str) -> int | float:
    """A JSON integer, or infinity past Python's limit on the digits it converts (found by
    review: a 5,000-digit offset made the whole line unreadable, answered with a null id)."""
    return int(digits) if len(digits.lstrip("-")) <= sys.get_int_max_str_digits() else float(digits)


def unbatched(line: str) -> list[str]:
    """The messages of a JSON-RPC batch on ``line`` (a JSON array of them), each on a line
    of its own, or the line as it is: the SDK reads no batch, and answered one with a
    single error of a null id, its requests never answered (found by review, though the
    protocol of 2025-03-26, which the server agrees to, has batches). Each request of a
    batch is answered on its own line, with its own id; an empty array stays one line, an
    invalid request. A batch too deeply nested for Python's reader is one line, answered with
    one parse error: reading it without nesting ran requests that invalid text around them
    should have kept from running (found by review of the split)."""
    if not line.lstrip().startswith("["):
        return [line]
    sent = sent_json(line)
    if not isinstance(sent, list) or not sent:
        return [line]
    return [json.dumps(message) + "\n" for message in sent]


def read_line(line: bytes) -> list[str]:
    """The texts the SDK is given for one ``line`` of standard input: its messages (see
    :func:`unbatched`), or the line as :class:`Undecodable`."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        return [Undecodable(line, error)]
    return unbatched(text.removeprefix(BYTE_ORDER_MARK))


class StdinLines:
    """The lines of ``source`` as texts for the SDK's transport (see :func:`read_line`), read
    by a daemon thread: a Ctrl-C cancels the wait
    for the next line, and the thread, blocked in its read, does not hold the process open.
    A source that cannot be read (closed, gone) ends the input, as its end does.

    The thread hands a line over with a callback, not a task: a task cancelled in flight by
    a Ctrl-C was reported by asyncio at its shutdown with a traceback (found by review). At
    most :data:`AHEAD` lines wait, as ``room`` counts."""

    def __init__(self, source: BinaryIO) -> None:
        self.source = source
        self.given: deque[str] = deque()
        """The lines given to the transport and not yet matched by the server's reader."""
        self.lines: MemoryObjectReceiveStream[str] | None = None
        self.room = threading.Semaphore(AHEAD)

    def __aiter__(self) -> StdinLines:
        return self

    async def __anext__(self) -> str:
        if self.lines is None:  # the thread starts with the first read, in the server's loop
            send, self.lines = anyio.create_memory_object_stream[str](AHEAD)
            token = anyio.lowlevel.current_token()
            threading.Thread(target=self.pump, args=(send, token), daemon=True).start()
        try:
            line = await self.lines.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None
        self.room.release()
        self.given.append(line)
        return line

    def pump(self, send: MemoryObjectSendStream[str], token: anyio.lowlevel.EventLoopToken) -> None:
        """Hand each line of the source to the loop of ``token``, then the end of the input;
        stop when the loop or its reader is gone."""
        try:
            for line in iter(self.read, b""):
                for text in read_line(line):
                    self.room.acquire()
                    anyio.from_thread.run_sync(send.send_nowait, text, token=token)
            anyio.from_thread.run_sync(send.close, token=token)
        except (RuntimeError, *CANCELLED, anyio.BrokenResourceError, anyio.ClosedResourceError):
            return  # the server has stopped or was stopped: nobody reads what is left

    def read(self) -> bytes:
        """The source's next line, or ``b""`` at its end or when it cannot be read."""
        try:
            return self.source.readline()
        except (OSError, ValueError):
            return b""


def own_stdin() -> BinaryIO:
    """A reader of its own over the process's standard input (file descriptor 0), the null
    device when it has none. Not ``sys.stdin``: the interpreter's shutdown takes that one's
    lock, which a daemon thread blocked in reading it holds (a fatal error, found by test)."""
    try:
        return open(os.dup(0), "rb")
    except OSError:
        return open(os.devnull, "rb")
