"""Word queries: the indexed vocabulary (:func:`search_words`) and every instance of one
word located in the original text (:func:`word_instances`). Counts and positions come from
fts5vocab over the existing indexes; offsets from SQLite's own tokenizer."""

from __future__ import annotations

import sqlite3

from memstore.arguments import valid_unicode
from memstore.concerns.pages import following, room
from memstore.config import PageSize
from memstore.errors import InvalidQuery, StoreDamaged, quoted
from memstore.queries import WordQuery
from memstore.repository import instance_offsets, instances, words
from memstore.schemas import Instance, InstancePage, WordEntry, WordPage
from memstore.store.database import Database
from memstore.text import cjk
from memstore.text.clipping import take_within
from memstore.text.highlight import excerpt
from memstore.text.tokens import fold, tokenize
from memstore.times import utc_now

MAX_CJK_WORD_CHARS = 32  # each more character is one more token to line up per instance


def search_words(db: Database, pages: PageSize, prefix: str, query: WordQuery) -> WordPage:
    """The indexed words starting with ``prefix``, alphabetically, with occurrence and
    document counts (from fts5vocab over the existing indexes).

    Counts leave out system, interrupted and error messages, candidates, and expired or
    superseded memories. They are lexical: a message and a memory derived from it are
    two documents.

    Args:
        prefix: Empty for every word, else text that tokenizes as exactly one word.
        scope: ``history``, ``memories`` or ``all``.
        offset: Where the page starts (pass the previous ``next_offset``).
        limit: Page size, capped by the items of ``pages``; a page also stays within
            its characters of JSON, so it may hold fewer.
        session_id, role, since, until: As in :meth:`recall`.

    Raises:
        InvalidQuery: If the prefix is not exactly one word.
        InvalidInput: For a bad scope, role, time (naive, or since after until), offset or
            limit.
    """
    with db.read() as connection:
        words.prepare(connection)
        folded = one_word(connection, prefix, "prefix") if prefix else ""
        rows, total = words.words(connection, folded, query, utc_now())
    entries = [WordEntry.model_validate(row) for row in rows]
    empty = WordPage(scope=query.scope, words=[], total=total, next_offset=total)
    taken = take_within(entries, room(pages, empty, "next_offset", total), query.limit)
    return empty.model_copy(
        update={"words": taken, "next_offset": following(query.offset, len(taken), total)}
    )


def word_instances(db: Database, pages: PageSize, word: str, query: WordQuery) -> InstancePage:
    """Every occurrence of one whole word, located in the original text.

    Each instance gives its record, the 0-based token position (fts5vocab), Python
    character offsets ``start``/``end`` found with SQLite's own tokenizer (highlight()),
    the original ``matched_text`` and an excerpt. Order: newest record first, then source
    type, id and position; repetitions inside one record are separate instances. A page
    holds its first instance even when that alone passes the character budget (a word of
    thousands of characters, as ``search_words`` lists it too), so that every listed word
    can be paged to its total (found by review: a word over a third of ``recall_chars`` was
    refused, and an earlier review had found it made a page over the budget).

    Args:
        word: Text that tokenizes as exactly one word (case and accents do not matter).
        scope, offset, limit, session_id, role, since, until: As in :meth:`search_words`.

    Raises:
        InvalidQuery: If ``word`` is not exactly one word.
        InvalidInput: For a bad scope, role, time (naive, or since after until), offset or
            limit.
    """
    with db.read() as connection:
        words.prepare(connection)
        folded = one_word(connection, word, "word")
        found = instances.page(connection, folded, query, utc_now())
        located = locate(connection, folded, found)
    total = found.total
    empty = InstancePage(
        word=folded, scope=query.scope, instances=[], total=total, next_offset=total
    )
    taken = take_within(located, room(pages, empty, "next_offset", total), query.limit)
    return empty.model_copy(
        update={"instances": taken, "next_offset": following(query.offset, len(taken), total)}
    )


