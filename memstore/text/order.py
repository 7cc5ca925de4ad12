"""Ranges of text in SQLite's order: its text compares as UTF-8 bytes, which is the order of
code points."""

from __future__ import annotations

LAST_CHAR = "\U0010ffff"
SURROGATES = range(0xD800, 0xE000)  # no UTF-8 text holds them, so none sorts between


def after_prefix(prefix: str) -> str | bytes:
    """The least value SQLite sorts above every text that starts with ``prefix``, so that
    ``[prefix, after_prefix(prefix))`` holds exactly the texts starting with it: the prefix
    with its last character raised by one, after its trailing U+10FFFF are dropped (none
    is above it); with nothing left, a blob, which SQLite sorts above all text.

    ``prefix + "\\U0010ffff"`` missed the texts that go on with U+10FFFF itself (found by
    review: ``words a`` missed the word ``a\\U0010ffff``)."""
    stem = prefix.rstrip(LAST_CHAR)
    if not stem:
        return b"\xff"
    raised = ord(stem[-1]) + 1
    return stem[:-1] + chr(SURROGATES.stop if raised in SURROGATES else raised)
