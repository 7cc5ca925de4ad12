"""Markdown emphasis around a credential's label, taken away before the label is read:
"**Password:** Lucy1987!" and "*PIN:* 4821" are "Password: Lucy1987!" and "PIN: 4821".

Bold (``**``, ``__``) goes wherever it stands. Italics go only as a pair of ``*`` or ``_``
around a label that ends in a colon or stands before one ("*Password:*", "*Password*:",
"_db_password_:"): one ``_`` alone opens a private name in code ("_password = get()"), and
a pair before anything else may be a glob or a pointer ("rm *pin* 4821.log", "*pin *
1000"). Each was found by review: italics were first let through, then taken away one mark
at a time, which read those names, globs and pointers as labels.
"""

from __future__ import annotations

import re

BOLD = re.compile(r"\*\*|__")
ITALICS = re.compile(
    r"(?<![\w*])(?:\*(?P<star>[^\s*](?:(?:(?!\s\*|\*\s)[^\n]){0,58}?[^\s*])?)\*"
    r"|_(?P<low>[^\s_](?:(?:(?!\s_|_\s)[^\n]){0,58}?[^\s_])?)_)"
    r"(?![\w*])(?:(?<=:[*_])|(?=[ \t]*[:=]))"
)
"""A pair of ``*`` or ``_`` on one line around up to 60 characters, not opening after a word
character nor closing before one, holding no other pair's end and start ("_Router_ _PIN_:"
is two pairs: found by review), whose text ends in a colon or stands before one."""


def without_emphasis(text: str) -> str:
    """``text`` without its bold, and without the italics around a label (see the module's
    docstring)."""
    return ITALICS.sub(lambda found: found["star"] or found["low"], BOLD.sub("", text))
