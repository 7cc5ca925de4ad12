"""The enumerations of memstore, each defined once as a Literal type.

Everything else is derived from these: the CHECK constraints of the ORM models, the argument
checks of the service (:func:`memstore.arguments.checked` reads Literal annotations), the
click choices of the CLI and the ``enum`` of the agent tools' JSON schemas. :func:`values`
gives a Literal's members as a tuple, in order.
"""

from __future__ import annotations

import typing
from typing import Any, Literal

Role = Literal["user", "assistant", "system"]
"""Who wrote a message."""
SearchRole = Literal["user", "assistant"]
"""The roles whose completed messages are searchable (a filter of recall and word queries)."""
MessageStatus = Literal["completed", "interrupted", "error"]
"""How a message ended; only completed ones are searchable."""
Category = Literal["preference", "fact", "project", "goal", "other"]
"""What a memory is about."""
MemoryStatus = Literal["active", "superseded", "candidate", "expired"]
"""Where a memory is in its life; an active memory past its expiry is shown as ``expired``
(and marked so when a write meets it)."""
Origin = Literal["explicit", "extracted"]
"""Whether the user asked for a memory or an extractor proposed it (a candidate)."""
Mode = Literal["any", "all", "phrase"]
"""How recall combines the query's words."""
Scope = Literal["history", "memories", "all"]
"""Which records a word query reads."""
SourceType = Literal["message", "memory"]
"""The kind of record a word instance is in."""
SessionKind = Literal["live", "imported"]
"""Where a session came from: recorded turn by turn, or the session of one imported daily
log (whose original boundaries are unknown)."""
TransferFormat = Literal["jsonl", "markdown"]
"""How an export is written: one JSON record a line, or a folder of Markdown files."""
TransferScope = Literal["all", "memories"]
"""What an export holds: the whole store, or the memories only."""


def spoken(kind: Any) -> str:
    """The members of the Literal type ``kind`` as a person reads them: "a, b or c"."""
    *rest, last = values(kind)
    return f"{', '.join(rest)} or {last}" if rest else last


def values(kind: Any) -> tuple[str, ...]:
    """The members of the Literal type ``kind``, in order, e.g. ``("user", "assistant",
    "system")`` for :data:`Role`."""
    return tuple(typing.get_args(kind))
