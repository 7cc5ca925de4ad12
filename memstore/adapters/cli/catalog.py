"""The catalog of ``memstore``'s commands: for each, the module that defines it and its line
in ``memstore --help``.

The group lists its commands from here and imports a command's module only when that command
runs (or shows its own help), so that ``memstore --help`` and ``memstore recall`` do not pay
for the other commands' modules (issue 18: import what a command needs when it needs it).
"""

from __future__ import annotations

BY_MODULE: dict[str, dict[str, str]] = {
    "history": {
        "conversation": "Read a session's messages in order, page by page.",
        "delete-message": "Delete one message; no import brings it back.",
        "import": "Import daily Markdown logs (files or folders of them).",
        "message": "Read one message whole, chunk by chunk.",
        "sessions": "List sessions, newest first, with their speakers.",
    },
    "maintenance": {
        "backup": "Copy the database to a new file, then check the copy.",
        "check": "Check integrity, each FTS5 index and the schema version.",
        "diary": "Show one local day: its conversations and memories.",
        "mcp": "Serve the memory tools to an MCP client over stdio.",
    },
    "memories": {
        "delete-memory": "Delete one memory and its source links.",
        "memories": "List memories: pinned first, then newest first.",
        "pin": "Pin a memory: it comes first in the context and listings.",
        "remember": "Remember a fact about the user, or update a memory.",
        "unpin": "Unpin a memory (it stays in force).",
    },
    "search": {
        "instances": "Show every occurrence of one word, with an excerpt.",
        "recall": "Search past conversations and memories for QUERY.",
        "words": "List indexed words starting with PREFIX, with counts.",
    },
    "transfer": {
        "export": "Write the store or its memories to JSONL or Markdown.",
        "import-memories": "Import the memories (and history) of an export.",
    },
}
"""Each module under :mod:`memstore.adapters.cli` that defines commands, and its commands'
short help: the line ``memstore --help`` shows for each (at most 58 characters, so that the
list fits 80 columns)."""

SUMMARIES = dict(
    sorted((name, line) for lines in BY_MODULE.values() for name, line in lines.items())
)
"""Every command's short help by name, in the order ``memstore --help`` lists them."""

MODULES = {name: module for module, lines in BY_MODULE.items() for name in lines}
"""The module of each command, by name."""
