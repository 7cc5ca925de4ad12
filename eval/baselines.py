"""The bm25 baselines of the eval, over single turns, each with the two measures memstore gets.

- ``plain``: rank-bm25's BM25Okapi over each turn's words, tokenized and folded like the index
  (unicode61 word tokens, case- and accent-folded): what a user would write first.
- ``careful``: the same with English Snowball stems, memstore's stopword list dropped, and the
  speaker's name added to each turn's words: what a careful user would write.

A ranker returns its top ``limit`` turns (**matched**) and, for **seen**, those turns with each
one's pair partner as memstore pairs them: an assistant turn's closest user turn before it in
its log, a user turn's next turn when that is the assistant's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import snowballstemmer
from rank_bm25 import BM25Okapi

from memstore.text import stopwords
from memstore.text.tokens import fold, tokenize


@dataclass(frozen=True)
class Turn:
    """One turn of a log: its absolute source reference, file, speaker, role and text."""

    ref: str
    file: str
    speaker: str
    role: str
    content: str


Ranker = Callable[[str], tuple[set[str], set[str]]]
"""A question -> (the source references of the top turns, those with their partners)."""


def plain_words(text: str) -> list[str]:
    """Word tokens of ``text`` folded as the index folds them."""
    return [fold(token) for token in tokenize(text)]


@functools.cache
def folded_stopwords() -> frozenset[str]:
    return frozenset(map(fold, stopwords.WORDS))


@functools.cache
def stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


def careful_words(text: str) -> list[str]:
    """Folded words of ``text`` without stopwords, each as its English Snowball stem."""
    kept = [word for word in plain_words(text) if word not in folded_stopwords()]
    return list(stemmer().stemWords(kept))


def partners(turns: Sequence[Turn]) -> dict[str, str]:
    """Each turn's pair partner (source reference to source reference), where it has one."""
    found: dict[str, str] = {}
    last_user: dict[str, str] = {}
    for turn, following in zip(turns, [*turns[1:], None], strict=True):
        if turn.role == "assistant" and turn.file in last_user:
            found[turn.ref] = last_user[turn.file]
        if turn.role == "user":
            last_user[turn.file] = turn.ref
            replied = following is not None and following.file == turn.file
            if replied and following is not None and following.role == "assistant":
                found[turn.ref] = following.ref
    return found


def ranker(turns: Sequence[Turn], limit: int, careful: bool) -> Ranker:
    """The plain or careful bm25 ranker over ``turns``."""
    refs = [turn.ref for turn in turns]
    words = careful_words if careful else plain_words
    documents = [
        words(f"{turn.speaker} {turn.content}" if careful else turn.content) for turn in turns
    ]
    bm25 = BM25Okapi(documents)
    pairs = partners(turns)

    def top(question: str) -> tuple[set[str], set[str]]:
        scores = bm25.get_scores(words(question))
        best = sorted(range(len(refs)), key=lambda index: -scores[index])[:limit]
        matched = {refs[index] for index in best}
        return matched, matched | {pairs[ref] for ref in matched if ref in pairs}

    return top
