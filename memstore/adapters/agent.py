"""The pydantic-ai adapter (optional extra ``memstore[agent]``, on pydantic-ai-slim).

:class:`MemoryAgent` wraps an existing ``pydantic_ai.Agent``: it registers the memory tools
(offered only while memory is enabled and the turn is not private), adds the instructions
and the per-turn memory context, records each turn through a :class:`~memstore.Recorder`,
and checks replies that claim a memory change no tool made. No keyword list decides that:
when nothing succeeded in the turn, the model is asked one yes/no question about its reply,
and on yes a notice in the interface language says that nothing was saved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, RetryPromptPart, ToolReturnPart
from pydantic_ai.tools import ToolDefinition

from memstore.adapters.recorder import Recorder
from memstore.adapters.tools import INSTRUCTIONS, TOOL_NAMES, MemoryTools
from memstore.kinds import Role

NOTICES = {
    "en": "Note: nothing was saved to memory in this turn.",
    "es": "Nota: en este turno no se guardó nada en la memoria.",
    "fr": "Remarque : rien n'a été enregistré en mémoire pendant ce tour.",
    "de": "Hinweis: In diesem Schritt wurde nichts im Gedächtnis gespeichert.",
    "it": "Nota: in questo turno non è stato salvato nulla nella memoria.",
    "pt": "Nota: nada foi guardado na memória neste turno.",
}
CLAIM_QUESTION = (
    "Answer with one word, yes or no. Does the following assistant reply say that something "
    "was saved, remembered, updated, deleted, forgotten or pinned?\n\nReply:\n{reply}"
)
YES = ("yes", "sí", "si", "oui", "ja", "sim")


@dataclass(frozen=True)
class Turn:
    """One turn's outcome: the reply as shown, and whether the unsaved notice was added."""

    text: str
    notice_added: bool
    messages: list[ModelMessage]


class MemoryAgent:
    """An agent with memory.

    Args:
        agent: The host's pydantic-ai agent (text output); the tools are registered on it.
        tools: The memory tools of the store.
        recorder: Records each turn's user message and reply; None records nothing.
        language: The interface language of the unsaved notice (en, es, fr, de, it, pt).
    """

    def __init__(
        self,
        agent: Agent[Any, str],
        tools: MemoryTools,
        *,
        recorder: Recorder | None = None,
        language: str = "en",
    ) -> None:
        self.agent = agent
        self.tools = tools
        self.recorder = recorder
        self.notice = NOTICES.get(language, NOTICES["en"])
        for function in tools.functions():
            agent.tool_plain(prepare=self._offer)(function)
        agent.instructions(self._instructions)

    async def _offer(self, ctx: RunContext[Any], tool: ToolDefinition) -> ToolDefinition | None:
        return tool if self.tools.available else None

    def _instructions(self, ctx: RunContext[Any]) -> str:
        if not self.tools.available:
            return ""
        prompt = ctx.prompt if isinstance(ctx.prompt, str) else ""
        block = self.tools.service.context(prompt).text
        return f"{INSTRUCTIONS}\n\n{block}" if block else INSTRUCTIONS

    def run_sync(
        self,
        prompt: str,
        *,
        private: bool = False,
        message_history: list[ModelMessage] | None = None,
    ) -> Turn:
        """Run one turn: record the prompt, answer, check the reply, record the reply.

        Args:
            prompt: The user's message.
            private: A private turn: no tools, no context, nothing recorded.
            message_history: The session's earlier messages (kept by the host, unchanged).

        Returns:
            The reply as shown (with the unsaved notice when one was added), whether the
            notice was added, and the turn's new messages.
        """
        self._record("user", prompt, private)
        with self.tools.private_turn(private):
            result = self.agent.run_sync(prompt, message_history=message_history)
        new = result.new_messages()
        text, added = result.output, False
        if not private and not any_action_succeeded(new) and self._claims_change(text):
            text, added = f"{text}\n\n{self.notice}", True
        self._record("assistant", text, private)
        return Turn(text=text, notice_added=added, messages=new)

    def _claims_change(self, reply: str) -> bool:
        judge: Agent[None, str] = Agent(self.agent.model, output_type=str)
        answer = judge.run_sync(CLAIM_QUESTION.format(reply=reply)).output
        return answer.strip().strip(".!").casefold() in YES

    def _record(self, role: Role, content: str, private: bool) -> None:
        if self.recorder is not None:
            self.recorder.record(role, content, private=private)


def any_action_succeeded(messages: list[ModelMessage]) -> bool:
    """Whether a tool call succeeded in these messages: a memory tool that returned ok, or
    any other tool that returned at all (a retry prompt is not a success)."""
    for message in messages:
        for part in getattr(message, "parts", []):
            if isinstance(part, RetryPromptPart) or not isinstance(part, ToolReturnPart):
                continue
            if part.tool_name not in TOOL_NAMES:
                return True
            if isinstance(part.content, dict) and part.content.get("ok") is True:
                return True
    return False
