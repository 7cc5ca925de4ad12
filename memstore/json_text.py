"""JSON text read strictly: the keys an object gives twice, which Python's reader and
pydantic's keep the last value of silently."""

from __future__ import annotations

import json
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
