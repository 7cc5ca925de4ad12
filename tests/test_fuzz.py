"""Fuzzing the query surfaces with hypothesis: any Unicode text (lone surrogates, such as a
command-line argument that is not UTF-8, included) as a recall query, a search_words prefix
or a word_instances word raises nothing but the documented InvalidQuery / InvalidInput, and
the per-turn context never fails at all.

Arbitrary bytes as a daily log are fuzzed in tests/test_importing.py
(test_any_bytes_are_reported_never_raised).
"""

from __future__ import annotations

import contextlib
import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore import InvalidInput, MemoryService
from memstore.adapters.cli import cli

STORED = [
    "¿Qué decidimos sobre el jardín azul con lavanda?",
    "Un jardín azul: lavanda, agapantos y café a las diez.",
    "Straße, naïve, ÆØÅ, ﬁne, Ǆemo, İstanbul, 東京タワー, 🌱🌷 and the NEAR/3 AND OR NOT words",
    'SQL-ish text: "quoted" * ^ : - ( ) col:value NEAR(a b) x*',
    "Arabic مرحبا, Hebrew שלום, Devanagari नमस्ते, combining e\u0301 and Hangul 한국어",
]
FTS_SYNTAX = ['"', "*", "^", ":", "-", "(", ")", "+", "AND", "OR", "NOT", "NEAR", "NEAR/2", "{"]
WORDS = ["jardín", "JARDÍN", "azul", "café", "straße", "東京", "🌱", "e\u0301", "ﬁne", "ǆemo"]
# Every code point, lone surrogates included (hypothesis leaves them out by default).
ANY_CHARACTER = st.characters(codec=None, exclude_categories=())
SURROGATE = st.characters(categories=["Cs"])
QUERIES = st.one_of(
    st.text(ANY_CHARACTER, max_size=40),
    st.text(st.sampled_from([*"cafévxyz _"]) | SURROGATE, max_size=8),
    st.text(ANY_CHARACTER, min_size=500, max_size=600),  # around the 512-character limit
    st.lists(st.sampled_from(FTS_SYNTAX + WORDS) | st.text(ANY_CHARACTER, max_size=4)).map(
        " ".join
    ),
    st.lists(st.sampled_from(FTS_SYNTAX + WORDS), max_size=6).map("".join),
    st.integers(30, 40).map(lambda n: " ".join(f"w{i}" for i in range(n))),  # ~32 tokens
)
FUZZ = settings(
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def stocked(tmp_path_factory: pytest.TempPathFactory) -> MemoryService:
    """A database with messages and memories in many scripts (only read by the tests)."""
    service = MemoryService(tmp_path_factory.mktemp("fuzz") / "memory.sqlite3")
    session = service.start_session()
    for n, text in enumerate(STORED):
        service.record_message(session.id, "user" if n % 2 == 0 else "assistant", text)
        service.remember(f"Diego said: {text}")
    return service


@FUZZ
@given(query=QUERIES, mode=st.sampled_from(["any", "all", "phrase"]), history=st.booleans())
def test_recall_raises_only_documented_errors(
    stocked: MemoryService, query: str, mode: str, history: bool
) -> None:
    with contextlib.suppress(InvalidInput):  # InvalidQuery included
        stocked.recall(query, mode=mode, history=history)


@FUZZ
@given(prefix=QUERIES, scope=st.sampled_from(["history", "memories", "all"]))
def test_search_words_raises_only_documented_errors(
    stocked: MemoryService, prefix: str, scope: str
) -> None:
    try:
        page = stocked.search_words(prefix, scope=scope)
    except InvalidInput:
        return
    assert page.total >= len(page.words)


@FUZZ
@given(word=QUERIES, scope=st.sampled_from(["history", "memories", "all"]))
def test_word_instances_raises_only_documented_errors(
    stocked: MemoryService, word: str, scope: str
) -> None:
    try:
        page = stocked.word_instances(word, scope=scope)
    except InvalidInput:
        return
    for instance in page.instances:
        assert instance.matched_text  # located in the original text


@FUZZ
@given(query=QUERIES)
def test_context_never_fails_whatever_the_user_types(stocked: MemoryService, query: str) -> None:
    block = stocked.context(query)
    assert set(block.memory_ids).isdisjoint(block.omitted_ids)


@pytest.mark.parametrize("text", ["\udcff", "jard\udcffín", "\ud800", "caf\udce9"])
def test_text_that_is_not_valid_unicode_is_invalid_query_not_a_crash(
    stocked: MemoryService, text: str
) -> None:
    # What a command-line argument that is not UTF-8 becomes in Python (surrogateescape).
    for call in (stocked.search_words, stocked.word_instances):
        with pytest.raises(InvalidInput):
            call(text)


def test_the_cli_never_shows_a_traceback_for_an_argument_that_is_not_utf8(
    runner: CliRunner, stocked: MemoryService
) -> None:
    # Python hands `memstore words $'caf\xe9'` over as "caf\udce9" (surrogateescape).
    base = ["--database", str(stocked.path)]
    for command in ("recall", "words", "instances"):
        result = runner.invoke(cli, [*base, command, "caf\udce9"])
        assert result.exit_code == 1 and result.stdout == ""
        assert json.loads(result.stderr)["error"]["type"] == "InvalidQuery"
