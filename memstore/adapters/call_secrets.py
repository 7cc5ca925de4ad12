"""Credentials in a tool call's arguments, which its log line and its error message must not
show (issue 14: never log a secret): the guard run over each argument's name and over the
texts inside its value, an id's without the entropy test; and whether a message repeats
one."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator

from memstore.arguments import MAX_INT_BITS
from memstore.errors import InvalidInput, NotFound, SecretRejected

ID_ARGUMENTS = frozenset({"memory_id", "message_id", "session_id"})
"""Arguments that hold ids, random by design: the guard's entropy test took KSUIDs for
credentials, and withheld every message about them (found by review)."""
NESTING = 20
"""How deep a value's lists and dicts are read; a value nested deeper is withheld whole."""
UNREADABLE = "value too deeply nested to scan"
"""What a value is said to hold when its texts cannot all be read."""
SCANNED_CHARS = 1000
"""The characters of a value the guard scans: more than a log line (500) or a message's
quote of it show, so that a credential cut by their end is found too, and a value of a
million characters costs no more than this (found by review: seconds for a long id)."""
RUN = re.compile(r"[^\W_]*\d[^\W_]*|[^\W_]{12,}")
"""A run of letters and digits that a message repeating a value keeps whole, whatever it
escapes around it (a tab, a no-break or zero-width space, a quote), and that no message
says of its own: one holding a digit, or of twelve characters or more (found by review:
"user", "2026" and "session", shared by a query and a message about another argument)."""


def call_credential(given: object) -> tuple[str, str] | None:
    """The first argument of a call that seems to hold a credential, as ``(text, kind)``:
    its text as scanned and the kind found, or None (see :func:`flagged`)."""
    return next(flagged(given), None)


def flagged(given: object) -> Iterator[tuple[str, str]]:
    """Each argument of a call that seems to hold a credential, as ``(text, kind)``:
    ``given`` is the call's arguments by name (each name is scanned too), or their names
    alone."""
    if isinstance(given, list):
        names = (name for name in given if isinstance(name, str))
        yield from filter(None, (found_in(name, credential_in) for name in names))
    elif isinstance(given, dict):
        for name, value in given.items():
            found = found_in(str(name), credential_in) or argument_credential(str(name), value)
            if found is not None:
                yield found


def message_credential(error: Exception, given: object) -> str | None:
    """The kind of credential the message of ``error``, a call's failure, may quote, or
    None: an argument it is about (:func:`about_arguments`) that seems to hold one, when it
    may quote it (see :func:`quotes`), or another it repeats (see :func:`repeats`); any
    argument's when it is about none. The
    guard's own refusal never quotes. Found by reviews: messages quoted credentials with
    escapes, cut short, or inside a label that hid them from the guard; one withheld for a
    flagged query hid that the limit was wrong."""
    if isinstance(error, SecretRejected):
        return None
    about = about_arguments(error, given)
    if about is None or not isinstance(given, dict):
        found = call_credential(given)
        return None if found is None else found[1]
    said = str(error)
    found = call_credential(about)
    if found is not None and quotes(said, found[0]):
        return found[1]
    others = {name: value for name, value in given.items() if name not in about}
    return next((kind for text, kind in flagged(others) if repeats(said, text)), None)


def about_arguments(error: Exception, given: object) -> dict[str, object] | None:
    """The arguments of ``given`` (by name) the message of ``error`` is about: the one an
    InvalidInput names, those holding the id a NotFound names; None when it names none."""
    if not isinstance(given, dict):
        return None
    if isinstance(error, InvalidInput) and error.argument in given:
        return {error.argument: given[error.argument]}
    if isinstance(error, NotFound):
        return {name: value for name, value in given.items() if value == error.item_id} or None
    return None


def argument_credential(name: str, value: object) -> tuple[str, str] | None:
    """What the argument ``name`` given ``value`` seems to hold, as :func:`call_credential`
    gives it: each text inside the value scanned, and the texts together (a label and its
    value may be a dict's key and value: found by review), an id's without the entropy test
    (:data:`ID_ARGUMENTS`); :data:`UNREADABLE` for a value whose texts cannot all be read."""
    scan = id_credential if name in ID_ARGUMENTS else credential_in
    try:
        texts = leading_texts(value)
    except Exception:  # a value too deep, or whose str() fails: withheld, never a crash
        return "", UNREADABLE
    joined = [" ".join(texts)] if len(texts) > 1 else []
    return next(filter(None, (found_in(text, scan) for text in [*texts, *joined])), None)


def found_in(text: str, scan: Callable[[str], str | None]) -> tuple[str, str] | None:
    """``(text, kind)`` when ``scan`` (a guard check) finds a credential in the first
    :data:`SCANNED_CHARS` characters of ``text``, else None."""
    kind = scan(text[:SCANNED_CHARS])
    return None if kind is None else (text[:SCANNED_CHARS], kind)


def leading_texts(value: object) -> list[str]:
    """The texts inside ``value`` (see :func:`texts_of`) as far as :data:`SCANNED_CHARS`
    characters of them reach: what a log line or a message can show of it."""
    texts, total = [], 0
    for text in itertools.islice(texts_of(value), SCANNED_CHARS):
        texts.append(text)
        total += len(text) + 1
        if total > SCANNED_CHARS:
            break
    return texts


def texts_of(value: object, depth: int = 0) -> Iterator[str]:
    """Each text inside ``value``: itself, a number as written, a dict's keys and values, a
    list's, a tuple's or a set's items, bytes as Latin-1, anything else as ``str()`` gives
    it; switches and None hold none.

    Raises:
        ValueError: For a value nested deeper than :data:`NESTING`; whatever ``str()``
            raises for an object.
    """
    if depth > NESTING:
        raise ValueError(UNREADABLE)
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        return  # too long for Python to write (memstore.arguments refuses it)
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


def quotes(message: str, text: str) -> bool:
    """Whether ``message``, about an argument of value ``text``, may quote it: it holds a
    quotation mark (the messages quote values as Python writes them, escaped and cut
    short), or a run of four letters or digits of it (found by review: a query's length,
    refused, was withheld)."""
    folded = message.casefold()
    runs = re.findall(r"[^\W_]{4,}", text.casefold())
    return "'" in message or '"' in message or any(run in folded for run in runs)


def repeats(message: str, text: str) -> bool:
    """Whether ``message`` seems to repeat ``text``: it holds one of its runs (see
    :data:`RUN`) of six characters or more, in any case (a message quotes a value escaped,
    cut short, or folded; a year is no such run)."""
    folded = message.casefold()
    runs = (run for run in RUN.findall(text.casefold()) if len(run) >= 6)
    return any(run in folded for run in runs)


def credential_in(text: str) -> str | None:
    """The kind of credential the guard finds in ``text`` (see
    :func:`memstore.guard.secret_kind`; its first :data:`SCANNED_CHARS` characters), or
    None."""
    from memstore.guard import secret_kind  # detect-secrets: only once a call is checked

    return secret_kind(text[:SCANNED_CHARS])


def id_credential(text: str) -> str | None:
    """The kind of credential the guard takes the id ``text`` for, without the entropy test
    (see :func:`memstore.guard.id_secret_kind`; its first :data:`SCANNED_CHARS`
    characters), or None."""
    from memstore.guard import id_secret_kind  # detect-secrets: only once a call is checked

    return id_secret_kind(text[:SCANNED_CHARS])
