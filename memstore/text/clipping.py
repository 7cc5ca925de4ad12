"""Fitting results into character budgets.

Recall sizes are characters of compact JSON (``model_dump_json()``), the text a host hands
to a model, so a message's content is clipped in characters of JSON (:func:`clip_json`): a
character JSON escapes (a quote, a backslash, a newline, a control character) costs what its
escape costs. Plain text, such as the context block, is clipped in characters (:func:`clip`).
Clipped text is marked: it ends with "…" (and starts with one when its beginning was cut),
and a clipped message carries ``truncated: true``.
"""

from __future__ import annotations

import functools
import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

from memstore.schemas import Memory, Message, RecallConversation
from memstore.text.focus import focus

ModelT = TypeVar("ModelT", bound=BaseModel)

ELLIPSIS = "…"
MIN_CLIP_CHARS = 40
MAX_FIT_ATTEMPTS = 6
SHORT_ESCAPES = frozenset('"\\\b\f\n\r\t')
ESCAPED = re.compile(r'[\x00-\x1f"\\]')  # the characters JSON escapes (see char_cost)


def json_size(model: BaseModel) -> int:
    """Characters of the model's compact JSON."""
    return len(model.model_dump_json())


def take_within(items: Sequence[ModelT], room: int, limit: int) -> list[ModelT]:
    """The leading items, at most ``limit``, whose JSON (with separators) fits ``room``
    characters; the first item always, so that a pager always moves on."""
    taken: list[ModelT] = []
    for item in items[:limit]:
        cost = json_size(item) + (1 if taken else 0)
        if taken and cost > room:
            break
        taken.append(item)
        room -= cost
    return taken


def fair_share(sizes: Sequence[int], room: int) -> int:
    """The largest share such that items of these sizes, each cut to at most the share, fit
    ``room`` together: small items keep their size and leave the rest to the large ones.

    Returns the largest size when everything fits; 0 for no items.
    """
    left = room
    for index, size in enumerate(sorted(sizes)):
        sharing = len(sizes) - index
        if size * sharing > left:
            return left // sharing
        left -= size
    return max(sizes, default=0)


def json_prefix(text: str, room: int) -> str:
    """The longest start of ``text`` whose JSON fits ``room`` characters (at least one
    character of a non-empty text, so that a reader always moves on)."""
    head = text[: max(room, 0)]  # every character costs at least 1
    fitting = bisect_right(json_spent(head), room) - 1
    return text if fitting == len(text) else text[: max(fitting, 1)]


def fill_dialogue(messages: Sequence[Message], room: int) -> list[Message]:
    """Messages in order while their JSON fits ``room``; the first one that does not fit is
    clipped to the room left and ends the page (the first message always, clipped if need
    be, so that a reader always moves on)."""
    taken: list[Message] = []
    for message in messages:
        separator = 1 if taken else 0
        cost = json_size(message) + separator
        if cost <= room:
            taken.append(message)
            room -= cost
            continue
        marked = message.model_copy(update={"content": "", "truncated": True})
        spare = room - separator - json_size(marked)
        if spare >= MIN_CLIP_CHARS or not taken:
            taken.append(clip_message(message, max(spare, 1), frozenset()))
        break
    return taken


def char_cost(char: str) -> int:
    """Characters ``char`` takes inside a JSON string (``\\n`` is 2, ``\\u0001`` is 6)."""
    if char in SHORT_ESCAPES:
        return 2
    return 6 if char < " " else 1


def json_spent(text: str) -> Sequence[int]:
    """Characters of JSON of each start of ``text``: item ``i`` is what ``text[:i]`` takes
    inside a JSON string (``len(text) + 1`` increasing items)."""
    if ESCAPED.search(text) is None:
        return range(len(text) + 1)
    costs = [1] * len(text)
    for escaped in ESCAPED.finditer(text):
        costs[escaped.start()] = char_cost(escaped[0])
    return list(itertools.accumulate(costs, initial=0))


@functools.lru_cache(maxsize=256)
def json_length(text: str) -> int:
    """Characters ``text`` takes inside a JSON string, without the quotes: its length, plus
    what each escaped character adds (see :func:`char_cost`). Cached: fitting a recall page
    asks it of the same contents about a hundred times."""
    return len(text) + sum(char_cost(char) - 1 for char in ESCAPED.findall(text))


