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


PUNCTUATION = re.compile(r'["{}\[\]:,]')
STRING_REST = re.compile(r'(?:[^"\\]|\\.)*+"')  # possessive: one pass, however it ends
JSON_SPACE = " \t\n\r"
CLOSING = {"]": "[", "}": "{"}


def tokens(text: str) -> Iterator[tuple[str, int]]:
    """The JSON punctuation and whole strings of ``text``, each with where it ends, read in
    one pass (found by review: a pattern for strings tried again from each quote of an
    unterminated one, and a line of 84 KB held the server 44 s).

    Raises:
        ValueError: At a string that does not end.
    """
    at = 0
    while (found := PUNCTUATION.search(text, at)) is not None:
        start = found.start()
        if found[0] != '"':
            at = start + 1
            yield found[0], at
            continue
        rest = STRING_REST.match(text, start + 1)
        if rest is None:
            raise ValueError("a string that does not end")
        at = rest.end()
        yield text[start:at], at


def scanned(text: str) -> Iterator[tuple[int, str, int]]:
    """The tokens of ``text`` (see :func:`tokens`) with the depth each stands at (a bracket
    at the depth outside it), read without nesting."""
    depth = 0
    for token, end in tokens(text):
        if token in ("]", "}"):
            depth -= 1
        yield depth, token, end
        if token in ("[", "{"):
            depth += 1


def top_level_keys(text: str) -> dict[str, object] | None:
    """The keys of the object on ``text``, read without nesting: its last ``id`` with its
    value when that is a string or a number (None otherwise), every other key with None;
    None when ``text`` is no object whole (see :func:`one_container`: found by review, one
    missing "}" or text after it made it a notification)."""
    if not text.strip(JSON_SPACE).startswith("{") or not one_container(text):
        return None
    keys: dict[str, object] = {}
    key = None
    for depth, token, end in scanned(text):
        if depth == 1 and token == ":" and key is not None:
            keys[key] = scalar_after(text, end) if key == "id" else None
        key = string_value(token) if depth == 1 else None
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


def one_container(text: str) -> bool:
    """Whether ``text`` is one array or object as far as its brackets tell: each closes in
    order with its own kind, every string ends, and only JSON white space stands after the
    one that closes first at the top."""
    opened: list[str] = []
    try:
        for token, end in tokens(text):
            if token in ("[", "{"):
                opened.append(token)
            elif token in CLOSING and (not opened or opened.pop() != CLOSING[token]):
                return False
            if not opened:
                return not text[end:].strip(JSON_SPACE)
    except ValueError:
        return False
    return False
