"""Acceptance: words inside CJK runs, over the real Chinese, Japanese and Korean dialogue of
../shared (the multilingual set of corpus2logs: xpersona, xdailydialog, kdconv).

For 300 substrings of 1 to 3 characters drawn from CJK runs of stored messages, a phrase
recall returns only messages that hold the substring, and all of them when there are at most
50; ``word_instances`` gives every occurrence (overlapping ones too) at its exact offsets.
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from memstore import MemoryConfig, MemoryService
from memstore.text.cjk import run_pattern

pytestmark = pytest.mark.corpora

OWNERS = ("zh", "ja", "ko")
DRAWN = 300
SEED = 20261201


def speakers_of(owner: Path) -> dict[str, str]:
    words = shlex.split((owner / "SPEAKERS").read_text(encoding="utf-8"))
    return dict(word.split("=", 1) for word in words[1::2])


@pytest.fixture(scope="module")
def stored(
    corpus_logs: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[MemoryService, dict[str, str]]:
    """The three owners imported into one database, and each message's content by id."""
    path = tmp_path_factory.mktemp("cjk-corpora") / "memory.sqlite3"
    service = MemoryService(path, config=MemoryConfig(max_results=50, recall_chars=64000))
    contents: dict[str, str] = {}
    for name in OWNERS:
        owner = corpus_logs / "multilingual" / name
        report = service.import_markdown([owner], speakers=speakers_of(owner), include_tail=True)
        assert report.errors == 0 and report.imported > 100
        for file in report.files:
            assert file.session_id is not None
            after = 0
            while page := service.messages(file.session_id, after=after, limit=500):
                searched = (m for m in page if m.role != "system" and m.status == "completed")
                contents.update((m.id, m.content) for m in searched)
                after = page[-1].sequence
    return service, contents


def substrings(contents: dict[str, str]) -> Iterator[str]:
    """Substrings of 1 to 3 characters of CJK runs, drawn at random (repeatably)."""
    drawn = random.Random(SEED)
    runs = [run for text in contents.values() for run in run_pattern().findall(text)]
    while True:
        run = drawn.choice(runs)
        size = min(drawn.randint(1, 3), len(run))
        start = drawn.randrange(len(run) - size + 1)
        yield run[start : start + size]


def occurrences(text: str, word: str) -> list[int]:
    """Every start of ``word`` in ``text``, overlapping ones included."""
    found, at = [], text.find(word)
    while at >= 0:
        found.append(at)
        at = text.find(word, at + 1)
    return found


def every_instance(reader: MemoryService, word: str) -> set[tuple[str, int, int]]:
    """Every instance of ``word``, read in a person's pages of 1,000 (an agent's 50 took 2,480
    calls, 90% of the test's time)."""
    located: set[tuple[str, int, int]] = set()
    offset: int | None = 0
    while offset is not None:
        page = reader.word_instances(word, offset=offset, limit=1000)
        located |= {(i.id, i.start, i.end) for i in page.instances}
        offset = page.next_offset
    return located


def test_phrase_recall_and_instances_find_exactly_the_cjk_substrings(
    stored: tuple[MemoryService, dict[str, str]],
) -> None:
    service, contents = stored
    reader = MemoryService(service.path, pages=service.config.reader_page_size())
    drawn = substrings(contents)
    folded = {id_: text.casefold() for id_, text in contents.items()}  # once, not per word
    compared = fully = 0
    for word in (next(drawn) for _ in range(DRAWN)):
        holding = {id_ for id_, text in folded.items() if word in text}
        result = service.recall(word, mode="phrase", limit=50)
        matched = {conversation.matched_id for conversation in result.conversations}
        assert matched <= holding, word
        if len(holding) <= 50:
            # A hit that is another hit's pair partner is shown in that conversation.
            shown = {m.id for c in result.conversations for m in c.messages}
            assert not result.truncated and shown & holding == holding, word
            fully += 1
        expected = {
            (id_, at, at + len(word)) for id_ in holding for at in occurrences(contents[id_], word)
        }
        assert every_instance(reader, word) == expected, word
        compared += 1
    assert compared == DRAWN and fully > DRAWN // 3
