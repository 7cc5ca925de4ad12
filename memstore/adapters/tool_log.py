"""What a tool call's log line shows: its arguments (a failed write's text by its length only)
and its result, cut and escaped."""

from __future__ import annotations

import json
from typing import Any

from memstore.text.printable import printable

WRITTEN_TEXT = ("content", "key")  # a write's text: logged by its length only when it fails


def withheld(shown: object) -> object:
    """The logged arguments of a call that failed, a write's text (content, key) shown by its
    length only: a write refused for another reason than the guard (a bad category, an
    expiry in the past) may still hold a secret the guard never scanned."""
    if not isinstance(shown, dict):
        return shown
    texts = [key for key in WRITTEN_TEXT if shown.get(key) is not None]
    return {**shown, **{key: withheld_text(shown[key]) for key in texts}}


def withheld_text(value: object) -> str:
    """A write's text as its log shows it: its length, or only its type when it is not text
    (found by review: a list holding a token was logged whole)."""
    if isinstance(value, str):
        return f"<{len(value)} characters>"
    return f"<{type(value).__name__}>"


LOGGED_CHARS = 500
"""The characters of a tool call's arguments, and of its result (compact JSON), that its log
line shows: the memory made and its id, a page's first hits; longer text is cut, marked
"…" (found by review: a 4,000,000-character word went whole into the log)."""


def for_log(text: str) -> str:
    """``text`` for a log line: control, bidi and line separator characters escaped (a stored
    U+2028 split the line, found by review), at most :data:`LOGGED_CHARS` characters."""
    safe = printable(text)
    return safe if len(safe) <= LOGGED_CHARS else safe[: LOGGED_CHARS - 1] + "…"


def logged_result(result: dict[str, Any]) -> str:
    """``result`` as compact JSON for the log (see :func:`for_log`; found by review: a
    call's log line did not say what it returned)."""
    return for_log(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
