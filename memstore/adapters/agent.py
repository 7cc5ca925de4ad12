"""The pydantic-ai convenience agent (optional extra ``memstore[agent]``, on pydantic-ai-slim).

:class:`MemoryAgent` runs a host's ``pydantic_ai.Agent`` with the memory toolset
(:func:`~memstore.adapters.toolset.memory_toolset`) added to each run, records each turn's
prompt and reply through a :class:`~memstore.Recorder`, and checks replies that claim a
memory change no tool made (:mod:`memstore.adapters.claims`). A turn runs three ways:
``await run()`` inside the host's event loop, ``async with run_stream()`` for a reply shown as
it arrives, and ``run_sync()`` for a host that runs no event loop. A host that wants only the
tools adds the toolset to its own agent instead and records turns itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model
from pydantic_ai.result import StreamedRunResult

from memstore.adapters.claims import ClaimCheck, any_action_succeeded, notice_for, with_notice
from memstore.adapters.recorder import Recorder
from memstore.adapters.tools import MemoryTools
from memstore.adapters.toolset import memory_toolset
from memstore.errors import InvalidInput
from memstore.kinds import MessageStatus, Role


@dataclass(frozen=True)
class Turn:
    """One turn's outcome: the reply as shown, whether the unsaved notice was added, the
    turn's new messages, and the database failure of recording them, if any."""

    text: str
    notice_added: bool
    messages: list[ModelMessage]
    memory_error: str | None = None
    """The last failure of the recorder's database writes of this turn (its request's or its
    reply's; the Markdown log has them) while messages still wait for the database, or None
    (found by review: a request the reply's write caught up on was said to be missing)."""


class MemoryAgent:
    """An agent with memory: the host's agent, the memory toolset, a recorder, a check.

    One MemoryAgent (and its MemoryTools) runs one turn at a time: the private flag belongs
    to the turn that is running.

    Args:
        agent: The host's pydantic-ai agent (text output). It is not changed: the memory
            toolset is added to each run, so the agent must not hold it already.
        tools: The memory tools of the store.
        recorder: Records each turn's user message and reply; None records nothing.
        language: The interface language of the unsaved notice (en, es, fr, de, it, pt; a
            region such as ``es-ES`` is read as its language; English for any other).
        check_claims: Whether a reply that claims a memory change no tool made is checked
            (one more model request in such a turn); False turns the check off.
        claim_model: The model that answers the check, e.g. a cheaper one
            (``"openai:gpt-4.1-nano"`` or a ``Model``); the agent's own model by default.

    Raises:
        InvalidInput: When the check is on and neither ``claim_model`` nor the agent has a
            model.
    """

    def __init__(
        self,
        agent: Agent[Any, str],
        tools: MemoryTools,
        *,
        recorder: Recorder | None = None,
        language: str = "en",
        check_claims: bool = True,
        claim_model: Model | str | None = None,
    ) -> None:
        self.agent = agent
        self.tools = tools
        self.recorder = recorder
        self._failures = 0  # the recorder's failures before the turn running
        self.notice = notice_for(language)
        self.toolset = memory_toolset(tools)
        self.claims = claim_check(agent, check_claims, claim_model)

    async def run(
        self,
        prompt: str,
        *,
        private: bool = False,
        message_history: list[ModelMessage] | None = None,
    ) -> Turn:
        """Run one turn: record the prompt, answer, check the reply, record the reply.

        Awaitable inside a running event loop (any pydantic-ai app, a notebook).

        Args:
            prompt: The user's message.
            private: A private turn: no tools, no context, no check, nothing recorded.
            message_history: The session's earlier messages (kept by the host, unchanged).

        Returns:
            The reply as shown (with the unsaved notice when one was added), whether the
            notice was added, and the turn's new messages.

        Raises:
            OSError: When the recorder cannot append to the Markdown log.
        """
        self._record("user", prompt, private)
        with self.tools.private_turn(private):
            result = await self.agent.run(
                prompt, message_history=message_history, toolsets=[self.toolset]
            )
        return await self._settle(result.output, result.new_messages(), private)

    def run_sync(
        self,
        prompt: str,
        *,
        private: bool = False,
        message_history: list[ModelMessage] | None = None,
    ) -> Turn:
        """:meth:`run` for a host that runs no event loop (not callable inside one).

        It goes through pydantic-ai's own ``run_sync``, which keeps one event loop per
        thread, as a model's cached HTTP client needs from one turn to the next.

        Raises:
            RuntimeError: When called inside a running event loop, before the prompt is
                recorded (a host that then awaits :meth:`run` records it once).
        """
        if running_loop():
            raise RuntimeError(
                "MemoryAgent.run_sync cannot run inside an event loop; await "
                "MemoryAgent.run(...) there instead. Nothing was recorded."
            )
        self._record("user", prompt, private)
        with self.tools.private_turn(private):
            result = self.agent.run_sync(
                prompt, message_history=message_history, toolsets=[self.toolset]
            )
        messages = result.new_messages()
        check = self._check(messages, private)
        claimed = check is not None and check.claims_change_sync(result.output)
        return self._finish(result.output, messages, claimed, private)

    @asynccontextmanager
    async def run_stream(
        self,
        prompt: str,
        *,
        private: bool = False,
        message_history: list[ModelMessage] | None = None,
    ) -> AsyncIterator[ReplyStream]:
        """Run one turn with the reply streamed: ``async with agent.run_stream(prompt) as
        reply: async for piece in reply.stream_text(): ...``.

        The prompt is recorded on entry. The reply is checked and recorded once it is whole:
        at the end of :meth:`ReplyStream.stream_text`, or on leaving the block (which waits
        for the rest of it). When the block raises (or is cancelled) first, the text
        received so far is recorded as an ``interrupted`` reply and the error goes on.

        Args:
            prompt: The user's message.
            private: A private turn: no tools, no context, no check, nothing recorded.
            message_history: The session's earlier messages (kept by the host, unchanged).

        Yields:
            The reply as it streams; its ``turn`` is set once it is whole.

        Raises:
            OSError: When the recorder cannot append to the Markdown log.
        """
        self._record("user", prompt, private)
        with self.tools.private_turn(private):
            async with self.agent.run_stream(
                prompt, message_history=message_history, toolsets=[self.toolset]
            ) as result:
                reply = ReplyStream(result, partial(self._settle, private=private))
                try:
                    yield reply
                except BaseException:
                    if reply.turn is None:
                        self._record("assistant", reply.received, private, "interrupted")
                    raise
                await reply.finish()

    async def _settle(self, text: str, messages: list[ModelMessage], private: bool) -> Turn:
        """Check a whole reply (when the turn needs it) and record it."""
        check = self._check(messages, private)
        claimed = check is not None and await check.claims_change(text)
        return self._finish(text, messages, claimed, private)

    def _check(self, messages: list[ModelMessage], private: bool) -> ClaimCheck | None:
        """The claim check this turn needs: none when it is off, the turn is private, or a
        tool succeeded."""
        if self.claims is None or private or any_action_succeeded(messages):
            return None
        return self.claims

    def _finish(
        self, text: str, messages: list[ModelMessage], claimed: bool, private: bool
    ) -> Turn:
        """The turn as shown, the notice added to a claimed change, its reply recorded."""
        shown = with_notice(text, self.notice) if claimed else text
        self._record("assistant", shown, private)
        error = None
        recorder = self.recorder
        if recorder is not None and recorder.failures > self._failures and recorder.waiting():
            error = recorder.last_failure
        return Turn(text=shown, notice_added=claimed, messages=messages, memory_error=error)

    def _record(
        self, role: Role, content: str, private: bool, status: MessageStatus = "completed"
    ) -> None:
        if self.recorder is not None:
            if role == "user":  # a turn starts
                self._failures = self.recorder.failures
            self.recorder.record(role, content, status=status, private=private)


