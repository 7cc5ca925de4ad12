"""Recall over history: ranked hits, user/assistant pairing, bounded results.

An assistant hit is shown with the user request before it (the closest completed user message,
past any further assistant messages, so the second part of a reply keeps its question). An
assistant hit with no user message before it in its session, and no sequence number missing
before it (a deleted message leaves a gap), opens the talk (a greeting, a reminder, the other
person of a two-person log speaking first): it is shown with its answer, the first completed
user message after it, as the matched message of the two. Any other assistant hit without a
request before it is an orphan reply, left out. A user hit is shown with the completed reply
after it when there is one. When the partner is a hit too and ranks better on its own, it is
the conversation's matched message (the pair ranks by the hit that brought it). A hit already
shown as part of an earlier conversation is not repeated, and no message is the matched one
of two; a message may show more than once only as context: the request of each part of a
reply, or the answer of each part of an opening (which, a hit itself, still comes with its
own reply). The best ``limit``
conversations share the character budget: whole when they fit, else each clipped to a fair
share, so that one long message does not crowd out the rest of the page; the worst ones are
left out only when the budget cannot keep a few characters of each. The page's memories
come first, and take at most half the budget when the conversations do not fit beside them
(:func:`memory_share`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memstore.repository.hit_pages import MessageHit
from memstore.repository.messages import StoredMessage
from memstore.schemas import Memory, Message, RecallConversation, RecallResult
from memstore.text.clipping import fair_share, fit_conversation, fit_memory, json_size, least_size


@dataclass(frozen=True)
class Page:
    """Conversations that fit, and whether anything was clipped or left out."""

    conversations: list[RecallConversation]
    truncated: bool


def shown_with(hit: MessageHit) -> list[StoredMessage]:
    """The messages of the hit's conversation in sequence order: an assistant hit with its
    partner (the repository leaves out orphan replies, which have none), a user hit with the
    reply after it, if any."""
    partner = hit.partner
    if partner is None or (hit.role == "user" and partner.role != "assistant"):
        return [hit]
    return sorted((partner, hit), key=lambda message: message.sequence)


def opens(hit: MessageHit) -> bool:
    """Whether the hit is an opening shown with its answer (a partner after it)."""
    partner = hit.partner
    return hit.role == "assistant" and partner is not None and partner.sequence > hit.sequence


def conversations(hits: Iterable[MessageHit]) -> Iterable[RecallConversation]:
    """Each hit as a conversation, already-shown hits skipped; no message is
    the matched one of two conversations. An opening's answer is its context only: it is
    not counted as shown, so that, a hit itself, it still comes with its own reply."""
    shown: set[str] = set()
    for hit in hits:
        if hit.id in shown:
            continue
        messages = shown_with(hit)
        opening = opens(hit)
        matched = hit if opening else better_matched(hit, shown)
        shown.update([hit.id] if opening else (message.id for message in messages))
        yield RecallConversation(
            session_id=hit.session_id,
            matched_id=matched.id,
            timestamp=matched.created_at,
            messages=[Message.model_validate(message) for message in messages],
        )


def better_matched(hit: MessageHit, shown: set[str]) -> StoredMessage:
    """The hit, or its partner when the partner is shown with it (see :func:`shown_with`),
    is not on the page already (``shown``), and is a hit with a better own rank."""
    partner, rank = hit.partner, hit.partner_rank
    if partner is None or rank is None or partner.role == hit.role or partner.id in shown:
        return hit
    return partner if rank < hit.own_rank else hit


def fitted(
    memories: list[Memory],
    conversations: list[RecallConversation],
    *,
    limit: int,
    room: int,
    folded_terms: frozenset[str],
) -> RecallResult:
    """The recall page of these memories and the best ``limit`` conversations (best first)
    within ``room`` characters of JSON: the memories their share (:func:`memory_share`), the
    conversations the rest (:func:`fill_page`); ``truncated`` when anything was clipped or
    left out for the budget (reaching ``limit`` is not truncation)."""
    chosen = conversations[:limit]
    sizes = [json_size(conversation) for conversation in chosen]  # serialised once
    memory_room = memory_share(memories, sizes, room)
    kept, left, clipped = fill_memories(memories, room=memory_room, folded_terms=folded_terms)
    page = fill_page(chosen, sizes, room=room - memory_room + left, folded_terms=folded_terms)
    return RecallResult(
        memories=kept, conversations=page.conversations, truncated=clipped or page.truncated
    )


def memory_share(memories: list[Memory], sizes: list[int], room: int) -> int:
    """The characters of JSON the memories of a page may take of its ``room``, beside
    conversations of JSON ``sizes``: all they need when the conversations fit beside them,
    else at most half, or what the conversations leave, whichever is more (found by review:
    two long memories took the whole page, and the conversation that matched the words best
    was left out)."""
    needed = sum(map(json_size, memories)) + max(len(memories) - 1, 0)
    if not sizes:
        return room
    talk = sum(sizes) + len(sizes) - 1
    return min(needed, max(room // 2, room - talk))


def fill_memories(
    memories: Iterable[Memory], *, room: int, folded_terms: frozenset[str]
) -> tuple[list[Memory], int, bool]:
    """Memories best first while they fit ``room`` characters of JSON: those taken, the room
    left, and whether one was clipped or left out."""
    taken: list[Memory] = []
    for memory in memories:
        separator = 1 if taken else 0
        fitted = fit_memory(memory, room - separator, folded_terms)
        if fitted is None:
            return taken, room, True
        taken.append(fitted)
        room -= json_size(fitted) + separator
    return taken, room, any(memory.truncated for memory in taken)


def fill_page(
    chosen: list[RecallConversation],
    sizes: list[int],
    *,
    room: int,
    folded_terms: frozenset[str],
) -> Page:
    """The ``chosen`` conversations (best first; their JSON ``sizes``) within ``room``
    characters, each clipped no more than it must be.

    Conversations that fit together are taken whole. Otherwise every one gets an even share
    of the room, a short one giving what it does not need to the longer ones (see
    :func:`fair_share`), so one long message cannot crowd the others out; when even that
    cannot keep a few characters of every matched message, the worst conversations are left
    out. A conversation whose share cannot keep a few characters of its pair shows its
    matched message alone, if that fits, before a worse conversation is left out (see
    :func:`matched_alone`). A conversation that cannot fit the room even alone is left out
    first, so that it leaves no worse one out (found by review: an oversized best hit left
    the page empty). ``truncated`` reports the character budget only: a clipped message, or
    a message or conversation left out.
    """
    oversized = too_large(chosen, sizes, room)
    if oversized:
        kept = [at for at in range(len(chosen)) if at not in oversized]
        rest = [chosen[at] for at in kept], [sizes[at] for at in kept]
        return Page(fill_page(*rest, room=room, folded_terms=folded_terms).conversations, True)
    for count in range(fitting_count(chosen, sizes, room), 0, -1):
        fitted = fit_shares(chosen[:count], sizes[:count], room, folded_terms)
        if fitted is not None:
            fitted = spend_leftover(chosen, sizes, fitted, room, folded_terms)
            clipped = any(new is not old for new, old in zip(fitted, chosen, strict=False))
            return Page(fitted, clipped or count < len(chosen))
    return Page([], bool(chosen))


def too_large(chosen: list[RecallConversation], sizes: list[int], room: int) -> set[int]:
    """The places among ``chosen`` (of JSON ``sizes``) of the conversations that cannot fit
    ``room`` characters even alone (see :func:`least_of`); none when all fit together."""
    if sum(sizes) + len(sizes) - 1 <= room:
        return set()
    least = [least_of(c, size, room) for c, size in zip(chosen, sizes, strict=True)]
    return {at for at, needed in enumerate(least) if needed > room}


def matched_alone(conversation: RecallConversation) -> RecallConversation | None:
    """The conversation with its matched message alone, None when it holds no other: for a
    share of a page that cannot hold its pair (found by review: a log folder's path of 379
    characters, in each message's source reference, left every page of a 1,024-character
    budget empty; and the next review: a conversation with a long reply took the room of
    the next one's matched message, which the page then left out)."""
    if len(conversation.messages) == 1:
        return None
    alone = [m for m in conversation.messages if m.id == conversation.matched_id]
    return conversation.model_copy(update={"messages": alone})


def fitting_count(chosen: list[RecallConversation], sizes: list[int], room: int) -> int:
    """How many of the leading conversations can share ``room`` characters, each clipped
    to its fair share no further than :func:`least_size` allows."""
    if sum(sizes) + len(sizes) - 1 <= room:
        return len(chosen)
    alone: dict[int, int] = {}  # the least of each whose own passes a share, once

    def least(at: int, share: int) -> int:
        if at not in alone:
            needed = least_of(chosen[at], sizes[at], share)
            if needed <= share:
                return needed
            alone[at] = needed
        return alone[at]

    for count in range(len(chosen), 0, -1):
        share = fair_share(sizes[:count], room - count + 1)
        if all(least(at, share) <= share for at in range(count)):
            return count
    return 0


def least_of(conversation: RecallConversation, size: int, within: int) -> int:
    """The fewest characters of JSON the conversation (of JSON ``size``) can take, whole or
    clipped (see :func:`least_size`), when that is at most ``within``; else the fewest it or
    its matched message alone can take, whole (:func:`least_size` is more than a short
    message takes whole: found by review, a page then held nothing) or clipped. The matched
    message alone, a copy and a serialisation of the conversation, is only made then: for
    every conversation of every page, it took a tenth of a rare word's recall."""
    own = min(size, least_size(conversation, size))
    alone = None if own <= within else matched_alone(conversation)
    if alone is None:
        return own
    alone_size = json_size(alone)
    return min(own, alone_size, least_size(alone, alone_size))


def spend_leftover(
    chosen: list[RecallConversation],
    sizes: list[int],
    fitted: list[RecallConversation],
    room: int,
    folded_terms: frozenset[str],
) -> list[RecallConversation]:
    """``fitted`` (the leading ``chosen`` conversations, of JSON ``sizes``, fitted to their
    shares of ``room``) with the room their shares left unused given, best conversation
    first, to those shown with their matched message alone: each is fitted again with its
    pair to its own size plus the room left, and kept so when that keeps at least as much
    of its matched message (found by review: with 1,600 characters of the page unused, two
    matched messages were left out of their pairs, their shares too small to hold them).
    The clipped ones keep their shares: a share is even, or more (:func:`fair_share`)."""
    alone = [
        at
        for at, (conversation, current) in enumerate(zip(chosen, fitted, strict=False))
        if len(current.messages) < len(conversation.messages)
    ]
    if not alone:
        return fitted
    left = room - sum(map(json_size, fitted)) - len(fitted) + 1
    spent = list(fitted)
    for at in alone:
        conversation, size, current = chosen[at], sizes[at], fitted[at]
        if left <= 0:
            break
        used = json_size(current)
        wider = fit_conversation(conversation, size, used + left, folded_terms)
        if wider is not None and keeps_matched(wider, current):
            spent[at] = wider
            left -= json_size(wider) - used
    return spent


def keeps_matched(wider: RecallConversation, current: RecallConversation) -> bool:
    """Whether ``wider`` shows the matched message as ``current`` does, or more of it: whole
    when ``current`` has it whole (found by the re-check: counting characters, "…" marks
    included, took a matched message clipped by two line feeds for one shown whole)."""
    old, new = (next(m for m in c.messages if m.id == c.matched_id) for c in (current, wider))
    if not old.truncated:
        return not new.truncated
    return not new.truncated or len(new.content) >= len(old.content)


def fit_shares(
    conversations: list[RecallConversation],
    sizes: list[int],
    room: int,
    folded_terms: frozenset[str],
) -> list[RecallConversation] | None:
    """Every conversation clipped to its fair share of ``room`` characters (separators
    counted), its matched message alone when its pair does not fit the share, or None if
    one cannot keep a few characters of its matched message."""
    share = fair_share(sizes, room - len(conversations) + 1)
    fitted = []
    for conversation, size in zip(conversations, sizes, strict=True):
        clipped = fit_conversation(conversation, size, share, folded_terms)
        alone = matched_alone(conversation) if clipped is None else None
        if alone is not None:
            clipped = fit_conversation(alone, json_size(alone), share, folded_terms)
        if clipped is None:
            return None
        fitted.append(clipped)
    return fitted
