"""memory_toolset on a host's own pydantic-ai Agent (FunctionModel and TestModel, no network):
sync, async and streamed runs, the instructions and memory context it carries, private turns
and disabled memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from memstore import MemoryConfig, MemoryService
from memstore.adapters.tools import INSTRUCTIONS, TOOL_NAMES, MemoryTools
from memstore.adapters.toolset import memory_toolset
from tests import agent_script
from tests.agent_script import SAVED, ScriptedModel

close_the_event_loop = agent_script.close_the_event_loop  # the loop run_sync leaves behind

REMEMBER = "Remember that my dog is called Rudiger"


def tool_returns(messages: list[Any], name: str) -> list[Any]:
    """The contents a tool returned in these messages."""
    return [
        part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.tool_name == name
    ]


def scripted(service: MemoryService, calls: list[tuple[str, Any]], answer: str) -> Agent[None, str]:
    """A host agent with the memory toolset whose model makes ``calls`` (tool name and
    arguments, one a step), then answers ``answer``."""

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(isinstance(message, ModelResponse) for message in messages)
        if step < len(calls):
            return ModelResponse(parts=[ToolCallPart(*calls[step])])
        return ModelResponse(parts=[TextPart(answer)])

    return Agent(FunctionModel(script), toolsets=[memory_toolset(MemoryTools(service))])


def test_a_host_agent_with_the_toolset_saves_and_then_sees_the_memory(
    service: MemoryService,
) -> None:
    model = ScriptedModel()
    tools = MemoryTools(service)
    agent = Agent(model.model(), instructions="You are Morgan.", toolsets=[memory_toolset(tools)])
    assert agent.run_sync(REMEMBER).output == SAVED
    assert model.offered[0] == list(TOOL_NAMES)
    assert service.list_memories().memories[0].content == "Diego has a dog called Rudiger."
    agent.run_sync("What is my dog called?")
    told = model.instructions[-1]
    # The host's own instructions stay; the memory rules and the stored memory come after.
    assert told.startswith("You are Morgan.") and INSTRUCTIONS in told
    assert "Diego has a dog called Rudiger." in told and "untrusted" in told


@pytest.mark.anyio
async def test_the_toolset_given_to_one_async_run_reads_memories(service: MemoryService) -> None:
    service.remember("Diego likes jazz.")
    agent = Agent(TestModel(call_tools=["list_memories"]))
    toolset = memory_toolset(MemoryTools(service))
    result = await agent.run("What do you know about me?", toolsets=[toolset])
    [listed] = tool_returns(result.all_messages(), "list_memories")
    assert listed["ok"] is True
    assert [m["content"] for m in listed["result"]["memories"]] == ["Diego likes jazz."]
    first = result.all_messages()[0]
    assert isinstance(first, ModelRequest) and first.instructions is not None
    assert INSTRUCTIONS in first.instructions and "Diego likes jazz." in first.instructions
    # Given to the run only, the toolset leaves the agent's next run without memory.
    plain = await agent.run("And now?", model=TestModel())  # it calls every tool offered
    assert tool_returns(plain.all_messages(), "list_memories") == []


@pytest.mark.anyio
async def test_a_streamed_host_run_calls_the_tools_before_the_text(
    service: MemoryService,
) -> None:
    model = ScriptedModel()
    agent = Agent(model.model(), toolsets=[memory_toolset(MemoryTools(service))])
    async with agent.run_stream(REMEMBER) as result:
        text = "".join([piece async for piece in result.stream_text(delta=True)])
    assert text == SAVED
    [saved] = tool_returns(result.all_messages(), "remember")
    assert saved["ok"] is True and saved["result"]["content"] == "Diego has a dog called Rudiger."
    assert service.list_memories().total == 1


def test_a_private_turn_on_the_host_agent_offers_nothing_and_sends_no_memory(
    service: MemoryService,
) -> None:
    service.remember("Diego likes jazz.")
    model = ScriptedModel()
    tools = MemoryTools(service)
    agent = Agent(model.model(), toolsets=[memory_toolset(tools)])
    with tools.private_turn():
        assert agent.run_sync("remember that I like jazz").output == "Guardado."
    assert model.offered == [[]] and model.instructions == [""]
    assert service.list_memories().total == 1
    agent.run_sync("remember that I like jazz")  # the next turn is not private
    assert model.offered[-1] == list(TOOL_NAMES) and "jazz" in model.instructions[-1]


@pytest.mark.anyio
async def test_with_memory_disabled_the_toolset_offers_nothing_and_sends_no_memory(
    db_path: Path,
) -> None:
    MemoryService(db_path).remember("Diego likes jazz.")
    service = MemoryService(db_path, config=MemoryConfig(enabled=False))
    model = ScriptedModel()
    agent = Agent(model.model(), toolsets=[memory_toolset(MemoryTools(service))])
    assert (await agent.run(REMEMBER)).output == "Guardado."
    assert model.offered == [[]] and model.instructions == [""]
    assert MemoryService(db_path).list_memories().total == 1


def test_the_toolset_has_an_id_for_durable_execution(service: MemoryService) -> None:
    tools = MemoryTools(service)
    assert memory_toolset(tools).id == "memstore"
    assert memory_toolset(tools, id="diego_memory").id == "diego_memory"


TOKEN = "ghp_R2x9Lk3mQ7pZ8vN4tY6wB1cD5fH0jK2sL9aE"


def test_arguments_of_the_wrong_shape_are_failed_results_and_the_run_goes_on(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # Found by review: pydantic-ai's own validation answered a limit of "5" with a retry
    # prompt, and the second such call raised UnexpectedModelBehavior out of the run.
    calls = [
        ("recall", {"query": "tea", "limit": "5"}),
        ("recall", {"query": "tea", "limit": "5"}),
        ("recall", {"query": "tea", "colour": "blue"}),
        ("remember", {"text": TOKEN}),  # found by the next review: the token was logged
        ("pin_memory", {"memory_id": "mem_x", "pinned": "true"}),
        # no object (found by reviews: pydantic-ai's retry prompt, then the run's end)
        ("list_memories", "[1, 2]"),
        ("remember", '{"content": "Diego likes tea"'),
        ("recall", "not json"),
    ]
    agent = scripted(service, calls, "I could not do it.")
    with caplog.at_level("INFO", logger="memstore"):
        result = agent.run_sync("Find tea")
    assert result.output == "I could not do it." and TOKEN not in caplog.text
    assert "remember(['text']) failed" in caplog.text
    returned = tool_returns(result.all_messages(), "recall")
    returned += tool_returns(result.all_messages(), "remember")
    returned += tool_returns(result.all_messages(), "pin_memory")
    returned += tool_returns(result.all_messages(), "list_memories")
    assert [r["ok"] for r in returned] == [False] * 8
    kinds = [(r["error"]["type"], r["error"]["message"].split(":")[0]) for r in returned]
    assert kinds == [
        ("InvalidInput", "limit"),
        ("InvalidInput", "limit"),
        ("InvalidInput", "arguments"),
        ("InvalidInput", "arguments"),
        ("InvalidInput", "arguments"),
        ("InvalidInput", "arguments"),
        ("InvalidInput", "pinned"),
        ("InvalidInput", "arguments"),
    ]
    assert "no JSON object" in returned[-1]["error"]["message"]
    assert service.list_memories().total == 0


def test_a_count_written_with_a_fraction_is_the_whole_number(service: MemoryService) -> None:
    # Found by review: 5.0, which the MCP server's schema reads as 5, failed here.
    service.remember("Diego drinks green tea")
    calls = [
        ("recall", {"query": "tea", "limit": 5.0}),
        ("list_memories", {"limit": 2.0, "offset": 0.0}),
        ("recall", {"query": "tea", "limit": 5.5}),
    ]
    messages = scripted(service, calls, "Done.").run_sync("Find tea").all_messages()
    recalled, fraction = tool_returns(messages, "recall")
    listed = tool_returns(messages, "list_memories")[0]
    assert (
        recalled["ok"] and recalled["result"]["memories"][0]["content"] == "Diego drinks green tea"
    )
    assert listed["ok"] and listed["result"]["total"] == 1
    assert not fraction["ok"] and fraction["error"]["message"].startswith("limit: ")


def test_a_credential_as_an_argument_name_is_neither_logged_nor_echoed(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # The failing input (found by review): an unknown argument named by a token was logged
    # by its name, and the message naming it gave it back.
    tools = MemoryTools(service)
    [recall] = [t for t in memory_toolset(tools).tools.values() if t.name == "recall"]
    with caplog.at_level("INFO", logger="memstore"):
        result = recall.function(**{"query": "tea", TOKEN: 1})
    assert result["ok"] is False and TOKEN[:12] not in str(result)
    assert TOKEN[:12] not in caplog.text and "<GitHub Token, 40 characters>" in caplog.text


def test_a_private_turn_refuses_a_call_before_reading_its_arguments(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # Found by review: an unknown argument's name was checked (and logged) first, and the
    # private turn's refusal never came.
    tools = MemoryTools(service)
    [remember] = [t for t in memory_toolset(tools).tools.values() if t.name == "remember"]
    with tools.private_turn(True), caplog.at_level("INFO", logger="memstore"):
        result = remember.function(**{TOKEN: "x"})
    assert result["ok"] is False and result["error"]["type"] == "MemoryDisabled"
    assert TOKEN not in caplog.text and "remember(<private>) failed" in caplog.text
