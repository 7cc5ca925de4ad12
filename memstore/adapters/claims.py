"""The claimed-save check of :class:`~memstore.adapters.agent.MemoryAgent`.

A reply may say that something was saved, updated, forgotten or pinned when no tool made the
change. No keyword list decides that: when nothing succeeded in the turn, a model is asked one
yes/no question about the reply (the host's model, or a cheaper one of its own), and on yes a
notice in the interface language says that nothing was saved.
"""

from __future__ import annotations

import logging
import re

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, RetryPromptPart, ToolReturnPart
from pydantic_ai.models import Model

from memstore.adapters.tools import TOOL_NAMES
from memstore.errors import InvalidInput
from memstore.logs.fences import FenceTracker

log = logging.getLogger(__name__)

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
YES = ("yes", "sí", "si", "sì", "oui", "ja", "sim")  # "sì": Italian (found by review)
FIRST_WORD = re.compile(r"\w+")


class ClaimCheck:
    """Asks a model whether a reply claims a memory change.

    Args:
        model: The model asked: a pydantic-ai ``Model`` or a model name such as
            ``"openai:gpt-4.1-nano"``.

    Raises:
        InvalidInput: For anything else.
    """

    def __init__(self, model: Model | str) -> None:
        if not isinstance(model, Model | str):  # found by review: 5 was a bare TypeError
            raise InvalidInput(
                "claim_model",
                f"must be a pydantic-ai Model or a model name such as "
                f"'openai:gpt-4.1-nano', not {type(model).__name__}.",
            )
        self.judge: Agent[None, str] = Agent(model, output_type=str)

    async def claims_change(self, reply: str) -> bool:
        """Whether ``reply`` says that something was saved, changed or forgotten (one model
        request); False when the model cannot be asked (the failure is logged): an optional
        check never loses the turn (found by review: its reply was neither returned nor
        recorded)."""
        try:
            answer = await self.judge.run(CLAIM_QUESTION.format(reply=reply))
        except Exception as error:  # any model failure: the check is optional
            return unanswered(error)
        return is_yes(answer.output)

    def claims_change_sync(self, reply: str) -> bool:
        """:meth:`claims_change` for code that runs no event loop, through pydantic-ai's own
        ``run_sync`` (which keeps one event loop per thread, as the model's HTTP client needs)."""
        try:
            answer = self.judge.run_sync(CLAIM_QUESTION.format(reply=reply))
        except Exception as error:  # any model failure: the check is optional
            return unanswered(error)
        return is_yes(answer.output)


def unanswered(error: Exception) -> bool:
    """Log that the claim check's model failed; the reply is then taken as claiming nothing."""
    log.warning(
        "the claim check's model failed (%s: %s); no notice added", type(error).__name__, error
    )
    return False


def is_yes(answer: str) -> bool:
    """Whether an answer starts with yes, in any of the interface languages ("Yes, it
    does.", "**Sí**"; found by review: any word after it made it a no)."""
    first = FIRST_WORD.search(answer)
    return first is not None and first[0].casefold() in YES


def notice_for(language: str) -> str:
    """The unsaved notice in ``language``, a code such as ``es`` or ``es-ES`` (its first
    part decides); English for a language it is not written in.

    Raises:
        InvalidInput: If ``language`` is not text (found by review: an AttributeError).
    """
    if not isinstance(language, str):
        raise InvalidInput("language", f"is {language!r}; give a language code such as 'es'.")
    return NOTICES.get(re.split(r"[-_]", language.strip(), maxsplit=1)[0].casefold(), NOTICES["en"])


def with_notice(reply: str, notice: str) -> str:
    """The reply with the unsaved notice after it, as a paragraph of its own: a fenced code
    block the reply leaves open is closed first (found by review: the notice showed as code,
    and the log closed the fence after it)."""
    fence = FenceTracker()
    for line in reply.split("\n"):
        fence.feed(line.rstrip("\r"))  # as the log reads a CRLF reply (found by review)
    closing = f"\n{fence.opening}" if fence.opening else ""
    return f"{reply}{closing}\n\n{notice}"


UNKNOWN_TOOL = "Unknown tool name"
"""How pydantic-ai's return for a call of a tool the agent does not have begins."""


def any_action_succeeded(messages: list[ModelMessage]) -> bool:
    """Whether a tool call succeeded in these messages: a memory tool that returned ok, or
    any other tool that returned successfully (a retry prompt, a retried, failed or denied
    call, and a call to a tool that does not exist are none: found by review, a model that
    called a "save_memory" it made up and claimed the save got no notice)."""
    for message in messages:
        for part in getattr(message, "parts", []):
            if isinstance(part, RetryPromptPart) or not isinstance(part, ToolReturnPart):
                continue
            if getattr(part, "outcome", "success") != "success":  # retried, failed, denied
                continue  # (found by review: a failed host tool counted as an action)
            if isinstance(part.content, str) and part.content.startswith(UNKNOWN_TOOL):
                continue  # pydantic-ai before ToolReturnPart.outcome
            if part.tool_name not in TOOL_NAMES:
                return True
            if isinstance(part.content, dict) and part.content.get("ok") is True:
                return True
    return False
