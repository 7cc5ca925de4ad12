"""The memory tools: JSON-ready results, untrusted labels, failures as results, guards, logs."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from memstore import MemoryConfig, MemoryService
from memstore.adapters.tools import INSTRUCTIONS, TOOL_NAMES, MemoryTools
from memstore.kinds import Category, Mode, Scope, SearchRole, values


@pytest.fixture
def tools(service: MemoryService) -> MemoryTools:
    return MemoryTools(service)


def test_every_tool_has_a_documented_signature(tools: MemoryTools) -> None:
    names = [function.__name__ for function in tools.functions()]
    assert names == list(TOOL_NAMES)
    for function in tools.functions():
        doc = function.__doc__ or ""
        assert "Args:" in doc, function.__name__


def test_remember_then_recall_returns_json_ready_labelled_results(tools: MemoryTools) -> None:
    saved = tools.remember("Diego has a dog called Rudiger.", category="fact")
    assert saved["ok"] is True and saved["result"]["content"] == "Diego has a dog called Rudiger."
    found = tools.recall("Rudiger")
    assert found["ok"] is True and "untrusted" in found["untrusted"]
    assert [m["id"] for m in found["result"]["memories"]] == [saved["result"]["id"]]
    json.dumps(found)  # JSON-ready: no datetimes or models inside


def test_the_remaining_tools_work_through_the_service(
    tools: MemoryTools, service: MemoryService
) -> None:
    session = service.start_session()
    message = service.record_message(session.id, "user", "café con leche, por favor")
    assert message is not None
    memory = tools.remember("Diego drinks café con leche.")["result"]
    assert tools.pin_memory(memory["id"])["result"]["pinned"] is True
    assert tools.list_memories()["result"]["total"] == 1
    assert tools.search_words("caf", scope="all")["result"]["words"][0]["word"] == "cafe"
    assert tools.word_instances("café", scope="all")["result"]["total"] == 2
    assert tools.read_conversation(session.id)["result"]["messages"][0]["id"] == message.id
    assert tools.read_memory_message(message.id)["result"]["content"] == message.content
    assert tools.forget(memory["id"])["result"]["deleted"] is True


@pytest.mark.parametrize(
    ("call", "kind"),
    [
        (lambda t: t.word_instances("two words"), "InvalidQuery"),
        (lambda t: t.recall("x", since="yesterday"), "InvalidInput"),
        (lambda t: t.recall("x", since="2026-10-05T09:00:00"), "InvalidInput"),
        (lambda t: t.remember("Diego's password is hunter2!"), "SecretRejected"),
        (lambda t: t.pin_memory("mem_missing"), "NotFound"),
        (lambda t: t.remember("x", category="hobby"), "InvalidInput"),
    ],
)
def test_failures_are_unsuccessful_results_never_exceptions(tools: MemoryTools, call, kind) -> None:
    result = call(tools)
    assert result["ok"] is False and result["error"]["type"] == kind
    assert result["error"]["message"]


def test_disabled_memory_offers_nothing_and_writes_nothing(db_path: Path) -> None:
    service = MemoryService(db_path, config=MemoryConfig(enabled=False))
    tools = MemoryTools(service)
    assert tools.available is False
    assert tools.remember("Diego likes jazz.")["error"]["type"] == "MemoryDisabled"
    assert MemoryService(db_path).list_memories(include_inactive=True).total == 0


def test_a_private_turn_refuses_tools_and_logs_no_arguments(
    tools: MemoryTools, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memstore")
    with tools.private_turn():
        assert tools.available is False
        assert tools.remember("Diego's secret plan")["ok"] is False
    assert "secret plan" not in caplog.text and "<private>" in caplog.text
    tools.remember("Diego likes jazz.")
    assert "Diego likes jazz." in caplog.text  # an ordinary call is logged with its arguments
    assert "succeeded" in caplog.text


def test_a_locked_database_gives_an_unsuccessful_result_within_about_half_a_second(
    tools: MemoryTools, service: MemoryService
) -> None:
    service.health()
    blocker = sqlite3.connect(service.path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        result = tools.remember("Diego likes jazz.")
        waited = time.monotonic() - started
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert result["ok"] is False and result["error"]["type"] == "StoreBusy"
    assert waited < 3


def test_instructions_say_what_the_model_must_do() -> None:
    for phrase in ("same turn", "any wording or", "third person", "untrusted data", "ask"):
        assert phrase in INSTRUCTIONS


def mcp_schemas(tools: MemoryTools) -> dict[str, dict[str, Any]]:
    pytest.importorskip("mcp")
    from memstore.adapters.mcp_server import build_server

    return {tool.name: tool.input_schema for tool in anyio.run(build_server(tools).list_tools)}


def pydantic_ai_schemas(tools: MemoryTools) -> dict[str, dict[str, Any]]:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Tool

    return {f.__name__: Tool(f).tool_def.parameters_json_schema for f in tools.functions()}


def enum_of(schema: dict[str, Any], name: str) -> list[str] | None:
    """The enum of one property, also of an optional one (an anyOf with null)."""
    field = schema["properties"][name]
    return next((o["enum"] for o in [field, *field.get("anyOf", [])] if "enum" in o), None)


@pytest.mark.parametrize("schemas", [mcp_schemas, pydantic_ai_schemas])
def test_the_tool_schemas_offer_the_enumerations_as_enums(
    tools: MemoryTools, schemas: Callable[[MemoryTools], dict[str, dict[str, Any]]]
) -> None:
    # The model can only pick a valid mode, role, category or scope if the schema lists them.
    found = schemas(tools)
    expected = [
        ("recall", "mode", Mode),
        ("recall", "role", SearchRole),
        ("remember", "category", Category),
        ("list_memories", "category", Category),
        ("search_words", "scope", Scope),
        ("search_words", "role", SearchRole),
        ("word_instances", "scope", Scope),
        ("word_instances", "role", SearchRole),
    ]
    for tool, argument, kind in expected:
        assert enum_of(found[tool], argument) == list(values(kind)), (tool, argument)
