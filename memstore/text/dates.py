"""What a query says about time, for two rank signals of recall (pure; no database, no
clock).

The months and years it names ("When did Melanie go camping in June?", "in May 2023"): a
month is its English name written with a capital (``June``; ``may`` and ``march`` in lower
case are verbs as often as months), a year four digits from 1900 to 2099 standing as a word
of its own. Nothing else is read as a time: "last week" or "yesterday" would need the day the
question is about, which a question to a memory does not say.

Whether it asks *when* ("When did Jon get mentored?"): then the messages that say when
something happened ("I got mentored by this amazing business dude yesterday!") are the likely
answers, and :data:`TIME_WORDS` are the words that say so. English only, as the months are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memstore.text.tokens import fold, tokenize

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# Words that place a happening in time, folded as the index folds them; "may" and "march"
# are left out, being verbs as often as months.
TIME_WORDS = (
    *("yesterday", "today", "tonight", "tomorrow", "morning", "ago", "recently", "last"),
    *("next", "week", "weeks", "weekend", "month", "months", "year", "years"),
    *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    *(month.lower() for month in MONTHS if month not in ("March", "May")),
)
WHEN_WORDS = frozenset({"when"})
YEAR = re.compile(r"(?:19|20)\d\d")
YEARS = range(1900, 2100)
"""The years a query can name."""


@dataclass(frozen=True)
class NamedTime:
    """The months (1 to 12) and years a query names, each in the order first named.

    Both empty never happens: :func:`named_time` returns None instead. Months without years
    mean those months in any year; years without months, the whole years.
    """

    months: tuple[int, ...]
    years: tuple[int, ...]


def named_time(query: str) -> NamedTime | None:
    """The months and years ``query`` names, or None when it names neither."""
    words = tokenize(query)
    months = tuple(dict.fromkeys(MONTHS.index(w) + 1 for w in words if w in MONTHS))
    years = tuple(dict.fromkeys(int(w) for w in words if YEAR.fullmatch(w)))
    return NamedTime(months, years) if months or years else None


def asks_when(query: str) -> bool:
    """Whether ``query`` holds a word asking when (:data:`WHEN_WORDS`), folded as the index
    folds it (any case, accents dropped)."""
    return any(fold(word) in WHEN_WORDS for word in tokenize(query))
