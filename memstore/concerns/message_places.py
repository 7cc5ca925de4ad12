"""The places (sequence numbers) an export gives the messages of a session, settled once every
record is in: an export of a store whose log was imported again holds the session renumbered
(a record recovered with a speaker named later sits in its file's order), and a database
that imported its earlier export holds the old numbers.

A message the database holds with the export's content, at another place of its session,
moves to the export's place; a new message whose place another message holds is written at
a free place and moves there too. Once the file is read (:meth:`Places.settle`), every
message of such a session ends at the place the export gives it, or keeps its own when the
export does not hold it; two messages ending at one place are an :class:`ImportConflict`
naming the record that wanted it (found by review: such a sync stopped at the first
renumbered message, "needs place 2, which ... holds").
"""

from __future__ import annotations

import itertools
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field

from memstore.errors import ImportConflict
from memstore.repository import transfer as rows
from memstore.schemas.transfer import MAX_SEQUENCE


@dataclass
class Places:
    """The places wanted, by session, then by message id: ``(where, sequence)``."""

    wanted: defaultdict[str, dict[str, tuple[str, int]]] = field(
        default_factory=lambda: defaultdict(dict)
    )

    def want(self, where: str, session_id: str, message_id: str, sequence: int) -> None:
        """Record that the export (at ``where``) places this message at ``sequence``."""
        self.wanted[session_id][message_id] = (where, sequence)

    def settle(self, connection: sqlite3.Connection) -> None:
        """Move every message wanted elsewhere to its place, through free places first so
        that no two messages share one on the way.

        Raises:
            ImportConflict: When a message the export does not place holds a place it gives
                another.
        """
        for session_id, placed in self.wanted.items():
            held = rows.session_places(connection, session_id)
            wanted = {m: want for m, want in placed.items() if m in held}  # none deleted since
            require_free(session_id, wanted, held)
            moving = [m for m, (_, place) in wanted.items() if held[m] != place]
            used = set(held.values()) | {place for _, place in wanted.values()}
            free = (n for n in itertools.count(1) if n not in used)
            for message_id, place in zip(moving, free, strict=False):
                rows.set_sequence(connection, message_id, place)
            for message_id in moving:
                rows.set_sequence(connection, message_id, wanted[message_id][1])


def require_free(session_id: str, wanted: dict[str, tuple[str, int]], held: dict[str, int]) -> None:
    """Raise ImportConflict, naming the record that wants it, when a place the export gives
    a message is held by a message of the session it does not place (the export's own
    places are distinct: :mod:`~memstore.concerns.memory_survey` checks them)."""
    staying = {place: message_id for message_id, place in held.items() if message_id not in wanted}
    for message_id, (where, place) in wanted.items():
        holder = staying.get(place)
        if holder is not None:
            reason = f"needs place {place} of session {session_id}, which {holder} holds"
            raise ImportConflict(where, message_id, reason)


def free_place(connection: sqlite3.Connection, session_id: str) -> int:
    """A place no message of the session holds, for a message :class:`Places` moves later:
    the one after its highest, an index seek (found by review: reading the whole session
    for each such message made a renumbered session of 6,000 import in 36 s), else, past
    the largest integer SQLite holds, the first the session leaves free."""
    highest = rows.highest_place(connection, session_id)
    if highest < MAX_SEQUENCE:
        return highest + 1
    held = set(rows.session_places(connection, session_id).values())
    return next(n for n in itertools.count(1) if n not in held)