class ReplyStream:
    """A turn's reply while it streams (see :meth:`MemoryAgent.run_stream`).

    Attributes:
        result: pydantic-ai's stream of the run, for its usage, messages and other views.
        received: The reply's text streamed so far by :meth:`stream_text`.
        turn: The finished turn (checked and recorded), or None until the reply is whole.
    """

    def __init__(
        self,
        result: StreamedRunResult[Any, str],
        settle: Callable[[str, list[ModelMessage]], Awaitable[Turn]],
    ) -> None:
        self.result = result
        self.received = ""
        self.turn: Turn | None = None
        self._settle = settle
        self._output = ""

    async def stream_text(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[str]:
        """The reply in pieces as they arrive (each new text only); once it is whole, the
        turn is finished and, when the unsaved notice was added, one last piece holds it
        (``"\\n\\n"`` and the notice).

        Args:
            debounce_by: Seconds over which arriving text is grouped into one piece; None
                yields every piece the model sends.
        """
        async for piece in self.result.stream_text(delta=True, debounce_by=debounce_by):
            self.received += piece
            yield piece
        turn = await self.finish()
        if turn.notice_added:
            yield turn.text[len(self._output) :]

    async def finish(self) -> Turn:
        """Wait for the rest of the reply, then check and record it (once).

        Returns:
            The finished turn.
        """
        if self.turn is None:
            self._output = await self.result.get_output()
            self.turn = await self._settle(self._output, self.result.new_messages())
        return self.turn


def claim_check(
    agent: Agent[Any, str], check_claims: bool, claim_model: Model | str | None
) -> ClaimCheck | None:
    """The claim check a MemoryAgent's arguments ask for, or None when it is off.

    Raises:
        InvalidInput: When the check is on and neither ``claim_model`` nor ``agent`` has a
            model.
    """
    if not check_claims:
        return None
    model = claim_model if claim_model is not None else agent.model
    if model is None:
        raise InvalidInput(
            "claim_model",
            "is needed: the agent has no model of its own to check claimed saves with; "
            "give claim_model, or pass check_claims=False.",
        )
    return ClaimCheck(model)


def running_loop() -> bool:
    """Whether this thread is running an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
