"""Fitting results into character budgets.

Sizes are characters of compact JSON (``model_dump_json()``), the text a host hands to a
model. Clipped text is marked: it ends with "…" (and starts with one when its beginning was
cut), and the message carries ``truncated: true``.
"""

from __future__ import annotations

from pydantic import BaseModel

from memstore.repository.fts_query import fold, token_spans
from memstore.schemas import Message, RecallConversation

ELLIPSIS = "…"
MIN_CLIP_CHARS = 40
MAX_FIT_ATTEMPTS = 6


def json_size(model: BaseModel) -> int:
    """Characters of the model's compact JSON."""
    return len(model.model_dump_json())


def first_match(text: str, folded_terms: frozenset[str]) -> int:
    """Character offset of the first token of ``text`` among ``folded_terms``, else 0."""
    for start, end in token_spans(text):
        if fold(text[start:end]) in folded_terms:
            return start
    return 0


def clip(text: str, limit: int, focus: int = 0) -> str:
    """At most ``limit`` characters of ``text``, keeping the part around ``focus``.

    Returns ``text`` itself when it fits; otherwise a window marked with "…".
    """
    if len(text) <= limit:
        return text
    start = max(0, min(focus - limit // 4, len(text) - limit + 2))
    lead = ELLIPSIS if start > 0 else ""
    room = max(0, limit - 1 - len(lead))
    return lead + text[start : start + room] + ELLIPSIS


def clip_message(message: Message, limit: int, folded_terms: frozenset[str]) -> Message:
    """The message with its content clipped to ``limit`` characters around the first match."""
    if len(message.content) <= limit:
        return message
    content = clip(message.content, limit, first_match(message.content, folded_terms))
    return message.model_copy(update={"content": content, "truncated": True})


def allotments(conversation: RecallConversation, spare: int) -> dict[str, int]:
    """Characters each message may keep: the matched one first, the rest share a third."""
    others = [m for m in conversation.messages if m.id != conversation.matched_id]
    others_total = sum(len(m.content) for m in others)
    others_room = min(others_total, spare // 3) if others else 0
    shares = {m.id: others_room // len(others) for m in others}
    shares[conversation.matched_id] = spare - sum(shares.values())
    return shares


def fit_conversation(
    conversation: RecallConversation, room: int, folded_terms: frozenset[str]
) -> RecallConversation | None:
    """The conversation clipped to at most ``room`` characters of JSON, or None if it cannot
    keep at least a few characters of its matched message."""
    if json_size(conversation) <= room:
        return conversation
    empty = [m.model_copy(update={"content": "", "truncated": True}) for m in conversation.messages]
    spare = room - json_size(conversation.model_copy(update={"messages": empty}))
    for _ in range(MAX_FIT_ATTEMPTS):
        if spare < MIN_CLIP_CHARS:
            return None
        shares = allotments(conversation, spare)
        clipped = [clip_message(m, shares[m.id], folded_terms) for m in conversation.messages]
        candidate = conversation.model_copy(update={"messages": clipped})
        overflow = json_size(candidate) - room
        if overflow <= 0:
            return candidate
        spare -= overflow
    return None
