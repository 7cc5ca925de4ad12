"""The MCP server's stdio, as the SDK's transport serves it with five mends.

Standard input is read by a daemon thread (:class:`StdinLines`): the SDK reads it in a worker
thread that no cancel stops, so after a Ctrl-C the server went on until the client's next line
or the end of its input (found by review).

The end of the input waits for the replies to the requests before it
(:mod:`~memstore.adapters.mcp_answers`).

A JSON-RPC batch is read as its messages, one after another (:func:`unbatched`).

A line the SDK cannot read is answered (:class:`AnsweringReader`). Its transport passes the
server each line it cannot parse or validate as an exception, which the server drops: a client
waiting for that request's reply waited forever (found by review: a ``"\\ud800"`` in an
argument, JSON that no UTF-8 text can hold). Each such line is answered as JSON-RPC 2.0 asks,
and the server reads on: a parse error (-32700) for a line that is no JSON the SDK reads, an
invalid request (-32600) for JSON that is no JSON-RPC message, with the request's id when the
line has one it can be told by, else null. A request whose id is none a reply can carry (a
fraction, null, a boolean, an object) was read by the SDK as a notification and went
unanswered (found by review): it is answered as an invalid request, with a null id.

The exception group the SDK's task groups raise when a Ctrl-C or a client's closed output
ends them is turned into its one error (:func:`stopped`), which the command line reports as
its JSON error instead of a traceback.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import json
import logging
import os
import threading
from collections import deque
from typing import Any, BinaryIO

import anyio
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
)
from pydantic import ValidationError

from memstore.adapters.mcp_answers import ClosedOnExit, Unanswered
from memstore.adapters.tool_log import for_log

log = logging.getLogger(__name__)

AHEAD = 16
"""Lines of standard input read ahead of the server."""
CANCELLED = (asyncio.CancelledError, concurrent.futures.CancelledError)
"""What a hand-over to the server's loop raises when a Ctrl-C cancelled it."""
Incoming = SessionMessage | Exception
"""What the SDK's transport gives the server: a message, or what reading a line raised."""


def request_id(message: object) -> int | str | None:
    """The id of a JSON-RPC message given as parsed JSON, when it has one a reply can carry
    (a string, or an integer that is no boolean); else None."""
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


def sent_json(line: str | None) -> object:
    """The JSON on ``line`` as Python's own JSON reader reads it (which takes a lone
    surrogate escape), or None when it reads none."""
    try:
        return None if line is None else json.loads(line)
    except (ValueError, RecursionError):
        return None


def is_response(sent: object) -> bool:
    """Whether ``sent`` (parsed JSON) is shaped as a response (a result or an error, no
    method), which JSON-RPC never answers, valid or not."""
    return isinstance(sent, dict) and ("result" in sent or "error" in sent) and "method" not in sent


def misread(message: SessionMessage, line: str | None) -> JSONRPCError | None:
    """The invalid-request error that answers ``message`` when the SDK read a notification
    from a ``line`` that holds an id (a request whose id no reply can carry), else None."""
    if not isinstance(message.message, JSONRPCNotification):
        return None
    sent = sent_json(line)
    method = message.message.method
    if not isinstance(sent, dict) or "id" not in sent or sent.get("method") != method:
        return None
    why = "Invalid request: an id is a string or an integer"
    data = ErrorData(code=INVALID_REQUEST, message=why)
    return JSONRPCError(jsonrpc="2.0", id=None, error=data)


def reply_to(error: Exception, line: str | None) -> JSONRPCError | None:
    """The JSON-RPC error that answers a ``line`` the SDK could not read, ``error`` being
    what reading it raised: a parse error when the line is no JSON the SDK reads, else an
    invalid request, each with the id at the top of the line's message when it has one
    a reply can carry. None for a line shaped as a response: a reply to it carried an id
    from inside its error object, which another request held (found by review)."""
    sent = sent_json(line)
    if is_response(sent):
        return None
    found = error.errors(include_url=False) if isinstance(error, ValidationError) else []
    unparsed = [item for item in found if item["type"] == "json_invalid"]
    if unparsed:
        why = unparsed[0]["ctx"]["error"]
        data = ErrorData(code=PARSE_ERROR, message=f"Parse error: {why}")
    else:
        data = ErrorData(code=INVALID_REQUEST, message="Invalid request: no JSON-RPC 2.0 message")
    return JSONRPCError(jsonrpc="2.0", id=request_id(sent), error=data)


