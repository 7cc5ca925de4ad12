"""The API boundary under wrong types and edge values: InvalidInput naming the argument,
never an error from inside; tools that never raise; deletes of missing ids; disabled memory."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstore import InvalidInput, MemoryConfig, MemoryService, MemoryTools
from memstore.adapters.cli import cli
from memstore.schemas import UNTRUSTED_WARNING
from tests.conftest import REPO

EXAMPLES = REPO / "examples" / "logs"
EXAMPLE_SPEAKERS = {"Diego": "user", "Morgan": "assistant", "System": "system"}
PLUS_FIVE = timezone(timedelta(hours=5))
MINUS_FIVE = timezone(timedelta(hours=-5))
EARLIEST = datetime(1, 1, 1, tzinfo=PLUS_FIVE)  # year 0 in UTC
LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=MINUS_FIVE)  # year 10000 in UTC
Call = Callable[[MemoryService], Any]


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file for a test hypothesis runs many times (pytest removes it, unlike mkdtemp)."""
    return tmp_path_factory.mktemp("arguments") / "memory.sqlite3"


@pytest.fixture
def session_id(service: MemoryService) -> str:
    return service.start_session().id


# The failing inputs of the hostile-inputs review, each with the argument it must name.
BAD_TYPES: list[tuple[str, Callable[[MemoryService, str], Any]]] = [
    ("role", lambda s, sid: s.record_message(sid, None, "hola")),
    ("content", lambda s, sid: s.record_message(sid, "user", b"bytes")),
    ("limit", lambda s, sid: s.recall("tea", limit=5.5)),
    ("limit", lambda s, sid: s.recall("tea", limit=10**30)),
    ("limit", lambda s, sid: s.messages(sid, limit=10**30)),
    ("limit", lambda s, sid: s.list_memories(limit=True)),
    ("content", lambda s, sid: s.remember(None)),
    ("session_id", lambda s, sid: s.recall("tea", session_id=[1])),
    ("session_id", lambda s, sid: s.word_instances("tea", session_id={"id": 1})),
    ("metadata", lambda s, sid: s.start_session(metadata={"when": datetime.now(UTC)})),
    ("metadata", lambda s, sid: s.start_session(metadata={"x": float("nan")})),
    ("metadata", lambda s, sid: s.start_session(metadata=["not", "a", "mapping"])),
    ("since", lambda s, sid: s.recall("tea", since="2026-10-05T09:00:00+02:00")),
    ("confidence", lambda s, sid: s.remember("Diego likes tea.", confidence="high")),
    ("offset", lambda s, sid: s.search_words("te", offset=1.0)),
    ("paths", lambda s, sid: s.import_markdown(b"logs/", speakers={"Diego": "user"})),
    ("speakers", lambda s, sid: s.import_markdown(["logs/"], speakers=[("Diego", "user")])),
    ("message_id", lambda s, sid: s.delete_message(42)),
    ("pinned", lambda s, sid: s.pin_memory("mem_x", pinned="yes")),
    ("query", lambda s, sid: s.context(query=None)),
    # Text SQLite cannot hold (a lone surrogate) in an id once gave UnicodeEncodeError.
    ("memory_id", lambda s, sid: s.delete_memory("mem_\ud800")),
    ("session_id", lambda s, sid: s.get_session("\udcff")),
    ("session_id", lambda s, sid: s.recall("tea", session_id="ses_\ud800")),
    ("key", lambda s, sid: s.remember("Diego likes tea.", key="k\ud800")),
    ("metadata", lambda s, sid: s.start_session(metadata=deeply_nested(100_000))),
    # Found by review: a lone surrogate inside metadata passed (json.dumps escapes it), and
    # every later JSONL export failed; a NUL and 100,000 characters passed as a session id.
    ("metadata", lambda s, sid: s.start_session(metadata={"a": ["\ud800"]})),
    ("session_id", lambda s, sid: s.start_session(session_id="ses\x00x")),
    ("session_id", lambda s, sid: s.start_session(session_id="s" * 65)),
    ("session_id", lambda s, sid: s.start_session(session_id="   ")),
    ("session_id", lambda s, sid: s.start_session(session_id="ses_\u202eevil")),
    ("paths", lambda s, sid: s.import_markdown([1], speakers={"Diego": "user"})),
]