def window(spent: Sequence[int], focus: int, room: int) -> tuple[int, int]:
    """The ``[start, end)`` of at most ``room`` cost around ``focus``: about a quarter of the
    room before it, the rest after, and any room left at the end of the text used before.
    ``spent[i]`` is the cost of the text's first ``i`` characters (increasing)."""
    room = max(room, 0)  # a negative room holds nothing, as 0 does
    start = bisect_left(spent, spent[focus] - room // 4, 0, focus)
    end = bisect_right(spent, spent[start] + room, focus, len(spent)) - 1
    return bisect_left(spent, spent[end] - room, 0, start), end


def clip_costed(text: str, spent: Sequence[int], limit: int, focus: int) -> str:
    """``text`` (whose first ``i`` characters cost ``spent[i]``) in at most ``limit`` cost
    around ``focus``, marked with "…" at the end, and at the start when the window does not
    begin the text."""
    if spent[-1] <= limit:
        return text
    start, end = window(spent, focus, limit - 1)
    if start > 0:
        start, end = window(spent, focus, limit - 2)
    lead = ELLIPSIS if start > 0 else ""
    return lead + text[start:end] + ELLIPSIS


def clip(text: str, limit: int, focus: int = 0) -> str:
    """At most ``limit`` characters of ``text``, keeping the part around ``focus``.

    Returns ``text`` itself when it fits; otherwise a window marked with "…" (at least the
    mark, so a ``limit`` under 2 can be exceeded).
    """
    return clip_costed(text, range(len(text) + 1), limit, focus)


def clip_json(text: str, limit: int, focus: int = 0) -> str:
    """:func:`clip`, with ``limit`` counted in characters of JSON (see :func:`char_cost`)."""
    return clip_costed(text, json_spent(text), limit, focus)


def clip_message(message: Message, limit: int, folded_terms: frozenset[str]) -> Message:
    """The message with its content clipped to ``limit`` characters of JSON around the first
    match."""
    if json_length(message.content) <= limit:
        return message
    content = clip_json(message.content, limit, focus(message.content, folded_terms))
    return message.model_copy(update={"content": content, "truncated": True})


def fit_memory(memory: Memory, room: int, folded_terms: frozenset[str]) -> Memory | None:
    """The memory clipped to at most ``room`` characters of JSON, or None if it cannot keep
    at least a few characters of its content."""
    if json_size(memory) <= room:
        return memory
    marked = memory.model_copy(update={"content": "", "truncated": True})
    # Whole, it needs "truncated":false, one character more than it has: clipped it must be
    # (found by review: marked truncated, it came back whole, without its "…").
    spare = min(room - json_size(marked), json_length(memory.content) - 1)
    if spare < MIN_CLIP_CHARS:
        return None
    centre = focus(memory.content, folded_terms)
    return marked.model_copy(update={"content": clip_json(memory.content, spare, centre)})


def fill_memories(memories: Sequence[Memory], room: int) -> list[Memory]:
    """Memories in order while their JSON fits ``room``; the first one that does not fit is
    clipped to the room left (see :func:`fit_memory`) and ends the page (the first memory
    always, clipped if need be, so that a pager always moves on)."""
    taken: list[Memory] = []
    for memory in memories:
        separator = 1 if taken else 0
        fitted = fit_memory(memory, room - separator, frozenset())
        if fitted is memory:
            taken.append(memory)
            room -= json_size(memory) + separator
            continue
        if fitted is not None or not taken:
            marked = memory.model_copy(update={"content": memory.content[:1], "truncated": True})
            taken.append(fitted or marked)
        break
    return taken


def allotments(conversation: RecallConversation, spare: int) -> dict[str, int]:
    """Characters of JSON each message may keep: the matched one whole when that leaves each
    other message a few characters (:data:`MIN_CLIP_CHARS`), the others the rest (issue 17: a
    matched message whole before its partner; found by review: a reply of 4,968 characters
    was clipped to keep a third of the room for a long request); else the others at least a
    third of ``spare`` (less if they need less), the matched one the rest."""
    matched = [m for m in conversation.messages if m.id == conversation.matched_id]
    others = [m for m in conversation.messages if m.id != conversation.matched_id]
    matched_need = sum(json_length(m.content) for m in matched)
    others_need = sum(json_length(m.content) for m in others)
    whole = matched_need + MIN_CLIP_CHARS * len(others) <= spare
    least = spare - matched_need if whole else spare // 3
    others_room = min(others_need, max(least, spare - matched_need)) if others else 0
    shares = {m.id: others_room // len(others) for m in others}
    shares[conversation.matched_id] = spare - sum(shares.values())
    return shares


def content_free_size(conversation: RecallConversation, size: int) -> int:
    """Characters of JSON of the conversation with every message's content clipped away
    and marked truncated, from its own JSON size ``size``: each content's JSON length goes,
    and each ``"truncated":false`` becomes ``"truncated":true``, one character shorter.

    Arithmetic instead of copying and serialising the models again: pydantic escapes a
    string's characters as :func:`json_length` counts them (tests check the two agree).
    """
    return size - sum(message_content_size(m) for m in conversation.messages)


def message_content_size(message: Message) -> int:
    """Characters of JSON a message takes beyond its content-free, truncated form."""
    return json_length(message.content) + (0 if message.truncated else 1)


def least_size(conversation: RecallConversation, size: int) -> int:
    """The fewest characters of JSON :func:`fit_conversation` can clip the conversation
    (whose JSON size is ``size``) to: its JSON with empty messages, plus a few characters
    of content and the character each message keeps back (found by review: one short, a
    conversation said to fit did not, and the page was left empty)."""
    return content_free_size(conversation, size) + MIN_CLIP_CHARS + len(conversation.messages)


def fit_conversation(
    conversation: RecallConversation, size: int, room: int, folded_terms: frozenset[str]
) -> RecallConversation | None:
    """The conversation (whose JSON size is ``size``) clipped to at most ``room``
    characters of JSON, or None if it cannot keep at least a few characters of its matched
    message."""
    if size <= room:
        return conversation
    base = content_free_size(conversation, size)
    # One character per message is kept back for a "truncated":false (a message left
    # whole), so that the first attempt fits instead of overflowing by that much.
    spare = room - base - len(conversation.messages)
    for _ in range(MAX_FIT_ATTEMPTS):
        if spare < MIN_CLIP_CHARS:
            return None
        shares = allotments(conversation, spare)
        clipped = [clip_message(m, shares[m.id], folded_terms) for m in conversation.messages]
        overflow = base + sum(map(message_content_size, clipped)) - room
        if overflow <= 0:
            return conversation.model_copy(update={"messages": clipped})
        spare -= overflow
    return None
