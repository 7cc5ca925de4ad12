"""What SQLite's ``unicode61`` tokenizer (``remove_diacritics 2``, as the indexes use it)
makes of every code point, asked of the SQLite this process links.

The answer is the truth :mod:`memstore.text.unicode61` reads from a table: the test suite walks
all of Unicode through both and fails on any difference, and ``python -m
memstore.store.unicode61 > memstore/text/unicode61_table.py`` prints the table afresh (after a
SQLite upgrade changed it).
"""

from __future__ import annotations

import functools
import sqlite3
import sys
from contextlib import closing

CHUNK = 4096
SURROGATES = range(0xD800, 0xE000)
TOKENIZE = "unicode61 remove_diacritics 2"
TERMS = "SELECT term FROM terms ORDER BY offset"


def probe_text(codes: list[int]) -> str:
    """One document holding each code point between two ``q``: ``q?q q?q ...``."""
    return " ".join(f"q{chr(code)}q" for code in codes)


@functools.cache
def sqlite_walk() -> tuple[str, dict[int, int]]:
    """What SQLite makes of every code point from U+0000 to U+10FFFF: one role per code
    point (``w`` a token character, ``m`` a token character the fold removes, a diacritic,
    ``.`` a separator; surrogates, which no valid text holds, are ``.``), and the code point
    each token character folds to, for those that fold to another. Takes about 2 seconds."""
    roles: list[str] = []
    folds: dict[int, int] = {}
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute(f"CREATE VIRTUAL TABLE probe USING fts5(text, tokenize='{TOKENIZE}')")
        connection.execute("CREATE VIRTUAL TABLE terms USING fts5vocab(probe, instance)")
        for start in range(0, 0x110000, CHUNK):
            codes = [code for code in range(start, start + CHUNK) if code not in SURROGATES]
            connection.execute("DELETE FROM probe")
            connection.execute("INSERT INTO probe (text) VALUES (?)", (probe_text(codes),))
            terms = iter([term for (term,) in connection.execute(TERMS)])
            for code in range(start, start + CHUNK):
                if code in SURROGATES:
                    roles.append(".")
                    continue
                term = next(terms)
                if term == "q":  # the code point separated two terms
                    next(terms)
                    roles.append(".")
                    continue
                folded = term[1:-1]  # one code point, or none
                roles.append("w" if folded else "m")
                if folded and folded != chr(code):
                    folds[code] = ord(folded)
    return "".join(roles), folds


def sqlite_roles() -> str:
    """The roles of :func:`sqlite_walk`, one per code point."""
    return sqlite_walk()[0]


def sqlite_folds() -> dict[int, int]:
    """The folds of :func:`sqlite_walk`: the code point each token character that folds to
    another folds to."""
    return sqlite_walk()[1]


def runs(roles: str) -> list[tuple[int, str]]:
    """``roles`` as (first code point, role) of each run of one role."""
    found = [(0, roles[0])]
    for code in range(1, len(roles)):
        if roles[code] != roles[code - 1]:
            found.append((code, roles[code]))
    return found


def fold_runs(folds: dict[int, int]) -> list[tuple[int, int, int, int]]:
    """``folds`` as (first code point, count, step, shift) of each run of code points a
    step apart that fold by one shift (the capitals A to Z: 0x41, 26, 1, 32)."""
    found: list[tuple[int, int, int, int]] = []
    for code in sorted(folds):
        shift = folds[code] - code
        if found:
            first, count, step, last_shift = found[-1]
            gap = code - (first + (count - 1) * step)
            if shift == last_shift and (gap == step or (count == 1 and gap == 2)):
                found[-1] = (first, count + 1, gap, shift)
                continue
        found.append((code, 1, 1, shift))
    return found


def encoded_folds(folds: dict[int, int]) -> str:
    """The runs of ``folds`` as :mod:`memstore.text.unicode61` reads them: hexadecimal first
    code point, signed hexadecimal shift, then ``*count`` and ``/step`` when not 1."""
    return " ".join(
        f"{first:X}{shift:+X}"
        + (f"*{count:X}" if count > 1 else "")
        + (f"/{step:X}" if step > 1 else "")
        for first, count, step, shift in fold_runs(folds)
    )


def lines_of(encoded: str) -> str:
    """``encoded`` as the lines of a parenthesized Python string, 88 characters each."""
    lines = [encoded[i : i + 88] for i in range(0, len(encoded), 88)]
    return "\n".join(f'    "{line}"' for line in lines)


def table_module(roles: str, folds: dict[int, int]) -> str:
    """The source of :mod:`memstore.text.unicode61_table` for ``roles`` and ``folds``."""
    encoded = " ".join(f"{code:X}{role}" for code, role in runs(roles))
    return TEMPLATE.format(
        sqlite=sqlite3.sqlite_version,
        runs=lines_of(encoded),
        folds=lines_of(encoded_folds(folds)),
    )


TEMPLATE = '''"""SQLite's ``unicode61`` tokenizer, as data: the role of every code point (``w`` a
token character, ``m`` a token character the fold removes, ``.`` a separator) in runs, and
what each token character folds to, printed by ``python -m memstore.store.unicode61`` from
SQLite {sqlite}. Read it through :mod:`memstore.text.unicode61`.
"""

RUNS = (
{runs}
)
"""Each run of one role as hexadecimal first code point and role, space-separated."""

FOLDS = (
{folds}
)
"""Each run of token characters that fold to another code point by one shift (a capital to
its small letter, a letter to itself without its diacritic), space-separated: hexadecimal
first code point, signed hexadecimal shift, then ``*count`` and ``/step`` when not 1."""
'''

if __name__ == "__main__":
    sys.stdout.write(table_module(*sqlite_walk()))
