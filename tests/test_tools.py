"""The memory tools: JSON-ready results, untrusted labels, failures as results, guards, logs."""

from __future__ import annotations

import inspect
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
from memstore.adapters.tools import INSTRUCTIONS, TOOL_FACTS, TOOL_NAMES, MemoryTools
from memstore.schemas import UNTRUSTED_WARNING
from tests import factories
from tests.tool_schemas import undescribed, wrong_enums


@pytest.fixture
def tools(service: MemoryService) -> MemoryTools:
    return MemoryTools(service)


def test_every_tool_has_a_description_and_its_facts(tools: MemoryTools) -> None:
    names = [function.__name__ for function in tools.functions()]
    assert names == list(TOOL_NAMES) == list(TOOL_FACTS)
    for function in tools.functions():
        doc = inspect.getdoc(function) or ""
        # The arguments are described in their schema, once: not again in the docstring.
        assert doc and "Args:" not in doc, function.__name__
        assert TOOL_FACTS[function.__name__].title, function.__name__


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
    # its message may quote what the call gave (found by review: no untrusted label)
    assert result["untrusted"] == UNTRUSTED_WARNING


def test_disabled_memory_offers_nothing_and_writes_nothing(db_path: Path) -> None:
    service = MemoryService(db_path, config=MemoryConfig(enabled=False))
    tools = MemoryTools(service)
    assert tools.available is False
    refused = [tools.remember("Diego likes jazz.")["error"], tools.recall("jazz")["error"]]
    assert {error["type"] for error in refused} == {"MemoryDisabled"}
    for error in refused:  # a read is refused too, and the reason says so
        assert (
            "enabled: false" in error["message"]
            and "nothing was read or written" in error["message"]
        )
        assert "still work" not in error["message"]
    assert MemoryService(db_path).list_memories(include_inactive=True).total == 0


