"""The hits a tier read, ranked with their neighbours: what a bounded tier read near its
candidates (:class:`Near`), and the neighbour ranks of hits as the store holds them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from memstore.errors import StoreDamaged
from memstore.text import neighbours, ranking


def neighbour_ranks(
    hits: Iterable[tuple[int, str, int, float]], ranked: set[int] | None, *, rounded: bool
) -> tuple[list[tuple[float, int]], neighbours.OwnRanks]:
    """:func:`~memstore.text.neighbours.neighbour_ranks` of hits read from the store.

    Raises:
        StoreDamaged: For a hit whose sequence number is no integer (found by review: text
            stored as one failed recall with a TypeError traceback).
    """
    try:
        return neighbours.neighbour_ranks(hits, ranked, rounded=rounded)
    except TypeError as error:
        raise StoreDamaged(
            "The database holds a sequence number that is no integer in messages.sequence: "
            f"it is damaged ({error}). `memstore check` names the row; keep the file and its "
            "-wal/-shm files for investigation and restore a verified backup (README, Backup "
            "and recovery)."
        ) from error


@dataclass(frozen=True)
class Near:
    """What :data:`BEST_HITS` read: every hit among the messages near the candidates and
    their pair partners, as neighbours.neighbour_ranks takes them; those of them within its
    reach of a candidate (whose ranks are whole); and how many candidates there were."""

    hits: list[tuple[int, str, int, float]]
    ranked: set[int]
    candidates: int


def near_hits(rows: Iterable[tuple[Any, ...]]) -> Near:
    """The :class:`Near` of the two row sets of :data:`BEST_HITS`."""
    rows = list(rows)
    hits = [
        (pk, session, sequence, own) for pk, session, sequence, _, own in rows if own is not None
    ]
    found = {pk for pk, *_ in hits}
    away = [(pk, away) for pk, _, _, away, own in rows if own is None]
    return Near(
        hits=hits,
        ranked={pk for pk, far in away if far <= ranking.REACH and pk in found},
        candidates=sum(far == 0 for _, far in away),
    )
