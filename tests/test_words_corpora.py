"""Acceptance: word retrieval over the real LoCoMo and multilingual corpora of ../shared.

Both sets, imported owner folder by owner folder (with their tails) into one database, are
checked against SQLite itself: the whole vocabulary, paged, must be what a plain in-memory
FTS5 table with the same tokenizer finds in the stored texts, and every instance of fifty
words drawn at random must point at text that folds to its word.
"""

from __future__ import annotations

import random
import shlex
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memstore import MemoryConfig, MemoryService
from memstore.schemas import Instance, WordEntry
from memstore.text.cjk import BOUNDARY, index_form

pytestmark = pytest.mark.corpora

SETS = ("locomo", "multilingual")
DRAWN = 50
SEED = 20261005
TOKENIZE = "unicode61 remove_diacritics 2"


class SqliteFolder:
    """SQLite's own tokenizer outside memstore: a plain in-memory FTS5 table over the texts'
    index forms (each CJK character a token, a boundary token after each run)."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(f"CREATE VIRTUAL TABLE probe USING fts5(text, tokenize='{TOKENIZE}')")
        self.db.execute("CREATE VIRTUAL TABLE probe_row USING fts5vocab(probe, row)")
        self.db.execute("CREATE VIRTUAL TABLE probe_instance USING fts5vocab(probe, instance)")

    def fold(self, text: str) -> list[str]:
        """``text``'s tokens, folded as the index folds them, in order."""
        self.db.execute("DELETE FROM probe")
        self.db.execute("INSERT INTO probe (text) VALUES (?)", (index_form(text) or text,))
        return [
            term for (term,) in self.db.execute("SELECT term FROM probe_instance ORDER BY offset")
        ]

    def vocabulary(self, texts: list[str]) -> list[tuple[str, int, int]]:
        """(word, occurrences, documents) of ``texts``, alphabetically."""
        self.db.execute("DELETE FROM probe")
        forms = [(index_form(t) or t,) for t in texts]
        self.db.executemany("INSERT INTO probe (text) VALUES (?)", forms)
        rows = self.db.execute("SELECT term, cnt, doc FROM probe_row ORDER BY term")
        vocabulary = [(term, cnt, doc) for term, cnt, doc in rows if term != BOUNDARY]
        self.db.execute("DELETE FROM probe")
        return vocabulary


@dataclass(frozen=True)
class Archive:
    """Both sets in one database, and every stored message's content by id."""

    service: MemoryService
    contents: dict[str, str]


def speakers_of(owner: Path) -> dict[str, str]:
    """The ``--speaker "Name=role"`` options of an owner folder as a mapping."""
    words = shlex.split((owner / "SPEAKERS").read_text(encoding="utf-8"))
    return dict(word.split("=", 1) for word in words[1::2])


def stored_messages(service: MemoryService, session_id: str) -> Iterator[tuple[str, str]]:
    after = 0
    while page := service.messages(session_id, after=after, limit=500):
        yield from ((m.id, m.content) for m in page)
        after = page[-1].sequence


@pytest.fixture(scope="module")
def archive(corpus_logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Archive:
    path = tmp_path_factory.mktemp("lexical-corpora") / "memory.sqlite3"
    # Big pages keep the number of calls (and the run time) modest.
    service = MemoryService(path, config=MemoryConfig(max_results=50, recall_chars=64000))
    start = time.perf_counter()
    contents: dict[str, str] = {}
    for name in SETS:
        owners = sorted(p for p in (corpus_logs / name).iterdir() if (p / "SPEAKERS").is_file())
        for owner in owners:
            report = service.import_markdown(
                [owner], speakers=speakers_of(owner), include_tail=True
            )
            assert report.errors == 0
            for file in report.files:
                assert file.session_id is not None
                contents.update(stored_messages(service, file.session_id))
    print(f"import of {len(contents)} messages: {time.perf_counter() - start:.2f} s")
    return Archive(service, contents)


def whole_vocabulary(service: MemoryService) -> list[WordEntry]:
    entries: list[WordEntry] = []
    offset: int | None = 0
    totals = set()
    while offset is not None:
        page = service.search_words(offset=offset)
        assert page.words, "a page before the last one is never empty"
        entries += page.words
        totals.add(page.total)
        offset = page.next_offset
        assert offset is None or offset == len(entries)
    assert totals == {len(entries)}
    return entries


def every_instance(service: MemoryService, word: str) -> tuple[list[Instance], int]:
    instances: list[Instance] = []
    offset: int | None = 0
    totals = set()
    while offset is not None:
        page = service.word_instances(word, offset=offset)
        assert page.word == word and page.instances
        instances += page.instances
        totals.add(page.total)
        offset = page.next_offset
    (total,) = totals
    return instances, total


def test_words_and_instances_agree_with_sqlite_over_the_corpora(archive: Archive) -> None:
    service, contents = archive.service, archive.contents
    folder = SqliteFolder()

    start = time.perf_counter()
    vocabulary = whole_vocabulary(service)
    listed = time.perf_counter() - start
    # Every word exactly once, alphabetically (code point order, as SQLite compares text),
    # with the counts a plain FTS5 table over the same texts gives.
    words = [entry.word for entry in vocabulary]
    assert words == sorted(set(words))
    expected = folder.vocabulary(list(contents.values()))
    assert [(e.word, e.occurrences, e.documents) for e in vocabulary] == expected

    start = time.perf_counter()
    drawn = random.Random(SEED).sample(vocabulary, DRAWN)
    located = 0
    for entry in drawn:
        instances, total = every_instance(service, entry.word)
        assert total == len(instances) == entry.occurrences
        keys = {(i.source_type, i.id, i.token_index) for i in instances}
        assert len(keys) == total
        assert len({i.id for i in instances}) == entry.documents
        for instance in instances:
            text = contents[instance.id]
            assert text[instance.start : instance.end] == instance.matched_text
            assert [t for t in folder.fold(instance.matched_text) if t != BOUNDARY] == [entry.word]
            tokens = [t for t in folder.fold(text) if t != BOUNDARY]  # the text's own
            assert tokens[instance.token_index] == entry.word
            shown = text[instance.excerpt_start : instance.excerpt_start + len(instance.excerpt)]
            assert shown == instance.excerpt
            assert instance.excerpt_start <= instance.start <= instance.end
        located += total
    drawn_seconds = time.perf_counter() - start
    print(
        f"{len(vocabulary)} words listed in {listed:.2f} s; {located} instances of "
        f"{DRAWN} drawn words located in {drawn_seconds:.2f} s"
    )


def test_read_memory_message_pages_reproduce_stored_texts(archive: Archive) -> None:
    service, contents = archive.service, archive.contents
    longest = max(contents, key=lambda message_id: len(contents[message_id]))
    sample = [longest, *random.Random(SEED).sample(sorted(contents), 20)]
    for message_id in sample:
        chunks: list[str] = []
        offset: int | None = 0
        while offset is not None:
            chunk = service.read_memory_message(message_id, offset=offset)
            assert chunk.offset == offset and len(chunk.model_dump_json()) <= 64000
            chunks.append(chunk.content)
            offset = chunk.next_offset
        assert "".join(chunks) == contents[message_id]
