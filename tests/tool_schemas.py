"""What every adapter's JSON schemas of the memory tools must say, for the tests to check.

Shared by the in-process schema tests (MCP SDK and pydantic-ai) and the MCP stdio client test.
"""

from __future__ import annotations

from typing import Any

from memstore.kinds import Category, Mode, Scope, SearchRole, values

# The model can only pick a valid mode, role, category or scope if the schema lists them.
ENUMERATED = [
    ("recall", "mode", Mode),
    ("recall", "role", SearchRole),
    ("remember", "category", Category),
    ("list_memories", "category", Category),
    ("search_words", "scope", Scope),
    ("search_words", "role", SearchRole),
    ("word_instances", "scope", Scope),
    ("word_instances", "role", SearchRole),
]


def enum_of(schema: dict[str, Any], name: str) -> list[str] | None:
    """The enum of one property, also of an optional one (an anyOf with null)."""
    field = schema["properties"][name]
    return next((o["enum"] for o in [field, *field.get("anyOf", [])] if "enum" in o), None)


def wrong_enums(schemas: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """The (tool, argument) pairs of :data:`ENUMERATED` whose schema lacks the kind's enum."""
    return [
        (tool, argument)
        for tool, argument, kind in ENUMERATED
        if enum_of(schemas[tool], argument) != list(values(kind))
    ]


def undescribed(schemas: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """The (tool, argument) pairs whose property has no description, over every tool."""
    return [
        (tool, argument)
        for tool, schema in schemas.items()
        for argument, field in schema["properties"].items()
        if not field.get("description", "").strip()
    ]
