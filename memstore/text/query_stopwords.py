"""Which words of a query are stopwords (:mod:`memstore.text.stopwords`): they rank in a
tier below the content words (see :mod:`memstore.text.ranking`)."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from memstore.text import stopwords
from memstore.text.tokens import fold


@functools.cache
def folded_stopwords() -> frozenset[str]:
    """The built-in stopwords, written as the index folds them (on first use, not at
    import)."""
    return frozenset(stopwords.WORDS)


def is_stopword(token: str) -> bool:
    """Whether ``token`` (as written) folds to a very frequent function word of any of the
    languages."""
    return fold(token) in folded_stopwords()


@functools.cache
def language_stopwords() -> tuple[frozenset[str], ...]:
    """Each language's stopwords, folded (on first use)."""
    return tuple(frozenset(words.split()) for words in stopwords.LANGUAGES)


def query_stopwords(tokens: Iterable[str]) -> frozenset[str]:
    """The stopwords of a query of these ``tokens``, folded: those of the languages whose
    lists hold the most of its words (every list's when none holds any), and, when Chinese
    is among those languages, the query's words of Chinese function-word characters alone
    (:func:`chinese_stop_runs`).

    A word that is a function word in another language is a content word of an English
    question: "son" in "How old is my son?" (Spanish "are"), "war", "die" and "hat"
    (German), "dove" (Italian) were counted for little, and any message holding a weaker
    word of the question ranked above the one about the son (found by review)."""
    folded = {fold(token) for token in tokens}
    counts = [len(folded & words) for words in language_stopwords()]
    best = max(counts)
    if best == 0:
        return folded_stopwords()
    chosen = [
        words for words, count in zip(language_stopwords(), counts, strict=True) if count == best
    ]
    chinese = language_stopwords()[stopwords.LANGUAGES.index(stopwords.CHINESE)]
    runs = chinese_stop_runs(folded) if chinese in chosen else frozenset()
    return frozenset().union(*chosen, runs)


def chinese_stop_runs(folded: Iterable[str]) -> frozenset[str]:
    """The words among ``folded`` made only of characters of the Chinese function words.

    A Chinese question written without spaces is searched by its character pairs, and a pair
    that straddles two function words is in no list: "是什" and "么呢" of "花园是什么呢"
    ranked a message of function words alone ("是什么呢") above the one about the garden
    (found by review). Only for Chinese, and only once its list holds a word of the query:
    kana and Hangul function words are syllables of ordinary words too (ねこ, 나무; found by
    the next review)."""
    characters = chinese_characters()
    return frozenset(word for word in folded if word and set(word) <= characters)


@functools.cache
def chinese_characters() -> frozenset[str]:
    """The characters of the Chinese function words (on first use)."""
    return frozenset("".join(stopwords.CHINESE.split()))
