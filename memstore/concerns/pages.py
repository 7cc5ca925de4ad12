"""Paging: how many items a page may hold, how many characters of JSON it has left, and
where the next page starts. One helper for every paged call."""

from __future__ import annotations

from typing import Any

from memstore.arguments import MAX_POSITION
from memstore.config import MemoryConfig
from memstore.errors import InvalidInput
from memstore.text.clipping import json_size


def page_limit(config: MemoryConfig, limit: int | None) -> int:
    """``limit`` capped by ``max_results`` (``max_results`` when None).

    Raises:
        InvalidInput: If ``limit`` is below 1 or beyond 2**63 - 1.
    """
    if limit is not None and not 1 <= limit <= MAX_POSITION:
        raise InvalidInput("limit", f"is {limit}; use 1 or more (at most 2**63 - 1).")
    return min(limit or config.max_results, config.max_results)


def room(config: MemoryConfig, empty: Any, field: str, widest: int) -> int:
    """Characters of JSON left for items in the empty page model ``empty``, whatever its
    ``field`` ends up holding: null or a number up to ``widest``."""
    sizes = (json_size(empty.model_copy(update={field: value})) for value in (None, widest))
    return config.recall_chars - max(sizes)


def following(offset: int, taken: int, total: int) -> int | None:
    """The next page's offset, or None when this page reached the end."""
    return offset + taken if offset + taken < total else None
