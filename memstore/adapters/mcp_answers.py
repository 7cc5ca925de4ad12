"""The requests an MCP server was given and has not answered yet, so that the end of its input
waits for their replies.

The SDK cancels the requests still running when its input ends: a client that pipes its
requests in and closes its end (``printf ... | memstore mcp``) lost about half of the replies
(found by review). The server's read side notes each request it passes on
(:meth:`Unanswered.asked`), its write side each reply (:class:`ReplyCounter`), and the end of
the input is passed on only once every request has its reply (:meth:`Unanswered.settled`). A
request the client cancelled is never answered (the protocol forbids it), so its
``notifications/cancelled`` settles it; a request that lasts until the client leaves
(:data:`LASTING`) is not waited for.
"""

from __future__ import annotations

from collections import Counter
from types import TracebackType
from typing import Any, Self

import anyio
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

CANCELLED = "notifications/cancelled"
LASTING = frozenset({"subscriptions/listen"})
"""Requests that last until the client leaves, which the end of its input is: waited for
only :data:`LASTING_GRACE` seconds (found by review: waiting for a listen request's reply
kept the server open for ever; not waiting at all lost the error a protocol without
subscriptions answers it with at once)."""
LASTING_GRACE = 0.5


class Unanswered:
    """Requests passed to the server and not yet answered, counted by id (``"7"`` and ``7``
    are one id, as the SDK correlates them; a repeated id counts twice)."""

    def __init__(self) -> None:
        self.waiting: Counter[int | str] = Counter()
        self.lasting: Counter[int | str] = Counter()  # requests of :data:`LASTING`
        self.changed = anyio.Event()

    def asked(self, message: SessionMessage) -> None:
        """Note ``message``, read from the client: a request waits for its reply, and a
        cancellation settles the request it names."""
        found = message.message
        if isinstance(found, JSONRPCRequest):
            kept = self.lasting if found.method in LASTING else self.waiting
            kept[coerce_request_id(found.id)] += 1
        elif isinstance(found, JSONRPCNotification) and found.method == CANCELLED:
            named = cancelled_request_id_from_params(found.params)
            if named is not None:
                self.settle(coerce_request_id(named))

    def answered(self, message: SessionMessage) -> None:
        """Note ``message``, written to the client: a reply settles its request."""
        found = message.message
        if isinstance(found, JSONRPCResponse | JSONRPCError) and found.id is not None:
            self.settle(coerce_request_id(found.id))

    def settle(self, request_id: int | str) -> None:
        """One request of ``request_id`` settled: a cancellation ends one of the requests
        that share an id, as the SDK cancels only the last (found by review: settling them
        all cut the other off without its reply)."""
        kept = self.waiting if request_id in self.waiting else self.lasting
        left = kept[request_id] - 1
        if left > 0:
            kept[request_id] = left
        else:
            kept.pop(request_id, None)
        self.changed.set()

    async def settled(self) -> None:
        """Return once every request noted has its reply, a :data:`LASTING` one's only for
        :data:`LASTING_GRACE` seconds (a Ctrl-C still cancels the wait)."""
        await self.emptied(self.waiting)
        with anyio.move_on_after(LASTING_GRACE):
            await self.emptied(self.lasting)

    async def emptied(self, kept: Counter[int | str]) -> None:
        """Return once ``kept`` holds no request."""
        while kept:
            self.changed = anyio.Event()
            await self.changed.wait()


class ClosedOnExit:
    """A stream that is its own async context manager, closed (``aclose``) on exit, as the
    SDK uses its streams."""

    async def aclose(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class ReplyCounter(ClosedOnExit):
    """The server's write side: ``replies``, each message written noted in ``unanswered``."""

    def __init__(self, replies: Any, unanswered: Unanswered) -> None:
        self.replies = replies
        self.unanswered = unanswered

    async def send(self, message: SessionMessage, /) -> None:
        try:
            await self.replies.send(message)
        finally:  # a reply that cannot be written is not waited for either
            self.unanswered.answered(message)

    async def aclose(self) -> None:
        await self.replies.aclose()
