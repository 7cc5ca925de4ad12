"""The speakers a query names: known speakers' names among its words, which rank their
messages higher (a signal, not a filter)."""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from typing import get_args
from unicodedata import normalize

from memstore.kinds import Mode, Role
from memstore.speakers import speaker_key
from memstore.text import cjk
from memstore.text.fts_query import LONG_RUN_CHARS
from memstore.text.tokens import word_spans

# The names among :names that some message's speaker goes by (through its partial index).
NAMED_SPEAKERS = (
    "SELECT DISTINCT speaker FROM messages "
    "WHERE speaker IS NOT NULL AND speaker IN (SELECT value FROM json_each(:names))"
)


SPACES = re.compile(r"(\s+)")
# What an apostrophe joins to a name: "'s" and English contractions in any case, Turkish
# endings ("'nin", "'da", "'ya", "'yle", "'ler", "'deki", "'inki"), not a word of its own
# ("O'Neill", "nell'orto": found by the re-check; the endings, by the next)
VOWEL = "[\u0131iu\u00fc]"  # Turkish's dotless and dotted i, u and u with diaeresis
ENDINGS = (
    rf"s|ll|d|ve|re|n?{VOWEL}n|{VOWEL}nki|[dt][ae](?:n|ki)?|y?[ae]|y?{VOWEL}|y?l[ae]|l[ae]r"
    rf"|[dt]{VOWEL}r"
)
POSSESSIVE = re.compile(rf"['\u2019](?:{ENDINGS})\b", re.IGNORECASE)
NAME_WORDS = 3  # a speaker's name is looked for in up to three adjacent words ("Mary Ann Lee")
CJK_NAME_CHARS = range(2, 5)  # and in a CJK run, as any 2 to 4 of its characters in a row
ROLE_WORDS = frozenset(get_args(Role))  # a recorder's default names: "User" names no person


def named_speakers(connection: sqlite3.Connection, query: str) -> str:
    """The speakers' names (a JSON list) that words of ``query`` are, without case: each word,
    each run of up to :data:`NAME_WORDS` adjacent words as written between them ("Mary
    Ann", "O'Brien"), and each 2 to 4 adjacent characters of a CJK run, where a name stands
    without spaces ("王小明什么时候去的"; found by review), each in its case forms
    (:func:`case_forms`) and typings (:func:`typings`); a role's own word ("user") never is
    one."""
    spans = word_spans(query)
    candidates = {
        query[start:end]: None
        for at, (start, _) in enumerate(spans)
        for _, end in spans[at : at + NAME_WORDS]
    }
    for start, end in spans:
        if cjk.is_cjk(query[start:end]):
            candidates.update(dict.fromkeys(cjk_pieces(query[start:end])))
    forms = [typed for name in candidates for form in case_forms(name) for typed in typings(form)]
    names = json.dumps([name for name in forms if name.casefold() not in ROLE_WORDS])
    return json.dumps([name for (name,) in connection.execute(NAMED_SPEAKERS, {"names": names})])


def case_forms(name: str) -> list[str]:
    """``name`` as written and, beyond ASCII, with each of its words as written, in lower or
    upper case or capitalised (:func:`word_cases`; a name of more than :data:`NAME_WORDS`
    pieces between spaces, cased whole): the forms a stored name that an import takes for it
    is written in, as a rule, each looked up through the speaker index, whose NOCASE folds
    A-Z only. A rank signal on every recall, so a few index lookups, not a walk of every
    stored name (found by review: 7 ms a recall with 5,000 speakers); a form left out (an ß
    for "ss") only goes without the signal, and the speaker filter finds every form
    (:data:`~memstore.repository.messages.SPEAKER_NAMES`). At most 64 forms (found by the
    next review: every space between two words counted as a word, and a run of 12 spaces
    made 4**12 forms, 19 s a recall)."""
    if name.isascii():
        return [name]
    pieces = SPACES.split(name)  # the words at even places, the spaces between them at odd
    if len(pieces) > 2 * NAME_WORDS - 1:
        pieces = [name]
    options = [word_cases(piece) if at % 2 == 0 else (piece,) for at, piece in enumerate(pieces)]
    return list(dict.fromkeys("".join(parts) for parts in itertools.product(*options)))


def typings(name: str) -> list[str]:
    """``name`` as written, with its accents composed (NFC) and decomposed (NFD): the two
    ways a log holds an accented letter (macOS writes "Jose\u0301"), which the import and the
    speaker filter take for one name (:func:`~memstore.speakers.speaker_key`) and the index
    lookup does not (found by review: the signal missed a name typed the other way)."""
    if name.isascii():
        return [name]
    return list(dict.fromkeys((name, *(normalize(form, name) for form in ("NFC", "NFD")))))


