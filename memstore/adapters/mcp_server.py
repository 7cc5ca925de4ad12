"""The MCP server (optional extra ``memstore[mcp]``, on the official ``mcp`` SDK, 2.x).

``memstore mcp`` serves the memory tools over stdio to any Model Context Protocol client.
The tools are the bound methods of :class:`~memstore.adapters.tools.MemoryTools`, registered
as they are, exactly as the pydantic-ai adapter registers them: the same names, JSON schemas
from the same signatures (each argument described, each kind an ``enum``), the same untrusted
label, the same instructions. Each tool also carries its annotations, read from
:data:`~memstore.adapters.tools.TOOL_FACTS`: a title, read-only, destructive and idempotent
hints, and ``openWorldHint: false`` (the store is one local file, no outside service).
With memory disabled (``enabled: false``) the server offers no tools.

A result's text content is the compact JSON of its structured content (the SDK indents it),
so a client that reads either one sees every field once, the untrusted warning included.

An unsuccessful tool result (``{"ok": false, "error": {...}}``) goes back as an MCP tool error
(``isError``) whose text is the error's type and message, and the server keeps serving; so
does a line that is no message the SDK can read, answered with a JSON-RPC error.
stdout belongs to the protocol: while serving, the SDK points file descriptor 1 at stderr, so
stray output cannot corrupt it; logs go to stderr, at INFO only with ``memstore -v``.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from importlib.metadata import version
from typing import Any, cast

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    TextContent,
    ToolAnnotations,
)
from mcp.types import Tool as MCPTool
from pydantic import ValidationError
from pydantic_core import to_json

from memstore.adapters.mcp_answers import ReplyCounter, Unanswered
from memstore.adapters.mcp_stdin import StdinLines, own_stdin
from memstore.adapters.mcp_transport import AnsweringReader, stopped
from memstore.adapters.tool_log import for_log, guarded
from memstore.adapters.tools import INSTRUCTIONS, TOOL_FACTS, MemoryTools
from memstore.arguments import QUERY_PARTS
from memstore.service import MemoryService

log = logging.getLogger(__name__)

SDK_TOOL_LOG = "mcp.server.mcpserver.server"
"""The SDK's logger that logs each failed tool call, its name and error."""
CLOSED = {"additionalProperties": False}
"""What a memory tool's input schema adds: no argument beyond its properties."""


class MemoryServer(MCPServer[Any]):
    """An MCP server that reports a memory tool's unsuccessful result as a tool error, and
    arguments the tool's schema refuses as an ``InvalidInput`` one; a successful result's
    text is its structured content as compact JSON.

    An argument the tool does not take is refused too, and each tool's input schema says so
    (``additionalProperties: false``, as pydantic-ai's): found by review, ``recall`` with a
    misspelled ``sessionId`` searched every session without a word."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.accepted: dict[str, frozenset[str]] = {}
        """The arguments each memory tool takes, by tool name."""
        self.disabled: str | None = None
        """Why no memory tool is offered (memory is disabled), told to a client that calls
        one anyway (found by review: "Unknown tool: recall")."""

    async def list_tools(self) -> list[MCPTool]:
        listed = await super().list_tools()
        return [
            tool.model_copy(update={"input_schema": {**tool.input_schema, **CLOSED}})
            for tool in listed
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if self.disabled is not None and name in TOOL_FACTS:
            raise ToolError(f"MemoryDisabled: {self.disabled}")
        if name not in self.accepted:  # the SDK's own refusal quoted a name of any length
            raise ToolError(f"Unknown tool: {for_log(guarded(name))}")
        unknown = sorted(set(arguments) - self.accepted.get(name, frozenset(arguments)))
        if unknown:
            takes = ", ".join(sorted(self.accepted[name])) or "no arguments"
            # a name can be any length, or a credential (both found by review)
            given = for_log(", ".join(map(guarded, unknown)))
            raise ToolError(f"InvalidInput: {name} takes no {given}; it takes {takes}.")
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as error:  # the SDK's own: arguments that fail the tool's schema
            cause = error.__cause__
            if not isinstance(cause, ValidationError):
                raise
            # Chained to the ValidationError, the SDK logs the refused fields' names only.
            raise ToolError(f"{refusal_kind(cause)}: {refused(cause)}") from cause
        message = failure(result)
        if message is not None:
            raise ToolError(message)  # the SDK answers with isError=True and this text
        return compact(result)

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[Any, Any] | None = None,
    ) -> GetPromptResult | InputRequiredResult:
        """Refuse every name as invalid params (-32602, as MCP answers an unknown prompt):
        the server offers no prompt, and the SDK's own refusal went out with code 0 and two
        tracebacks on stderr (found by review)."""
        raise MCPError(INVALID_PARAMS, f"Unknown prompt: {for_log(guarded(name))}; there are none.")

    async def run_stdio_async(self) -> None:
        """Serve over stdio as the SDK does, standard input read so that a Ctrl-C stops the
        server, and each line it cannot read answered with a JSON-RPC error instead of
        dropped (see :mod:`~memstore.adapters.mcp_transport`)."""
        server = self._lowlevel_server  # what the SDK's own run_stdio_async serves
        lines = StdinLines(own_stdin())
        unanswered = Unanswered()
        stdin = cast("anyio.AsyncFile[str]", lines)  # only iterated
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            reader = AnsweringReader(read_stream, write_stream, unanswered, lines.given)
            writer = ReplyCounter(write_stream, unanswered)
            await server.run(reader, writer, server.create_initialization_options())


class GuardedRecords(logging.Filter):
    """The SDK's log records of tool calls with each text argument as memstore's own tool
    log shows one: cut, and a credential by its kind and length (found by review: a failed
    call's tool name was logged whole, a token or 200,000 characters)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                for_log(guarded(arg)) if isinstance(arg, str) else arg for arg in record.args
            )
        return True


