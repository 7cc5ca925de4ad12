"""The MCP server's stdio, as the SDK's transport serves it with its mends: standard input
is read as :mod:`~memstore.adapters.mcp_stdin` reads it (a thread a Ctrl-C stops, batches
split, lines that are not UTF-8 marked); the end of the input waits for the replies to the
requests before it (:mod:`~memstore.adapters.mcp_answers`).

A line the SDK cannot read is answered (:class:`AnsweringReader`). Its transport passes the
server each line it cannot parse or validate as an exception, which the server drops: a client
waiting for that request's reply waited forever (found by review: a ``"\\ud800"`` in an
argument, JSON that no UTF-8 text can hold). Each such line is answered as JSON-RPC 2.0 asks,
and the server reads on: a parse error (-32700) for a line that is no JSON the SDK reads (or
no UTF-8), an invalid request (-32600) for JSON that is no JSON-RPC message, with the
request's id when the line has one it can be told by, else null. A request whose id is none a
reply can carry (a fraction, null, a boolean, an object) was read by the SDK as a
notification and went unanswered (found by review): it is answered as an invalid request,
with a null id.

The exception group the SDK's task groups raise when a Ctrl-C or a client's closed output
ends them is turned into its one error (:func:`stopped`), which the command line reports as
its JSON error instead of a traceback.
"""

from __future__ import annotations

import contextvars
import logging
from collections import deque
from typing import Any

import anyio
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
from memstore.adapters.mcp_stdin import CANCELLED, Undecodable, sent_json
from memstore.adapters.tool_log import for_log

log = logging.getLogger(__name__)

Incoming = SessionMessage | Exception
"""What the SDK's transport gives the server: a message, or what reading a line raised."""


def request_id(message: object) -> int | str | None:
    """The id of a JSON-RPC message given as parsed JSON, when it has one a reply can carry
    (a string, or an integer that is no boolean); else None."""
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


def is_notification(sent: object) -> bool:
    """Whether ``sent`` (parsed JSON) is shaped as a notification: a method, no id."""
    return isinstance(sent, dict) and "method" in sent and "id" not in sent


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
    if isinstance(line, Undecodable):
        data = ErrorData(code=PARSE_ERROR, message=f"Parse error: {line.why}")
    elif unparsed and is_notification(sent):
        return None  # JSON the SDK cannot read (too deep), yet no request (found by review)
    elif unparsed:
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
