"""The pydantic-ai adapter with a real Agent driven by FunctionModel (no network)."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from memstore import MemoryConfig, MemoryService
from memstore.adapters.agent import NOTICES, MemoryAgent
from memstore.adapters.recorder import Recorder
from memstore.adapters.tools import MemoryTools

SPEAKERS = {"user": "Diego", "assistant": "Morgan", "system": "System"}


@pytest.fixture(autouse=True, scope="module")
def close_the_event_loop() -> Iterator[None]:
    """pydantic-ai's run_sync creates an event loop and keeps it as the thread's current
    loop; close it after these tests so that it is not left for the garbage collector."""
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        loop = asyncio.get_event_loop_policy().get_event_loop()
    loop.close()
    asyncio.set_event_loop(None)


class ScriptedModel:
    """A model that saves when asked to remember, claims "Guardado" otherwise, and answers
    the yes/no claim question with yes; it notes what it was offered each step."""

    def __init__(self) -> None:
        self.offered: list[list[str]] = []
        self.instructions: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offered.append([tool.name for tool in info.function_tools])
        self.instructions.append(info.instructions or "")
        last = messages[-1]
        texts = [p.content for p in last.parts if isinstance(getattr(p, "content", None), str)]
        if any("Answer with one word, yes or no" in text for text in texts):
            return ModelResponse(parts=[TextPart("yes")])
        if any(isinstance(part, ToolReturnPart) for part in last.parts):
            return ModelResponse(parts=[TextPart("Saved.")])
        if any("remember" in text.lower() for text in texts) and info.function_tools:
            call = ToolCallPart("remember", {"content": "Diego has a dog called Rudiger."})
            return ModelResponse(parts=[call])
        return ModelResponse(parts=[TextPart("Guardado.")])


def memory_agent(
    service: MemoryService, tmp_path: Path, language: str = "en"
) -> tuple[MemoryAgent, ScriptedModel]:
    model = ScriptedModel()
    recorder = Recorder(service, speakers=SPEAKERS, log_dir=tmp_path / "logs")
    agent = MemoryAgent(
        Agent(FunctionModel(model)), MemoryTools(service), recorder=recorder, language=language
    )
    return agent, model


def test_a_remember_turn_stores_the_memory_and_the_next_turn_sees_it(
    service: MemoryService, tmp_path: Path
) -> None:
    agent, model = memory_agent(service, tmp_path)
    turn = agent.run_sync("Remember that my dog is called Rudiger")
    assert turn.text == "Saved." and not turn.notice_added
    assert [m.content for m in service.list_memories().memories] == [
        "Diego has a dog called Rudiger."
    ]
    steps = len(model.instructions)
    agent.run_sync("What is my dog called?")
    answering = model.instructions[steps]  # the answer's step (a yes/no question follows)
    assert "Diego has a dog called Rudiger." in answering and "untrusted" in answering
    assert "remember" in model.offered[steps]


def test_a_claimed_save_without_a_tool_call_gets_the_notice(
    service: MemoryService, tmp_path: Path
) -> None:
    agent, _ = memory_agent(service, tmp_path, language="es")
    turn = agent.run_sync("¿Qué tal?")
    assert turn.notice_added
    assert turn.text == f"Guardado.\n\n{NOTICES['es']}"
    assert service.list_memories().total == 0


def test_a_private_turn_writes_nothing_and_offers_no_tools(
    service: MemoryService, tmp_path: Path
) -> None:
    service.remember("Diego likes jazz.")
    agent, model = memory_agent(service, tmp_path)
    turn = agent.run_sync("remember my secret", private=True)
    assert model.offered == [[]] and "jazz" not in model.instructions[0]
    assert not turn.notice_added and not (tmp_path / "logs").exists()
    assert service.health().counts["messages"] == 0
    assert service.list_memories().total == 1


def test_with_memory_disabled_there_are_no_tools_no_context_and_no_writes(
    db_path: Path, tmp_path: Path
) -> None:
    MemoryService(db_path).remember("Diego likes jazz.")
    service = MemoryService(db_path, config=MemoryConfig(enabled=False))
    agent, model = memory_agent(service, tmp_path)
    agent.run_sync("Remember that my dog is called Rudiger")
    assert model.offered[0] == [] and "jazz" not in model.instructions[0]
    assert MemoryService(db_path).list_memories(include_inactive=True).total == 1
    assert MemoryService(db_path).health().counts["messages"] == 0
    assert (tmp_path / "logs").exists()  # the Markdown log is the host's, not memory's


def test_without_stored_history_memories_still_work(db_path: Path, tmp_path: Path) -> None:
    service = MemoryService(db_path, config=MemoryConfig(store_history=False))
    agent, _ = memory_agent(service, tmp_path)
    agent.run_sync("Remember that my dog is called Rudiger")
    assert service.list_memories().total == 1
    assert service.health().counts["messages"] == 0


def test_the_recorded_turns_import_back_into_a_fresh_database(
    service: MemoryService, tmp_path: Path
) -> None:
    agent, _ = memory_agent(service, tmp_path)
    agent.run_sync("Remember that my dog is called Rudiger")
    agent.run_sync("Thanks")
    live = service.messages(agent.recorder.session_id or "")  # type: ignore[union-attr]
    fresh = MemoryService(tmp_path / "fresh.sqlite3")
    report = fresh.import_markdown(
        [tmp_path / "logs"], speakers={v: k for k, v in SPEAKERS.items()}, include_tail=True
    )
    imported = fresh.messages(report.files[0].session_id or "")
    assert [(m.role, m.content, m.source_ref) for m in imported] == [
        (m.role, m.content, m.source_ref) for m in live
    ]