def one_word(connection: sqlite3.Connection, text: str, argument: str) -> str:
    """``text`` folded as the index folds it, when the index splits it into exactly one word.

    A word may be as long as a message's: every word :func:`search_words` lists can be
    looked up (found by review: one of 12,000 characters was listed, then refused as too
    long).

    Raises:
        InvalidQuery: For text that is not valid Unicode or not one word.
    """
    if not valid_unicode(text):  # a lone surrogate: SQLite only takes valid Unicode
        raise InvalidQuery(
            argument, f"{quoted(text)} is not valid Unicode (bytes that are not UTF-8?); retype it."
        )
    # An ASCII letters-and-digits word is one token that unicode61 only lowercases; any
    # other text is split and folded by SQLite's own tokenizer. A run of CJK characters is
    # one word of as many tokens.
    refuse_cut(text, argument)
    ascii_word = text.isascii() and text.isalnum()
    found = [text.lower()] if ascii_word else words.tokens(connection, text)
    if len(found) > 1 and is_cjk_run(text):
        if len(found) > MAX_CJK_WORD_CHARS:
            raise InvalidQuery(
                argument,
                f"is {len(found)} CJK characters; a CJK word is at most {MAX_CJK_WORD_CHARS}.",
            )
        return "".join(found)
    if len(found) != 1:
        raise InvalidQuery(
            argument,
            f"{quoted(text)} is {len(found)} words as the index splits it; give exactly one word "
            "(punctuation and spaces separate words).",
        )
    return found[0]


def refuse_cut(text: str, argument: str) -> None:
    """Raise InvalidQuery when a word of ``text`` folds to
    :data:`~memstore.repository.words.WHOLE_TERM_BYTES` bytes or more: the index keeps only
    that many of it, which tell it from no other word that starts so (and SQLite's probe
    would cut it inside a character: found by review, "store damaged")."""
    if len(text) * 4 < words.WHOLE_TERM_BYTES:  # a character folds to 4 bytes at most
        return
    for word in tokenize(text):
        size = len(fold(word).encode())
        if size >= words.WHOLE_TERM_BYTES and not cjk.is_cjk(word):
            raise InvalidQuery(
                argument,
                f"{quoted(text)} holds a word of {size:,} bytes (UTF-8, folded); the index "
                f"keeps a word's first {words.WHOLE_TERM_BYTES:,} bytes only, so it lists no "
                "word that long: give a shorter one.",
            )


def is_cjk_run(text: str) -> bool:
    """Whether ``text`` is one run of CJK characters (one word of several tokens)."""
    found = tokenize(text)
    return len(found) == 1 and cjk.is_cjk(found[0])


def locate(connection: sqlite3.Connection, word: str, found: instances.Page) -> list[Instance]:
    """Each instance of the page located in its record's text by SQLite's own tokenizer: the
    record's n-th highlighted region is its n-th instance of the word."""
    located: list[Instance] = []
    for record, record_instances in zip(
        found.records, instance_offsets.located(connection, word, found), strict=True
    ):
        agreeing(record, word, record_instances)
        for token_index, (start, end) in record_instances:
            shown, shown_start = excerpt(record.content, start, end)
            located.append(
                Instance(
                    source_type=record.source_type,
                    id=record.id,
                    token_index=token_index,
                    start=start,
                    end=end,
                    matched_text=record.content[start:end],
                    excerpt=shown,
                    excerpt_start=shown_start,
                    created_at=record.created_at,
                    session_id=record.session_id,
                    role=record.role,
                    sequence=record.sequence,
                    source_ref=record.source_ref,
                )
            )
    return located


def agreeing(record: instances.PageRecord, word: str, shown: instance_offsets.Located) -> None:
    """Raise StoreDamaged unless the record's text shows each instance of ``word`` its
    index holds, as that word: an index its text was changed behind (a dropped trigger, an
    edit by hand) failed with a traceback, or showed "hello" as an instance of "hola"
    (found by review)."""
    texts = [fold(record.content[start:end]) for _, (start, end) in shown]
    if len(shown) != len(record.positions) or any(text != word for text in texts):
        raise StoreDamaged(
            f"the search index disagrees with the text of {record.source_type} {record.id}: "
            "it is out of date or damaged; `memstore check` names the index and its rebuild."
        )
