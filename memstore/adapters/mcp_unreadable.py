"""Answers to the lines an MCP client sends that the SDK cannot read.

The SDK's stdio transport passes the server each line it cannot parse or validate as an
exception, and the server drops it: a client waiting for that request's reply waits forever
(found by review: a ``"\\ud800"`` in an argument, JSON that no UTF-8 text can hold). The read
side below answers each such line as JSON-RPC 2.0 asks, and the server reads on: a parse error
(-32700) for a line that is no JSON text the SDK reads, an invalid request (-32600) for JSON
that is no JSON-RPC message, with the request's id when the line has one it can be told by,
else null.
"""

from __future__ import annotations

import contextvars
import json
import logging
from types import TracebackType
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

from memstore.adapters.tool_log import for_log

log = logging.getLogger(__name__)

Incoming = SessionMessage | Exception
"""What the SDK's transport gives the server: a message, or what reading a line raised."""


def request_id(message: object) -> int | str | None:
    """The id of a JSON-RPC message given as parsed JSON, when it has one a reply can carry
    (a string, or an integer that is no boolean); else None."""
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


def parsed_id(line: str) -> int | str | None:
    """The id of the JSON-RPC message on ``line`` as Python's own JSON reader reads it
    (which takes a lone surrogate escape), or None when it reads none."""
    try:
        return request_id(json.loads(line))
    except (ValueError, RecursionError):
        return None


def reply_to(error: Exception) -> JSONRPCError:
    """The JSON-RPC error that answers a line the SDK could not read, ``error`` being what
    reading it raised: a parse error when the line is no JSON the SDK reads, else an invalid
    request, each with the message's id when it has one."""
    found = error.errors(include_url=False) if isinstance(error, ValidationError) else []
    unparsed = [item for item in found if item["type"] == "json_invalid"]
    if unparsed:
        why = unparsed[0]["ctx"]["error"]
        data = ErrorData(code=PARSE_ERROR, message=f"Parse error: {why}")
        return JSONRPCError(jsonrpc="2.0", id=parsed_id(unparsed[0]["input"]), error=data)
    ids = (request_id(item["input"]) for item in found)
    data = ErrorData(code=INVALID_REQUEST, message="Invalid request: no JSON-RPC 2.0 message")
    return JSONRPCError(jsonrpc="2.0", id=next((i for i in ids if i is not None), None), error=data)


class AnsweringReader:
    """The server's read side: the transport's messages, each line the SDK could not read
    answered on ``replies`` (see :func:`reply_to`) instead of passed on to be dropped.

    It reads as the SDK's own read stream does, the sender's context included."""

    def __init__(self, incoming: Any, replies: Any) -> None:
        self.incoming = incoming
        self.replies = replies

    @property
    def last_context(self) -> contextvars.Context | None:
        """The context the last message passed on was sent in, as the SDK's stream gives it."""
        return getattr(self.incoming, "last_context", None)

    async def receive(self) -> SessionMessage:
        """The next message the SDK could read, each one before it answered."""
        while True:
            item: Incoming = await self.incoming.receive()
            if isinstance(item, SessionMessage):
                return item
            reply = reply_to(item)  # the line itself is not logged: it may hold a credential
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

    async def __aenter__(self) -> AnsweringReader:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()