def deeply_nested(depth: int) -> dict[str, object]:
    """A dict nested ``depth`` levels deep (RecursionError for json.dumps)."""
    value: dict[str, object] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(("argument", "call"), BAD_TYPES)
def test_wrong_types_are_invalid_input_naming_the_argument(
    service: MemoryService, session_id: str, argument: str, call: Callable[..., Any]
) -> None:
    with pytest.raises(InvalidInput) as caught:
        call(service, session_id)
    assert caught.value.argument == argument
    assert str(caught.value).startswith(f"{argument}: ")


@settings(max_examples=60)
@given(
    value=st.one_of(
        st.none(), st.booleans(), st.floats(), st.binary(), st.lists(st.integers()), st.text()
    )
)
def test_any_value_for_limit_is_accepted_or_invalid_input(
    shared_store: Path, value: object
) -> None:
    service = MemoryService(shared_store)
    try:
        service.list_memories(limit=value)  # type: ignore[arg-type]
    except InvalidInput as error:
        assert error.argument == "limit"


def message_at(when: datetime) -> Call:
    """A call that records a message at ``when`` in a new session."""
    return lambda s: s.record_message(s.start_session().id, "user", "hi", created_at=when)


EDGE_TIMES: list[tuple[str, Call]] = [
    ("since", lambda s: s.recall("tea", since=EARLIEST)),
    ("until", lambda s: s.word_instances("tea", until=LATEST)),
    ("since", lambda s: s.search_words("te", since=EARLIEST)),
    ("started_at", lambda s: s.start_session(started_at=EARLIEST)),
    ("ended_at", lambda s: s.end_session(s.start_session().id, ended_at=LATEST)),
    ("expires_at", lambda s: s.remember("Diego likes tea.", expires_at=LATEST)),
    (
        "expires_at",
        lambda s: s.remember("Diego likes tea.", expires_at="9999-12-31T23:59:59-05:00"),
    ),
    ("created_at", message_at(LATEST)),
]


@pytest.mark.parametrize(("argument", "call"), EDGE_TIMES)
def test_times_leaving_the_calendar_in_utc_are_invalid_input(
    service: MemoryService, argument: str, call: Call
) -> None:
    with pytest.raises(InvalidInput, match="years 1 to 9999") as caught:
        call(service)
    assert caught.value.argument == argument


class BrokenZone(tzinfo):
    """A caller's time zone whose offset is ``offset``: out of range, of the wrong type, or
    an exception it raises."""

    def __init__(self, offset: object) -> None:
        self.offset = offset

    def utcoffset(self, dt: datetime | None) -> timedelta:
        if isinstance(self.offset, Exception):
            raise self.offset
        return self.offset  # type: ignore[return-value]

    def dst(self, dt: datetime | None) -> None:
        return None


TIMED_CALLS: list[tuple[str, Callable[[MemoryService, datetime], Any]]] = [
    ("since", lambda s, when: s.recall("tea", since=when)),
    ("until", lambda s, when: s.word_instances("tea", until=when)),
    ("since", lambda s, when: s.search_words("te", since=when)),
    ("started_at", lambda s, when: s.start_session(started_at=when)),
    ("ended_at", lambda s, when: s.end_session(s.start_session().id, ended_at=when)),
    ("expires_at", lambda s, when: s.remember("Diego likes tea.", expires_at=when)),
    ("created_at", lambda s, when: message_at(when)(s)),
]


