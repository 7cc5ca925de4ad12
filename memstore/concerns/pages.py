"""Paging: how many items a page may hold, how many characters of JSON it has left, and
where the next page starts. One helper for every paged call."""

from __future__ import annotations

import json
import sys
from typing import Any

from memstore.arguments import MAX_POSITION
from memstore.config import PageSize
from memstore.errors import InvalidInput
from memstore.text.clipping import json_size


def page_limit(pages: PageSize, limit: int | None) -> int:
    """``limit`` capped by the page size's ``most`` (its ``items`` when None).

    Raises:
        InvalidInput: If ``limit`` is below 1 or beyond 2**63 - 1.
    """
    if limit is not None and not 1 <= limit <= MAX_POSITION:
        use = "1 or more" if limit < 1 else "at most 2**63 - 1"  # found by review: "1 or more"
        raise InvalidInput("limit", f"is {limit}; use {use} (a page holds at most {pages.most}).")
    return min(limit or pages.items, pages.most)


def room(pages: PageSize, empty: Any, field: str, widest: int) -> int:
    """Characters of JSON left for items in the empty page model ``empty``, whatever its
    ``field`` ends up holding: null or a number up to ``widest`` (without a character
    budget, more than any text holds). The field's JSON is measured apart, not in two copies
    of the page: two copies were a tenth of a rare word's ``word_instances``."""
    if pages.chars is None:
        return sys.maxsize
    held = len(json.dumps(getattr(empty, field)))  # the number (or null) it holds now
    return pages.chars - (json_size(empty) - held + max(len("null"), len(str(widest))))


def following(offset: int, taken: int, total: int) -> int | None:
    """The next page's offset, or None when this page reached the end."""
    return offset + taken if offset + taken < total else None
