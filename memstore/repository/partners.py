"""Who a message is shown with: the pair partner rule of recall, in SQL.

For an assistant reply, the closest user request before it, when that is completed and no
message between them was deleted (no sequence missing: found by review, a reply whose
request was deleted or interrupted was paired with an earlier, unrelated one); for an
assistant message that opens the talk (no user message before it, and no sequence missing
before it, where a deleted request would have been), the first completed user message after
it (its answer), when no message between them was deleted (found by review: an opening whose
answer was deleted was shown with a later, unrelated request); for a user message, the
next completed user or assistant message (a reply only if it is the assistant's and the
user message is its request, no other user message nor a deleted one between them: found
by review, a reply after an interrupted request was shown as the answer to the question
before).

The user messages before and after are seeks of revision 0007's partial index. An
opening's tests run only once its answer is found (in the select list, which SQLite does not
hoist, as it does a condition), no user message before it first: so a reply without a
request costs no read of its session, only an assistant message leading its session counts
the messages before it (a review timed 50 s for a recall over 2,000 replies after an
interrupted request, when the count ran for every answer after).
"""

from __future__ import annotations

from memstore.repository.messages import searchable_sql

PARTNER = """CASE {m}.role
             WHEN 'assistant' THEN coalesce(
               (SELECT CASE WHEN p.status = 'completed' AND {request_whole}
                            THEN p.pk END
                FROM messages AS p
                WHERE p.session_id = {m}.session_id AND p.role = 'user'
                  AND p.sequence < {m}.sequence
                ORDER BY p.sequence DESC LIMIT 1),
               (SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM messages AS s
                                             WHERE s.session_id = {m}.session_id
                                               AND s.role = 'user'
                                               AND s.sequence < {m}.sequence)
                             AND {m}.sequence - 1 = (SELECT count(*) FROM messages AS s
                                                     WHERE s.session_id = {m}.session_id
                                                       AND s.sequence < {m}.sequence)
                             AND {answer_whole}
                            THEN answer.pk END
                FROM (SELECT p.pk, p.sequence FROM messages AS p
                      WHERE p.session_id = {m}.session_id AND p.role = 'user'
                        AND p.sequence > {m}.sequence AND p.status = 'completed'
                      ORDER BY p.sequence LIMIT 1) AS answer))
             ELSE
               (SELECT CASE WHEN p.role = 'user'
                              OR NOT EXISTS (SELECT 1 FROM messages AS u
                                             WHERE u.session_id = {m}.session_id
                                               AND u.role = 'user'
                                               AND u.sequence > {m}.sequence
                                               AND u.sequence < p.sequence)
                                 AND {reply_whole}
                            THEN p.pk END
                FROM messages AS p
                WHERE p.session_id = {m}.session_id AND p.sequence > {m}.sequence
                  AND {searchable}
                ORDER BY p.sequence LIMIT 1)
           END"""
"""The partner expression, ``{m}`` the alias of the message, ``{searchable}`` the test
that a message ``p`` may be shown, and the ``..._whole`` tests that no message is missing
between it and its request ``p``, its answer, or its reply ``p`` (see :func:`none_missing`)."""


def none_missing(first: str, last: str) -> str:
    """The SQL test that no message is missing between the messages ``first`` and ``last``
    (aliases) of one session: as many messages between them as sequence numbers."""
    return f"""{last}.sequence - {first}.sequence - 1
                 = (SELECT count(*) FROM messages AS s
                    WHERE s.session_id = {first}.session_id
                      AND s.sequence > {first}.sequence AND s.sequence < {last}.sequence)"""


def partner_sql(m: str) -> str:
    """The SQL expression of the pk of the pair partner of the message ``m`` (an alias of
    ``messages``; see the module's rule)."""
    return PARTNER.format(
        m=m,
        searchable=searchable_sql("p"),
        request_whole=none_missing("p", m),
        answer_whole=none_missing(m, "answer"),
        reply_whole=none_missing(m, "p"),
    )
