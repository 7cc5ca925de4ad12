"""The hits of a tier read a page at a time, best rank first, each message with its text
and its pair partner's."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from memstore.repository.messages import (
    MESSAGE_COLUMNS,
    StoredMessage,
)
from memstore.repository.partners import partner_sql
from memstore.text import neighbours

# The messages of :pks (a JSON list) that can be shown, in its order, each with its pk and
# the pk of its pair partner: an assistant message without a partner, an orphan reply, is
# left out before its row is read (a recall over sessions of assistant messages only read
# and dropped every hit: 1.0 of its 1.5 s over 120,000 of them).
HIT_PAGE = f"""
    WITH page AS MATERIALIZED (
        SELECT page.key AS at, m.pk, m.role, {partner_sql("m")} AS partner_pk
        FROM json_each(:pks) AS page JOIN messages AS m ON m.pk = page.value)
    SELECT m.pk, m.id, m.session_id, m.sequence, m.role, m.content, m.created_at, m.status,
           m.source_ref, m.speaker, page.partner_pk
    FROM page JOIN messages AS m ON m.pk = page.pk
    WHERE page.role <> 'assistant' OR page.partner_pk IS NOT NULL
    ORDER BY page.at
"""


PARTNERS = (
    f"SELECT pk, {MESSAGE_COLUMNS} FROM messages WHERE pk IN (SELECT value FROM json_each(:pks))"
)


@dataclass(frozen=True)
class MessageHit(StoredMessage):
    """A message that matched a query, with its rank (its own weighted bm25 with its
    neighbours'; lower is better), its own rank, and its pair partner (see
    :data:`HIT_PAGE`), with the partner's own rank when the partner is a hit too. Only a
    user message may have no partner: an assistant message without one is an orphan reply,
    never a hit."""

    rank: float
    own_rank: float
    partner: StoredMessage | None
    partner_rank: float | None


def read_best_first(
    connection: sqlite3.Connection,
    ranks: list[tuple[float, int]],
    owns: neighbours.OwnRanks,
    first: int,
) -> Iterator[MessageHit]:
    """The messages of ``ranks`` (``(rank, pk)``), best first, orphan replies left out (see
    :data:`HIT_PAGE`), each with its own rank and its pair partner, with the partner's own
    rank (from ``owns``, which holds every hit's that is a partner of one of them: None for
    a partner that is no hit): read in batches, ``first`` hits, then twice as many each
    time, so that a caller that stops after a page reads that page's text only."""
    for batch in neighbours.best_first(ranks, first):
        rank_of = {pk: rank for rank, pk in batch}
        rows = connection.execute(HIT_PAGE, {"pks": json.dumps(list(rank_of))}).fetchall()
        partners = partners_by_pk(connection, [row[-1] for row in rows if row[-1]])
        for pk, *message, partner_pk in rows:
            hit = StoredMessage.from_row(message)
            partner = partners.get(partner_pk)
            yield MessageHit(
                **vars(hit),
                rank=rank_of[pk],
                own_rank=owns[hit.session_id][hit.sequence],
                partner=partner,
                partner_rank=None if partner is None else own_rank(owns, partner),
            )


def own_rank(owns: neighbours.OwnRanks, message: StoredMessage) -> float | None:
    """The message's own rank among ``owns``, or None."""
    return owns.get(message.session_id, {}).get(message.sequence)


def partners_by_pk(connection: sqlite3.Connection, pks: list[int]) -> dict[int, StoredMessage]:
    """The messages with these pks, by pk."""
    if not pks:
        return {}
    rows = connection.execute(PARTNERS, {"pks": json.dumps(pks)})
    return {pk: StoredMessage.from_row(message) for pk, *message in rows}