@pytest.mark.parametrize(
    "zone",
    [BrokenZone(timedelta(hours=30)), BrokenZone("5"), BrokenZone(RuntimeError("tz down"))],
    ids=["30 hours", "text", "raises"],
)
@pytest.mark.parametrize(("argument", "call"), TIMED_CALLS)
def test_a_time_zone_without_a_valid_offset_is_invalid_input(
    service: MemoryService,
    zone: tzinfo,
    argument: str,
    call: Callable[[MemoryService, datetime], Any],
) -> None:
    # Found by review: the tzinfo's ValueError, TypeError or own error came out of every
    # method taking a time.
    with pytest.raises(InvalidInput, match="gives no valid UTC offset") as caught:
        call(service, datetime(2026, 1, 1, tzinfo=zone))
    assert caught.value.argument == argument
    assert service.list_memories().total == 0


LAST_STORED_DAY = datetime(9999, 12, 31, 1, tzinfo=UTC)  # in UTC, year 10000 in Tokyo
FIRST_STORED_DAY = datetime(1, 1, 1, 23, tzinfo=UTC)  # in UTC, year 0 in New York
STORED_EDGES: list[tuple[str, Call]] = [
    ("started_at", lambda s: s.start_session(started_at=FIRST_STORED_DAY)),
    ("ended_at", lambda s: s.end_session(s.start_session().id, ended_at=LAST_STORED_DAY)),
    ("created_at", message_at(LAST_STORED_DAY)),
    ("created_at", message_at(FIRST_STORED_DAY)),
]


@pytest.mark.parametrize(("argument", "call"), STORED_EDGES)
def test_a_time_stored_within_a_day_of_the_calendars_ends_is_invalid_input(
    service: MemoryService, argument: str, call: Call
) -> None:
    # Found by review: a message at 9999-12-31T23:00Z broke every later diary and text
    # view in Tokyo (an OverflowError traceback): no zone could show it as local time.
    with pytest.raises(InvalidInput, match="from 0001-01-02 to 9999-12-30 UTC") as caught:
        call(service)
    assert caught.value.argument == argument
    assert service.recall("hi").conversations == []


def test_a_log_of_the_calendars_last_or_first_day_starts_its_session_within_the_range(
    service: MemoryService, tmp_path: Path
) -> None:
    # Found by review: a log with no importable record started its session at its day's
    # midnight, 9999-12-31T00:00Z, outside the range every zone can show.
    logs = tmp_path / "logs"
    logs.mkdir()
    for day in ("9999-12-31", "0001-01-01"):
        text = f"Morgan Log \u2014 {day}\n\n[10:00:00 +0000] \nDiego: hi\n"
        (logs / f"{day}.md").write_text(text, encoding="utf-8")
    report = service.import_markdown([logs], speakers={"Diego": "user"}, include_tail=True)
    assert report.imported == 0
    starts = sorted(session.started_at for session in service.list_sessions().sessions)
    assert starts == [
        datetime(1, 1, 2, tzinfo=UTC),
        datetime(9999, 12, 30, 23, 59, 59, 999999, tzinfo=UTC),
    ]


