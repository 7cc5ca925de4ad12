"""SQLite's ``unicode61`` tokenizer (``remove_diacritics 2``) as a lookup: the role of every
code point, ``w`` a token character, ``m`` a token character the fold removes, ``.`` a
separator, from the table :mod:`memstore.text.unicode61_table` (checked against the linked
SQLite by the test suite's walk over all of Unicode). Its classes follow Unicode 6.1, whatever
Python's ``unicodedata`` says: a code point unassigned in 6.1 (most emoji) is a token character.
"""

from __future__ import annotations

import bisect
import functools

from memstore.text.unicode61_table import RUNS


@functools.cache
def table() -> tuple[list[int], str]:
    """The first code point of each run, and the runs' roles (one character each)."""
    pairs = "".join(RUNS).split()
    return [int(pair[:-1], 16) for pair in pairs], "".join(pair[-1] for pair in pairs)


def role(code: int) -> str:
    """The role of code point ``code``: ``w``, ``m`` or ``.``."""
    starts, roles = table()
    return roles[bisect.bisect_right(starts, code) - 1]


def roles() -> str:
    """One role per code point, from U+0000 to U+10FFFF."""
    starts, kinds = table()
    ends = [*starts[1:], 0x110000]
    runs = zip(starts, ends, kinds, strict=True)
    return "".join(kind * (end - start) for start, end, kind in runs)
