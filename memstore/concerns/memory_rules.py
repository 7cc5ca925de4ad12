"""The fields of a memory write, checked: content, keys, duplicates and expiry.

Where they come from: the memory paragraphs of the Morgan design notes (keys of letters,
numbers, dots, hyphens and underscores; normalised duplicates reused; expiry read as local
time when it has no time zone and required to be in the future).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

from memstore.arguments import valid_unicode
from memstore.errors import InvalidInput
from memstore.kinds import Category, Origin
from memstore.times import in_utc, readable

MAX_CONTENT_CHARS = 4000
MAX_KEY_CHARS = 200
MAX_GIVEN_KEY_CHARS = 1000  # as given, before white space and separators are collapsed
UNDERSCORES = re.compile(r"_+")
WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Draft:
    """Validated fields of a memory write; None means "not given"."""

    content: str | None = None
    normalized: str | None = None
    category: Category | None = None
    key: str | None = None
    expires_at: datetime | None = None
    origin: Origin = "explicit"
    confidence: float = 1.0


class MemoryFields(TypedDict, total=False):
    """The fields ``remember`` takes as keyword arguments.

    Keys:
        category: ``preference``, ``fact``, ``project``, ``goal`` or ``other``; None or left
            out: ``fact`` for a new memory, its own for one reused, confirmed or updated.
        key: A semantic key such as ``response_language``: letters (with their marks),
            numbers, dots, hyphens and underscores once normalised; empty means none. New
            content under an active key supersedes the memory holding it.
        expires_at: ISO 8601 text or a datetime in the future, local time without a zone;
            empty means none. Expired memories leave recall, context and counts.
    """

    category: Category | None
    key: str | None
    expires_at: str | datetime | None


class MemoryChanges(TypedDict, total=False):
    """The fields ``update_memory`` takes as keyword arguments, as in :class:`MemoryFields`;
    one left out, or None, keeps its value."""

    category: Category | None
    key: str | None
    expires_at: str | datetime | None


@dataclass(frozen=True)
class Fields:
    """The fields of a memory write as given; None keeps (or leaves out) a field."""

    category: Category | None = None
    key: str | None = None
    expires_at: str | datetime | None = None

    @classmethod
    def of(cls, given: MemoryFields | MemoryChanges, category: Category | None = None) -> Fields:
        """The fields of keyword arguments ``given``, with ``category`` when none is given."""
        chosen = given.get("category", category)
        return cls(chosen, given.get("key"), given.get("expires_at"))


@dataclass(frozen=True)
class Origins:
    """Where a new memory comes from and what it replaces, as given to ``remember``."""

    supersedes: str | None = None
    origin: Origin = "explicit"
    confidence: float = 1.0
    source_message_id: str | None = None
    source_ref: str | None = None

    @classmethod
    def given(
        cls,
        supersedes: str | None,
        origin: Origin,
        confidence: float,
        source_message_id: str | None,
        source_ref: str | None,
    ) -> Origins:
        """The origins as ``remember`` takes them, a blank id none (see :func:`given_id`)."""
        ids = given_id(supersedes), given_id(source_message_id)
        return cls(ids[0], origin, confidence, ids[1], source_ref)


def given_id(memory_id: str | None) -> str | None:
    """An id as given to ``remember``: a blank one (empty or spaces) is none, as a blank key
    is (found by review: ``supersedes=""`` was an unknown id, where ``memory_id=""`` was
    none)."""
    return memory_id if memory_id and not memory_id.isspace() else None


def reject_secret_key(key: str) -> None:
    """Raise SecretRejected when ``key`` looks like a credential as given or as stored
    ("dop v1 ..." is kept "dop_v1_...", a DigitalOcean token: found by review, an import
    of memories scanned only the first).

    Raises:
        InvalidInput: For a key too long (:func:`normalize_key`), before any scan.
        SecretRejected: Naming ``key``, never the text.
    """
    from memstore.guard import reject_secrets

    stored = normalize_key(key) or ""  # its length first (see normalize_key)
    reject_secrets(key, "key")
    reject_secrets(stored, "key")


def refuse_keyed(key: str | None, content: str | None) -> None:
    """Raise SecretRejected when a memory's content is the credential its key names
    (:func:`memstore.guard.reject_keyed`), the key read as given ("wifiPassword" is two
    words) and as stored (once when they agree); nothing when either is missing."""
    if key and content:
        from memstore.guard import reject_keyed  # as draft imports the guard

        for form in dict.fromkeys((key, normalize_key(key))):
            if form:
                reject_keyed(form, content)


def draft(
    content: str | None,
    fields: Fields,
    now: datetime,
    origin: Origin = "explicit",
    confidence: float = 1.0,
) -> Draft:
    """Check the fields of a memory write.

    Raises:
        InvalidInput: For a bad confidence, content, key or expiry.
        SecretRejected: When the content or the key looks like it holds a credential.
    """
    if not 0.0 <= confidence <= 1.0:
        raise InvalidInput("confidence", f"is {confidence}; use a number from 0 to 1.")
    if content is not None and not valid_unicode(content):
        raise InvalidInput("content", "holds text that is not valid Unicode; retype it.")
    if content is not None and "\0" in content:  # SQLite's text functions stop at a NUL
        raise InvalidInput("content", "holds a NUL character (U+0000); remove it.")
    # The guard's detectors (detect-secrets) take a sixth of a second to import: only a
    # memory write pays for them, not every command that opens the service.
    from memstore.guard import reject_secrets

    cleaned = None if content is None else clean_content(content)
    if cleaned is not None:
        reject_secrets(cleaned, "content")
    if fields.key is not None:
        reject_secret_key(fields.key)
    refuse_keyed(fields.key, cleaned)
    return Draft(
        content=cleaned,
        normalized=None if cleaned is None else normalize_content(cleaned),
        category=fields.category,
        key=normalize_key(fields.key),
        expires_at=parse_expiry(fields.expires_at, now),
        origin=origin,
        confidence=confidence,
    )


def clean_content(content: str) -> str:
    """Content trimmed of surrounding white space.

    Raises:
        InvalidInput: If it is empty or over 4,000 characters after trimming, or holds
            nothing :func:`shown` (a zero-width space, a byte order mark, a Hangul filler).
    """
    trimmed = content.strip()
    if not any(shown(char) for char in trimmed):
        raise InvalidInput("content", "is empty; write the fact to remember.")
    if len(trimmed) > MAX_CONTENT_CHARS:
        raise InvalidInput(
            "content", f"is {len(trimmed)} characters; at most {MAX_CONTENT_CHARS} are allowed."
        )
    return trimmed


BLANK_SIGNS = set("\u115f\u1160\u3164\uffa0\u2800")  # Hangul fillers, the braille blank
SHOWN = {"Co", "Mc", "Me"}
"""Other categories that show: private use (a font's own glyph), spacing and enclosing
marks; and unassigned in this Python's Unicode data (newer emoji such as U+1FA77: found by
review, refused as empty), but for :func:`unassigned_blank`."""


def shown(char: str) -> bool:
    """Whether ``char`` shows as something: a letter, number, punctuation or symbol (or one
    of :data:`SHOWN`), not a blank one (:data:`BLANK_SIGNS`). Nonspacing marks alone,
    format and control characters, variation selectors show nothing (found by reviews: a
    zero-width space alone, then a Hangul filler or a lone combining accent, was stored as a
    memory nobody could read)."""
    category = unicodedata.category(char)
    if category == "Cn":  # newer than this Python's data, unless never to be drawn
        return not unassigned_blank(ord(char))
    return (category[0] in "LNPS" or category in SHOWN) and char not in BLANK_SIGNS


def unassigned_blank(point: int) -> bool:
    """Whether the unassigned code point ``point`` is one no font draws: a noncharacter
    (U+FDD0-U+FDEF, the last two of each plane) or reserved as ignorable (U+2065, U+FFF0-
    U+FFF8, the tag and variation planes' rest; found by review: each was stored as an
    empty-looking memory)."""
    noncharacter = 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE
    ignorable = (
        0x2060 <= point <= 0x206F or 0xFFF0 <= point <= 0xFFF8 or 0xE0000 <= point <= 0xE0FFF
    )
    return noncharacter or ignorable


def normalize_content(content: str) -> str:
    """The form duplicates are compared in: NFKC, case folded, white space collapsed, one
    final period dropped. Paraphrases stay different."""
    folded = unicodedata.normalize("NFKC", content).casefold()
    collapsed = WHITESPACE.sub(" ", folded).strip()
    return collapsed[:-1].rstrip() if collapsed.endswith(".") else collapsed


def normalize_key(key: str | None) -> str | None:
    """A semantic key as lowercase letters, numbers, dots, hyphens and underscores, or None
    when nothing is left ("Response Language" -> "response_language"). A letter's marks
    (Unicode category M: vowel signs, viramas, accents left combining) are part of it: as
    separators, they made "पति" (husband) and "पता" (address) the one key "पत" (found by
    review). A key stored before keeps its form.

    Raises:
        InvalidInput: If the key is over 200 characters (1,000 as given).
    """
    if key is None:
        return None
    if len(key) > MAX_GIVEN_KEY_CHARS:  # found by review: 40,000 characters took the guard 17 s
        raise InvalidInput(  # found by review: it named 1,000 as the limit, which is 200
            "key",
            f"is {len(key)} characters; give at most {MAX_GIVEN_KEY_CHARS}, and at most "
            f"{MAX_KEY_CHARS} once stored (lowercase, spaces and punctuation as one '_').",
        )
    folded = unicodedata.normalize("NFKC", key).casefold().strip()
    kept = "".join(char if key_char(char) else "_" for char in folded)
    normalized = UNDERSCORES.sub("_", kept).strip("_")
    if len(normalized) > MAX_KEY_CHARS:
        raise InvalidInput(
            "key",
            f"is {len(normalized)} characters once stored; use a short name, at most "
            f"{MAX_KEY_CHARS}.",
        )
    return normalized or None


def key_char(char: str) -> bool:
    """Whether ``char`` stays in a normalized key: a letter, a number, one of ``.-`` or a
    mark (see :func:`normalize_key`)."""
    return char.isalnum() or char in ".-" or unicodedata.category(char).startswith("M")


def parse_expiry(value: str | datetime | None, now: datetime) -> datetime | None:
    """An expiry time in UTC, or None for no (or an empty) expiry.

    Args:
        value: ISO 8601 text or a datetime; without a time zone it is local time.
        now: The current time, aware.

    Raises:
        InvalidInput: If it is not ISO 8601, leaves the years 1-9999 in UTC or the times
            SQLite reads (see :func:`~memstore.times.readable`), or is not in the future.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError as error:
            raise InvalidInput(
                "expires_at", f"{value!r} is not ISO 8601, e.g. 2026-12-31T18:00 or 2026-12-31."
            ) from error
    when = readable(in_utc(value, "expires_at"), "expires_at")  # naive: local time
    if when <= now:
        raise InvalidInput("expires_at", f"{when.isoformat()} is not in the future.")
    return when
