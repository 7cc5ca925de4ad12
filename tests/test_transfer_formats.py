"""The export's file formats on their own: any memory written as a Markdown file or a JSONL
line reads back equal, whatever its text holds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.arguments import BIDI_CONTROLS
from memstore.errors import InvalidInput
from memstore.schemas.transfer import MemoryRecord, SourceLink
from memstore.transfer import jsonl, memory_files

# Text as a memory may hold it: any character but surrogates and NUL, trimmed, not empty.
CHARACTERS = st.characters(exclude_categories=("Cs",), exclude_characters="\0")
TEXT = st.text(CHARACTERS, min_size=1)
# Ids as the store holds them: 1 to 64 characters, not blank, no control, line break or bidi
# control.
ID_CHARACTERS = st.characters(
    exclude_categories=("Cs", "Cc", "Zl", "Zp"), exclude_characters="".join(BIDI_CONTROLS)
)
IDS = st.text(ID_CHARACTERS, min_size=1, max_size=64).filter(str.strip)
CONTENT = TEXT.map(str.strip).filter(bool)
TIMES = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)
MEMORIES = st.builds(
    MemoryRecord,
    id=st.from_regex(r"\Amem_[0-9a-f]{1,32}\Z"),
    content=CONTENT,
    category=st.sampled_from(["preference", "fact", "project", "goal", "other"]),
    key=st.none() | st.from_regex(r"\A[a-z0-9_.-]{1,40}\Z"),
    status=st.sampled_from(["active", "superseded", "candidate", "expired"]),
    origin=st.sampled_from(["explicit", "extracted"]),
    confidence=st.floats(0, 1),
    pinned=st.booleans(),
    created_at=TIMES,
    modified_at=TIMES,
    expires_at=st.none() | TIMES,
    superseded_by=st.none() | st.from_regex(r"\Amem_[0-9a-f]{32}\Z"),
)
REFS = TEXT.filter(str.strip)  # a blank source reference is refused
LINKS = st.lists(st.builds(SourceLink, message_id=st.none() | IDS, source_ref=st.none() | REFS))


@given(MEMORIES, LINKS)
def test_any_memory_file_reads_back_equal(memory: MemoryRecord, links: list[SourceLink]) -> None:
    text = memory_files.render(memory, links)
    assert memory_files.parse(text, "m.md") == (memory, links)


@given(MEMORIES)
def test_any_memory_line_reads_back_equal(memory: MemoryRecord) -> None:
    line = jsonl.line(memory)
    assert line.count(b"\n") == 1  # a line separator in the text never splits the record
    assert jsonl.parse(line, "line 1") == memory


def test_times_in_other_zones_read_back_as_the_same_instants() -> None:
    madrid = datetime(2026, 10, 5, 9, 0, tzinfo=UTC).astimezone(ZoneInfo("Europe/Madrid"))
    memory = MemoryRecord(
        id="mem_1",
        content="Diego likes jazz.",
        category="fact",
        key=None,
        status="active",
        origin="explicit",
        confidence=1.0,
        pinned=False,
        created_at=madrid,
        modified_at=madrid + timedelta(minutes=5),
        expires_at=None,
        superseded_by=None,
    )
    back, _ = memory_files.parse(memory_files.render(memory, []), "m.md")
    assert back.created_at == datetime(2026, 10, 5, 9, 0, tzinfo=UTC)


FRONT = (
    "---\nid: mem_b\ncategory: fact\nstatus: active\ncreated_at: 2026-10-05T09:00:00Z\n"
    "modified_at: {modified}\n{extra}---\nDiego likes tea.\n"
)


@pytest.mark.parametrize(
    ("modified", "extra", "words"),
    [
        # found by review: nested aliases repeat a value exponentially (1.5 GB from 525 bytes)
        (
            "2026-10-05T09:00:00Z",
            "a0: &a0 [x, x, x]\na1: &a1 [*a0, *a0, *a0]\n",
            r"an alias \(\*name\) repeats a value",
        ),
        # found by review: a merge's key beside the mapping's own was dropped in silence
        ("2026-10-05T09:00:00Z", "key: a\n<<: {key: b}\n", r"a merge \(<<\)"),
        ("2026-10-05T09:00:00Z", "<<: [{key: b}, {key: c}]\n", r"a merge \(<<\)"),
        # found by review: PyYAML's own ValueError went out as a traceback
        ("2026-02-30", "", "a value YAML cannot read"),
        ("2026-10-05T09:00:00Z", "confidence: " + "9" * 5000 + "\n", "a value YAML cannot read"),
    ],
)
def test_front_matter_with_an_alias_or_an_impossible_value_is_invalid_input(
    modified: str, extra: str, words: str
) -> None:
    with pytest.raises(InvalidInput, match=words):
        memory_files.parse(FRONT.format(modified=modified, extra=extra), "m.md")


def test_front_matter_nested_too_deep_is_invalid_input() -> None:
    # Found by review: 400 nested lists were a RecursionError traceback.
    deep = "[" * 400 + "]" * 400
    with pytest.raises(InvalidInput, match="nests too deep"):
        memory_files.parse(
            FRONT.format(modified="2026-10-05T09:00:00Z", extra=f"k: {deep}\n"), "m.md"
        )
