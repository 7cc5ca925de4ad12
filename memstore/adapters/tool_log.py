"""What a tool call's log line shows: its arguments (a failed write's text by its length only,
a credential the guard finds in another by its kind and length) and its result, cut and
escaped."""

from __future__ import annotations

import json
import logging
from typing import Any

from memstore.adapters.call_secrets import (
    argument_credential,
    credential_in,
    id_credential,
    message_credential,
)
from memstore.text.printable import printable

log = logging.getLogger(__name__)

WRITTEN_TEXT = ("content", "key")  # a write's text: logged by its length only when it fails

SHOWN_FIELDS = frozenset(
    {"id", "session_id", "matched_id", "message_id", "memory_id", "superseded_by"}
    | {"category", "status", "origin", "role", "source", "source_type", "scope", "mode"}
    | {"created_at", "modified_at", "expires_at", "started_at", "ended_at", "timestamp"}
)
"""The fields of a result whose text a tool call's log line shows: ids, kinds and times."""
HOST_DATA = frozenset({"metadata"})
"""The fields of a result a tool call's log line shows by their size only."""
LOGGED_CHARS = 500
"""The characters of a tool call's arguments, and of its result (compact JSON), that its log
line shows: the memory made and its id, a page's first hits; longer text is cut, marked
"…" (found by review: a 4,000,000-character word went whole into the log)."""


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
    """A call's arguments (by name, or their names alone) with each name, and each value
    but a write's text (see :func:`withheld`), shown by what the guard finds in it (see
    :mod:`~memstore.adapters.call_secrets`; found by review: a token given as
    ``expires_at``, as ``memory_id``, inside a list, or as an argument's name was logged
    whole, and so was a searched one)."""
    if isinstance(shown, list):
        return [guarded(name) if isinstance(name, str) else name for name in shown]
    return {
        guarded(str(name)): value if name in WRITTEN_TEXT else guarded_value(str(name), value)
        for name, value in shown.items()
    }


def guarded_value(name: str, value: object) -> object:
    """The argument ``name``'s ``value``, or the kind of credential it seems to hold and
    its size: ``<GitHub Token, 40 characters>``, ``<list holding a GitHub Token>``."""
    found = argument_credential(name, value)
    if found is None:
        return value
    if isinstance(value, str):
        return f"<{found[1]}, {len(value)} characters>"
    return f"<{type(value).__name__} holding a {found[1]}>"


def guarded(text: str) -> str:
    """``text``, or the kind of credential it seems to hold and its length:
    ``<GitHub Token, 40 characters>``."""
    kind = credential_in(text)
    return text if kind is None else f"<{kind}, {len(text)} characters>"


def guarded_message(error: Exception, given: object) -> str:
    """A failed call's error message, for its log and its caller: as it is, or said to be
    withheld when it may quote a credential of the call's arguments ``given`` (see
    :func:`~memstore.adapters.call_secrets.message_credential`)."""
    kind = message_credential(error, given)
    if kind is None:
        return str(error)
    return f"an argument seems to hold a {kind}, so this message, which may quote it, is withheld."


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


def written(arguments: object) -> str:
    """A call's logged ``arguments`` as their log line shows them (see :func:`for_log`), or
    said to be too large to write when Python will not write one (an integer of thousands
    of digits: found by review, it raised out of the tool)."""
    try:
        return for_log(str(arguments))
    except ValueError:
        return "<arguments too large to write>"


def logged_result(result: dict[str, Any]) -> str:
    """``result`` as compact JSON for the log (see :func:`for_log`; found by review: a
    call's log line did not say what it returned), each text but those of
    :data:`SHOWN_FIELDS` by its length (see :func:`outline`)."""
    return for_log(json.dumps(outline(result), ensure_ascii=False, separators=(",", ":")))


def outline(value: object, field: str = "") -> object:
    """``value`` (a result's JSON, as ``field``) with each text outside
    :data:`SHOWN_FIELDS` as its length: what was said, stored or searched stays out of the
    log (found by review: a recall's result logged a password from the history it found,
    and a word's page the token searched); a session's metadata, the host's own data of any
    shape, by its size; an id the guard takes for a credential (a host's session id) by its
    length too."""
    if isinstance(value, dict) and field in HOST_DATA:
        return f"<{len(value)} keys>"
    if isinstance(value, dict):
        return {key: outline(item, str(key)) for key, item in value.items()}
    if isinstance(value, list):
        return [outline(item, field) for item in value]
    if isinstance(value, str) and (field not in SHOWN_FIELDS or id_credential(value)):
        return f"<{len(value)} characters>"
    return value


def log_success(name: str, shown: object, result: dict[str, Any]) -> None:
    """Log at INFO that tool ``name`` succeeded: its arguments ``shown`` (see
    :func:`guarded_arguments`; ``<private>`` in a private turn) and the outline of its
    ``result`` (see :func:`logged_result`). The guard scans the arguments only when INFO is
    logged."""
    if log.isEnabledFor(logging.INFO):
        logged = guarded_arguments(shown) if isinstance(shown, dict) else shown
        answer = logged_result(result)
        log.info("memory tool %s(%s) succeeded: %s", name, written(logged), answer)


def log_failure(name: str, shown: object, error: str) -> None:
    """Log at INFO that tool ``name`` failed with ``error`` (``"Type: message"``): its
    arguments ``shown`` as :func:`withheld` shows them."""
    if log.isEnabledFor(logging.INFO):
        log.info("memory tool %s(%s) failed: %s", name, written(withheld(shown)), error)
