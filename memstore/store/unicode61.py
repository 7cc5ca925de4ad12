"""What SQLite's ``unicode61`` tokenizer (``remove_diacritics 2``, as the indexes use it)
makes of every code point, asked of the SQLite this process links.

The answer is the truth :mod:`memstore.text.unicode61` reads from a table: the test suite walks
all of Unicode through both and fails on any difference, and ``python -m
memstore.store.unicode61 > memstore/text/unicode61_table.py`` prints the table afresh (after a
SQLite upgrade changed it).
"""

from __future__ import annotations

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


def role_of(terms: list[str], at: int) -> tuple[str, int]:
    """The role shown by the terms from ``at``, and where the next code point's start: two
    ``q`` terms for a separator, ``qq`` for a character folded away, else a token character."""
    if terms[at] == "q":
        return ".", at + 2
    return ("m" if terms[at] == "qq" else "w"), at + 1


def sqlite_roles() -> str:
    """One role per code point from U+0000 to U+10FFFF: ``w`` a token character, ``m`` a
    token character the fold removes (a diacritic), ``.`` a separator. Surrogates, which no
    valid text holds, are ``.``. Takes about 2 seconds."""
    roles: list[str] = []
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute(f"CREATE VIRTUAL TABLE probe USING fts5(text, tokenize='{TOKENIZE}')")
        connection.execute("CREATE VIRTUAL TABLE terms USING fts5vocab(probe, instance)")
        for start in range(0, 0x110000, CHUNK):
            codes = [code for code in range(start, start + CHUNK) if code not in SURROGATES]
            connection.execute("DELETE FROM probe")
            connection.execute("INSERT INTO probe (text) VALUES (?)", (probe_text(codes),))
            terms = [term for (term,) in connection.execute(TERMS)]
            at = 0
            for code in range(start, start + CHUNK):
                role, at = (".", at) if code in SURROGATES else role_of(terms, at)
                roles.append(role)
    return "".join(roles)


def runs(roles: str) -> list[tuple[int, str]]:
    """``roles`` as (first code point, role) of each run of one role."""
    found = [(0, roles[0])]
    for code in range(1, len(roles)):
        if roles[code] != roles[code - 1]:
            found.append((code, roles[code]))
    return found


def table_module(roles: str) -> str:
    """The source of :mod:`memstore.text.unicode61_table` for ``roles``."""
    encoded = " ".join(f"{code:X}{role}" for code, role in runs(roles))
    lines = [encoded[i : i + 88] for i in range(0, len(encoded), 88)]
    body = "\n".join(f'    "{line}"' for line in lines)
    return TEMPLATE.format(sqlite=sqlite3.sqlite_version, runs=body)


TEMPLATE = '''"""SQLite's ``unicode61`` tokenizer, as data: the role of every code point (``w`` a
token character, ``m`` a token character the fold removes, ``.`` a separator) in runs, printed
by ``python -m memstore.store.unicode61`` from SQLite {sqlite}. Read it through
:mod:`memstore.text.unicode61`.
"""

RUNS = (
{runs}
)
"""Each run of one role as hexadecimal first code point and role, space-separated."""
'''

if __name__ == "__main__":
    sys.stdout.write(table_module(sqlite_roles()))