def test_a_private_turn_refuses_tools_and_logs_no_arguments(
    tools: MemoryTools, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memstore")
    with tools.private_turn():
        assert tools.available is False
        for refused in (tools.remember("Diego's secret plan"), tools.recall("plan")):
            # the model is told the turn is private, not that memory is disabled
            message = refused["error"]["message"]
            assert "private" in message and "enabled" not in message
    assert "secret plan" not in caplog.text and "<private>" in caplog.text
    made = tools.remember("Diego likes jazz.")
    assert "Diego likes jazz." in caplog.text  # an ordinary call is logged with its arguments
    assert "succeeded" in caplog.text
    # ... and its result (found by review: the id of the memory made was nowhere)
    assert made["result"]["id"] in caplog.text
    # ... by its ids, kinds and times, each text by its length (found by review: a recall
    # logged a password from the history it found)
    caplog.clear()
    long = "Diego likes " + "very " * 400 + "long jazz."
    tools.remember(long)
    (line,) = [r.getMessage() for r in caplog.records if "succeeded" in r.getMessage()]
    answer = line.split("succeeded: ", 1)[1]
    assert f'"content":"<{len(long)} characters>"' in answer and "very very" not in answer
    caplog.clear()
    for n in range(12):
        tools.remember(f"Diego likes tune number {n}.")
    caplog.clear()
    tools.list_memories()
    (line,) = [r.getMessage() for r in caplog.records if "succeeded" in r.getMessage()]
    assert line.endswith("…") and len(line.split("succeeded: ", 1)[1]) == 500
    # a stored line separator or bidi override is escaped, the arguments cut too
    caplog.clear()
    tools.remember("Diego likes jazz\u2028and\u202eblues.")
    tools.word_instances("x" * 5000)
    assert "\u2028" not in caplog.text and "\u202e" not in caplog.text
    assert max(len(r.getMessage()) for r in caplog.records) < 1200


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


SCHEMAS = [mcp_schemas, pydantic_ai_schemas]


@pytest.mark.parametrize("schemas", SCHEMAS)
def test_the_tool_schemas_offer_the_enumerations_as_enums(
    tools: MemoryTools, schemas: Callable[[MemoryTools], dict[str, dict[str, Any]]]
) -> None:
    assert wrong_enums(schemas(tools)) == []


@pytest.mark.parametrize("schemas", SCHEMAS)
def test_every_argument_of_every_tool_is_described_in_its_schema(
    tools: MemoryTools, schemas: Callable[[MemoryTools], dict[str, dict[str, Any]]]
) -> None:
    # The failing input: MCP clients saw only a title per argument, the descriptions sat in
    # the tool's text.
    found = schemas(tools)
    assert undescribed(found) == []
    assert found["recall"]["properties"]["since"]["description"].startswith(
        "Only records created at or after this ISO 8601 time with a time zone"
    )


@pytest.fixture
def stored(seeded: Callable[[], Any]) -> dict[str, str]:
    """One conversation and one memory in the store; their ids by name."""
    with seeded():
        session = factories.SessionFactory()
        first, _ = factories.conversation(
            session.id, [("user", "Diego planted a jardín azul."), ("assistant", "Lovely!")]
        )
        memory = factories.MemoryFactory(content="Diego has a jardín.", key="garden")
        ids = {"session": session.id, "message": first.id, "memory": memory.id}
    return ids


# One successful call of every tool on the `stored` records, reads first, forget last.
CALLS: dict[str, Callable[[MemoryTools, dict[str, str]], dict[str, Any]]] = {
    "recall": lambda t, ids: t.recall("jardín", role="user", since="2026-01-01T00:00:00Z"),
    "list_memories": lambda t, ids: t.list_memories(category="fact"),
    "search_words": lambda t, ids: t.search_words("jar", scope="all"),
    "word_instances": lambda t, ids: t.word_instances("jardín", scope="all"),
    "read_conversation": lambda t, ids: t.read_conversation(ids["session"]),
    "read_memory_message": lambda t, ids: t.read_memory_message(ids["message"]),
    "pin_memory": lambda t, ids: t.pin_memory(ids["memory"]),
    "remember": lambda t, ids: t.remember("Diego has a jardín azul.", key="garden"),
    "forget": lambda t, ids: t.forget(ids["memory"]),
}


def dump(path: Path) -> str:
    """Every table of the database file as SQL, the FTS index included."""
    connection = sqlite3.connect(path)
    try:
        return "\n".join(connection.iterdump())
    finally:
        connection.close()


def test_a_result_says_once_that_it_is_untrusted(
    tools: MemoryTools, stored: dict[str, str]
) -> None:
    # The failing input: a read tool's result held the warning twice, as "untrusted" and
    # again as its result's "warning".
    assert sorted(CALLS) == sorted(TOOL_NAMES)
    for name, call in CALLS.items():
        result = call(tools, stored)
        assert result["ok"] is True, (name, result)
        assert json.dumps(result, ensure_ascii=False).count(UNTRUSTED_WARNING) == 1, name
        assert result["untrusted"] == UNTRUSTED_WARNING and "warning" not in result["result"]
    assert tools.read_memory_message(stored["message"])["result"]["content"] == (
        "Diego planted a jardín azul."  # nothing else was left out
    )


def test_the_tools_marked_read_only_leave_the_database_as_it_was(
    tools: MemoryTools, stored: dict[str, str], db_path: Path
) -> None:
    reads = [name for name, facts in TOOL_FACTS.items() if facts.read_only]
    before = dump(db_path)
    assert "Diego planted a jardín azul." in before  # the dump holds the rows
    for name in reads:
        assert CALLS[name](tools, stored)["ok"] is True, name
    assert dump(db_path) == before
    assert not any(TOOL_FACTS[name].destructive for name in reads)


def memories_but_times(service: MemoryService) -> list[dict[str, Any]]:
    """Every stored memory, whatever its status, without its modification time."""
    page = service.list_memories(include_inactive=True)
    return [memory.model_dump(exclude={"modified_at"}) for memory in page.memories]


REPEATED = [
    ("remember", lambda t, ids: t.remember("Diego has a jardín azul.", key="garden")),
    ("remember", lambda t, ids: t.remember("Diego has a rose garden.", memory_id=ids["memory"])),
    ("pin_memory", lambda t, ids: t.pin_memory(ids["memory"])),
    ("pin_memory", lambda t, ids: t.pin_memory(ids["memory"], pinned=False)),
    ("forget", lambda t, ids: t.forget(ids["memory"])),
]


@pytest.mark.parametrize(("name", "call"), REPEATED)
def test_a_tool_marked_idempotent_changes_nothing_more_when_called_again(
    tools: MemoryTools, service: MemoryService, stored: dict[str, str], name: str, call: Any
) -> None:
    # An MCP client may retry an idempotent call that timed out; the retry must not add a
    # second memory or change another one.
    assert TOOL_FACTS[name].idempotent and not TOOL_FACTS[name].read_only
    call(tools, stored)
    once = memories_but_times(service)
    call(tools, stored)
    assert memories_but_times(service) == once


def test_the_idempotent_cases_cover_every_writing_tool_marked_so() -> None:
    marked = {name for name, facts in TOOL_FACTS.items() if facts.idempotent}
    assert {name for name, _ in REPEATED} == marked - {
        name for name, facts in TOOL_FACTS.items() if facts.read_only
    }


def test_only_the_tools_marked_destructive_can_lose_a_stored_text(
    tools: MemoryTools, service: MemoryService, stored: dict[str, str]
) -> None:
    def texts() -> list[str]:
        return [memory["content"] for memory in memories_but_times(service)]

    memory = stored["memory"]
    assert tools.pin_memory(memory)["ok"] and tools.pin_memory(memory, pinned=False)["ok"]
    assert not TOOL_FACTS["pin_memory"].destructive
    newer = tools.remember("Diego has a jardín azul.", key="garden")["result"]["id"]
    assert sorted(texts()) == ["Diego has a jardín azul.", "Diego has a jardín."]  # superseded
    # remember with memory_id rewrites in place (no copy of the old text is kept)...
    assert tools.remember("Diego has a rose garden.", memory_id=newer)["ok"] is True
    assert sorted(texts()) == ["Diego has a jardín.", "Diego has a rose garden."]
    # ...and forget deletes: both are marked destructive, and no other tool is.
    assert tools.forget(newer)["ok"] is True and texts() == ["Diego has a jardín."]
    assert [name for name, facts in TOOL_FACTS.items() if facts.destructive] == [
        "remember",
        "forget",
    ]


def test_an_id_of_any_length_comes_back_cut_in_the_result_and_the_log(
    tools: MemoryTools, caplog: pytest.LogCaptureFixture
) -> None:
    # Found by review: forget of a 1,000,000-character id returned and logged it whole.
    caplog.set_level(logging.INFO, logger="memstore")
    result = tools.forget("m" * 1_000_000)
    assert result["ok"] is False and len(result["error"]["message"]) <= 500
    assert max(len(record.getMessage()) for record in caplog.records) < 1200


@pytest.mark.parametrize("tool", ["recall", "list_memories", "search_words"])
def test_a_limit_below_one_names_the_page_size_it_may_reach(tools: MemoryTools, tool: str) -> None:
    # Found by review: the tools' limit of 0 was told "use 1 or more (at most 2**63 - 1)",
    # while a page holds at most max_results (8 by default); a larger limit is cut to it.
    call = getattr(tools, tool)
    result = call("x", limit=0) if tool == "recall" else call(limit=0)
    assert result["error"]["message"] == "limit: is 0; use 1 or more (a page holds at most 8)."
