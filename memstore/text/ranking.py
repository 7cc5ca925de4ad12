"""How much each part of a query counts in a hit's rank (pure; no database).

A hit's rank is the sum, over the parts of its tier it matches (see
:func:`~memstore.text.fts_query.ranking_tiers`), of the part's FTS5 ``bm25()`` times
the part's weight (bm25 is negative: lower ranks first).

- A word's bm25 already holds its inverse document frequency (idf); weighting it by its idf
  once more squares it, which discounts the words that are frequent in the archive far more
  than bm25 alone does, in any language and with no word list.
- The built-in stopwords (:mod:`memstore.text.stopwords`) still match, but in a tier
  of their own below every hit holding a content word; they would add next to nothing to
  a content hit's rank and cost the most to score, having the longest posting lists.
- A pair of adjacent content words found as a phrase adds its bm25 times a quarter of its
  idf, so that a hit holding the words side by side ranks above one holding them apart.
  That idf has no floor (``log(1 + ...)``, a little larger than FTS5's everywhere): where
  every hit holds both words, each word's idf and FTS5's own are at the floor, and the pair
  added a quarter of a word, less than bm25's favour for the shorter hit (found by review).
  LoCoMo's figures are the same.
- A content word is searched by its stem: on the second history index, whose terms are the
  porter stems of unicode61's tokens (revision 0004), so that "painted" and "paints" match
  "painting" in ``any`` mode. ``all`` and ``phrase`` select the words as written; the stems
  still rank in ``all``, each scored on the selected documents only when its list is far
  longer (:func:`weighted_parts`; the rank is the same). Porter stems English; other
  languages' words are their own stems.
- A hit's rank adds half the own rank of each hit next to it in its session and a fifth of
  each hit two messages away (:data:`NEIGHBOUR_WEIGHTS`). A tier of over
  :data:`EXACT_HITS` hits does so for its :data:`CANDIDATES` best hits by own rank and the
  hits next to them first, then for all the others: a hit far down the list by its own
  rank is not lifted above them by its neighbours.
- The query naming a hit's speaker doubles its own rank (:data:`SPEAKER_WEIGHT`), naming
  the month or year it was written in triples it (:data:`DATE_WEIGHT`), and asking when
  multiplies by 1.5 the own rank of a hit that says when (:data:`TIME_WEIGHT`).

Measured on LoCoMo's tuning conversations (``make eval``), recall@8 went from 0.580 to 0.631
by squaring the idf, to 0.647 with the stopword tier, and to 0.680 with prefix "stems" (with
the fair-share page of :mod:`memstore.concerns.recall_page` in between; these figures count
an evidence turn among every message returned, *seen*). Pairs are neutral there (its questions
paraphrase the evidence) and are kept for the rule they give. Stopwords scored alongside
content words (at a tenth of their weight) instead of in their own tier measured within half
a point and cost two to three times the query time on long questions; a discount derived
from document frequency alone (no list) gave 0.631 where the list gives 0.647: question
words ("when", "did", "her") are rare in the conversations themselves.

Then, matched / seen on the tuning set (the check set in brackets): with speakers 0.588 /
0.680 (0.589 / 0.684); the stem index in place of the prefixes 0.631 / 0.712 (0.620 /
0.710); the neighbours 0.634 / 0.755 (0.624 / 0.759); a pair matched by its better hit
(:mod:`memstore.concerns.recall_page`) 0.663 / 0.755 (0.650 / 0.759); the month or year
0.669 / 0.764 (0.655 / 0.770); an assistant message opening the talk shown with the user's
answer instead of left out as an orphan (:mod:`memstore.concerns.recall_page`) 0.716 / 0.809
(0.689 / 0.808); the month or year at 3 0.718 / 0.812 (0.692 / 0.813); the words saying when
0.719 / 0.813 (0.702 / 0.817); an opening matched by itself, its answer keeping its own
reply, and no message matched twice, 0.719 / 0.814 (0.712 / 0.821)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from memstore.text.fts_query import QueryPart

PAIR_WEIGHT = 0.25
MEMORY_PAIR_WEIGHT = 1.5
"""The factor of the bm25 rank of a memory holding two adjacent content words of the query
(up to two stopwords between them): memories rank by FTS5's bm25() alone, so two of one
length holding the same words ranked in the order they were saved (found by review). At
1.5 a memory holding the words side by side ranks first in the review's eight cases (two
pairs, both orders, ``any`` and ``all``; 4 at 1.25), and one holding every query word,
the rarest among them, still ranks above one holding two of them side by side. Adding the
pairs to the memory query as alternatives instead let the pair count as much as the rarest
word, and in ``all`` mode found memories without every word (found by the next review)."""
SPEAKER_WEIGHT = 2.0
"""The factor of the rank of a hit whose speaker the query names ("When did Caroline go to
the support group?" ranks Caroline's own messages first): a rank signal, never a filter.
Measured with ``make eval`` on LoCoMo's tuning conversations (matched / seen): 0.519 / 0.680
without it, 0.572 / 0.681 at 1.5, 0.588 / 0.680 at 2, 0.595 / 0.670 at 3; 2 is kept, and the
check conversations agree (0.511 / 0.692 without, 0.589 / 0.684 with)."""
DATE_WEIGHT = 3.0
"""The factor of the own rank of a hit written in a month or year the query names ("When did
Melanie go camping in June?", see :mod:`memstore.text.dates`), in the machine's time zone: a
rank signal, never a filter (``since``/``until`` filter). Measured with ``make eval``
(matched / seen, tuning then check): 0.716 / 0.809 and 0.689 / 0.808 at 2, 0.718 / 0.812 and
0.692 / 0.813 at 3, no better at 4 or 6 (few questions name a month)."""
TIME_WEIGHT = 1.5
"""The factor of the own rank of a hit that holds a word placing a happening in time
("yesterday", "last week", "in June": :data:`~memstore.text.dates.TIME_WORDS`) when the query
asks when ("When did Jon get mentored?"): a rank signal. On LoCoMo's tuning conversations,
77% of the evidence turns of questions asking when hold such a word, against 14% of all
turns. Measured with ``make eval`` (matched / seen, tuning then check): 0.718 / 0.812 and
0.692 / 0.813 without it; 0.719 / 0.813 and 0.702 / 0.817 at 1.5; 0.718 / 0.812 and 0.706 /
0.817 at 2, 3 the same as 2."""
NEIGHBOUR_WEIGHTS = (0.5, 0.2)
"""The factors of the ranks of the hits one and two messages away in the same session that
add to a hit's own rank: a conversation talks about a thing over several turns, and a turn
that answers ("Yes, last Tuesday!") shares few words with the question that its neighbours
hold. Only hits are added (a message that matches no part adds nothing, and is never a hit
by its neighbours alone)."""
REACH = len(NEIGHBOUR_WEIGHTS)  # how many messages away a hit's neighbours count
EXACT_HITS = 16384
"""A tier whose gate parts find at most this many documents in all, or whose search the
filters bound to a range of at most this many pks (see
:func:`~memstore.repository.search_bounds.pk_bounds`), ranks every hit with its neighbours at
once; a larger one ranks its :data:`CANDIDATES` best hits by own rank and the hits next to
them first, and the others after them, should the page need them (see
:func:`neighbour_ranks`). Ranking every hit costs
about 3 µs a hit at a million messages (its bm25(), its place, its neighbours in Python);
the candidates cost bm25() and a sort for every hit, and about 20 ms more: on 40 queries of
the 1M bench set (2026-12-06), the candidates were the slower below about 10,000 hits and
the faster above (272 against 676 ms for "you", in 237,521 messages)."""
CANDIDATES = 1024
"""How many hits of a large tier are ranked with their neighbours first: the best by own
rank, and with them every hit next to one of them, whose rank they may lift. A hit further
down by its own rank, among hits that all hold the query's words, can still be lifted above
some of them by its neighbours in the exact ranking. Of 40 queries drawn from the words of
random messages of the 1M bench set whose tier is over :data:`EXACT_HITS` (the bench's fidelity
line; most are one very common word), 26 first pages were the exact ranking's, holding 84%
of its matched messages on average; 33 and 97% at 4096 candidates, which made recall of
"you" and of the bench's three words 1.3 and 1.7 times slower."""
MIN_IDF = 1e-6  # FTS5's floor for a word in more than half of the documents
BOUND_RATIO = 16
"""A rank part of ``all`` mode is scored on its selection's documents only when it finds at
least this many times as many (see :func:`weighted_parts`). The bounded query costs more per
document (bm25() counts the documents of every phrase of the selection again, on each
query), so it only pays for a part whose list is far longer than the selection's: on the
20k scale set, 300 random ``all`` queries took as long in all as unbounded (1.3-1.5 s),
with the same hits in the same order."""
SUM_BOUND_RATIO = 2
""":data:`BOUND_RATIO` for a selection that is the AND of the parts within it
(:func:`sum_selections`), where the part finding the most documents needs no query of its
own: a part finding twice the selection's documents is bounded. On 40 random ``all`` queries
of two or three words from the messages of the 1M bench set, interleaved, 637 → 594 ms in
all (at 4: 594 ms), "Bonjour comment allez" 46 → 26 ms and "sounds like" 151 → 82 ms, the
same pages; on 200 from the 20k set, 239 ms in all either way."""
MAX_BOUNDED = 4
"""At most this many parts of a tier are bounded (else none): each bounded part's query
counts every phrase of the selection again (a long CJK question is dozens of pairs)."""
PART_ROLES = {"veto": 0, "gate": 1, "rank": 2}
"""The codes the history query reads the roles by, ordered so that one ``min()`` over a hit's
parts says whether it is kept: 1 when a gate matched it and no veto did (a second aggregate
took 4.5 of 112 ms in the bench's three-word recall at 1M, over 35,000 hits)."""


def idf(documents: int, total: int) -> float:
    """The inverse document frequency FTS5's bm25() uses, for a part that ``documents`` of
    ``total`` indexed documents match."""
    return max(math.log((total - documents + 0.5) / (documents + 0.5)), MIN_IDF)


def weight(part: QueryPart, documents: int, total: int) -> float:
    """The factor of the part's bm25 in the rank (0 for a part that only selects)."""
    if part.kind == "word":
        return idf(documents, total)
    if part.kind == "pair":
        return PAIR_WEIGHT * math.log1p((total - documents + 0.5) / (documents + 0.5))
    return 1.0 if part.kind == "phrase" else 0.0


# Bounded parts in weighted_parts. A part of bounded_parts is scored on its selection's
# documents only, with the same result up to float rounding (ties then broken by pk, see
# neighbours.comparable): FTS5's bm25() of a query is a sum of one term per phrase, so the
# part's own bm25 on a document is that of (part) AND (selection) less that of the selection
# alone. The part becomes the
# first query, at its weight, and the selection is added once per index, at minus the
# weights of the parts bounded within it; every document the selection finds holds the
# part's words, so each has both rows. FTS5 then reads the part's long list only where the
# selection's documents are, instead of scoring every document it holds (all mode's
# "yeah" at a million messages).
#
# When the selection is the AND of the parts within it, its bm25() is the sum of their
# own, so one bounded part needs no query of its own: the one finding the most documents
# (derived_parts) is the selection less the other parts, and its weight moves
# onto the selection and, negated, onto each of them. Its own query would read its long
# list twice and every other list of the selection once: "aiutarla yeah" at a million
# messages took 6.9 ms instead of 8.9, interleaved, the same page.
def weighted_parts(
    parts: Iterable[QueryPart], documents: Mapping[QueryPart, int], total: int
) -> list[tuple[str, float, int, bool]]:
    """``[(match, weight, role, stemmed)]`` of the parts that match any document, the role
    as its code in :data:`PART_ROLES`.

    A part of :func:`bounded_parts` is scored on its selection's documents only, and one
    of them may be derived from the others (see the note above).

    A part of weight 0 that only ranks is left out; a filter (weight 0) still selects.

    A tier of one part whose documents were not counted is that part at weight 1: its
    weight scales every rank of the tier alike, so any positive one ranks its hits the same
    (but for the rounding of ranks equal in exact arithmetic, which a tie breaks by pk).

    Args:
        parts: A tier's parts.
        documents: How many indexed documents each part finds (on its own index); a tier
            of one part may be missing.
        total: How many documents the index holds.
    """
    parts = list(parts)
    if len(parts) == 1 and parts[0] not in documents:
        (part,) = parts
        return [(part.match, 1.0, PART_ROLES[part.role], part.stemmed)]
    parts = [part for part in parts if documents.get(part, 0) > 0]
    bounded = bounded_parts(parts, documents, total)
    derived = derived_parts(parts, bounded, documents)
    weights: dict[tuple[str, int, bool], float] = {}  # (match, role, stemmed): weight
    for part in parts:
        factor = weight(part, documents[part], total)
        for query, share in part_terms(part, parts, bounded, derived):
            weights[query] = weights.get(query, 0.0) + factor * share
    rank = PART_ROLES["rank"]
    return [
        (match, factor, role, stemmed)
        for (match, role, stemmed), factor in weights.items()
        if factor != 0.0 or role != rank  # a rank part of weight 0 adds nothing
    ]


Terms = list[tuple[tuple[str, int, bool], float]]
"""Queries as ``(match, role, stemmed)``, each with a factor: a sum of their bm25()s."""


def part_terms(
    part: QueryPart,
    parts: Sequence[QueryPart],
    bounded: set[QueryPart],
    derived: Mapping[str, QueryPart],
) -> Terms:
    """The queries whose bm25()s sum to ``part``'s own bm25 on each document its selection
    finds: see :func:`weighted_parts` (``parts``: every part of the tier)."""
    if derived.get(part.within or "") is not part:
        return own_terms(part, bounded)
    selection = (part.within or "", PART_ROLES["rank"], part.stemmed)
    others = (other for other in parts if other.within == part.within and other is not part)
    return [(selection, 1.0)] + [
        (query, -share) for other in others for query, share in own_terms(other, bounded)
    ]


def own_terms(part: QueryPart, bounded: set[QueryPart]) -> Terms:
    """``part``'s own query, or, bounded, ``(part) AND (selection)`` less the selection."""
    role = PART_ROLES[part.role]
    if part not in bounded:
        return [((part.match, role, part.stemmed), 1.0)]
    return [
        ((f"({part.match}) AND ({part.within})", role, part.stemmed), 1.0),
        ((part.within or "", PART_ROLES["rank"], part.stemmed), -1.0),
    ]


def derived_parts(
    parts: Sequence[QueryPart], bounded: set[QueryPart], documents: Mapping[QueryPart, int]
) -> dict[str, QueryPart]:
    """By selection, the bounded part :func:`weighted_parts` scores as the selection less
    the other parts within it, instead of by its own query: the one finding the most
    documents, whose own query reads its long list twice. Only for a selection of
    :func:`sum_selections`."""
    derived: dict[str, QueryPart] = {}
    for selection in sum_selections(parts):
        candidates = [part for part in parts if part in bounded and part.within == selection]
        if candidates:
            derived[selection] = max(candidates, key=documents.__getitem__)
    return derived


def bounded_parts(
    parts: Sequence[QueryPart], documents: Mapping[QueryPart, int], total: int
) -> set[QueryPart]:
    """The parts :func:`weighted_parts` scores on their selection's documents only: those
    ``within`` a selection (a part of the tier) that finds at most 1/:data:`BOUND_RATIO` of
    their documents, none when there would be over :data:`MAX_BOUNDED`. A part in over half
    of the documents is never bounded: its weight is FTS5's floor (:data:`MIN_IDF`), and its
    own term, a millionth of the selection's, would be lost in the subtraction's rounding
    (a review found exact ties reordered that way)."""
    selected = {part.match: documents[part] for part in parts if part.kind == "filter"}
    sums = sum_selections(parts)
    bounded = {
        part
        for part in parts
        if part.within in selected
        and documents[part]
        >= (SUM_BOUND_RATIO if part.within in sums else BOUND_RATIO) * selected[part.within]
        and idf(documents[part], total) > MIN_IDF
    }
    return bounded if len(bounded) <= MAX_BOUNDED else set()


def sum_selections(parts: Sequence[QueryPart]) -> set[str]:
    """The selections (``within`` of a part) that are exactly the AND of the parts within
    them, all on one index: a selection's bm25() is then the sum of theirs."""
    found = set()
    for selection in {part.within for part in parts if part.within is not None}:
        within = [part for part in parts if part.within == selection]
        one_index = len({part.stemmed for part in within}) == 1
        if one_index and selection == " AND ".join(part.match for part in within):
            found.add(selection)
    return found


def gated_documents(tier: Iterable[QueryPart], documents: Mapping[QueryPart, int]) -> int:
    """How many documents the gate parts of ``tier`` find, summed: at least as many as the
    tier's hits."""
    return sum(documents.get(part, 0) for part in tier if part.role == "gate")
