"""SQLite's ``unicode61`` tokenizer (``remove_diacritics 2``) as a lookup: the role of every
code point, ``w`` a token character, ``m`` a token character the fold removes, ``.`` a
separator, from the table :mod:`memstore.text.unicode61_table` (checked against the linked
SQLite by the test suite's walk over all of Unicode). Its classes follow Unicode 6.1, whatever
Python's ``unicodedata`` says: a code point unassigned in 6.1 (most emoji) is a token character.
"""

from __future__ import annotations

import bisect
import functools

from memstore.text.unicode61_table import FOLDS, RUNS


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


@functools.cache
def fold_table() -> list[int | None]:
    """SQLite's fold of token characters, as :meth:`str.translate` takes it: item ``c`` is
    the code point that ``c`` folds to (read from the table's ``FOLDS``; ``c`` itself when it
    does not fold), or None when the fold removes it (role ``m``), up to the last code point
    that changes; every one after that folds to itself.

    A list rather than a dict: translate looks up each character, and a dict raises and
    swallows a KeyError for each one that folds to itself (the fold took 2.5 times as long
    on the 20k bench's Italian messages)."""
    changes: dict[int, int | None] = {}
    for run in "".join(FOLDS).split():
        first, shift, count, step = parse_fold_run(run)
        for code in range(first, first + count * step, step):
            changes[code] = code + shift
    starts, kinds = table()
    ends = [*starts[1:], 0x110000]
    for start, end, kind in zip(starts, ends, kinds, strict=True):
        if kind == "m":
            changes.update(dict.fromkeys(range(start, end)))
    folds: list[int | None] = list(range(max(changes) + 1))
    for code, folded in changes.items():
        folds[code] = folded
    return folds


def parse_fold_run(run: str) -> tuple[int, int, int, int]:
    """``(first, shift, count, step)`` of one run of ``FOLDS``: ``41+20*1A`` is the 26 code
    points from U+0041, each folding to itself plus 0x20."""
    run, _, step = run.partition("/")
    run, _, count = run.partition("*")
    sign = max(run.rfind("+"), run.rfind("-"))
    return int(run[:sign], 16), int(run[sign:], 16), int(count or "1", 16), int(step or "1", 16)
