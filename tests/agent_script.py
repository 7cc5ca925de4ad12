"""A scripted pydantic-ai model for the agent tests (FunctionModel, no network), plain and
streamed, and the fixture that closes the event loop pydantic-ai's ``run_sync`` leaves."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Iterator

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

SPEAKERS = {"user": "Diego", "assistant": "Morgan", "system": "System"}
SAVED = "Saved: Diego has a dog called Rudiger."
QUESTION_START = "Answer with one word, yes or no"


@pytest.fixture(autouse=True)
def close_the_event_loop() -> Iterator[None]:
    """pydantic-ai's run_sync creates an event loop and keeps it as the thread's current
    loop; close it after each test, before an async test's runner replaces it and leaves it
    unclosed for the garbage collector (an async test leaves no current loop)."""
    yield
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        return
    loop.close()
    asyncio.set_event_loop(None)


class ScriptedModel:
    """A model that saves when asked to remember (and then says :data:`SAVED`), claims
    "Guardado." otherwise, and answers the yes/no claim question with ``answer``.

    It notes what each request was offered and told, and which requests were the claim
    question, so that tests can count model calls.
    """

    def __init__(self, answer: str = "yes") -> None:
        self.answer = answer
        self.offered: list[list[str]] = []
        self.instructions: list[str] = []
        self.questions = 0

    @property
    def requests(self) -> int:
        """How many requests the model answered, the claim questions included."""
        return len(self.offered)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offered.append([tool.name for tool in info.function_tools])
        self.instructions.append(info.instructions or "")
        last = messages[-1]
        texts = [p.content for p in last.parts if isinstance(getattr(p, "content", None), str)]
        if any(text.startswith(QUESTION_START) for text in texts):
            self.questions += 1
            return ModelResponse(parts=[TextPart(self.answer)])
        if any(isinstance(part, ToolReturnPart) for part in last.parts):
            return ModelResponse(parts=[TextPart(SAVED)])
        if any("remember" in text.lower() for text in texts) and info.function_tools:
            call = ToolCallPart("remember", {"content": "Diego has a dog called Rudiger."})
            return ModelResponse(parts=[call])
        return ModelResponse(parts=[TextPart("Guardado.")])

    async def stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        """The same answers streamed: text word by word, a tool call in one piece."""
        for part in self(messages, info).parts:
            if isinstance(part, TextPart):
                words = part.content.split(" ")
                for index, word in enumerate(words):
                    yield word if index == len(words) - 1 else f"{word} "
            elif isinstance(part, ToolCallPart):
                yield {0: DeltaToolCall(name=part.tool_name, json_args=part.args_as_json_str())}

    def model(self) -> FunctionModel:
        """This script as a pydantic-ai model, for plain and streamed runs."""
        return FunctionModel(self, stream_function=self.stream)
