"""The speaker map of an import: each name a log's records can carry, mapped to its role."""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable

from memstore.arguments import valid_unicode
from memstore.errors import InvalidInput
from memstore.kinds import Role, spoken, values


def speaker_roles(speakers: Iterable[tuple[object, object]]) -> dict[str, str]:
    """Speaker key (:func:`speaker_key`) -> role, from (name, role) pairs: the one check of
    a speaker map, for the API's ``speakers`` and the CLI's ``--speaker NAME=ROLE`` alike.

    Raises:
        InvalidInput: If there are no speakers, a name is not text, is not valid Unicode
            (found by review: no record matched it, and nothing said why), could head no log
            record (:func:`~memstore.logs.write.heads_a_record`, the spaces around it left
            out: a tab or a bidi mark, which a log may hold, is no reason; found by review),
            a role is not user, assistant or system, or one name (compared by
            :func:`speaker_key`: without case, however its letters are typed) is given two
            roles.
    """
    roles: dict[str, str] = {}
    first: dict[str, str] = {}  # each key's name as first given, for a clash's message
    for given, role in speakers:
        name = checked_name(given)
        if role not in values(Role):
            raise InvalidInput(f"speaker {name!r}", f"is {role!r}; use {spoken(Role)}.")
        folded = speaker_key(name)
        if roles.get(folded, role) != role:
            shown, other = shown_apart(name, first[folded])
            raise InvalidInput(
                f"speaker {shown}",
                f"is given two roles: it is {other}, mapped to {roles[folded]} (names are "
                "compared without case, however their letters are typed).",
            )
        roles[folded] = str(role)
        first.setdefault(folded, name)
    if not roles:
        raise InvalidInput(
            "speakers", 'none given; map each speaker, e.g. "Diego=user", "Morgan=assistant".'
        )
    return roles


def shown_apart(name: str, other: str) -> tuple[str, str]:
    """The two names quoted, escaped when they look alike, their letters typed differently
    ("Jose\\u0301" and "Jos\\xe9": found by review, a message showed "José" twice)."""
    alike = unicodedata.normalize("NFC", name) == unicodedata.normalize("NFC", other)
    return (ascii(name), ascii(other)) if alike else (repr(name), repr(other))


@functools.lru_cache(maxsize=16384)
def speaker_key(name: str) -> str:
    """``name`` as speakers are matched: without spaces at either end, and compared as
    Unicode's canonical caseless match compares (decomposed, case-folded, composed again),
    so that "José" typed with a combining accent (as macOS writes file text and names) is
    the "José" of a log (found by review: its records were unknown), and "ΐ" still its own
    upper case (found by the next: composed before the fold, it was not). Cached: the
    speaker filter calls it for every distinct name stored, at each query (found by review:
    5,000 names of letters beyond ASCII took it from 9.4 to 15.7 ms)."""
    if name.isascii():  # the common case, as the speaker filter folds every name stored
        return name.strip().lower()
    decomposed = unicodedata.normalize("NFD", name.strip())
    return unicodedata.normalize("NFC", decomposed.casefold())


def checked_name(name: object) -> str:
    """``name`` as given, if it is text, valid Unicode (a shell argument's bytes
    that are not UTF-8 matched no record, and nothing said why: found by review) and can
    head a log record (:func:`~memstore.logs.write.heads_a_record`).

    Raises:
        InvalidInput: Otherwise.
    """
    # Imported here: the log writer imports memstore.files, which imports this module.
    from memstore.logs.write import heads_a_record

    if not isinstance(name, str):
        raise InvalidInput("speakers", f"has the name {name!r}; names are text.")
    if not valid_unicode(name):
        raise InvalidInput(
            "speaker", f"{name!r} holds text that is not valid Unicode; retype the name."
        )
    if not heads_a_record(name.strip()):  # a name with a colon would match no record
        raise InvalidInput(
            "speaker",
            f"{name!r} cannot head a log record; use 1-100 characters, no colon or line ending.",
        )
    return name
