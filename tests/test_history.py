"""MemoryService sessions and messages: the public API over a real database file."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstore import (
    InvalidInput,
    InvalidQuery,
    MemoryConfig,
    MemoryDisabled,
    MemoryService,
    NotFound,
)
from memstore.repository.recall import indexed_messages, sqlite_varint

MADRID = timezone(timedelta(hours=2))


def test_start_get_and_end_a_session(service: MemoryService) -> None:
    started = datetime(2026, 10, 5, 9, 0, tzinfo=MADRID)
    session = service.start_session(session_id="s1", started_at=started, metadata={"app": "t"})
    assert session.started_at == started and session.started_at.tzinfo == UTC
    assert session.ended_at is None and session.metadata == {"app": "t"}
    ended = service.end_session("s1", ended_at=started + timedelta(hours=1))
    assert ended.ended_at == datetime(2026, 10, 5, 8, 0, tzinfo=UTC)
    assert service.get_session("s1") == ended
    assert service.get_session("missing") is None


def test_a_second_close_keeps_the_end_unless_it_gives_another(service: MemoryService) -> None:
    # Found by review: a second end_session, as a host's shutdown may make, moved the end.
    session = service.start_session()
    first = service.end_session(session.id)
    assert service.end_session(session.id) == first == service.get_session(session.id)
    later = first.ended_at + timedelta(minutes=5)  # type: ignore[operator]
    assert service.end_session(session.id, ended_at=later).ended_at == later


def test_session_metadata_over_512_characters_of_json_is_refused(service: MemoryService) -> None:
    # Found by review: 10,000 characters of metadata, repeated on every page of the
    # conversation, left no room within recall_chars for any message's text.
    fits = {"note": "n" * (512 - len('{"note": ""}'))}
    assert service.start_session(metadata=fits).metadata == fits
    with pytest.raises(InvalidInput, match="metadata: is 513 characters of JSON; at most 512"):
        service.start_session(metadata={"note": "n" * (513 - len('{"note": ""}'))})
    assert service.list_sessions().total == 1


def test_a_started_session_returns_its_metadata_as_stored(service: MemoryService) -> None:
    # Found by review: the caller's own dict came back, tuples and number keys included,
    # where get_session gave what JSON had stored.
    session = service.start_session(metadata={"a": {1: "x"}, "b": (1, 2)})
    assert session.metadata == {"a": {"1": "x"}, "b": [1, 2]}
    assert service.get_session(session.id) == session


@pytest.mark.parametrize(
    "session_id",
    [
        "family \U0001f468\u200d\U0001f469\u200d\U0001f467 chat",
        "گفت\u200cوگو",
        "ses 1: día",
        "s" * 64,
    ],
)
def test_a_chosen_session_id_of_ordinary_text_is_kept(
    service: MemoryService, session_id: str
) -> None:
    # Found by review: refusing every format character refused the joiners of emoji and of
    # Persian words.
    assert service.start_session(session_id=session_id).id == session_id


def test_session_ids_are_generated_and_unique(service: MemoryService) -> None:
    first, second = service.start_session(), service.start_session()
    assert first.id != second.id and first.id.startswith("ses_")
    with pytest.raises(InvalidInput, match="already exists"):
        service.start_session(session_id=first.id)


def test_an_empty_session_id_is_refused_not_replaced(service: MemoryService) -> None:
    # Found by review: "" made up an id, as if none were given.
    with pytest.raises(InvalidInput, match="session_id: is 0 characters"):
        service.start_session(session_id="")
    assert service.list_sessions().sessions == []


def test_naive_times_are_rejected_with_the_argument_named(service: MemoryService) -> None:
    with pytest.raises(InvalidInput, match="started_at.*no time zone"):
        service.start_session(started_at=datetime(2026, 10, 5, 9, 0))


def test_record_message_appends_in_sequence_with_utc_times(service: MemoryService) -> None:
    session = service.start_session()
    when = datetime(2026, 10, 5, 9, 15, 2, tzinfo=MADRID)
    first = service.record_message(session.id, "user", "Hola", created_at=when)
    second = service.record_message(session.id, "assistant", "¡Hola, Diego!")
    assert first is not None and second is not None
    assert (first.sequence, second.sequence) == (1, 2)
    assert first.created_at == datetime(2026, 10, 5, 7, 15, 2, tzinfo=UTC)
    assert [m.content for m in service.messages(session.id)] == ["Hola", "¡Hola, Diego!"]


def test_record_message_validates_its_arguments(service: MemoryService) -> None:
    session = service.start_session()
    with pytest.raises(InvalidInput, match="role"):
        service.record_message(session.id, "robot", "hi")
    with pytest.raises(InvalidInput, match="status"):
        service.record_message(session.id, "user", "hi", status="half")
    with pytest.raises(InvalidInput, match="content"):
        service.record_message(session.id, "user", "  \n ")
    with pytest.raises(NotFound):
        service.record_message("no-such-session", "user", "hi")
    assert service.messages(session.id) == []


def test_record_message_is_idempotent_by_source_ref(service: MemoryService) -> None:
    session = service.start_session()
    first = service.record_message(session.id, "user", "uno", source_ref="/l/a.md#byte=29")
    again = service.record_message(session.id, "user", "uno", source_ref="/l/a.md#byte=29")
    assert again == first
    assert len(service.messages(session.id)) == 1


def test_deleted_source_ref_is_never_recorded_again(service: MemoryService) -> None:
    session = service.start_session()
    message = service.record_message(session.id, "user", "secreto", source_ref="/l/a.md#byte=29")
    assert message is not None
    assert service.delete_message(message.id) is True
    assert (
        service.record_message(session.id, "user", "secreto", source_ref="/l/a.md#byte=29") is None
    )
    assert service.messages(session.id) == []
    assert service.recall("secreto").conversations == []


def test_delete_message_removes_search_visibility(service: MemoryService) -> None:
    session = service.start_session()
    question = service.record_message(session.id, "user", "¿dónde está la lavanda?")
    assert question is not None and service.recall("lavanda").conversations
    assert service.delete_message(question.id) is True
    assert service.recall("lavanda").conversations == []
    assert service.delete_message(question.id) is False
    assert service.health().ok


def test_messages_pages_every_role_and_status(service: MemoryService) -> None:
    session = service.start_session()
    service.record_message(session.id, "system", "Session opened.")
    service.record_message(session.id, "user", "Hola")
    service.record_message(session.id, "assistant", "Hol", status="interrupted")
    page = service.messages(session.id, after=1, limit=1)
    assert [(m.sequence, m.role) for m in page] == [(2, "user")]
    rest = service.messages(session.id, after=2)
    assert [(m.role, m.status) for m in rest] == [("assistant", "interrupted")]
    with pytest.raises(InvalidInput):
        service.messages(session.id, after=-1)


def test_only_completed_user_and_assistant_messages_are_indexed(
    service: MemoryService,
) -> None:
    session = service.start_session()
    service.record_message(session.id, "system", "lavanda del sistema")
    service.record_message(session.id, "user", "lavanda rota", status="error")
    service.record_message(session.id, "assistant", "lavanda cortada", status="interrupted")
    assert service.recall("lavanda").conversations == []
    assert service.health().ok  # the FTS index agrees with its content view


def test_health_reports_counts_and_schema(service: MemoryService) -> None:
    session = service.start_session()
    service.record_message(session.id, "user", "Hola")
    report = service.health()
    assert report.ok and report.integrity == "ok" and report.foreign_key_errors == []
    assert [(check.index, check.ok) for check in report.fts] == [
        ("messages_fts", True),
        ("messages_stem_fts", True),
        ("memories_fts", True),
        ("memories_stem_fts", True),
    ]
    assert report.counts["sessions"] == 1 and report.counts["messages"] == 1
    assert report.schema_version == report.code_version == 7


def test_from_config_resolves_relative_paths_under_the_data_directory(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memstore import MemoryConfig

    monkeypatch.chdir(tmp_path)
    service = MemoryService.from_config(MemoryConfig(database="db/m.sqlite3"))
    assert service.path == tmp_path / "home" / "db" / "m.sqlite3"


def test_positions_beyond_sqlite_integers_are_invalid_input(service: MemoryService) -> None:
    # Found by a new-user trial: these raised OverflowError from sqlite3.
    session = service.start_session()
    huge = 2**63
    calls = [
        lambda: service.word_instances("zebrafish", offset=huge),
        lambda: service.search_words(offset=10**30),
        lambda: service.list_memories(offset=10**30),
        lambda: service.read_conversation(session.id, after=10**30),
        lambda: service.messages(session.id, after=huge),
    ]
    for call in calls:
        with pytest.raises(InvalidInput, match="use 0 or"):
            call()
    assert service.search_words(offset=2**63 - 1).words == []
    with pytest.raises(InvalidInput, match=r"is 10+; use 1 to 9223372036854775807"):
        service.messages(session.id, limit=10**30)  # found by review: "use 1 or more"
    with pytest.raises(InvalidInput, match=r"is 9\d+; use at most 2\*\*63 - 1 \(a page"):
        service.list_memories(limit=2**63)


def test_recall_and_word_queries_refuse_since_after_until(service: MemoryService) -> None:
    # Found by a new-user trial: swapped times returned nothing, with no error.
    since = datetime(2026, 10, 6, tzinfo=UTC)
    until = since - timedelta(days=1)
    with pytest.raises(InvalidInput, match="is after the end"):
        service.recall("café", since=since, until=until)
    with pytest.raises(InvalidInput, match="is after the end"):
        service.search_words("caf", since=since, until=until)
    assert service.recall("café", since=since, until=since).conversations == []  # empty


def test_a_blank_session_filter_is_refused_not_matched(service: MemoryService) -> None:
    # Found by review: it matched nothing, and said nothing.
    for blank in ("", " "):
        with pytest.raises(InvalidInput, match="session_id: is blank"):
            service.recall("café", session_id=blank)
        with pytest.raises(InvalidInput, match="session_id: is blank"):
            service.word_instances("café", session_id=blank)


def test_recall_refuses_a_query_that_is_not_valid_unicode(service: MemoryService) -> None:
    # Found by a new-user trial: words and instances refused a lone surrogate, recall
    # silently matched nothing.
    with pytest.raises(InvalidQuery, match="not valid Unicode"):
        service.recall("caf\udce9")


@settings(max_examples=25)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["record", "delete", "interrupt"]), st.integers(0, 30)),
        max_size=40,
    )
)
def test_the_index_size_read_from_fts5_is_the_count_of_indexed_messages(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int]]
) -> None:
    # Recall reads the number of indexed messages from FTS5's averages record instead of
    # counting them: it must follow every insert, deletion and status change.
    path = tmp_path_factory.mktemp("total") / "memory.sqlite3"
    service = MemoryService(path)
    session = service.start_session()
    ids: list[str] = []
    for action, pick in steps:
        if action == "record" or not ids:
            recorded = service.record_message(session.id, "user", f"zebra {pick} " * (pick % 5 + 1))
            ids += [recorded.id] if recorded is not None else []
        elif action == "delete":
            service.delete_message(ids.pop(pick % len(ids)))
        else:
            service.record_message(session.id, "assistant", "partial", status="interrupted")
    with closing(sqlite3.connect(path)) as connection:
        (counted,) = connection.execute("SELECT count(*) FROM messages_fts_docsize").fetchone()
        assert indexed_messages(connection) == counted == len(ids)
    service.close()


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b"", 0),
        (b"\x00", 0),
        (b"\x7f", 127),
        (b"\x81\x00", 128),
        (b"\x81\x9c\x20", 20000),
        (b"\xff" * 8 + b"\x01", (1 << 64) - 255),
    ],
)
def test_sqlite_varints(data: bytes, value: int) -> None:
    assert sqlite_varint(data) == value


@pytest.mark.parametrize(
    ("switch", "setting"),
    [({"store_history": False}, "store_history: false"), ({"enabled": False}, "enabled: false")],
)
def test_with_history_off_the_api_stores_no_conversation(
    db_path: Path, switch: dict[str, bool], setting: str
) -> None:
    # Found by review: issue 5 says store_history=false (and enabled=false) means no new
    # conversation persistence, but only the recorder obeyed; record_message stored.
    held = MemoryService(db_path).start_session(session_id="held")
    off = MemoryService(db_path, config=MemoryConfig(**switch))
    with pytest.raises(MemoryDisabled, match=f"History is off \\({setting}"):
        off.start_session()
    with pytest.raises(MemoryDisabled, match=setting) as refused:
        off.record_message(held.id, "user", "hola")
    # memories still work only with history off alone (found by review)
    assert ("Memories, reading" in str(refused.value)) == (setting == "store_history: false")
    assert MemoryService(db_path).health().counts["messages"] == 0
    if switch == {"store_history": False}:  # explicit memories still work
        assert off.remember("Diego likes jazz.").status == "active"
