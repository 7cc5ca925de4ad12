"""Word queries: the indexed vocabulary (:func:`search_words`) and every instance of one
word located in the original text (:func:`word_instances`). Counts and positions come from
fts5vocab over the existing indexes; offsets from SQLite's own tokenizer."""

from __future__ import annotations

import sqlite3

from memstore.arguments import valid_unicode
from memstore.concerns.pages import following, room
from memstore.config import MemoryConfig
from memstore.errors import InvalidQuery
from memstore.queries import WordQuery
from memstore.repository import instances, words
from memstore.schemas import Instance, InstancePage, WordEntry, WordPage
from memstore.store.database import Database
from memstore.text.clipping import take_within
from memstore.text.highlight import excerpt
from memstore.times import utc_now

MAX_WORD_CHARS = 10_000  # longer than recall's 512: a listed word must be searchable


def search_words(db: Database, config: MemoryConfig, prefix: str, query: WordQuery) -> WordPage:
    """The indexed words starting with ``prefix``, alphabetically, with their counts (see
    :meth:`memstore.MemoryService.search_words`).

    Raises:
        InvalidQuery: If the prefix is not exactly one word.
    """
    with db.read() as connection:
        words.prepare(connection)
        folded = one_word(connection, prefix, "prefix") if prefix else ""
        rows, total = words.words(connection, folded, query, utc_now())
    entries = [WordEntry.model_validate(row) for row in rows]
    empty = WordPage(scope=query.scope, words=[], total=total, next_offset=total)
    taken = take_within(entries, room(config, empty, "next_offset", total), query.limit)
    return empty.model_copy(
        update={"words": taken, "next_offset": following(query.offset, len(taken), total)}
    )


def word_instances(db: Database, config: MemoryConfig, word: str, query: WordQuery) -> InstancePage:
    """Every occurrence of one whole word, newest record first (see
    :meth:`memstore.MemoryService.word_instances`).

    Raises:
        InvalidQuery: If ``word`` is not exactly one word.
    """
    with db.read() as connection:
        words.prepare(connection)
        folded = one_word(connection, word, "word")
        records, total = instances.page(connection, folded, query, utc_now())
        found = locate(connection, folded, records)
    empty = InstancePage(
        word=folded, scope=query.scope, instances=[], total=total, next_offset=total
    )
    taken = take_within(found, room(config, empty, "next_offset", total), query.limit)
    return empty.model_copy(
        update={"instances": taken, "next_offset": following(query.offset, len(taken), total)}
    )


def one_word(connection: sqlite3.Connection, text: str, argument: str) -> str:
    """``text`` folded as the index folds it, when the index splits it into exactly one word.

    Raises:
        InvalidQuery: For text that is too long, not valid Unicode, or not one word.
    """
    if len(text) > MAX_WORD_CHARS:
        raise InvalidQuery(argument, f"is over {MAX_WORD_CHARS} characters; give one word.")
    if not valid_unicode(text):  # a lone surrogate: SQLite only takes valid Unicode
        raise InvalidQuery(
            argument, f"{text!r} is not valid Unicode (bytes that are not UTF-8?); retype it."
        )
    # An ASCII letters-and-digits word is one token that unicode61 only lowercases; any
    # other text is split and folded by SQLite's own tokenizer.
    ascii_word = text.isascii() and text.isalnum()
    found = [text.lower()] if ascii_word else words.tokens(connection, text)
    if len(found) != 1:
        raise InvalidQuery(
            argument,
            f"{text!r} is {len(found)} words as the index splits it; give exactly one word "
            "(punctuation and spaces separate words).",
        )
    return found[0]


def locate(
    connection: sqlite3.Connection, word: str, records: list[instances.PageRecord]
) -> list[Instance]:
    """Each instance of the page located in its record's text by SQLite's own tokenizer: the
    record's n-th highlighted region is its n-th instance of the word."""
    located: list[Instance] = []
    for record in records:
        spans = instances.located(connection, record, word)
        for token_index, (start, end) in zip(record.positions, spans, strict=True):
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
