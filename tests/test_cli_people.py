"""The command line for people: page limits up to 1,000, ``sessions``, ``pin``/``unpin``,
``recall --full``, and the text view at a terminal (JSON when piped or asked for)."""

from __future__ import annotations

import functools
import json
import os
import pty
import select
import subprocess
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from memstore import MemoryService
from memstore.adapters.cli import cli
from tests import factories
from tests.conftest import REPO

Seeded = Callable[[], AbstractContextManager[None]]
EXAMPLES = REPO / "examples" / "logs"
SPEAKERS = [
    "--speaker",
    "Diego=user",
    "--speaker",
    "Morgan=assistant",
    "--speaker",
    "System=system",
]


def invoke(runner: CliRunner, db_path: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(cli, ["--database", str(db_path), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def painted(db_path: Path, seeded: Seeded) -> Path:
    """51 messages that say "painting", in one session, as in the user's report."""
    with seeded():
        session = factories.SessionFactory(id="ses_paint")
        for n in range(1, 52):
            factories.MessageFactory(
                session_id=session.id, sequence=n, content=f"Painting number {n} is drying."
            )
    return db_path


def test_instances_limit_100_gives_every_one_of_51(runner: CliRunner, painted: Path) -> None:
    code, out, _ = invoke(runner, painted, "instances", "painting", "--limit", "100")
    page = json.loads(out)
    assert code == 0 and page["total"] == 51
    assert len(page["instances"]) == 51 and page["next_offset"] is None


def test_words_and_memories_pages_hold_what_the_limit_asks(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    with seeded():
        for n in range(300):
            factories.MemoryFactory(content=f"Diego keeps note{n:03d} about paint.")
    code, out, _ = invoke(runner, db_path, "memories", "--limit", "1000")
    assert code == 0 and len(json.loads(out)["memories"]) == 300
    code, out, _ = invoke(runner, db_path, "words", "note", "--scope", "memories", "--limit", "250")
    page = json.loads(out)
    assert [entry["word"] for entry in page["words"]] == [f"note{n:03d}" for n in range(250)]
    assert page["total"] == 300 and page["next_offset"] == 250


def test_without_a_limit_a_page_is_max_results(runner: CliRunner, painted: Path) -> None:
    code, out, _ = invoke(runner, painted, "instances", "painting")
    page = json.loads(out)
    assert code == 0 and len(page["instances"]) == 8 and page["next_offset"] == 8


@pytest.mark.parametrize("command", [["words"], ["instances", "x"], ["memories"], ["sessions"]])
@pytest.mark.parametrize("limit", ["0", "1001", "9223372036854775808", "abc", "1e3", "5.0"])
def test_a_limit_out_of_range_is_a_usage_error_naming_the_range(
    runner: CliRunner, db_path: Path, command: list[str], limit: str
) -> None:
    # found by review: "abc" was "not a valid integer range", without the range
    code, _, err = invoke(runner, db_path, *command, "--limit", limit)
    assert code == 2
    message = json.loads(err)["error"]["message"]
    assert "--limit" in message and ("1<=x<=1000" in message or "from 1 to 1000" in message)


def test_the_agents_pages_stay_max_results(service: MemoryService, painted: Path) -> None:
    page = MemoryService(painted).word_instances("painting", limit=100)
    assert len(page.instances) == 8  # max_results, 1-50, caps an agent's page


def test_sessions_lists_kind_span_count_and_speakers_newest_first(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    assert invoke(runner, db_path, "import", str(EXAMPLES), *SPEAKERS, "--include-tail")[0] == 0
    start = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    with seeded():
        factories.SessionFactory(
            id="ses_live", started_at=start, ended_at=start + timedelta(hours=1)
        )
        factories.MessageFactory(session_id="ses_live", sequence=1, speaker="Ana")
        factories.MessageFactory(session_id="ses_live", sequence=2, role="assistant")
        factories.MessageFactory(session_id="ses_live", sequence=3, speaker="Bea")
        factories.MessageFactory(session_id="ses_live", sequence=4, speaker="ana")
    code, out, _ = invoke(runner, db_path, "sessions")
    page = json.loads(out)
    assert code == 0 and page["total"] == 4 and page["next_offset"] is None
    first, *imported = page["sessions"]
    assert first == {
        "id": "ses_live",
        "kind": "live",
        "started_at": "2026-11-02T09:00:00Z",
        "ended_at": "2026-11-02T10:00:00Z",
        "messages": 4,
        "first_message_at": "2026-10-05T09:01:00Z",  # the factory's times
        "last_message_at": "2026-10-05T09:04:00Z",
        "speakers": ["Ana", "Bea"],
    }
    assert [s["kind"] for s in imported] == ["imported"] * 3
    assert [s["started_at"][:10] for s in imported] == ["2026-10-08", "2026-10-06", "2026-10-05"]
    assert imported[-1]["speakers"] == ["Diego", "Morgan", "System"]
    assert imported[-1]["messages"] == 5


def test_sessions_window_and_pages(runner: CliRunner, db_path: Path) -> None:
    assert invoke(runner, db_path, "import", str(EXAMPLES), *SPEAKERS, "--include-tail")[0] == 0
    since, until = "2026-10-06T00:00:00+00:00", "2026-10-08T00:00:00+00:00"
    code, out, _ = invoke(runner, db_path, "sessions", "--since", since, "--until", until)
    page = json.loads(out)
    assert code == 0 and page["total"] == 1
    assert page["sessions"][0]["started_at"].startswith("2026-10-06")
    code, out, _ = invoke(runner, db_path, "sessions", "--limit", "2", "--offset", "2")
    page = json.loads(out)
    assert page["total"] == 3 and len(page["sessions"]) == 1 and page["next_offset"] is None
    code, _, err = invoke(runner, db_path, "sessions", "--since", "2026-10-06T00:00:00")
    assert code == 2 and "--since" in json.loads(err)["error"]["message"]
    code, _, err = invoke(runner, db_path, "sessions", "--since", until, "--until", since)
    assert code == 1 and json.loads(err)["error"]["type"] == "InvalidInput"


def test_pin_and_unpin(runner: CliRunner, db_path: Path) -> None:
    code, out, _ = invoke(runner, db_path, "remember", "Diego likes tea.")
    memory_id = json.loads(out)["id"]
    invoke(runner, db_path, "remember", "Diego likes long walks.")
    code, out, _ = invoke(runner, db_path, "pin", memory_id)
    assert code == 0 and json.loads(out)["pinned"] is True
    listed = json.loads(invoke(runner, db_path, "memories")[1])["memories"]
    assert listed[0]["id"] == memory_id and listed[0]["pinned"] is True
    code, out, _ = invoke(runner, db_path, "unpin", memory_id)
    assert code == 0 and json.loads(out)["pinned"] is False
    code, _, err = invoke(runner, db_path, "pin", "mem_missing")
    assert code == 1 and json.loads(err)["error"]["type"] == "NotFound"


def test_recall_full_prints_matched_messages_unclipped(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    long_text = "The heron came back to the pond. " + "It stood still for a long time. " * 600
    with seeded():
        factories.SessionFactory(id="ses_pond")
        factories.conversation("ses_pond", [("user", long_text), ("assistant", "Lovely.")])
    clipped = json.loads(invoke(runner, db_path, "recall", "heron")[1])
    assert clipped["truncated"] is True
    assert clipped["conversations"][0]["messages"][0]["content"] != long_text
    code, out, _ = invoke(runner, db_path, "recall", "heron", "--full")
    whole = json.loads(out)
    assert code == 0 and whole["truncated"] is False
    assert [m["content"] for m in whole["conversations"][0]["messages"]] == [long_text, "Lovely."]


@pytest.fixture
def imported(runner: CliRunner, db_path: Path) -> Path:
    assert invoke(runner, db_path, "import", str(EXAMPLES), *SPEAKERS, "--include-tail")[0] == 0
    return db_path


@pytest.mark.parametrize("where", ["group", "command"])
def test_format_text_prints_a_transcript_json_prints_the_contract(
    runner: CliRunner, imported: Path, where: str
) -> None:
    args = ["recall", "café"]
    forced = ["--format", "text", *args] if where == "group" else [*args, "--format", "text"]
    code, text, _ = invoke(runner, imported, *forced)
    assert code == 0 and not text.lstrip().startswith("{")
    assert "Conversation of 2026-10-05" in text and "Diego (user)" in text
    assert "¿me recuerdas el café de la mañana?" in text
    # the heading gives the first message's time, as the line under it does (found by review)
    lines = text.splitlines()
    for at, line in enumerate(lines[:-1]):
        if line.startswith("Conversation of "):
            assert lines[at + 1][2:18] == line.removeprefix("Conversation of ")[:16]
    piped = json.loads(invoke(runner, imported, *args)[1])
    assert json.loads(invoke(runner, imported, *args, "--json")[1]) == piped
    assert json.loads(invoke(runner, imported, "--format", "json", *args)[1]) == piped
    code, _, err = invoke(runner, imported, *args, "--json", "--format", "text")
    assert code == 2 and "disagree" in err


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["zanahoria"], "try other words."),
        (["zanahoria", "--mode", "all"], "try other words, or --mode any."),
        (["café", "--since", "2030-01-01T00:00Z"], "try other words, or fewer filters."),
        (
            ["café", "--mode", "phrase", "--speaker", "Nobody"],
            "try other words, --mode any, or fewer filters.",
        ),
    ],
)
def test_the_text_of_nothing_found_says_what_to_try(
    runner: CliRunner, imported: Path, args: list[str], hint: str
) -> None:
    # Found by review: with only the filters leaving nothing, the hint spoke of words alone.
    code, text, _ = invoke(runner, imported, "recall", *args, "--format", "text")
    assert code == 0 and text.strip() == f"Nothing matched. Search is lexical: {hint}"


def test_text_views_of_listings_and_check(runner: CliRunner, imported: Path) -> None:
    words = invoke(runner, imported, "words", "caf", "--format", "text")[1].splitlines()
    assert words[0].split() == ["word", "occurrences", "documents"]
    assert words[1].split() == ["cafe", "4", "4"]  # words are listed folded, as indexed
    assert words[2].split() == ["cafeterias", "1", "1"] and words[-1] == "2 of 2"
    check = invoke(runner, imported, "check", "--format", "text")[1]
    assert check.startswith("ok: ") and "schema 7" in check
    sessions = invoke(runner, imported, "sessions", "--format", "text")[1].splitlines()
    assert sessions[0].split()[:2] == ["id", "kind"] and sessions[-1] == "3 of 3"
    code, summary, err = invoke(
        runner, imported, "import", str(EXAMPLES), *SPEAKERS, "--format", "text"
    )
    assert code == 0 and summary.strip().startswith("imported 0 messages from 3 files")
    assert err == ""  # the summary is the view, not said twice


def test_text_views_of_export_and_import_memories(
    runner: CliRunner, imported: Path, tmp_path: Path
) -> None:
    invoke(runner, imported, "remember", "Diego likes tea.")
    out = tmp_path / "out.jsonl"
    code, text, _ = invoke(runner, imported, "--format", "text", "export", str(out))
    assert code == 0 and text.strip() == (
        f"exported 3 sessions, 13 messages, 1 memory (all, jsonl) to {out}"
    )
    fresh = tmp_path / "fresh.sqlite3"
    code, text, _ = invoke(runner, fresh, "import-memories", str(out), "--format", "text")
    assert code == 0
    assert (
        text.strip()
        == f"imported 1 memory from {out} (0 already there); also 3 sessions, 13 messages"
    )


def test_stored_control_characters_are_escaped_in_the_text_view(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    with seeded():
        factories.SessionFactory(id="ses_esc")
        factories.conversation(
            "ses_esc", [("user", "the heron \x1b[31mred\u202e\u115f"), ("assistant", "ok")]
        )
    text = invoke(runner, db_path, "recall", "heron", "--format", "text")[1]
    # a Hangul filler is a letter that prints as nothing (found by review)
    assert "\x1b[31m" not in text and "\\x1b[31mred\\u202e\\u115f" in text


def test_bare_memstore_prints_its_help_as_text(runner: CliRunner) -> None:
    result = runner.invoke(cli, [], prog_name="memstore")
    assert result.exit_code == 0 and result.stdout.startswith("Usage: memstore")
    assert "sessions" in result.stdout and not result.stderr
    # Options alone are no command either (found by review: "Missing command.", exit 2).
    for options in (["--json"], ["--format", "text"], ["--database", "x.sqlite3", "-v"]):
        given = runner.invoke(cli, options, prog_name="memstore")
        assert given.exit_code == 0 and given.stdout == result.stdout, options


def in_terminal(*args: str) -> str:
    """What ``python -m memstore ARGS`` prints with stdout on a pseudo-terminal."""
    main, child = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "TZ": "UTC"}
    process = subprocess.Popen(
        [sys.executable, "-m", "memstore", *args], stdout=child, stderr=subprocess.PIPE, env=env
    )
    os.close(child)
    chunks = []
    while True:
        ready, _, _ = select.select([main], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, errors = process.communicate(timeout=30)
    os.close(main)
    assert process.returncode == 0, errors
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def test_a_terminal_gets_text_with_the_match_in_bold_and_a_pipe_gets_json(imported: Path) -> None:
    shown = in_terminal("--database", str(imported), "recall", "café")
    assert not shown.lstrip().startswith("{") and "Conversation of" in shown
    assert "\x1b[1mcafé\x1b[0m" in shown  # the matched word in bold
    assert "\x1b[2mmsg_" in shown  # ids dimmed
    piped = subprocess.run(
        [sys.executable, "-m", "memstore", "--database", str(imported), "recall", "café"],
        capture_output=True,
        check=True,
        text=True,
    )
    expected = MemoryService(imported).recall("café").model_dump(mode="json")
    assert json.loads(piped.stdout) == expected


def test_ids_in_the_text_view_are_escaped_too(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    # The API refuses a control character in a session id now; a store written before may
    # still hold one.
    hostile = "ses_\x1b[31mevil\u202e"
    with seeded():
        factories.conversation(
            factories.SessionFactory(id=hostile).id, [("user", "a quagga question")]
        )
    for args in (["recall", "quagga"], ["conversation", hostile], ["delete-memory", hostile]):
        text = invoke(runner, db_path, *args, "--format", "text")[1]
        assert "\x1b[31m" not in text and "\u202e" not in text, args
        assert "ses_\\x1b[31mevil\\u202e" in text, args


def test_a_larger_recall_limit_never_shows_fewer_conversations(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    with seeded():
        for n in range(60):
            factories.MemoryFactory(content=f"Diego's alpha note {n}: " + "detail " * 30)
        for n in range(40):
            session = factories.SessionFactory()
            factories.conversation(session.id, [("user", f"alpha {n} " + "words " * 40)])
    shown = {}
    for limit in ("8", "20", "50"):
        page = json.loads(invoke(runner, db_path, "recall", "alpha", "--limit", limit)[1])
        shown[limit] = len(page["conversations"])
    assert shown["8"] <= shown["20"] <= shown["50"] and shown["50"] >= 20


def test_pinning_an_expired_memory_is_refused(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    with seeded():
        factories.MemoryFactory(id="mem_old", expires_at=datetime(2020, 1, 1, tzinfo=UTC))
    code, _, err = invoke(runner, db_path, "pin", "mem_old")
    assert code == 1 and json.loads(err)["error"]["type"] == "InvalidInput"
    assert "expired" in json.loads(err)["error"]["message"]


def test_text_view_layout_rough_edges(runner: CliRunner, imported: Path, seeded: Seeded) -> None:
    invoke(runner, imported, "remember", "Diego line one\nline two\n- dash item")
    listed = invoke(runner, imported, "memories", "--format", "text")[1].splitlines()
    assert listed[0].startswith("• Diego line one") and listed[1:3] == [
        "    line two",
        "    - dash item",
    ]
    sessions = invoke(runner, imported, "sessions", "--format", "text")[1]
    assert "2026-10-08 12:55 - 13:11" in sessions  # an imported session's span: its messages
    with seeded():
        factories.MessageFactory(session_id=factories.SessionFactory().id, content="x" * 20_000)
    words = invoke(runner, imported, "words", "--limit", "1000", "--format", "text")
    assert max(len(line) for line in words[1].splitlines() if not line.startswith("x")) < 120
    empty = invoke(
        runner, imported, "sessions", "--since", "2030-01-01T00:00:00Z", "--format", "text"
    )
    assert empty[1].strip() == "No sessions."


def test_text_that_stdout_cannot_encode_is_escaped_not_a_traceback(imported: Path) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    args = [sys.executable, "-m", "memstore", "--database", str(imported), "--format", "text"]
    done = subprocess.run(
        [*args, "remember", "Diego watches 电影 • often."], env=env, capture_output=True
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    assert "\\u7535\\u5f71" in done.stdout.decode("latin-1")


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_json_is_utf8_whatever_the_streams_encoding(imported: Path, encoding: str) -> None:
    # A Windows pipe is cp1252: "é" once went out as one byte no JSON reader takes, and "🍵"
    # as a Python escape that is no JSON escape, on stdout and in errors on stderr alike.
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    args = [sys.executable, "-m", "memstore", "--database", str(imported)]
    run = functools.partial(subprocess.run, env=env, capture_output=True)
    assert run([*args, "remember", "Diego ama el té 🍵"]).returncode == 0
    found = json.loads(run([*args, "recall", "té"]).stdout.decode("utf-8"))
    assert [memory["content"] for memory in found["memories"]] == ["Diego ama el té 🍵"]
    refused = run([*args, "conversation", "séssion🍵"])
    error = json.loads(refused.stderr.decode("utf-8"))["error"]
    assert refused.returncode == 1 and "'séssion🍵'" in error["message"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_stdout_is_a_json_error(imported: Path) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "memstore", "--database", str(imported), "memories"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert json.loads(done.stderr.splitlines()[0])["error"]["type"] == "OSError"


@pytest.mark.parametrize("command", ["backup", "export"])
def test_an_empty_destination_is_refused_not_read_as_the_working_directory(
    runner: CliRunner, imported: Path, command: str
) -> None:
    code, _, err = invoke(runner, imported, command, "")
    assert code == 2 and "DESTINATION" in json.loads(err)["error"]["message"]
    assert "is empty" in json.loads(err)["error"]["message"]


@given(text=st.text(max_size=200), query=st.text(max_size=40))
@settings(max_examples=300)
def test_marking_words_changes_only_styles(text: str, query: str) -> None:
    from memstore.adapters.cli.terminal import marked
    from memstore.text.printable import printable
    from memstore.text.tokens import fold, token_spans

    terms = frozenset(fold(query[start:end]) for start, end in token_spans(query))
    assert click.unstyle(marked(text, terms)) == printable(text)


def test_exports_format_option_is_the_file_format(
    runner: CliRunner, imported: Path, tmp_path: Path
) -> None:
    # CONTRACT: export takes "format and scope options"; --as is the same option.
    code, out, _ = invoke(runner, imported, "export", str(tmp_path / "md"), "--format", "markdown")
    assert code == 0 and json.loads(out)["format"] == "markdown"
    assert (tmp_path / "md" / "history").is_dir()
    code, out, _ = invoke(
        runner, imported, "export", str(tmp_path / "a.jsonl"), "--as", "jsonl", "--json"
    )
    assert code == 0 and json.loads(out)["format"] == "jsonl"
    code, out, _ = invoke(runner, imported, "--format", "text", "export", str(tmp_path / "b.jsonl"))
    assert code == 0 and out.startswith("exported ")


def test_a_nul_in_a_path_is_a_file_error_not_a_value_error(
    service: MemoryService, tmp_path: Path
) -> None:
    from memstore.errors import FileError

    service.remember("Diego likes tea.")
    for call in (
        lambda: service.export(str(tmp_path / "x\x00.jsonl")),
        lambda: service.backup(str(tmp_path / "b\x00.sqlite3")),
        lambda: service.import_markdown([str(tmp_path / "x\x00.md")], speakers={"A": "user"}),
    ):
        with pytest.raises(FileError, match="NUL"):
            call()


def test_a_session_cannot_end_before_it_started(service: MemoryService) -> None:
    from memstore.errors import InvalidInput

    started = datetime(2026, 10, 5, 9, 0, tzinfo=UTC)
    session = service.start_session(started_at=started)
    with pytest.raises(InvalidInput, match="before the session started"):
        service.end_session(session.id, ended_at=started - timedelta(seconds=1))
    assert service.end_session(session.id, ended_at=started).ended_at == started


def test_a_page_past_the_end_says_so(runner: CliRunner, imported: Path) -> None:
    text = invoke(runner, imported, "sessions", "--offset", "5", "--format", "text")[1]
    assert text.strip() == "No sessions. none of 3 here: the offset is past the last one"
    text = invoke(runner, imported, "sessions", "--offset", "1", "--format", "text")[1]
    assert text.splitlines()[-1] == "2-3 of 3"


@pytest.mark.parametrize(
    ("hidden", "shown"),
    [
        ("\U000e0041\U000e0042", "\\U000e0041\\U000e0042"),  # tag letters: text a reader misses
        ("\u034f", "\\u034f"),  # the combining grapheme joiner
        ("\U0001d173", "\\U0001d173"),  # a musical beam, a format character
        ("\u0600", "\\u0600"),  # an Arabic number sign (a later review)
        ("\U00013430", "\\U00013430"),  # an Egyptian format control
        ("\ufe00\U000e0101", "\\ufe00\\U000e0101"),  # a run of variation selectors
        ("\u180b\u17b4", "\\u180b\\u17b4"),  # Mongolian and Khmer ones the guard drops
    ],
)
def test_invisible_characters_found_by_review_are_escaped_in_text_views(
    hidden: str, shown: str
) -> None:
    from memstore.text.printable import printable

    assert printable(f"ok{hidden}go") == f"ok{shown}go"
    assert (
        printable("👨\u200d👩\u200d👧 fine") == "👨\u200d👩\u200d👧 fine"
    )  # emoji keep their joiner
    assert printable("❤\ufe0f 葛\U000e0100") == "❤\ufe0f 葛\U000e0100"  # and one selector


@given(st.text())
def test_json_made_printable_reads_back_the_same_and_holds_nothing_a_terminal_acts_on(
    text: str,
) -> None:
    from memstore.text.printable import UNSAFE, json_printable

    document = json.dumps({"message": text}, ensure_ascii=False)
    shown = json_printable(document)
    assert json.loads(shown) == {"message": text}
    assert UNSAFE.search(shown) is None
