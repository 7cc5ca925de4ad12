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
import string
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from pydantic import BaseModel

from memstore.schemas import Memory, Message, RecallConversation
from memstore.text import cjk
from memstore.text.tokens import each_token_span, fold

ModelT = TypeVar("ModelT", bound=BaseModel)

ELLIPSIS = "…"
MIN_CLIP_CHARS = 40
MAX_FIT_ATTEMPTS = 6
SHORT_ESCAPES = frozenset('"\\\b\f\n\r\t')
ESCAPED = re.compile(r'[\x00-\x1f"\\]')  # the characters JSON escapes (see char_cost)
WORD_CHARS = frozenset(string.ascii_lowercase + string.digits)  # a lowercased ASCII token's
FIND_TRIES = 8  # places an ASCII term is found and tested before a pattern searches on
FORM_MIN_CHARS = 4  # a clip's focus on another form of a word: its first letters, at least
FORM_CUT_CHARS = 3  # four kept and the last three cut ("paint" of "painting")


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


def first_found(text: str, folded_terms: frozenset[str], folded_text: str) -> int | None:
    """Character offset of the first token of ``text`` among ``folded_terms``, or of the
    first place of one of its CJK runs (as written: the index folds no CJK character), or
    None; ``folded_text`` is :func:`fold` of ``text``.

    A text whose fold holds none of the terms has no such token, and is not split:
    :func:`fold` of a text is the join of the folds of its characters.
    """
    runs = (term for term in folded_terms if cjk.is_cjk(term))
    found = [at for at in map(text.find, runs) if at >= 0]
    word = first_word(text, folded_terms, folded_text)  # a folded CJK character is a token
    return min([*found, *([] if word is None else [word])], default=None)


def focus(text: str, folded_terms: frozenset[str]) -> int:
    """Where a clip of ``text`` centres: its :func:`first_found`, else its first token that
    starts with a term's first letters (:func:`form_prefixes`), as another form of the word
    that recall's stem index matched would ("painted" for "painting"), else 0.

    The text is folded once for both."""
    folded_text = fold(text)
    found = first_found(text, folded_terms, folded_text)
    if found is None:
        found = first_form(text, form_prefixes(folded_terms), folded_text)
    return 0 if found is None else found


def form_prefixes(folded_terms: frozenset[str]) -> tuple[str, ...]:
    """The first letters of each term of ASCII letters (English, what porter stems): the last
    :data:`FORM_CUT_CHARS` cut, at least :data:`FORM_MIN_CHARS` kept."""
    return tuple(
        sorted(
            {
                term[: max(FORM_MIN_CHARS, len(term) - FORM_CUT_CHARS)]
                for term in folded_terms
                if term.isascii() and term.isalpha() and len(term) >= FORM_MIN_CHARS
            }
        )
    )


def first_form(text: str, prefixes: tuple[str, ...], folded_text: str) -> int | None:
    """Character offset of the first token of ``text`` whose fold starts with one of the
    ``prefixes``, or None (a text whose fold, ``folded_text``, holds none of them is not
    split)."""
    first = first_place(folded_text, prefixes)
    if first is None:
        return None
    start = walk_start(text, first)
    return first_token(text, lambda token: token.startswith(prefixes), start)


def first_place(folded_text: str, pieces: Iterable[str]) -> int | None:
    """The offset of the first of the ``pieces`` in ``folded_text``, or None."""
    return min((at for at in map(folded_text.find, pieces) if at >= 0), default=None)


def walk_start(text: str, folded_at: int) -> int:
    """Where a walk over the tokens of ``text`` can start to find every token whose fold
    starts at ``folded_at`` of :func:`fold` of ``text`` or after: the last space at or
    before that offset, else 0. Each character folds to one character or none, so such a
    token starts there or after in ``text`` too; a space is never inside a token, so the
    tokens after it are the text's own."""
    return max(text.rfind(" ", 0, folded_at + 1), 0)


def first_token(text: str, wanted: Callable[[str], bool], start: int = 0) -> int | None:
    """Character offset of the first token of ``text`` from ``start`` (see
    :func:`~memstore.text.tokens.each_token_span`) whose fold is ``wanted``, or None.

    The tokens are found and folded one at a time, and the walk stops at the first one
    wanted: recall's clips ask this of each message of a page, where a match is most often
    near the start.
    """
    spans = each_token_span(text, start)
    return next((start for start, end in spans if wanted(fold(text[start:end]))), None)


def first_word(text: str, folded_terms: frozenset[str], folded_text: str) -> int | None:
    """Character offset of the first token of ``text`` among ``folded_terms``, or None
    (``folded_text`` as :func:`first_found` takes it).

    An ASCII text is searched directly, in its fold: its tokens are its runs of ASCII letters
    and digits, folded by lowercasing, so a term is found where it stands between two other
    characters. A term holding anything but ASCII letters and digits is no such token
    (``:0``).
    """
    if text.isascii():
        terms = (term for term in folded_terms if term.isascii() and term.isalnum())
        found = (ascii_word_at(folded_text, term) for term in terms)
        return min((at for at in found if at is not None), default=None)
    first = first_place(folded_text, folded_terms)
    if first is None:
        return None
    return first_token(text, folded_terms.__contains__, walk_start(text, first))


def ascii_word_at(folded_text: str, term: str) -> int | None:
    """Offset of the first place the ASCII ``term`` stands as a whole token in the
    lowercased ASCII ``folded_text`` (no ASCII letter or digit next to it), or None.

    The first :data:`FIND_TRIES` places the term is found are tested in turn: compiling a
    pattern for each word of a recall (:func:`ascii_word`) took 33 µs a word, most of what
    finding it in the page's ASCII messages cost. A text where the term is found inside
    longer tokens more often than that is searched with the pattern from there."""
    at = folded_text.find(term)
    for _ in range(FIND_TRIES):
        if at < 0:
            return None
        end = at + len(term)
        if (
            folded_text[at - 1 : at] not in WORD_CHARS
            and folded_text[end : end + 1] not in WORD_CHARS
        ):
            return at
        at = folded_text.find(term, at + 1)
    if at < 0:
        return None
    match = ascii_word(term).search(folded_text, at)
    return None if match is None else match.start()


@functools.lru_cache(maxsize=256)
def ascii_word(term: str) -> re.Pattern[str]:
    """Finds the ASCII ``term`` as a whole token of a lowercased ASCII text."""
    return re.compile(rf"(?<![a-z0-9]){re.escape(term)}(?![a-z0-9])")


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
    spare = room - json_size(marked)
    if spare < MIN_CLIP_CHARS:
        return None
    centre = focus(memory.content, folded_terms)
    return marked.model_copy(update={"content": clip_json(memory.content, spare, centre)})


def allotments(conversation: RecallConversation, spare: int) -> dict[str, int]:
    """Characters of JSON each message may keep: the others at least a third of ``spare``
    (less if they need less) and whatever the matched one does not need; the matched one the
    rest."""
    matched = [m for m in conversation.messages if m.id == conversation.matched_id]
    others = [m for m in conversation.messages if m.id != conversation.matched_id]
    matched_need = sum(json_length(m.content) for m in matched)
    others_need = sum(json_length(m.content) for m in others)
    others_room = min(others_need, max(spare // 3, spare - matched_need)) if others else 0
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
    of content."""
    return content_free_size(conversation, size) + MIN_CLIP_CHARS


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