GUARDED_RECORDS = GuardedRecords()


def refusal_kind(error: ValidationError) -> str:
    """``InvalidQuery`` when the first argument the schema refused (in the tool's order) is
    part of a query (a recall's mode), as the tools and the API name a bad mode; else
    ``InvalidInput`` (found by review: a mode of "ALL" was InvalidQuery everywhere but here,
    and then, beside a bad limit, still here). A time the schema passes as text is judged
    by the tool afterwards, so a bad mode beside a bad ``since`` is InvalidQuery here and
    InvalidInput in the tools, which read the times first."""
    places = [found["loc"] for found in error.errors(include_input=False) if found["loc"]]
    return "InvalidQuery" if places and str(places[0][0]) in QUERY_PARTS else "InvalidInput"


def refused(error: ValidationError) -> str:
    """Which arguments a tool's schema refused and why, without their values (a refused
    write may hold a credential the guard never saw): ``content: Input should be a valid
    string``, one clause per argument."""
    return "; ".join(
        f"{'.'.join(str(part) for part in found['loc']) or 'arguments'}: {found['msg']}"
        for found in error.errors(include_input=False, include_url=False)
    )


def compact(result: CallToolResult | InputRequiredResult) -> CallToolResult | InputRequiredResult:
    """``result`` with one text block, the compact JSON of its structured content (non-ASCII
    kept as is), in place of the SDK's indented copy; a result without one is unchanged."""
    if not isinstance(result, CallToolResult) or result.structured_content is None:
        return result
    text = to_json(result.structured_content).decode()
    return result.model_copy(update={"content": [TextContent(type="text", text=text)]})


def failure(result: CallToolResult | InputRequiredResult) -> str | None:
    """``"Type: message"`` of an unsuccessful memory tool result, or None when it succeeded."""
    content = result.structured_content if isinstance(result, CallToolResult) else None
    if not isinstance(content, dict) or content.get("ok") is not False:
        return None
    error = content.get("error") or {}
    return f"{error.get('type', 'Error')}: {error.get('message', 'the memory tool failed.')}"


class LiteralArguments(FuncMetadata):
    """A tool's argument model that takes each argument as sent: the SDK's own reads a text
    argument typed other than plain ``str`` as JSON when it can, so that ``key: "null"``
    stored no key and ``session_id: "null"`` searched every session (found by review), where
    the pydantic-ai adapter takes the text. Every memory tool argument is a scalar, so
    there is no list sent as text to recover."""

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return dict(data)


def memory_tool(function: Callable[..., Any]) -> Tool:
    """The MCP tool of one memory tool function: its name, its docstring as description,
    its annotations from :data:`~memstore.adapters.tools.TOOL_FACTS`, its arguments taken
    as sent (see :class:`LiteralArguments`)."""
    facts = TOOL_FACTS[function.__name__]
    tool = Tool.from_function(
        function,
        title=facts.title,
        description=inspect.getdoc(function),
        annotations=ToolAnnotations(
            title=facts.title,
            read_only_hint=facts.read_only,
            destructive_hint=facts.destructive,
            idempotent_hint=facts.idempotent,
            open_world_hint=False,  # one local SQLite file: no outside world to reach
        ),
    )
    metadata = tool.fn_metadata
    fields = {name: getattr(metadata, name) for name in type(metadata).model_fields}
    return tool.model_copy(update={"fn_metadata": LiteralArguments(**fields)})


def build_server(tools: MemoryTools) -> MCPServer[Any]:
    """An MCP server offering ``tools`` (none when memory is disabled).

    Args:
        tools: The memory tools of one store.

    Returns:
        The server, not yet running; ``.run("stdio")`` serves it.
    """
    offered = tools.functions() if tools.available else []
    if not offered:
        log.info("memory is disabled (enabled=false): the MCP server offers no tools")
    logging.getLogger(SDK_TOOL_LOG).addFilter(GUARDED_RECORDS)  # once, however many servers
    server = MemoryServer(
        "memstore",
        version=version("memstore"),
        instructions=INSTRUCTIONS if offered else None,
        log_level="WARNING",  # the SDK's default handler; `memstore -v` has configured INFO
        tools=[memory_tool(function) for function in offered],
    )
    for function in offered:
        server.accepted[function.__name__] = frozenset(inspect.signature(function).parameters)
    server.disabled = None if offered else str(tools.refusal())
    return server


def serve(service: MemoryService) -> None:
    """Serve the memory tools of ``service`` over stdio until the client closes stdin.

    Args:
        service: The memory store whose tools are served (none when memory is disabled).
    """
    try:
        build_server(MemoryTools(service)).run("stdio")
    except BaseExceptionGroup as group:
        raise stopped(group) from None
