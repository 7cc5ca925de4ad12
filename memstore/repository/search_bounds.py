"""The pk range a recall's search is bounded to: the time window, the session and the speaker
of its filters, found through their indexes."""

from __future__ import annotations

import dataclasses
import sqlite3
from dataclasses import dataclass

from memstore.queries import RecallFilters
from memstore.repository.messages import SPEAKER_NAMES
from memstore.text import ranking

SMALLEST_PK, LARGEST_PK = -(2**63), 2**63 - 1

# How many messages a filter keeps, up to :most + 1, and their smallest and largest pk, read
# through the filter's index.
FILTER_PKS = """
    SELECT count(*), min(pk), max(pk)
    FROM (SELECT pk FROM messages WHERE {condition} LIMIT :most + 1)
"""


WINDOW_PKS = FILTER_PKS.format(
    condition="created_at >= coalesce(:since, '') AND created_at < coalesce(:until, '~')"
)


SESSION_PKS = FILTER_PKS.format(condition="session_id = :session_id")


SPEAKER_PKS = FILTER_PKS.format(  # by its partial index
    condition=f"speaker IS NOT NULL AND speaker IN {SPEAKER_NAMES}"
)


BOUNDED_MESSAGES = 20_000
"""A filter is read through its index up to this many messages, or up to
:data:`SCAN_PER_HIT` per document of the query's longest list when that is more; one
keeping more bounds nothing (reading it would cost more than its bounds save)."""


SCAN_PER_HIT = 8
"""Index entries of a filter read per document of the query's longest list: an entry
costs about 0.09 µs to read, a hit the bounds leave out 1-3 µs to score and filter. A fixed
limit made a window of 20,800 messages of 120,000 slower than the whole history (a review:
"otter" 51 ms for 25 days of 800 messages, 111 ms for 26, 116 ms without a window)."""


def scan_limit(hits: int) -> int:
    """How many messages a filter is read up to, for a query whose longest list holds
    ``hits`` documents: :data:`BOUNDED_MESSAGES`, or :data:`SCAN_PER_HIT` per document."""
    return max(BOUNDED_MESSAGES, SCAN_PER_HIT * hits)


@dataclass(frozen=True)
class PkBounds:
    """The pk range ``[low, high]`` a recall's search is bounded to, and whether a filter
    kept more messages than were read to bound it (``cut_short``: it bounds nothing)."""

    low: int = SMALLEST_PK
    high: int = LARGEST_PK
    cut_short: bool = False
    implied: tuple[str, ...] = ()
    """The fields of the filters the range implies: those of a filter that keeps every
    message of its own range (a day or a session of logs imported in order), which holds
    every message of this range too."""

    def unchecked(self, filters: RecallFilters) -> RecallFilters:
        """``filters`` without those the range implies: what each hit is still checked by."""
        return dataclasses.replace(filters, **dict.fromkeys(self.implied))

    def params(self) -> dict[str, int]:
        """``low_pk`` and ``high_pk``, as the search statements bind them."""
        return {"low_pk": self.low, "high_pk": self.high}

    def narrow(self) -> bool:
        """Whether the range holds at most :data:`~memstore.text.ranking.EXACT_HITS` pks, so
        that no tier searched within it has more hits (a filter cut short bounds nothing)."""
        return not self.cut_short and self.high - self.low < ranking.EXACT_HITS


def pk_bounds(connection: sqlite3.Connection, filters: RecallFilters, hits: int = 0) -> PkBounds:
    """The narrowest pk range holding every message that the time window, the session and
    the speaker of ``filters`` keep, found through their indexes, that search bounds itself
    to (the whole range without those filters, or when one keeps over
    :data:`BOUNDED_MESSAGES` messages and :data:`SCAN_PER_HIT` per document of the query's
    longest list, ``hits``). A role bounds nothing: it keeps about half the messages, taking
    turns with the other role, so its range is the whole history.

    Rowids are given in the order messages are stored, not written: an import stores a log's
    records together and in file order, so a day or a session of an archive is one short
    range; a log imported late, or a live session running beside an import, widens the
    range of the windows it covers, and the results stay the same.
    """
    low, high, cut_short = SMALLEST_PK, LARGEST_PK, False
    implied: tuple[str, ...] = ()
    most = scan_limit(hits)
    params = filters.params() | {"most": most}
    window = filters.since is not None or filters.until is not None
    bounding = (
        (WINDOW_PKS, ("since", "until"), window),
        (SESSION_PKS, ("session_id",), filters.session_id is not None),
        (SPEAKER_PKS, ("speaker",), filters.speaker is not None),
    )
    for statement, fields, used in bounding:
        if not used:
            continue
        kept, first, last = connection.execute(statement, params).fetchone()
        if kept == 0:
            return PkBounds(1, 0)  # no message: an empty range
        if kept > most:
            cut_short = True
            continue
        low, high = max(low, first), min(high, last)
        if kept == last - first + 1:  # every pk of its range is one of its messages
            implied += fields
    return PkBounds(low, high, cut_short, implied)
