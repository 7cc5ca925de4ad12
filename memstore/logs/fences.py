"""The two text rules a log's writer and its parser share (LOGFORMAT.md): CommonMark fenced
code blocks, inside which nothing starts a record, and the line that starts one."""

from __future__ import annotations

import re

__all__ = ["FenceTracker", "starts_record"]

_FENCE = re.compile(r" {0,3}(?P<marker>`{3,}|~{3,})(?P<rest>.*)")
_BOUNDARY = re.compile(r"\[[0-9]{2}:")


def starts_record(text: str) -> bool:
    """Tell whether a line after a blank line, outside fenced code, would start a record.

    Args:
        text: The line, without its line ending.

    Returns:
        True when it starts with ``[``, two digits and a colon (a stamp, valid or not).
    """
    return _BOUNDARY.match(text) is not None


class FenceTracker:
    """Follows CommonMark fenced code blocks (``` or ~~~) one line at a time."""

    def __init__(self) -> None:
        self._opening: str | None = None  # the run of backticks or tildes that opened the fence

    @property
    def is_open(self) -> bool:
        """Whether the lines fed so far leave a fence open."""
        return self._opening is not None

    @property
    def opening(self) -> str | None:
        """The run of backticks or tildes of the open fence, or None."""
        return self._opening

    def feed(self, text: str) -> None:
        """Update the state with the next line.

        Args:
            text: The part of the line that counts for fences (on a speaker line, the text
                after ``Name: ``), without its line ending.
        """
        match = _FENCE.fullmatch(text)
        if match is None:
            return
        if self._opening is None:
            if not _info_string_ok(match["marker"], match["rest"]):
                return
            self._opening = match["marker"]
        elif _closes(self._opening, match["marker"], match["rest"]):
            self._opening = None


def _info_string_ok(marker: str, rest: str) -> bool:
    """Tell whether a line opening a fence with ``marker`` may have ``rest`` after it: the
    info string of a backtick fence holds no backtick (CommonMark; found by review: such a
    line opened a fence, and the rest of the log became code)."""
    return marker[0] != "`" or "`" not in rest


def _closes(opening: str, marker: str, rest: str) -> bool:
    """Tell whether a fence line (its ``marker`` run and the ``rest`` after it) closes the
    fence opened by ``opening``: the same character, at least as many, nothing else."""
    same_kind = marker[0] == opening[0] and len(marker) >= len(opening)
    return same_kind and not rest.strip(" \t")
