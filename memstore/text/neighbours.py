"""A hit's rank with its neighbours': its own, plus a share of the hits one and two messages
away in its session; and the ranks handed out best first."""

from __future__ import annotations

import heapq
import math
from collections.abc import Container, Iterable, Iterator

from memstore.text.ranking import NEIGHBOUR_WEIGHTS

RANK_BITS = 36
"""Ranks summed from parts, one of them a difference, are compared kept to this many
significant bits (about 11 digits), so that ties break by pk however a rank was summed: a
part derived by subtraction (``ranking.derived_parts``) differs from its own bm25() in the
last bits, and hits tied exactly came out of pk order (found by review: 4 of 349 random
all-mode pages differed from the pages ranked without it). Significant bits, not
decimals: a word in over half of the documents weighs a millionth (``ranking.MIN_IDF``)."""


def comparable(rank: float) -> float:
    """``rank`` rounded to :data:`RANK_BITS` significant bits."""
    mantissa, exponent = math.frexp(rank)
    return math.ldexp(round(mantissa * 2**RANK_BITS), exponent - RANK_BITS)


OwnRanks = dict[str, dict[int, float]]
"""Own ranks by session id, then by sequence number."""


def neighbour_ranks(
    hits: Iterable[tuple[int, str, int, float]],
    ranked: Container[int] | None = None,
    *,
    rounded: bool = False,
) -> tuple[list[tuple[float, int]], OwnRanks]:
    """The rank of each hit among ``ranked`` (pks; every hit when None), as ``(rank, pk)``
    in the order of ``hits`` (``rounded``: see :func:`comparable`): its own rank plus
    :data:`~memstore.text.ranking.NEIGHBOUR_WEIGHTS` times the own ranks of the hits one and
    two messages away in its session (a message that is no hit adds nothing); and every
    hit's own rank by session and sequence. A hit left out of ``ranked`` only lends its own
    rank to its neighbours.

    Args:
        hits: ``(pk, session_id, sequence, own rank)`` of the hits: every hit within
            :data:`~memstore.text.ranking.REACH` of a ranked one must be among them, so that
            its rank is whole.
        ranked: The pks of the hits to rank.
        rounded: For own ranks summed from parts, some of them differences (a tier with a
            selection, whose parts may be derived or bounded: ``weighted_parts``); rounding
            every rank took 1.4 of the 10 ms a recall of "you" took at 20k.
    """
    hits = list(hits)
    near, far = NEIGHBOUR_WEIGHTS
    owns: OwnRanks = {}
    for _, session, sequence, score in hits:
        in_session = owns.get(session)
        if in_session is None:
            in_session = owns[session] = {}
        in_session[sequence] = score
    ranks = []
    for pk, session, sequence, score in hits:
        if ranked is None or pk in ranked:
            own = owns[session].get
            around = near * (own(sequence - 1, 0.0) + own(sequence + 1, 0.0))
            around += far * (own(sequence - 2, 0.0) + own(sequence + 2, 0.0))
            ranks.append((score + around, pk))
    if rounded:
        ranks = [(comparable(rank), pk) for rank, pk in ranks]
    return ranks, owns


def best_first(ranks: list[tuple[float, int]], first: int) -> Iterator[list[tuple[float, int]]]:
    """``ranks`` in ascending order (best rank first, then by pk), in batches of ``first``,
    then twice as many each time: the first batch picked without sorting them all, for a
    caller that stops after a page."""
    batch = heapq.nsmallest(first, ranks)
    if batch:
        yield batch
    if len(batch) == len(ranks):
        return
    ranks = sorted(ranks)
    start, size = first, 2 * first
    while start < len(ranks):
        yield ranks[start : start + size]
        start, size = start + size, size * 2
