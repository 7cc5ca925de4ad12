"""JSON text read strictly: the keys an object gives twice, which Python's reader and
pydantic's keep the last value of silently; and JSON nested too deeply for Python's reader
(over about a thousand levels), read without nesting as far as a JSON-RPC reply needs."""

from __future__ import annotations

import itertools
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
    None when ``text`` is no object."""
    if not text.lstrip().startswith("{"):
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


def array_items(text: str) -> list[str] | None:
    """The texts of the items of the array that ``text`` is, whole, split without nesting,
    each JSON or too deep for Python's reader; None for any other text (another value
    before or after it, an item that is no JSON, an empty item): an invalid batch is
    answered with one error, none of it run (found by review: "[...] [...]" ran a request
    of its second array)."""
    if not balanced(text):
        return None
    outer = [(depth, found) for depth, found in scanned(text) if depth < 2]
    if [found[0] for depth, found in outer if depth == 0] != ["[", "]"]:
        return None
    if text.strip(JSON_SPACE) != text[outer[0][1].start() : outer[-1][1].end()]:
        return None
    bounds = [found.start() for depth, found in outer if depth == 0 or found[0] == ","]
    items = [text[start + 1 : end].strip(JSON_SPACE) for start, end in itertools.pairwise(bounds)]
    return items if all(map(is_json, items)) else None


JSON_SPACE = " \t\n\r"  # the white space JSON allows (str.strip takes every Unicode space)
CLOSING = {"]": "[", "}": "{"}


def balanced(text: str) -> bool:
    """Whether the brackets of ``text`` (outside its strings) close in order, each with its
    own kind, and all of them (found by review: "[...]]" and a deep item closed with braces
    were split, and their requests run)."""
    opened: list[str] = []
    for _, found in scanned(text):
        token = found[0]
        if token in "[{":
            opened.append(token)
        elif token in CLOSING and (not opened or opened.pop() != CLOSING[token]):
            return False
    return not opened


def is_json(text: str) -> bool:
    """Whether ``text`` is one JSON value, or nested too deeply for Python's reader to tell."""
    try:
        json.loads(text)
    except ValueError:
        return False
    except RecursionError:
        return True
    return True
