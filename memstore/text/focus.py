"""Where a clip of a text centres: the first place a query word stands in it, as the index
folds it, or another form of one (its first letters)."""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Iterable

from memstore.text import cjk
from memstore.text.tokens import each_token_span, fold

WORD_CHARS = frozenset(string.ascii_lowercase + string.digits)  # a lowercased ASCII token's
FIND_TRIES = 8  # places an ASCII term is found and tested before a pattern searches on
FORM_MIN_CHARS = 4  # a clip's focus on another form of a word: its first letters, at least
FORM_CUT_CHARS = 3  # four kept and the last three cut ("paint" of "painting")


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