def test_times_an_older_store_kept_at_the_calendars_ends_are_shown_in_utc(
    db_path: Path, tmp_path: Path
) -> None:
    # Found by review: a store written before the day's margin held such times, and every
    # text view in a zone that could not show them failed with a traceback, as did export.
    service = MemoryService(db_path)
    session = service.start_session()
    service.record_message(session.id, "user", "last heron of the calendar")
    service.remember("Diego renews his passport.", expires_at="9999-12-31T23:00:00Z")
    with closing(sqlite3.connect(db_path)) as connection, connection:
        connection.execute("UPDATE messages SET created_at = '9999-12-31T23:00:00.000000+00:00'")
        connection.execute("UPDATE sessions SET started_at = '9999-12-31T22:00:00.000000+00:00'")

    def memstore(*args: str, zone: str = "Asia/Tokyo") -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "memstore", "--database", str(db_path), *args]
        environment = {**os.environ, "TZ": zone}
        return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)

    for args in (
        ["instances", "heron", "--format", "text"],
        ["sessions", "--format", "text"],
        ["memories", "--format", "text"],
        ["recall", "heron", "--format", "text"],
        ["diary", "9999-12-30", "--tz", "Asia/Tokyo", "--format", "text"],
        ["export", str(tmp_path / "all.jsonl")],
    ):
        completed = memstore(*args)
        assert completed.returncode == 0, (args, completed.stderr)
        assert "Traceback" not in completed.stderr
    assert "9999-12-31 23:00" in memstore("instances", "heron", "--format", "text").stdout
    # its export is refused by an import, which stores only the times the API stores
    # (found by review: such a time failed every Markdown export of the new store)
    fresh = MemoryService(tmp_path / "fresh.sqlite3")
    with pytest.raises(InvalidInput, match=r"line 2: session.started_at: .* calendar's ends"):
        fresh.import_memories(tmp_path / "all.jsonl")


def test_a_far_future_expiry_stands_for_never(service: MemoryService) -> None:
    # Found by review: the day's margin refused "9999-12-31", a natural "never expires".
    memory = service.remember("Diego renews his passport.", expires_at="9999-12-31T23:00:00Z")
    assert memory.expires_at == datetime(9999, 12, 31, 23, tzinfo=UTC)


