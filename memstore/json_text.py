"""JSON text read strictly: the keys an object gives twice, which Python's reader and
pydantic's keep the last value of silently; and the top-level keys of JSON nested too deeply
for Python's reader (over about a thousand levels), which a JSON-RPC reply needs."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any


class KeyedObject(dict[str, Any]):
    """A JSON object that knows its keys given more than once (``repeated``, in order): JSON
    keeps the last value silently, so the first one a person reads in the file would not
    be the one in force (found by review)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.repeated: list[str] = []
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                self.repeated.append(key)
            seen.add(key)


def first_repeated_key(text: str) -> str | None:
    """The first key an object of the JSON ``text`` gives twice (inner objects first), or
    None; None too for text that is no JSON, which its reader reports."""
    repeated: list[str] = []

    def keyed(pairs: list[tuple[str, Any]]) -> KeyedObject:
        found = KeyedObject(pairs)
        repeated.extend(found.repeated)
        return found

    try:
        json.loads(text, object_pairs_hook=keyed)
    except (ValueError, RecursionError):
        return None
    return repeated[0] if repeated else None


TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


def scanned(text: str) -> Iterator[tuple[int, re.Match[str]]]:
    """The JSON punctuation and strings of ``text`` with the depth each stands at (a bracket
    at the depth outside it), read without nesting."""
    depth = 0
    for found in TOKENS.finditer(text):
        if found[0] in "]}":
            depth -= 1
        yield depth, found
        if found[0] in "[{":
            depth += 1


def top_level_keys(text: str) -> dict[str, object] | None:
    """The keys of the object on ``text``, read without nesting: its last ``id`` with its
    value when that is a string or a number (None otherwise), every other key with None;
    None when ``text`` is no object, or its brackets do not close in order (no JSON, though
    too deep to be read: found by review, one missing "}" made it a notification)."""
    if not text.strip(" \t\n\r").startswith("{") or not balanced(text):
        return None
    keys: dict[str, object] = {}
    key = None
    for depth, found in scanned(text):
        if depth == 1 and found[0] == ":" and key is not None:
            keys[key] = scalar_after(text, found.end()) if key == "id" else None
        key = string_value(found[0]) if depth == 1 else None
    return keys


def scalar_after(text: str, start: int) -> object:
    """The JSON string or number at ``start`` of ``text`` (after white space), else None."""
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:].lstrip())
    except (ValueError, RecursionError):  # an id nested too deeply is no id (found by review)
        return None
    return value if isinstance(value, str | int | float) else None


def string_value(token: str) -> str | None:
    """The string a JSON string token stands for (``"\\u0069d"`` is ``id``), or None for
    any other token or an invalid escape."""
    try:
        value = json.loads(token) if token.startswith('"') else None
    except ValueError:
        return None
    return value if isinstance(value, str) else None


CLOSING = {"]": "[", "}": "{"}


def balanced(text: str) -> bool:
    """Whether the brackets of ``text`` (outside its strings) close in order, each with its
    own kind, and all of them."""
    opened: list[str] = []
    for _, found in scanned(text):
        token = found[0]
        if token in "[{":
            opened.append(token)
        elif token in CLOSING and (not opened or opened.pop() != CLOSING[token]):
            return False
    return not opened
