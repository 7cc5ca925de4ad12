"""The forms of a text the guard scans: what a pasted credential looks like once the ways of
hiding it from a plain pattern are undone.

NFKC turns fullwidth and other compatibility forms into their plain letters (fullwidth
``ghp_``, U+FF47 U+FF48 U+FF50 U+FF3F, is ``ghp_``; U+FF1A is ``:``); format characters,
the zero-width space and joiner among them, are dropped; and a run of single characters with
one space between each (``g h p _ 6 R ...``) is also scanned joined up.
"""

from __future__ import annotations

import re
import unicodedata

LINK = re.compile(r"\b(?:https?|ftp)://\S+|\bdata:[\w/+.-]+;base64,\S+", re.IGNORECASE)
SPACED_OUT = re.compile(r"(?<!\S)(?:\S )+\S(?!\S)")
MIN_SPACED_CHARS = 12  # shorter spaced runs are initials, lists, "a b c"


def variants(text: str) -> list[str]:
    """``text`` normalised (NFKC, format characters dropped), and that form again with its
    spaced-out runs of at least :data:`MIN_SPACED_CHARS` characters joined, when it differs."""
    plain = unicodedata.normalize("NFKC", text)
    if not plain.isascii():
        plain = "".join(char for char in plain if unicodedata.category(char) != "Cf")
    joined = SPACED_OUT.sub(join_run, plain)
    return [plain] if joined == plain else [plain, joined]


def join_run(found: re.Match[str]) -> str:
    """A spaced-out run without its spaces, when it is long enough to hide a token."""
    run = found.group()
    return run.replace(" ", "") if len(run) >= 2 * MIN_SPACED_CHARS - 1 else run


def without_links(text: str) -> str:
    """``text`` with its web links and ``data:`` URIs blanked: a shared image's URL carries
    signed tokens and long ids (a ``?token=`` JWT, a base64 image) that are not the user's
    credentials."""
    return LINK.sub(" ", text) if "://" in text or "data:" in text else text
