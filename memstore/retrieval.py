"""Recall over history: ranked hits, user/assistant pairing, bounded results.

An assistant hit is shown with the user request before it (the closest completed user message,
past any further assistant messages, so the second part of a reply keeps its question), and
left out when there is none (an orphan reply). A user hit is shown with the completed reply
after it when there is one.
A hit already shown as part of an earlier conversation is not repeated. Conversations are
taken best first until ``limit`` of them are in, or the next one no longer fits the
character budget even clipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memstore.budget import fit_conversation, fit_memory, json_size
from memstore.repository.search import MessageHit
from memstore.schemas import Memory, Message, RecallConversation


@dataclass(frozen=True)
class Page:
    """Conversations that fit, and whether anything was clipped or left out."""

    conversations: list[RecallConversation]
    truncated: bool


def paired(hit: MessageHit) -> list[Message] | None:
    """The hit with its paired message in sequence order, or None for an orphan reply."""
    partner = hit.partner
    if hit.role == "assistant":
        if partner is None:
            return None
        return [Message.model_validate(partner), Message.model_validate(hit)]
    if partner is None or partner.role != "assistant":
        return [Message.model_validate(hit)]
    return [Message.model_validate(hit), Message.model_validate(partner)]


def conversations(hits: Iterable[MessageHit]) -> Iterable[RecallConversation]:
    """Each hit as a conversation, orphans and already-shown messages skipped."""
    shown: set[str] = set()
    for hit in hits:
        if hit.id in shown:
            continue
        messages = paired(hit)
        if messages is None:
            continue
        shown.update(message.id for message in messages)
        yield RecallConversation(
            session_id=hit.session_id,
            matched_id=hit.id,
            timestamp=hit.created_at,
            messages=messages,
        )


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
    candidates: Iterable[RecallConversation],
    *,
    limit: int,
    room: int,
    folded_terms: frozenset[str],
) -> Page:
    """Take conversations best first while they fit ``limit`` items and ``room`` characters.

    ``truncated`` reports the character budget only: a clipped message, or a conversation
    that no longer fit. Reaching ``limit`` is not truncation.
    """
    taken: list[RecallConversation] = []
    truncated = False
    for candidate in candidates:
        if len(taken) == limit:
            break
        separator = 1 if taken else 0
        fitted = fit_conversation(candidate, room - separator, folded_terms)
        if fitted is None:
            return Page(taken, True)
        truncated = truncated or fitted is not candidate
        taken.append(fitted)
        room -= json_size(fitted) + separator
    return Page(taken, truncated)