class AnsweringReader(ClosedOnExit):
    """The server's read side: the transport's messages, each line the SDK could not read
    answered on ``replies`` (see :func:`reply_to` and :func:`misread`) instead of passed on
    to be dropped, and the end of the input passed on once each request passed on is
    answered (``unanswered``).

    The transport reads one message (or error) from each line, in order: ``lines`` holds
    the lines read and not yet matched with theirs. It reads as the SDK's own read stream
    does, the sender's context included."""

    def __init__(
        self, incoming: Any, replies: Any, unanswered: Unanswered, lines: deque[str]
    ) -> None:
        self.incoming = incoming
        self.replies = replies
        self.unanswered = unanswered
        self.lines = lines

    @property
    def last_context(self) -> contextvars.Context | None:
        """The context the last message passed on was sent in, as the SDK's stream gives it."""
        return getattr(self.incoming, "last_context", None)

    async def receive(self) -> SessionMessage:
        """The next message the SDK could read, each one before it answered."""
        while True:
            try:
                item: Incoming = await self.incoming.receive()
            except anyio.EndOfStream:
                await self.unanswered.settled()
                raise
            line = self.lines.popleft() if self.lines else None
            if isinstance(item, SessionMessage):
                reply = misread(item, line)
                if reply is None:
                    self.unanswered.asked(item)
                    return item
            else:
                reply = reply_to(item, line)
            if reply is not None:  # the line itself is not logged: it may hold a credential
                log.info("answered a line it could not read: %s", for_log(reply.error.message))
                await self.replies.send(SessionMessage(reply))

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self.incoming.aclose()


class StdinLines:
    """The lines of ``source`` as the SDK's transport reads standard input (as UTF-8, each
    byte that is not replaced by U+FFFD), read by a daemon thread: a Ctrl-C cancels the wait
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
                for text in unbatched(line.decode("utf-8", errors="replace")):
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


def unbatched(line: str) -> list[str]:
    """The messages of a JSON-RPC batch on ``line`` (a JSON array of them), each on a line
    of its own, or the line as it is: the SDK reads no batch, and answered one with a
    single error of a null id, its requests never answered (found by review, though the
    protocol of 2025-03-26, which the server agrees to, has batches). Each request of a
    batch is answered on its own line, with its own id; an empty array stays one line, an
    invalid request."""
    if not line.lstrip().startswith("["):
        return [line]
    sent = sent_json(line)
    if not isinstance(sent, list) or not sent:
        return [line]
    return [json.dumps(message) + "\n" for message in sent]


def own_stdin() -> BinaryIO:
    """A reader of its own over the process's standard input (file descriptor 0), the null
    device when it has none. Not ``sys.stdin``: the interpreter's shutdown takes that one's
    lock, which a daemon thread blocked in reading it holds (a fatal error, found by test)."""
    try:
        return open(os.dup(0), "rb")
    except OSError:
        return open(os.devnull, "rb")


def stopped(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one error that ends a server whose tasks failed together (``group``): a Ctrl-C,
    else the client's closed output (a BrokenPipeError), else another failure to write
    (a full disk behind stdout: found by review), else a Ctrl-C again for streams
    broken or cancelled as the tasks were torn down by one. The SDK's task groups raised
    them as an exception group, which printed a traceback (found by review)."""
    for wanted in (KeyboardInterrupt, BrokenPipeError, OSError):
        found = group.subgroup(wanted)
        if found is not None:
            return leaves(found)[0]
    torn = (anyio.BrokenResourceError, anyio.ClosedResourceError, *CANCELLED)
    if all(isinstance(leaf, torn) for leaf in leaves(group)):
        return KeyboardInterrupt()
    return group


def leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    """The exceptions of ``group`` and of the groups inside it, in order."""
    found: list[BaseException] = []
    for error in group.exceptions:
        found.extend(leaves(error) if isinstance(error, BaseExceptionGroup) else [error])
    return found