def test_times_a_day_inside_the_calendar_are_stored_and_shown_in_every_zone(
    service: MemoryService,
) -> None:
    session = service.start_session(started_at=datetime(1, 1, 2, tzinfo=UTC))
    for when in (datetime(1, 1, 2, tzinfo=UTC), datetime(9999, 12, 30, 23, 59, tzinfo=UTC)):
        service.record_message(session.id, "user", "heron", created_at=when)
    for zone in ("Pacific/Kiritimati", "Etc/GMT+12", "Asia/Tokyo"):
        assert service.diary("9999-12-30", tz=zone).next_day in (None, date(9999, 12, 31))
        assert service.diary("0001-01-02", tz=zone).day == date(1, 1, 2)
    assert service.word_instances("heron").total == 2
    # found by review: Tokyo's diary linked to 9999-12-31, then refused that day
    last = service.diary("9999-12-31", tz="Asia/Tokyo")
    assert [c.message_count for c in last.conversations] == [1]


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        (["recall", "tea", "--since", "0001-01-01T00:00:00+05:00"], "--since"),
        (["words", "--until", "9999-12-31T23:59:59-05:00"], "--until"),
        (["remember", "Diego likes tea.", "--expires", "9999-12-31T23:59:59-05:00"], "--expires"),
    ],
)
def test_the_cli_reports_calendar_edges_as_json_invalid_input(
    db_path: Path, args: list[str], argument: str
) -> None:
    MemoryService(db_path).remember("Diego likes green tea.")
    completed = subprocess.run(
        [sys.executable, "-m", "memstore", "--database", str(db_path), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    error = json.loads(completed.stderr)["error"]
    assert error["type"] == "InvalidInput" and error["message"].startswith(f"{argument}: ")


def test_tools_report_calendar_edges_as_failed_results(service: MemoryService) -> None:
    result = MemoryTools(service).recall("tea", since="0001-01-01T00:00:00+05:00")
    assert result["ok"] is False and result["error"]["type"] == "InvalidInput"
    assert result["error"]["message"].startswith("since: ")


def test_a_database_that_is_not_a_path_is_invalid_input() -> None:
    with pytest.raises(InvalidInput) as caught:
        MemoryService(None)  # type: ignore[arg-type]
    assert caught.value.argument == "database"


@pytest.mark.parametrize("since", [5.5, 3, ["2026"], {"a": 1}, True, b"2026-10-05"])
def test_tools_refuse_times_that_are_not_text(service: MemoryService, since: object) -> None:
    # The failing input: AttributeError "'float' object has no attribute 'strip'".
    result = MemoryTools(service).recall("tea", since=since)  # type: ignore[arg-type]
    assert result["ok"] is False and result["error"]["type"] == "InvalidInput"
    assert result["error"]["message"].startswith("since: ")


# Tools never raise


def test_a_constraint_error_inside_a_tool_is_a_failed_result(service: MemoryService) -> None:
    service.health()
    with closing(sqlite3.connect(service.path)) as connection:
        connection.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON memories "
            "BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END"
        )
        connection.commit()
    result = MemoryTools(service).remember("Diego likes jazz.")
    assert result["ok"] is False
    assert (
        result["error"]["type"] == "StoreError"
        and "refused by a trigger" in result["error"]["message"]
    )
    assert result["error"]["retryable"] is False


def test_an_unexpected_failure_inside_a_tool_is_a_failed_result(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(service, "recall", broken)
    result = MemoryTools(service).recall("tea")
    assert result == {
        "ok": False,
        "untrusted": UNTRUSTED_WARNING,
        "error": {"type": "RuntimeError", "message": "a bug", "retryable": False},
    }


# Deleting what is not there


def test_forgetting_a_missing_memory_is_not_found_for_the_tools(service: MemoryService) -> None:
    result = MemoryTools(service).forget("mem_does_not_exist")
    assert result["ok"] is False and result["error"]["type"] == "NotFound"
    assert service.delete_memory("mem_does_not_exist") is False
    assert service.delete_message("msg_does_not_exist") is False
    kept = service.remember("Diego likes jazz.")
    assert MemoryTools(service).forget(kept.id)["ok"] is True


@pytest.mark.parametrize("command", ["delete-memory", "delete-message"])
def test_deleting_a_missing_id_exits_1_in_the_cli(runner: Any, db_path: Path, command: str) -> None:
    MemoryService(db_path).remember("Diego likes jazz.")
    result = runner.invoke(cli, ["--database", str(db_path), command, "xyz_missing"])
    assert result.exit_code == 1 and json.loads(result.stdout)["deleted"] is False


# enabled: false


def test_with_memory_disabled_remember_is_refused_and_the_rest_works(tmp_path: Path) -> None:
    config = tmp_path / "assistant.json"
    database = tmp_path / "memory.sqlite3"
    config.write_text(json.dumps({"memory": {"enabled": False, "database": str(database)}}))
    MemoryService(database).remember("Diego likes jazz.")

    def memstore(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "memstore", "--config", str(config), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    refused = memstore("remember", "Diego likes tea.")
    assert refused.returncode == 1
    assert json.loads(refused.stderr)["error"]["type"] == "MemoryDisabled"
    (memory,) = MemoryService(database).list_memories().memories
    pinned = memstore("pin", memory.id)  # found by review: pinning wrote while disabled
    assert pinned.returncode == 1
    assert json.loads(pinned.stderr)["error"]["type"] == "MemoryDisabled"
    assert MemoryService(database).list_memories().memories == [memory]
    imported = memstore("import", str(EXAMPLES), "--speaker", "Diego=user", "--include-tail")
    assert imported.returncode == 0, imported.stderr
    assert memstore("recall", "jazz").returncode == 0
    assert memstore("check").returncode == 0
    assert memstore("backup", str(tmp_path / "copy.sqlite3")).returncode == 0
    (memory,) = MemoryService(database).list_memories().memories
    assert memory.content == "Diego likes jazz."
    assert memstore("delete-memory", memory.id).returncode == 0
    disabled = MemoryService(database, config=MemoryConfig(enabled=False))
    with pytest.raises(Exception, match="enabled: false"):
        disabled.remember("Diego likes tea.")


# Keyword arguments gathered into a TypedDict (filters, word pages, memory fields)

MISSPELLED: list[tuple[str, Callable[[MemoryService], Any]]] = [
    ("sesion_id", lambda s: s.recall("tea", sesion_id="ses_x")),
    ("limt", lambda s: s.recall("tea", limt=3)),
    ("filters", lambda s: s.recall("tea", filters={"role": "user"})),
    ("scpoe", lambda s: s.search_words(scpoe="all")),
    ("ofset", lambda s: s.word_instances("tea", ofset=1)),
    ("categroy", lambda s: s.remember("Diego likes tea.", categroy="fact")),
    ("catgory", lambda s: s.update_memory("mem_x", "Diego likes tea.", catgory="fact")),
    ("categry", lambda s: s.list_memories(categry="fact")),
]


@pytest.mark.parametrize(("name", "call"), MISSPELLED, ids=[name for name, _ in MISSPELLED])
def test_a_misspelled_keyword_fails_loudly_and_writes_nothing(
    service: MemoryService, name: str, call: Callable[[MemoryService], Any]
) -> None:
    # Filters and memory fields arrive as **kwargs typed by a TypedDict: a key the TypedDict
    # does not hold must not be dropped silently (it once was, for a moment of the redesign).
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{name}'"):
        call(service)
    assert service.list_memories(include_inactive=True).total == 0


def test_the_gathered_keywords_are_type_checked_like_named_ones(service: MemoryService) -> None:
    with pytest.raises(InvalidInput, match="category: must be one of"):
        service.remember("Diego likes tea.", category="hobby")  # type: ignore[typeddict-item]
    assert service.remember("Diego likes jazz.", category=None).category == "fact"  # new: fact
    with pytest.raises(InvalidInput, match="scope"):
        service.search_words(scope="everything")
    with pytest.raises(InvalidInput, match="role"):
        service.recall("tea", role="system")
    memory = service.remember("Diego likes tea.", category="preference")
    assert service.update_memory(memory.id, "Diego likes green tea.", category=None).category == (
        "preference"
    )


def test_a_speaker_name_that_is_not_text_and_a_config_that_is_not_one_are_named(
    tmp_path: Path,
) -> None:
    # Both once got past the checks: an int name reached str.strip, a number became config.
    service = MemoryService(tmp_path / "memory.sqlite3")
    with pytest.raises(InvalidInput, match="speakers"):
        service.import_markdown([], speakers={5: "user"})  # type: ignore[dict-item]
    with pytest.raises(InvalidInput, match="config"):
        MemoryService(tmp_path / "memory.sqlite3", config=5)  # type: ignore[arg-type]


def test_one_path_given_alone_is_imported_as_a_list_of_one(service: MemoryService) -> None:
    # Found by review: import_markdown(folder) was InvalidInput ("must be a list").
    first = service.import_markdown(str(EXAMPLES), speakers=EXAMPLE_SPEAKERS, include_tail=True)
    again = service.import_markdown(EXAMPLES, speakers=EXAMPLE_SPEAKERS, include_tail=True)
    assert (first.imported, first.errors, again.imported, again.skipped) == (13, 0, 0, 13)


def test_the_files_of_one_path_given_alone_are_listed_as_of_a_list_of_one() -> None:
    # Found by review: log_files("folder") listed each character of the text as a file.
    expected = MemoryService.log_files([EXAMPLES])
    assert MemoryService.log_files(str(EXAMPLES)) == expected
    assert MemoryService.log_files(EXAMPLES) == expected and len(expected) == 3


def test_the_files_of_no_path_are_an_invalid_input() -> None:
    # Found by review: the one façade method left unchecked raised a bare TypeError.
    with pytest.raises(InvalidInput, match="paths: must be text"):
        MemoryService.log_files(123)  # type: ignore[arg-type]
    for items in ([123], ["a.md", 1]):  # found by the re-check: each item too
        with pytest.raises(InvalidInput, match="paths: must be a list of file or folder paths"):
            MemoryService.log_files(items)  # type: ignore[list-item]
