"""Credentials in a tool call's arguments, which its log line and its error message must not
show (issue 14: never log a secret): the guard run over each argument's name and over each
text inside its value, an id's by the formats services name only."""

from __future__ import annotations

from collections.abc import Iterator

ID_ARGUMENTS = frozenset({"memory_id", "message_id", "session_id"})
"""Arguments that hold ids, random by design: the guard's entropy test took KSUIDs for
credentials, and withheld every message about them (found by review)."""
NESTING = 20
"""How deep a value's lists and dicts are read; a value nested deeper is withheld whole."""
UNREADABLE = "value too deeply nested to scan"
"""What a value is said to hold when its texts cannot all be read."""
SCANNED_CHARS = 1000
"""The characters of a text the guard scans: more than a log line shows of it (500), so
that a credential cut by the line's end is found too."""


def call_credential(given: object) -> str | None:
    """The kind of credential the first argument of a call that seems to hold one holds,
    or None: ``given`` by name (each name scanned too), or the names alone.

    A value is scanned text by text (see :func:`argument_credential`), never as Python
    writes it: its escapes hid a credential from the guard (found by review)."""
    if isinstance(given, list):
        names = (name for name in given if isinstance(name, str))
        return next(filter(None, map(credential_in, names)), None)
    if not isinstance(given, dict):
        return None
    for name, value in given.items():
        kind = credential_in(str(name)) or argument_credential(str(name), value)
        if kind is not None:
            return kind
    return None


def argument_credential(name: str, value: object) -> str | None:
    """The kind of credential the argument ``name`` given ``value`` seems to hold, or None:
    each text inside it scanned (see :func:`texts_of`), an id's for named formats only
    (:data:`ID_ARGUMENTS`); :data:`UNREADABLE` for a value whose texts cannot all be read."""
    from memstore.guard import id_secret_kind  # detect-secrets: only once a call is checked

    scan = id_secret_kind if name in ID_ARGUMENTS else credential_in
    try:
        return next(filter(None, map(scan, texts_of(value))), None)
    except Exception:  # a value too deep, or whose str() fails: withheld, never a crash
        return UNREADABLE


def texts_of(value: object, depth: int = 0) -> Iterator[str]:
    """Each text inside ``value``: itself, a dict's keys and values, a list's, a tuple's or
    a set's items, bytes as Latin-1, anything else as ``str()`` gives it; numbers,
    switches and None hold none.

    Raises:
        ValueError: For a value nested deeper than :data:`NESTING`; whatever ``str()``
            raises for an object.
    """
    if depth > NESTING:
        raise ValueError(UNREADABLE)
    if value is None or isinstance(value, bool | int | float):
        return
    if isinstance(value, str | bytes):
        yield value if isinstance(value, str) else value.decode("latin-1")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from texts_of(key, depth + 1)
            yield from texts_of(item, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from texts_of(item, depth + 1)
    else:
        yield str(value)


def credential_in(text: str) -> str | None:
    """The kind of credential the guard finds in ``text`` (see
    :func:`memstore.guard.secret_kind`; its first :data:`SCANNED_CHARS` characters), or
    None."""
    from memstore.guard import secret_kind  # detect-secrets: only once a call is checked

    return secret_kind(text[:SCANNED_CHARS])
