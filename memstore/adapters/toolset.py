"""The memory tools as a pydantic-ai toolset, for a host's own ``Agent`` (``memstore[agent]``).

A host adds :func:`memory_toolset` to its agent, at construction (``Agent(model,
toolsets=[toolset])``) or per run (``agent.run(prompt, toolsets=[toolset])``), and gets the
memory tools, the instructions that go with them and the per-turn memory context, with no
other wiring: the toolset carries its instructions (``FunctionToolset.instructions``,
pydantic-ai-slim 1.75 and later), so the host's own instructions are left as they are.

Everything is decided when the model is asked, step by step: while memory is disabled or the
turn is private (:meth:`MemoryTools.private_turn
<memstore.adapters.tools.MemoryTools.private_turn>` around the run), no tool is offered and
no instruction or memory is sent. A store that fails while the context is built (damaged,
locked, a newer schema) is logged, and the turn goes on without it (found by review: the
whole turn failed).
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

from pydantic_ai import FunctionToolset, RunContext, Tool
from pydantic_ai.tools import ToolDefinition
from pydantic_core import SchemaValidator, ValidationError, core_schema

from memstore.adapters.tool_arguments import COUNTS, whole
from memstore.adapters.tools import INSTRUCTIONS, MemoryTools
from memstore.errors import InvalidInput, MemstoreError

log = logging.getLogger(__name__)

TOOLSET_ID = "memstore"


def memory_toolset(tools: MemoryTools, *, id: str = TOOLSET_ID) -> FunctionToolset[Any]:
    """The memory tools of one store as a pydantic-ai toolset, with their instructions.

    Each model request is offered the tools of :data:`~memstore.adapters.tools.TOOL_NAMES`
    and sent :data:`~memstore.adapters.tools.INSTRUCTIONS` followed by the memory context for
    the run's prompt (:meth:`MemoryService.context <memstore.MemoryService.context>`, within
    ``context_chars`` characters), only while :attr:`MemoryTools.available
    <memstore.adapters.tools.MemoryTools.available>`. The toolset works with any agent
    dependencies type; its tools never read them.

    Args:
        tools: The memory tools of the store; the host runs one turn at a time through them.
        id: The toolset's id, unique among the agent's toolsets (durable execution names
            its activities after it).

    Returns:
        A ``FunctionToolset`` holding the tools and the instructions.
    """

    async def offer(ctx: RunContext[Any], tool: ToolDefinition) -> ToolDefinition | None:
        return tool if tools.available else None

    def instructions(ctx: RunContext[Any]) -> str | None:
        if not tools.available:
            return None
        prompt = ctx.prompt if isinstance(ctx.prompt, str) else ""
        try:
            block = tools.service.context(prompt).text
        except MemstoreError as error:  # the turn goes on without memory (issue 5)
            log.warning("memory context unavailable (%s: %s)", type(error).__name__, error)
            return INSTRUCTIONS
        return f"{INSTRUCTIONS}\n\n{block}" if block else INSTRUCTIONS

    toolset = FunctionToolset[Any](id=id, instructions=instructions)
    for function in tools.functions():
        tool = self_checked_tool(tools, function)
        tool.prepare = offer
        toolset.add_tool(tool)
    return toolset


OBJECT = SchemaValidator(core_schema.dict_schema(keys_schema=core_schema.str_schema()))
UNREAD = "\x00unread arguments"
"""The one argument of a call whose arguments are no JSON object (no name can be it)."""


class ObjectOrUnread:
    """What pydantic-ai checks of a call's arguments, in place of the tool's own validator:
    an object, or else ``{UNREAD: True}``, which the call answers as a failed result (see
    :func:`checked_call`). A list or a number had reached ``function(**arguments)`` and
    ended the run; then text that is no JSON, or a list, got pydantic-ai's retry prompt,
    which echoed the text to the model, and two such calls ended the run (found by
    reviews). It stands in for a ``SchemaValidator``, of which pydantic-ai calls these two
    methods."""

    def validate_json(self, data: str | bytes, **options: Any) -> dict[str, Any]:
        try:
            return dict(OBJECT.validate_json(data, **options))
        except ValidationError:
            return {UNREAD: True}

    def validate_python(self, data: object, **options: Any) -> dict[str, Any]:
        try:
            return dict(OBJECT.validate_python(data, **options))
        except ValidationError:
            return {UNREAD: True}


ARGUMENTS = ObjectOrUnread()


def self_checked_tool(tools: MemoryTools, function: Callable[..., dict[str, Any]]) -> Tool[Any]:
    """The tool of ``function``: the name, description and JSON schema of its typed
    signature, its arguments an object whose values the tool checks (see
    :func:`checked_call`)."""
    typed = Tool(function, takes_ctx=False)
    schema = typed.function_schema.json_schema
    tool = Tool.from_schema(checked_call(tools, function), typed.name, typed.description, schema)
    tool.function_schema.validator = ARGUMENTS  # type: ignore[assignment]  # see its class
    return tool


def checked_call(
    tools: MemoryTools, function: Callable[..., dict[str, Any]]
) -> Callable[..., dict[str, Any]]:
    """``function`` (a memory tool) called with the model's arguments as they came, which the
    tool checks itself: a value of the wrong type (``"5"`` for a limit) is a failed result
    from the service's checks, and a missing or unknown argument one from here. pydantic-ai's
    own validation answered each with a retry prompt instead, and raised out of the whole
    run once the tool's retries were spent (found by review: two calls with ``limit: "5"``
    ended the turn, where issue 5 wants a failure to be an unsuccessful result). A count
    written with a fraction, ``5.0``, is the whole number, as the MCP server's schema reads
    it (:func:`~memstore.adapters.tool_arguments.whole`)."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def call(**arguments: Any) -> dict[str, Any]:
        if not tools.available:  # refused first, its arguments unread (found by review)
            unread = "<private>" if tools.private else "<withheld>"
            return MemoryTools.failed(function.__name__, unread, tools.refusal())
        if UNREAD in arguments:
            problem = InvalidInput(
                "arguments",
                "are no JSON object of named arguments that can be read (malformed JSON, a "
                "list or a value, a lone surrogate, a number of thousands of digits).",
            )
            return MemoryTools.failed(function.__name__, "<unread>", problem)
        try:
            signature.bind(**arguments)
        except TypeError as error:  # it names the arguments, never their values
            # their names alone are logged: an unknown one may hold anything, a secret too
            # (found by review: a token given as "text" for "content" was logged whole)
            shown = sorted(arguments)
            problem = InvalidInput("arguments", f"{error}; call it with the arguments it lists.")
            return MemoryTools.failed(function.__name__, shown, problem, shown)  # names only
        counts = {name: whole(arguments[name]) for name in COUNTS & arguments.keys()}
        return function(**arguments | counts)

    return call