def word_cases(word: str) -> tuple[str, ...]:
    """``word`` as written, and beyond ASCII in lower and upper case and capitalised, less a
    form that folds otherwise: NOCASE would take it for another speaker's name, whom an
    import tells apart ("Ayd\u0131n" upper-cased is AYDIN, NOCASE's Aydin; found by review,
    then within a name of two words, then within a word that stays beyond ASCII:
    "K\u0131l\u0131\u00e7" upper-cased is KILI\u00c7). One that folds the same is kept
    ("Strau\u00df" upper-cased is STRAUSS, whom an import takes for him)."""
    if word.isascii():
        return (word,)  # NOCASE finds it in any case
    folded = word.casefold()
    forms = (word, word.lower(), word.upper(), word.capitalize())
    return tuple(dict.fromkeys(form for form in forms if form.casefold() == folded))


def cjk_pieces(run: str) -> Iterator[str]:
    """Each :data:`CJK_NAME_CHARS` characters in a row of a CJK ``run``."""
    for size in CJK_NAME_CHARS:
        for start in range(len(run) - size + 1):
            yield run[start : start + size]


def searched_text(
    connection: sqlite3.Connection, query: str, mode: Mode, named: str | None = None
) -> str:
    """The text whose words a recall in ``mode`` searches: ``query``, the names of speakers
    it holds (``named``, the JSON list :func:`named_speakers` gives, looked up when not
    given and needed) blanked out in ``all`` mode (see :func:`without_names`), and set apart
    from the CJK characters around them in ``any`` mode (see :func:`names_apart`)."""
    glued = mode == "any" and cjk.holds_cjk(query)
    if mode != "all" and not glued:
        return query
    names = json.loads(named if named is not None else named_speakers(connection, query))
    return without_names(query, names) if mode == "all" else names_apart(query, names)


def names_apart(query: str, names: Sequence[str]) -> str:
    """``query`` with each of the CJK ``names`` that stands inside a run of up to
    :data:`~memstore.text.fts_query.LONG_RUN_CHARS` CJK characters set apart by spaces: such
    a run is searched whole, so a name glued to a word made one phrase no message holds
    (found by review: "李雷电影" found nothing in ``any`` mode, where ``all`` found 李雷's
    messages about 电影). A longer run is searched as its pairs, which the name's own pair
    and the word's are among; split, its rest of three or four characters was one phrase
    again ("李雷的电影": found by the next review)."""
    glued = sorted((name for name in names if cjk.is_cjk(name)), key=len, reverse=True)
    if not glued:
        return query
    pattern = re.compile("|".join(map(re.escape, glued)))
    parts: list[str] = []
    at = 0
    for start, end in word_spans(query):
        run = query[start:end]
        if cjk.is_cjk(run) and len(run) <= LONG_RUN_CHARS:
            parts += [query[at:start], pattern.sub(r" \g<0> ", run)]
            at = end
    return "".join([*parts, query[at:]])


def without_names(query: str, names: Sequence[str]) -> str:
    """``query`` with the speakers' ``names`` it holds (as :func:`named_speakers` finds
    them, compared by :func:`~memstore.speakers.speaker_key`) blanked out, for the words
    an ``all``-mode recall requires: a name counts as its speaker, a signal, not as a word
    each message must hold (found by review: "Caroline support group" missed Caroline's own
    message), in any case, as questions are often typed ("мария": found by review; so a
    speaker Will makes "will" no required word), with its possessive ("Caroline's": found
    by the next). ``query`` itself when nothing else would be left, or no name is in it."""
    folded = {speaker_key(name) for name in names}
    if not folded:
        return query
    blanked = list(query)
    spans = word_spans(query)
    for at, (start, _) in enumerate(spans):
        for _, end in spans[at : at + NAME_WORDS]:
            if speaker_key(query[start:end]) in folded:
                end = possessive.end() if (possessive := POSSESSIVE.match(query, end)) else end
                blanked[start:end] = " " * (end - start)
    for start, end in spans:  # a CJK run's pieces, each keyed too: NFC turns a compatibility
        if not cjk.is_cjk(query[start:end]):  # ideograph into its unified one (re-check)
            continue  # found by the next: "Al" was blanked inside "Alice" and "salad"
        pieces = cjk_pieces(query[start:end])
        for name in {piece for piece in pieces if speaker_key(piece) in folded}:
            place = query.find(name, start, end)
            while place >= 0:
                blanked[place : place + len(name)] = " " * len(name)
                place = query.find(name, place + len(name), end)
    rest = "".join(blanked)
    return rest if word_spans(rest) else query
