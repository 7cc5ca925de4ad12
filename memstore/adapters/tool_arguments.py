"""The arguments of the memory tools, each described once, in its type.

Every parameter of :class:`~memstore.adapters.tools.MemoryTools` is annotated with one of
these ``Annotated`` types. Their ``Field(description=...)`` is the argument's description in
the JSON schema of every adapter: the MCP SDK and pydantic-ai both read it, so no docstring
repeats it. A Literal kind of :mod:`memstore.kinds` inside a type becomes the argument's
``enum``. Arguments that several tools share (the filters and the paging) are one type each.
Counts and switches are strict: ``true`` or ``"5"`` is refused, not read as 1 or 5, and
``"off"``, ``"yes"`` or ``1`` is no boolean (found by review: ``pinned: "off"`` unpinned).
A count may be a whole number written with a fraction, ``5.0``, which JSON Schema's
``integer`` allows and clients relaying a model's output send (found by review: refused).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field

from memstore.kinds import Category, Mode, Scope, SearchRole


def whole(value: object) -> object:
    """``value`` as an int when it is a float with no fraction and less than 2**63 (``5.0``
    is 5); anything else as given, for the strict check of a count (``5.5``, ``1e300``,
    ``true`` and ``"5"`` are refused: found by review, 1e300 was quoted as 301 digits)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


WHOLE = BeforeValidator(whole)
COUNTS = frozenset({"limit", "offset", "after"})
"""The tools' arguments that are counts, which :func:`whole` reads (``WHOLE``)."""
TIME_ZONE = "ISO 8601 time with a time zone, e.g. 2026-10-05T09:00:00+02:00"
CAPPED = "at most, and by default, the store's max_results"

# remember
Content = Annotated[
    str,
    Field(description='The fact, 1 to 4000 characters, e.g. "Diego prefers answers in Spanish".'),
]
NewCategory = Annotated[
    Category | None,
    Field(description="What the memory is about (fact for a new one; kept by an update)."),
]
Key = Annotated[
    str | None,
    Field(description="Optional stable key for a value that can change, e.g. response_language."),
]
UpdatedId = Annotated[
    str | None,
    Field(description="Id of an existing memory to update in place instead; empty means none."),
]
ExpiresAt = Annotated[
    str | None,
    Field(description="Optional ISO 8601 expiry; without a time zone it is local time."),
]

# recall
Query = Annotated[
    str, Field(description="Words to look for (at most 512 characters, 32 distinct words).")
]
QueryMode = Annotated[
    Mode,
    Field(
        description="any (any word), all (every word) or phrase (the words in a row; CJK text "
        "with punctuation or other letters, as written)."
    ),
]
MostResults = Annotated[
    int | None,
    Field(description=f"Most results ({CAPPED}).", strict=True),
    WHOLE,
]

# one memory
MemoryId = Annotated[str, Field(description="The id of the memory, from list_memories or recall.")]
Pinned = Annotated[bool, Field(description="True to pin, False to unpin.", strict=True)]

# list_memories
CategoryFilter = Annotated[Category | None, Field(description="Only memories of this category.")]
IncludeInactive = Annotated[
    bool, Field(description="Also superseded, unconfirmed and expired memories.", strict=True)
]

# search_words, word_instances
Prefix = Annotated[
    str, Field(description="The start of the words, one word or less (empty for every word).")
]
Word = Annotated[str, Field(description="Exactly one whole word (case and accents do not matter).")]
WordScope = Annotated[Scope, Field(description="history (conversations), memories, or all (both).")]

# paging
Offset = Annotated[
    int,
    Field(description="Where the page starts (a previous next_offset).", strict=True),
    WHOLE,
]
PageSize = Annotated[int | None, Field(description=f"Page size ({CAPPED}).", strict=True), WHOLE]

# the filters of recall and the word queries
SessionFilter = Annotated[str | None, Field(description="Only this conversation.")]
RoleFilter = Annotated[SearchRole | None, Field(description="Only messages by this role.")]
Since = Annotated[
    str | None, Field(description=f"Only records created at or after this {TIME_ZONE}.")
]
Until = Annotated[str | None, Field(description=f"Only records created before this {TIME_ZONE}.")]
Speaker = Annotated[
    str | None,
    Field(description="Only messages of the person of this name, as the log writes it."),
]

# reading
SessionId = Annotated[
    str, Field(description="The conversation's id, from recall or word_instances.")
]
After = Annotated[
    int,
    Field(
        description="Read messages after this sequence number (a previous next_after).",
        strict=True,
    ),
    WHOLE,
]
MessageId = Annotated[
    str,
    Field(
        description="The message's id, from recall, word_instances or read_conversation, "
        "or a memory's id."
    ),
]
CharacterOffset = Annotated[
    int,
    Field(description="Character offset to read from (a previous next_offset).", strict=True),
    WHOLE,
]
