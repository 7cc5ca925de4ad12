"""What a tool call's log line shows: its arguments (a failed write's text by its length only,
a credential the guard finds in another by its kind and length) and its result, cut and
escaped."""

from __future__ import annotations

import json
import logging
from typing import Any

from memstore.text.printable import printable

log = logging.getLogger(__name__)

WRITTEN_TEXT = ("content", "key")  # a write's text: logged by its length only when it fails

LOGGED_CHARS = 500
"""The characters of a tool call's arguments, and of its result (compact JSON), that its log
line shows: the memory made and its id, a page's first hits; longer text is cut, marked
"…" (found by review: a 4,000,000-character word went whole into the log)."""
QUOTED_START = 12
"""The characters of an argument's start whose presence in a message or result counts as
repeating it (see :func:`repeated_credential`)."""
GUARDED_CHARS = 2 * LOGGED_CHARS
"""The characters of a text :func:`guarded` scans: what a log line shows of it, and a
credential cut by the line's end."""


def withheld(shown: object) -> object:
    """The logged arguments of a call that failed, a write's text (content, key) shown by its
    length only: a write refused for another reason than the guard (a bad category, an
    expiry in the past) may still hold a secret the guard never scanned; any other argument
    as :func:`guarded_arguments` shows it."""
    if not isinstance(shown, dict | list):
        return shown
    logged = guarded_arguments(shown)
    if isinstance(logged, list):
        return logged
    return {
        name: withheld_text(value) if name in WRITTEN_TEXT and value is not None else value
        for name, value in logged.items()
    }


def guarded_arguments(shown: dict[str, Any] | list[Any]) -> dict[str, Any] | list[Any]:
    """A call's arguments (by name, or their names alone) with each name and each value
    but a write's text (see :func:`withheld`) as :func:`guarded_value` shows it (found by
    review: a token given as ``expires_at``, as ``memory_id``, inside a list, or as an
    argument's name was logged whole, and so was a searched one)."""
    if isinstance(shown, list):
        return [guarded_value(value) for value in shown]
    return {
        guarded(name): value if name in WRITTEN_TEXT else guarded_value(value)
        for name, value in shown.items()
    }


def guarded_value(value: object) -> object:
    """``value``, or, when the guard finds a credential in its text (a list's or a dict's
    as Python writes it), its kind and length (see :func:`guarded`)."""
    if value is None or isinstance(value, bool | int | float):
        return value
    text = value if isinstance(value, str) else str(value)
    shown = guarded(text)
    return value if shown is text else shown


def guarded(text: str) -> str:
    """``text``, or what the credential guard found in it and its length when it seems to
    hold a credential: ``<GitHub Token, 40 characters>``."""
    kind = credential_in(text)
    return text if kind is None else f"<{kind}, {len(text)} characters>"


def guarded_message(message: str, given: object) -> str:
    """A failed call's error message, for its log and its caller: as it is, or said to be
    withheld when it seems to hold a credential or to repeat one of ``given`` (see
    :func:`repeated_credential`; an argument the guard never scanned, such as an expiry or
    an id: found by review)."""
    kind = credential_in(message) or repeated_credential(message, given)
    if kind is None:
        return message
    return f"the message quotes what seems to be a {kind}, so it is withheld; check the arguments."


def repeated_credential(text: str, given: object) -> str | None:
    """The kind of credential the guard finds in an argument of ``given`` (see
    :func:`argument_texts`) whose start ``text`` (an error message, a result) holds, in any
    case, or None: a message cuts a long value short, a label around a quote hides it from
    the guard, and a word's page gives the word folded (found by review). The text itself
    is not scanned: a result's JSON reads as credentials (its times as a .pgpass line)."""
    folded = text.casefold()
    for argument in argument_texts(given):
        if argument[:QUOTED_START].casefold() in folded:
            kind = credential_in(argument)
            if kind is not None:
                return kind
    return None


def argument_texts(given: object) -> list[str]:
    """The texts of a call's arguments ``given`` (by name, or their names alone): each
    name, and each value that is no number, switch or None as text (a list's or a dict's
    as Python writes it)."""
    if not isinstance(given, dict | list):
        return []
    values = [*given, *given.values()] if isinstance(given, dict) else given
    return [
        value if isinstance(value, str) else str(value)
        for value in values
        if value is not None and not isinstance(value, bool | int | float)
    ]


def credential_in(text: str) -> str | None:
    """The kind of credential the guard finds in ``text`` (see
    :func:`memstore.guard.secret_kind`), or None. Only its first :data:`GUARDED_CHARS`
    characters are scanned: a log line shows fewer."""
    from memstore.guard import secret_kind  # detect-secrets: only once a call is logged

    return secret_kind(text[:GUARDED_CHARS])


def withheld_text(value: object) -> str:
    """A write's text as its log shows it: its length, or only its type when it is not text
    (found by review: a list holding a token was logged whole)."""
    if isinstance(value, str):
        return f"<{len(value)} characters>"
    return f"<{type(value).__name__}>"


def for_log(text: str) -> str:
    """``text`` for a log line: control, bidi and line separator characters escaped (a stored
    U+2028 split the line, found by review), at most :data:`LOGGED_CHARS` characters."""
    safe = printable(text)
    return safe if len(safe) <= LOGGED_CHARS else safe[: LOGGED_CHARS - 1] + "…"


def logged_result(result: dict[str, Any]) -> str:
    """``result`` as compact JSON for the log (see :func:`for_log`; found by review: a
    call's log line did not say what it returned)."""
    return for_log(json.dumps(result, ensure_ascii=False, separators=(",", ":")))


def log_success(name: str, shown: object, result: dict[str, Any]) -> None:
    """Log at INFO that tool ``name`` succeeded: its arguments ``shown`` (see
    :func:`guarded_arguments`; ``<private>`` in a private turn) and its ``result``, withheld
    when it repeats a credential (see :func:`repeated_credential`). The guard scans them only
    when INFO is logged."""
    if log.isEnabledFor(logging.INFO):
        logged = guarded_arguments(shown) if isinstance(shown, dict) else shown
        answer = logged_result(result)
        held = repeated_credential(answer, shown)  # a word's page repeats the word
        answer = answer if held is None else f"<withheld: it repeats a {held}>"
        log.info("memory tool %s(%s) succeeded: %s", name, for_log(str(logged)), answer)


def log_failure(name: str, shown: object, error: str) -> None:
    """Log at INFO that tool ``name`` failed with ``error`` (``"Type: message"``): its
    arguments ``shown`` as :func:`withheld` shows them."""
    if log.isEnabledFor(logging.INFO):
        log.info("memory tool %s(%s) failed: %s", name, for_log(str(withheld(shown))), error)
