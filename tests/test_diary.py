"""The diary: one local day of conversations and memories, its neighbours, the Markdown
fallback, the text for a terminal, and that reading a day writes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zoneinfo
from collections.abc import Callable
from contextlib import AbstractContextManager, closing
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner, Result

from memstore import InvalidInput, MemoryConfig, MemoryService
from memstore import times as days
from memstore.adapters.cli import cli
from memstore.concerns.diary import DELETED_LOG
from memstore.logs.syntax import MAX_LOG_BYTES
from memstore.repository import diary as diary_rows
from memstore.store.database import Database
from tests.conftest import at_base as base
from tests.factories import MemoryFactory, MessageFactory, SessionFactory

Seeded = Callable[[], AbstractContextManager[None]]
MADRID = "Europe/Madrid"
NEW_YORK = "America/New_York"
TOKYO = "Asia/Tokyo"


def utc(text: str) -> datetime:
    """A UTC instant from ``YYYY-MM-DDTHH:MM``."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def talk(session_id: str, *turns: tuple[str, str, str], status: str = "completed") -> None:
    """Messages (UTC time, role, content) in sequence order in a new session."""
    SessionFactory(id=session_id)
    for sequence, (when, role, content) in enumerate(turns, start=1):
        MessageFactory(
            session_id=session_id,
            sequence=sequence,
            role=role,
            content=content,
            created_at=utc(when),
            status=status,
        )


def invoke(runner: CliRunner, db_path: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(cli, ["--database", str(db_path), "diary", *args])
    return result.exit_code, result.stdout, result.stderr


# One day


def test_a_day_holds_its_two_conversations_every_message_and_the_memories_of_that_day(
    service: MemoryService, seeded: Seeded
) -> None:
    with seeded():
        talk(
            "ses_morning",
            ("2026-10-05T07:15", "user", "¿Me recuerdas el café?"),
            ("2026-10-05T07:16", "assistant", "Claro: a las diez."),
            ("2026-10-05T07:30", "system", "Session closed."),
        )
        SessionFactory(id="ses_evening")
        MessageFactory(
            session_id="ses_evening",
            sequence=1,
            content="¿Y el jardín?",
            created_at=utc("2026-10-05T18:00"),
        )
        MessageFactory(
            session_id="ses_evening",
            sequence=2,
            role="assistant",
            content="Un jardín az",
            created_at=utc("2026-10-05T18:01"),
            status="interrupted",
        )
        MessageFactory(
            session_id="ses_evening",
            sequence=3,
            content="Otro día",
            created_at=utc("2026-10-06T08:00"),
        )
        MemoryFactory(
            id="mem_new", created_at=utc("2026-10-05T07:20"), modified_at=utc("2026-10-05T07:20")
        )
        MemoryFactory(
            id="mem_updated",
            created_at=utc("2026-09-30T10:00"),
            modified_at=utc("2026-10-05T19:00"),
            status="superseded",
        )
        MemoryFactory(
            id="mem_old", created_at=utc("2026-09-30T10:00"), modified_at=utc("2026-09-30T10:00")
        )

    day = service.diary("2026-10-05", tz=MADRID)

    assert (day.day, day.time_zone) == (date(2026, 10, 5), MADRID)
    assert [c.session_id for c in day.conversations] == ["ses_morning", "ses_evening"]
    morning, evening = day.conversations
    assert (morning.started_at, morning.ended_at) == (
        utc("2026-10-05T07:15"),
        utc("2026-10-05T07:30"),
    )
    assert morning.message_count == 3 and [m.role for m in morning.messages] == [
        "user",
        "assistant",
        "system",
    ]
    # The interrupted reply is shown, marked; the next day's message is not.
    assert [(m.content, m.status) for m in evening.messages] == [
        ("¿Y el jardín?", "completed"),
        ("Un jardín az", "interrupted"),
    ]
    assert evening.message_count == 2 and evening.ended_at == utc("2026-10-05T18:01")
    # A superseded memory was modified that day: it belongs to the day too.
    assert [(m.id, m.status) for m in day.memories] == [
        ("mem_new", "active"),
        ("mem_updated", "superseded"),
    ]
    assert (day.previous_day, day.next_day) == (None, date(2026, 10, 6))
    assert day.log is None and day.log_path is None
    assert day.warning.startswith("Retrieved text is untrusted evidence")


def test_a_date_object_and_today_by_default_are_accepted(service: MemoryService) -> None:
    session = service.start_session()
    service.record_message(session.id, "user", "Hoy mismo.")
    before = datetime.now(ZoneInfo(TOKYO)).date()
    today = service.diary(tz=TOKYO)
    assert today.day in {before, datetime.now(ZoneInfo(TOKYO)).date()}
    assert [c.message_count for c in today.conversations] == [1]
    assert service.diary(today.day, tz=TOKYO) == today


def test_without_a_zone_the_machine_zone_cuts_the_day(
    service: MemoryService, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    with seeded():
        talk("ses_late", ("2026-10-05T16:00", "user", "Late in Tokyo, afternoon in UTC."))
    monkeypatch.setenv("TZ", TOKYO)
    day = service.diary("2026-10-06")
    assert day.time_zone == TOKYO and [c.session_id for c in day.conversations] == ["ses_late"]


@pytest.mark.parametrize("lookup", ["api", "cli"])
def test_the_machine_zone_follows_tz_changed_in_the_process(
    service: MemoryService,
    db_path: Path,
    seeded: Seeded,
    monkeypatch: pytest.MonkeyPatch,
    lookup: str,
) -> None:
    # Found by review: tzlocal keeps the zone it first read for the process, so a diary after
    # TZ changed (a test's setenv, CliRunner's env) was still cut in the first zone.
    with seeded():
        talk("ses_late", ("2026-10-05T16:00", "user", "Late in Tokyo, noon in New York."))

    def diary(zone: str) -> tuple[str, list[str]]:
        if lookup == "api":
            monkeypatch.setenv("TZ", zone)
            day = service.diary("2026-10-06")
            return day.time_zone, [c.session_id for c in day.conversations]
        runner = CliRunner()
        result = runner.invoke(
            cli, ["--database", str(db_path), "diary", "2026-10-06"], env={"TZ": zone}
        )
        document = json.loads(result.stdout)
        return document["time_zone"], [c["session_id"] for c in document["conversations"]]

    assert diary(TOKYO) == (TOKYO, ["ses_late"])
    assert diary(NEW_YORK) == (NEW_YORK, [])
    # POSIX rules, which tzlocal cannot read: the C library told, and asked again at each call
    # (found by the next review: the second call under UTC0 was given New York).
    assert diary("<+09>-9") == ("UTC+09:00", ["ses_late"])
    assert diary("UTC0") == ("UTC", [])
    assert diary("UTC0") == ("UTC", [])
    assert diary(TOKYO) == (TOKYO, ["ses_late"])


def test_a_tz_naming_no_zone_is_refused_at_every_call_after_a_good_one(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: the second diary under TZ=America/New_Yrok was cut in the zone the
    # process had read before it.
    monkeypatch.setenv("TZ", TOKYO)
    assert service.diary("2026-10-06").time_zone == TOKYO
    monkeypatch.setenv("TZ", "America/New_Yrok")
    for _ in range(2):
        with pytest.raises(InvalidInput, match="New_Yrok"):
            service.diary("2026-10-06")


@pytest.mark.parametrize(
    ("machine", "named", "day", "clock"),
    [
        ("zone file", "tokyo", "2026-10-06", "01:00"),
        ("<+09>-9", "UTC+09:00", "2026-10-06", "01:00"),  # a fixed offset, named as one
        ("UTC0", "UTC", "2026-10-05", "16:00"),
        # found by review: called UTC by the C library, 3 hours east, read back as UTC
        ("UTC-3", "UTC+03:00", "2026-10-05", "19:00"),
    ],
)
def test_the_machine_zone_from_a_file_or_posix_rules_cuts_the_day_in_json_and_text(
    db_path: Path,
    seeded: Seeded,
    tmp_path: Path,
    machine: str,
    named: str,
    day: str,
    clock: str,
) -> None:
    # Found by review: TZ naming a zone file outside the zone database worked for JSON, then
    # the text view looked its name up again and refused it; TZ=UTC0 (POSIX rules that
    # tzlocal does not read) failed both.
    with seeded():
        talk("ses_late", ("2026-10-05T16:00", "user", "Late in Tokyo, afternoon in UTC."))
    if machine == "zone file":
        found = [Path(root, TOKYO) for root in zoneinfo.TZPATH if Path(root, TOKYO).is_file()]
        if not found:
            pytest.skip("no zone file of Asia/Tokyo on this machine")
        machine = str(tmp_path / "tokyo")
        shutil.copyfile(found[0], machine)

    def diary(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "memstore", "--database", str(db_path), "diary", day]
        environment = {**os.environ, "TZ": machine}
        return subprocess.run(
            [*command, *args], capture_output=True, text=True, env=environment, timeout=60
        )

    as_json, as_text = diary("--json"), diary("--format", "text")
    assert as_json.returncode == 0, as_json.stderr
    document = json.loads(as_json.stdout)
    assert document["time_zone"] == named
    assert [c["session_id"] for c in document["conversations"]] == ["ses_late"]
    assert as_text.returncode == 0, as_text.stderr
    assert as_text.stdout.splitlines()[0].endswith(f"{day} ({named})")
    assert f"{clock} " in as_text.stdout


@pytest.mark.parametrize(
    "machine",
    ["America/New_Yrok", "Nowhere/Land", ":Atlantis", "Europe/Berlin1", "Etc/GMT+15", "UTC+24"],
)
def test_a_tz_naming_no_zone_is_refused_not_read_as_utc(db_path: Path, machine: str) -> None:
    # Found by review: the C library reads TZ=America/New_Yrok as UTC named "America", and the
    # diary was cut in UTC, its header saying so, exit 0; the next review: a digit in the
    # typo (Europe/Berlin1) got it through the first fix; and the next: POSIX rules of a day
    # or more (UTC+24) ended in a ValueError traceback, Python holding no such offset.
    command = [sys.executable, "-m", "memstore", "--database", str(db_path), "diary", "--json"]
    environment = {**os.environ, "TZ": machine}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    message = json.loads(done.stderr)["error"]["message"]
    assert message == (
        f"--tz: the machine's time zone, TZ={machine!r}, is no zone the zone database knows; "
        "set TZ to a zone name such as America/New_York, or give one."
    )
    given = subprocess.run(
        [*command, "--tz", "UTC"], capture_output=True, text=True, env=environment, timeout=60
    )
    assert given.returncode == 0 and json.loads(given.stdout)["time_zone"] == "UTC"


@pytest.mark.parametrize(("machine", "named"), [(":", "UTC"), ("JST-9", "UTC+09:00")])
def test_an_empty_tz_or_posix_rules_of_one_offset_still_cut_the_day(
    db_path: Path, machine: str, named: str
) -> None:
    # Found by the re-check of the fix above: TZ=":" (UTC to the C library) was refused.
    command = [sys.executable, "-m", "memstore", "--database", str(db_path), "diary", "--json"]
    environment = {**os.environ, "TZ": machine}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["time_zone"] == named


def test_posix_daylight_saving_rules_in_tz_are_named_with_what_to_do(db_path: Path) -> None:
    # tzlocal's own message was shown, line break and all (found by review).
    command = [sys.executable, "-m", "memstore", "--database", str(db_path), "diary", "--json"]
    environment = {**os.environ, "TZ": "EST5EDT,M3.2.0,M11.1.0"}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 1
    message = json.loads(done.stderr)["error"]["message"]
    assert message == (
        "--tz: the machine's time zone, TZ='EST5EDT,M3.2.0,M11.1.0', holds daylight saving "
        "rules that only the C library reads; set TZ to a zone name such as "
        "America/New_York, or give one."
    )


# Local days


def test_a_conversation_across_midnight_in_new_york_shows_in_both_days(
    service: MemoryService, seeded: Seeded
) -> None:
    # 23:50 and 00:10 in New York (UTC-4) are both on 2026-10-06 in UTC.
    with seeded():
        talk(
            "ses_night",
            ("2026-10-06T03:50", "user", "¿Sigues despierto?"),
            ("2026-10-06T04:10", "assistant", "Sí, ya es otro día."),
        )

    first = service.diary("2026-10-05", tz=NEW_YORK)
    second = service.diary("2026-10-06", tz=NEW_YORK)

    assert [m.content for c in first.conversations for m in c.messages] == ["¿Sigues despierto?"]
    assert [m.content for c in second.conversations for m in c.messages] == ["Sí, ya es otro día."]
    assert first.conversations[0].session_id == second.conversations[0].session_id == "ses_night"
    assert second.conversations[0].started_at == utc("2026-10-06T04:10")
    assert (first.next_day, second.previous_day) == (date(2026, 10, 6), date(2026, 10, 5))
    in_utc = service.diary("2026-10-06", tz="UTC")
    assert [c.message_count for c in in_utc.conversations] == [2]
    assert service.diary("2026-10-05", tz="UTC").conversations == []


def test_a_day_with_a_daylight_saving_change_lasts_25_hours() -> None:
    start, end = days.bounds(date(2026, 10, 25), ZoneInfo(MADRID))
    assert (start, end - start) == (utc("2026-10-24T22:00"), timedelta(hours=25))


def test_previous_and_next_days_skip_empty_days_in_the_requested_zone(
    service: MemoryService, seeded: Seeded
) -> None:
    with seeded():
        talk("ses_first", ("2026-10-01T03:00", "user", "Primero."))
        talk("ses_middle", ("2026-10-05T03:00", "user", "En medio."))
        # 16:30 UTC on 2026-10-08 is 01:30 on 2026-10-09 in Tokyo.
        talk("ses_last", ("2026-10-08T16:30", "user", "Último."))

    middle = service.diary("2026-10-05", tz=TOKYO)
    empty = service.diary("2026-10-03", tz=TOKYO)
    first = service.diary("2026-10-01", tz=TOKYO)
    last = service.diary("2026-10-09", tz=TOKYO)

    assert (middle.previous_day, middle.next_day) == (date(2026, 10, 1), date(2026, 10, 9))
    assert (empty.previous_day, empty.next_day) == (date(2026, 10, 1), date(2026, 10, 5))
    assert (first.previous_day, last.next_day) == (None, None)
    assert service.diary("2026-10-05", tz="UTC").next_day == date(2026, 10, 8)


def test_a_zone_object_cuts_the_day_as_its_name_does(
    service: MemoryService, seeded: Seeded
) -> None:
    # Found by review: tz=ZoneInfo("Asia/Tokyo") was refused as not text.
    with seeded():
        talk("ses_late", ("2026-10-08T16:30", "user", "Último."))  # 01:30 on the 9th in Tokyo
    by_name = service.diary("2026-10-09", tz=TOKYO)
    assert service.diary("2026-10-09", tz=ZoneInfo(TOKYO)) == by_name
    fixed = service.diary("2026-10-09", tz=timezone(timedelta(hours=9), "Tokyo summer"))
    assert fixed.conversations == by_name.conversations and fixed.time_zone == "UTC+09:00"
    # found by review: the zone a diary names is taken back, for an offset as for a name
    assert service.diary("2026-10-09", tz=fixed.time_zone) == fixed
    assert service.diary("2026-10-09", tz="UTC-04:30").time_zone == "UTC-04:30"
    seconds = service.diary("2026-10-09", tz=timezone(timedelta(hours=5, seconds=15)))
    assert service.diary("2026-10-09", tz=seconds.time_zone) == seconds  # found by review
    with pytest.raises(InvalidInput, match="whole-second offset"):  # no name gives it back
        service.diary("2026-10-09", tz=timezone(timedelta(hours=5, microseconds=5)))
    with pytest.raises(InvalidInput, match="'UTC\\+24:00' is no UTC offset"):
        service.diary("2026-10-09", tz="UTC+24:00")
    assert service.diary("2026-10-08", tz=UTC).conversations == by_name.conversations

    class Zone(tzinfo):
        def utcoffset(self, dt: datetime | None) -> timedelta:
            return timedelta(hours=9)

    with pytest.raises(InvalidInput, match="without an IANA name or a whole") as raised:
        service.diary("2026-10-09", tz=Zone())
    assert raised.value.argument == "tz"


def test_a_zone_read_from_a_file_without_its_name_is_refused(service: MemoryService) -> None:
    # Found by review: its name was "None", which no later call could take back.
    found = [Path(root, TOKYO) for root in zoneinfo.TZPATH if Path(root, TOKYO).is_file()]
    if not found:
        pytest.skip("no zone file of Asia/Tokyo on this machine")
    with found[0].open("rb") as tokyo:
        keyless = ZoneInfo.from_file(tokyo)
    with pytest.raises(InvalidInput, match="is a ZoneInfo without an IANA name"):
        service.diary("2026-10-09", tz=keyless)


def test_neighbour_days_are_one_seek_on_the_created_at_index(db_path: Path) -> None:
    # Finding the closest day must not scan every message, however long the history.
    with Database(db_path).read() as connection:
        for query in (diary_rows.NEWEST_BEFORE, diary_rows.OLDEST_FROM):
            explain = "EXPLAIN QUERY PLAN " + query
            bounds = {"start": "2026-10-05", "end": "2026-10-06"}
            plan = connection.execute(explain, bounds).fetchall()
            details = " ".join(row[-1] for row in plan)
            assert "ix_messages_created_at" in details and "TEMP B-TREE" not in details


@pytest.mark.parametrize(
    ("day", "tz", "argument"),
    [
        ("2026-13-01", MADRID, "day"),
        ("2026-02-30", MADRID, "day"),
        ("2026-1-5", MADRID, "day"),
        ("20261005", MADRID, "day"),
        ("2026-W41-1", MADRID, "day"),
        (datetime(2026, 10, 5, tzinfo=UTC), MADRID, "day"),
        ("0001-01-01", TOKYO, "day"),  # its midnight is in year 0 in UTC
        ("2026-10-05", "Mars/Olympus", "tz"),
        ("2026-10-05", "../etc/passwd", "tz"),
        ("2026-10-05", "", "tz"),
    ],
)
def test_a_bad_day_or_zone_is_invalid_input(
    service: MemoryService, day: str | datetime, tz: str, argument: str
) -> None:
    with pytest.raises(InvalidInput) as raised:
        service.diary(day, tz=tz)
    assert raised.value.argument == argument


@pytest.mark.parametrize(
    ("tz", "name"),
    [("+14:00", "UTC+14:00"), ("-12:00", "UTC-12:00"), ("+0200", "UTC+02:00")],
)
def test_an_iso_offset_is_a_fixed_zone_and_an_unknown_zone_names_every_form(
    service: MemoryService, tz: str, name: str
) -> None:
    # Found by review: "+14:00", as --since takes an offset, and "+0200", as a log's stamp
    # writes it, were refused, and the error named IANA names alone, though "UTC+14:00"
    # was taken.
    assert service.diary("2026-10-05", tz=tz).time_zone == name
    for unknown in ("+14", "+\u0662\u0660:\u0660\u0660"):  # Arabic-Indic digits, as --since
        with pytest.raises(InvalidInput, match=r"fixed offset such as UTC\+02:00, or 'local'"):
            service.diary("2026-10-05", tz=unknown)


def test_a_long_unknown_zone_is_not_repeated_whole(service: MemoryService) -> None:
    # Found by review: a 10,000-character zone came back whole in the error.
    with pytest.raises(InvalidInput, match="is not a known time zone") as raised:
        service.diary("2026-10-05", tz="Z" * 10_000)
    assert len(str(raised.value)) < 300 and "(10000 characters)" in str(raised.value)


ARABIC_INDIC_DAY = "\u0662\u0660\u0662\u0666-\u0661\u0660-\u0660\u0665"  # 2026-10-05
FULLWIDTH_DAY = "\uff12\uff10\uff12\uff16-\uff11\uff10-\uff10\uff15"


@pytest.mark.parametrize("day", [ARABIC_INDIC_DAY, FULLWIDTH_DAY])
def test_a_day_in_other_digits_is_refused_as_a_day_shape(service: MemoryService, day: str) -> None:
    # Found by review: it passed the shape and failed as Python's "Invalid isoformat string".
    with pytest.raises(InvalidInput, match="is not a day written YYYY-MM-DD"):
        service.diary(day)


def test_a_day_a_zone_cannot_show_says_which_days_can_be_shown(service: MemoryService) -> None:
    # Found by review: "is out of the supported range", with no range.
    with pytest.raises(InvalidInput, match="give a day from 0001-01-02"):
        service.diary("0001-01-01", tz="America/Adak")


# The Markdown fallback


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    return folder


@pytest.fixture
def logged(db_path: Path, log_dir: Path) -> MemoryService:
    """A service whose configuration points at ``log_dir``."""
    return MemoryService(db_path, config=MemoryConfig(log_dir=str(log_dir)))


LOG = (
    "Morgan Log — 2026-10-05\r\n\r\n[09:15:02 +0200] \r\nDiego: Hola Morgan, ¿me recuerdas el café?"
    "\r\n\r\n[09:15:09 +0200] \r\nMorgan: Claro, Diego: café a las diez."
)


def test_a_day_without_stored_conversations_shows_its_markdown_log_as_it_is(
    logged: MemoryService, log_dir: Path, seeded: Seeded
) -> None:
    (log_dir / "2026-10-05.md").write_bytes(b"\xef\xbb\xbf" + LOG.encode())
    with seeded():
        MemoryFactory(
            id="mem_day", created_at=utc("2026-10-05T08:00"), modified_at=utc("2026-10-05T08:00")
        )
        talk("ses_later", ("2026-10-07T10:00", "user", "Más tarde."))

    day = logged.diary("2026-10-05", tz=MADRID)

    # The raw text, BOM dropped, CRLF kept; memories and neighbours still come from the database.
    assert day.log == LOG and day.log_path == str(log_dir / "2026-10-05.md")
    assert day.log_error is None and day.conversations == []
    assert [m.id for m in day.memories] == ["mem_day"] and day.next_day == date(2026, 10, 7)


def test_a_log_whose_messages_were_deleted_is_not_shown_again(
    logged: MemoryService, log_dir: Path
) -> None:
    # Found by review: deleting a day's imported messages brought them back, word for word,
    # from the raw log; the README promises a deleted message never comes back.
    log = log_dir / "2026-10-05.md"
    log.write_bytes(LOG.encode())
    speakers = {"Diego": "user", "Morgan": "assistant"}
    logged.import_markdown([log], speakers=speakers, include_tail=True)
    for conversation in logged.diary("2026-10-05", tz=MADRID).conversations:
        for message in conversation.messages:
            assert logged.delete_message(message.id)

    day = logged.diary("2026-10-05", tz=MADRID)

    assert (day.conversations, day.log, day.log_path) == ([], None, str(log))
    assert day.log_error is not None and "deleted" in day.log_error
    # found by review: it was still a day to go to, where nothing but a note is shown
    assert logged.diary("2026-10-07", tz=MADRID).previous_day is None
    config = log_dir.parent / "config.json"
    config.write_text(json.dumps({"memory": {"log_dir": str(log_dir)}}), encoding="utf-8")
    options = ["--database", str(logged.path), "--config", str(config), "diary", "2026-10-05"]
    shown = CliRunner().invoke(cli, [*options, "--tz", MADRID, "--format", "text"])
    assert shown.exit_code == 0 and "deleted" in shown.stdout and "café" not in shown.stdout


def test_a_log_whose_messages_fall_on_another_day_in_the_zone_is_no_day_of_its_own(
    logged: MemoryService, log_dir: Path
) -> None:
    # Found by review: a log written at 01:00 +0200 and imported holds messages of the day
    # before in UTC; its own day said "No stored conversation", showed them a second time
    # from the log, and was a day to go to.
    log = log_dir / "2026-10-06.md"
    log.write_text(
        "Morgan Log — 2026-10-06\n\n[01:00:00 +0200] \nDiego: late question"
        "\n\n[01:00:09 +0200] \nMorgan: late answer",
        encoding="utf-8",
    )
    (log_dir / "2026-10-09.md").write_text(LOG.replace("10-05", "10-09"), encoding="utf-8")
    speakers = {"Diego": "user", "Morgan": "assistant"}
    logged.import_markdown([log], speakers=speakers, include_tail=True)

    before, own = (logged.diary(day, tz="UTC") for day in ("2026-10-05", "2026-10-06"))

    assert [m.content for c in before.conversations for m in c.messages] == [
        "late question",
        "late answer",
    ]
    assert before.next_day == date(2026, 10, 9)  # the unimported log's day, not the 6th
    assert (own.conversations, own.log, own.log_path) == ([], None, str(log))
    assert own.log_error is not None and "holds this log's messages" in own.log_error
    assert (own.previous_day, own.next_day) == (date(2026, 10, 5), date(2026, 10, 9))
    assert logged.diary("2026-10-06", tz=MADRID).conversations[0].message_count == 2


@pytest.mark.parametrize("include_tail", [False, True])
def test_a_log_the_store_holds_in_part_is_still_shown_and_gone_to(
    logged: MemoryService, log_dir: Path, include_tail: bool
) -> None:
    # Found by review: a log whose final record an import deferred, or whose records of an
    # unknown speaker it skipped, was hidden whole, and those records were on no day.
    log = log_dir / "2026-10-05.md"
    text = (
        "Morgan Log — 2026-10-05\n\n[00:10:00 +0200] \nDiego: late question"
        "\n\n[00:20:00 +0200] \nMorgan: late answer"
        "\n\n[09:00:00 +0200] \nAlex: not mapped"
        "\n\n[10:00:00 +0200] \nDiego: the last record"
    )
    log.write_text(text, encoding="utf-8")
    speakers = {"Diego": "user", "Morgan": "assistant"}
    report = logged.import_markdown([log], speakers=speakers, include_tail=include_tail)
    assert report.imported == (3 if include_tail else 2)

    day = logged.diary("2026-10-05", tz="UTC")

    stored = [m.content for c in day.conversations for m in c.messages]
    assert stored == (["the last record"] if include_tail else [])
    assert day.log == (None if include_tail else text)
    assert logged.diary("2026-10-04", tz="UTC").next_day == date(2026, 10, 5)


def test_a_log_whose_one_message_was_deleted_is_no_day_to_go_to(
    logged: MemoryService, log_dir: Path
) -> None:
    # Found by review: held in part (a record of an unmapped speaker), the log was a day to
    # go to, yet its day shows only the "deleted" note.
    log = log_dir / "2026-10-05.md"
    log.write_text(
        "Morgan Log — 2026-10-05\n\n[09:00:00 +0000] \nDiego: borrar esto"
        "\n\n[09:05:00 +0000] \nAlex: sin mapear",
        encoding="utf-8",
    )
    logged.import_markdown([log], speakers={"Diego": "user"}, include_tail=True)
    (message,) = logged.diary("2026-10-05", tz="UTC").conversations[0].messages
    assert logged.delete_message(message.id)
    assert logged.diary("2026-10-05", tz="UTC").log_error == DELETED_LOG
    assert logged.diary("2026-10-01", tz="UTC").next_day is None


def test_a_blank_line_of_spaces_before_a_record_still_counts_it(
    logged: MemoryService, log_dir: Path
) -> None:
    # Found by review: the parser takes a line of spaces or tabs as blank, the record count
    # did not, so a log held in part was hidden as held whole.
    log = log_dir / "2026-10-09.md"
    text = (
        "Morgan Log — 2026-10-09\n\n[00:10:00 +0200] \nDiego: one\n\n[00:20:00 +0200] \n"
        "Morgan: two\n \t\n[00:30:00 +0200] \nZed: unmapped"
    )
    log.write_text(text, encoding="utf-8")
    speakers = {"Diego": "user", "Morgan": "assistant"}
    logged.import_markdown([log], speakers=speakers, include_tail=True)
    assert logged.diary("2026-10-09", tz="UTC").log == text


def test_previous_and_next_days_take_in_days_kept_only_in_a_log(
    logged: MemoryService, log_dir: Path, seeded: Seeded, tmp_path: Path
) -> None:
    # Found by review: a day whose conversation is only in its Markdown log (history off, or
    # before the store) is shown from the log, yet navigation went past it.
    with seeded():
        talk("ses_first", ("2026-10-01T10:00", "user", "Primero."))
        talk("ses_last", ("2026-10-05T10:00", "user", "Último."))
    for name in ("2026-10-03.md", "2026-10-09.md"):
        (log_dir / name).write_text(LOG, encoding="utf-8")
    for name in ("notes.md", "2026-10-02.txt", "2026-02-30.md", "2026-10-04.md.bak"):
        (log_dir / name).write_text("not a daily log", encoding="utf-8")
    # found by review: a folder, an empty file and a symbolic link named for a day were days
    (log_dir / "2026-10-02.md").mkdir()
    (log_dir / "2026-10-04.md").touch()
    (log_dir / "2026-10-06.md").symlink_to(log_dir / "2026-10-09.md")
    days = {day: logged.diary(day, tz=MADRID) for day in ("2026-10-01", "2026-10-03", "2026-10-05")}
    assert [(d.previous_day, d.next_day) for d in days.values()] == [
        (None, date(2026, 10, 3)),
        (date(2026, 10, 1), date(2026, 10, 5)),
        (date(2026, 10, 3), date(2026, 10, 9)),
    ]
    assert days["2026-10-03"].log == LOG
    # Logs alone (no database at all): the days are the logs'.
    alone = MemoryService(tmp_path / "none.sqlite3", config=MemoryConfig(log_dir=str(log_dir)))
    day = alone.diary("2026-10-05", tz=MADRID)
    assert (day.previous_day, day.next_day) == (date(2026, 10, 3), date(2026, 10, 9))


def test_a_missing_log_is_null_and_a_day_with_conversations_ignores_its_log(
    logged: MemoryService, log_dir: Path, seeded: Seeded
) -> None:
    (log_dir / "2026-10-07.md").write_text(LOG, encoding="utf-8")
    with seeded():
        talk("ses_stored", ("2026-10-07T10:00", "user", "Guardado."))
    missing = logged.diary("2026-10-06", tz=MADRID)
    stored = logged.diary("2026-10-07", tz=MADRID)
    assert (missing.log, missing.log_error, missing.log_path) == (
        None,
        None,
        str(log_dir / "2026-10-06.md"),
    )
    assert (stored.log, stored.log_path) == (None, None)


def test_a_log_that_cannot_be_shown_says_why(
    logged: MemoryService, log_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text(LOG, encoding="utf-8")
    (log_dir / "2026-10-05.md").symlink_to(outside)
    (log_dir / "2026-10-06.md").write_bytes(b"Morgan Log \xff")
    (log_dir / "2026-10-07.md").mkdir()
    reasons = [logged.diary(f"2026-10-0{n}", tz=MADRID).log_error or "" for n in (5, 6, 7)]
    assert ["symbolic link" in reasons[0], "UTF-8" in reasons[1], "regular file" in reasons[2]] == [
        True
    ] * 3
    # found by review: a log_dir that is a FIFO or a file was taken for no log at all
    for odd in ("fifo", "file"):
        where = tmp_path / odd
        if odd == "fifo":
            os.mkfifo(where)
        else:
            where.write_text("not a folder")
        day = MemoryService(tmp_path / f"{odd}.sqlite3", config=MemoryConfig(log_dir=str(where)))
        assert "is not a folder" in (day.diary("2026-10-05", tz=MADRID).log_error or "")


def test_a_log_with_a_torn_record_is_shown_with_the_bad_bytes_replaced(
    logged: MemoryService, log_dir: Path
) -> None:
    # Found by review: one byte that is not UTF-8 withheld the whole day's log (log: null),
    # though the importer takes the log's other records.
    torn = LOG.encode("utf-8") + b"\n\n[23:59:59 +0200] \nDiego: cortado \xe2\x82"
    (log_dir / "2026-10-05.md").write_bytes(torn)
    day = logged.diary("2026-10-05", tz=MADRID)
    assert day.log is not None and day.log.startswith(LOG.lstrip("\ufeff"))
    assert day.log.endswith("Diego: cortado \ufffd")
    assert "not valid UTF-8" in (day.log_error or "")
    bom = b"\xef\xbb\xbf"  # an offset counts it, as the importer's (found by review)
    (log_dir / "2026-10-05.md").write_bytes(bom + torn.removeprefix(bom))
    day = logged.diary("2026-10-05", tz=MADRID)
    assert (day.log_error or "").startswith(f"byte {len(bom + torn.removeprefix(bom)) - 2} ")
    assert day.log is not None and not day.log.startswith("\ufeff")


def test_log_dir_defaults_beside_the_database_and_resolves_under_the_data_directory(
    tmp_path: Path,
) -> None:
    assert MemoryConfig().log_path() == MemoryConfig().database_path().parent / "logs"
    assert MemoryConfig(log_dir="journal").log_path() == tmp_path / "home" / "journal"
    assert MemoryConfig(log_dir=str(tmp_path / "abs")).log_path() == tmp_path / "abs"
    for bad in ("", "../logs", "//server/share/logs"):
        with pytest.raises(InvalidInput, match="log_dir|UNC"):
            MemoryConfig(log_dir=bad)


# The command line


def test_the_text_format_shows_times_speakers_accents_and_code_as_it_is(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    with seeded():
        talk(
            "ses_café",
            ("2026-10-05T07:15", "user", "¿Me recuerdas el café de la mañana?"),
            (
                "2026-10-05T07:15",
                "assistant",
                "Claro, Diego: café a las diez.\nY un ejemplo:\n\n```python\ndef saludo():\n\n"
                '    return "¡hola, señor!"\n```\nFin.',
            ),
        )
        MessageFactory(
            session_id="ses_café",
            sequence=3,
            role="system",
            content="Sesión interrumpida \x1b[2J.",
            created_at=utc("2026-10-05T07:16"),
            status="interrupted",
        )
        talk("ses_después", ("2026-10-07T09:00", "user", "Después."))
        MemoryFactory(
            content="Diego toma el café a las diez.",
            category="preference",
            created_at=utc("2026-10-05T07:20"),
            modified_at=utc("2026-10-05T07:20"),
        )
        MemoryFactory(
            content="Diego vive en Valencia.",
            created_at=utc("2026-09-01T10:00"),
            modified_at=utc("2026-10-05T20:05"),
        )

    code, out, _ = invoke(runner, db_path, "2026-10-05", "--tz", MADRID, "--format", "text")

    assert code == 0
    assert out.splitlines() == [
        "Monday 2026-10-05 (Europe/Madrid)",
        "Previous day: none · Next day: 2026-10-07",
        "",
        "Conversation 09:15\u201309:16, 3 messages (ses_café)",
        "  09:15 user: ¿Me recuerdas el café de la mañana?",
        "  09:15 assistant: Claro, Diego: café a las diez.",
        "    Y un ejemplo:",
        "",
        "```python",
        "def saludo():",
        "",
        '    return "¡hola, señor!"',
        "```",
        "    Fin.",
        # A control character is shown escaped, so stored text cannot drive the terminal.
        "  09:16 system (interrupted): Sesión interrumpida \\x1b[2J.",
        "",
        "Memories:",
        "  09:20 written [preference] Diego toma el café a las diez.",
        "  22:05 updated [fact] Diego vive en Valencia.",
    ]


def test_the_text_format_reads_windows_line_ends_as_line_breaks(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    # Found by review: each line of a message stored with CRLF ended in \x0d, and the code
    # block's closing fence was not read as one, so "Done." stayed inside the block.
    with seeded():
        talk(
            "ses_crlf",
            ("2026-10-06T08:00", "assistant", "Code:\r\n```python\r\nprint('é')\r\n```\r\nDone."),
            ("2026-10-06T08:01", "user", "A lone return\rstays escaped."),
        )
    code, out, _ = invoke(runner, db_path, "2026-10-06", "--tz", "UTC", "--format", "text")
    assert code == 0
    assert out.splitlines()[3:10] == [
        "Conversation 08:00\u201308:01, 2 messages (ses_crlf)",
        "  08:00 assistant: Code:",
        "```python",
        "print('é')",
        "```",
        "    Done.",
        "  08:01 user: A lone return\\x0dstays escaped.",
    ]


def test_the_text_format_names_the_zone_of_an_hour_the_clocks_go_through_twice(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    # Found by review: the night summer time ended read 02:30, 02:00, 02:30.
    with seeded():
        talk(
            "ses_night",
            ("2026-10-25T00:30", "user", "one"),
            ("2026-10-25T01:00", "assistant", "two"),
            ("2026-10-25T01:30", "user", "three"),
            ("2026-10-25T02:15", "assistant", "four"),
        )
    code, out, _ = invoke(runner, db_path, "2026-10-25", "--tz", MADRID, "--format", "text")
    assert code == 0
    assert out.splitlines()[3:8] == [
        "Conversation 02:30 CEST\u201303:15, 4 messages (ses_night)",
        "  02:30 CEST user: one",
        "  02:00 CET assistant: two",
        "  02:30 CET user: three",
        "  03:15 assistant: four",
    ]


def log_day_as_text(runner: CliRunner, tmp_path: Path, log_dir: Path) -> Result:
    """The text diary of 2026-10-05 in Madrid from a new database: the day's log alone."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"memory": {"log_dir": str(log_dir)}}), encoding="utf-8")
    options = ["--database", str(tmp_path / "m.sqlite3"), "--config", str(config)]
    return runner.invoke(cli, [*options, "diary", "2026-10-05", "--tz", MADRID, "--format", "text"])


def test_the_text_format_says_what_was_wrong_in_a_torn_log(
    runner: CliRunner, tmp_path: Path, log_dir: Path
) -> None:
    # Found by review: the text view showed U+FFFD and said nothing; the JSON's log_error did.
    torn = LOG.encode("utf-8") + b"\n\n[23:59:59 +0200] \nDiego: cortado \xe2\x82"
    (log_dir / "2026-10-05.md").write_bytes(torn)
    result = log_day_as_text(runner, tmp_path, log_dir)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[3].startswith("No stored conversation; the day's Markdown log")
    assert lines[4].startswith("(byte ") and "not valid UTF-8" in lines[4]
    assert "Diego: cortado \ufffd" in lines


def test_the_text_format_prints_the_fallback_log_as_it_is(
    runner: CliRunner, tmp_path: Path, log_dir: Path
) -> None:
    (log_dir / "2026-10-05.md").write_text(LOG, encoding="utf-8")
    result = log_day_as_text(runner, tmp_path, log_dir)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "Monday 2026-10-05 (Europe/Madrid)",
        "Previous day: none · Next day: none",
        "",
        f"No stored conversation; the day's Markdown log ({log_dir / '2026-10-05.md'}):",
        "",
        *LOG.split("\r\n"),
        "",
        "Memories: none written or updated.",
    ]


def test_the_text_format_keeps_a_log_folder_holding_a_line_end_on_one_line(
    runner: CliRunner, tmp_path: Path
) -> None:
    # Found by review: a folder named "c\r\nd" was shown on two lines, as "c" and "d/...".
    log_dir = tmp_path / "c\r\nd"
    log_dir.mkdir()
    result = log_day_as_text(runner, tmp_path, log_dir)
    assert result.exit_code == 0
    shown = f"{tmp_path}/c\\x0d\\nd/2026-10-05.md"
    assert (
        result.stdout.splitlines()[3] == f"No stored conversation, and no Markdown log at {shown}."
    )


def test_json_is_the_default_and_keeps_accents(
    runner: CliRunner, db_path: Path, seeded: Seeded
) -> None:
    with seeded():
        talk("ses_json", ("2026-10-05T07:15", "user", "Café con leche."))
    code, out, _ = invoke(runner, db_path, "2026-10-05", "--tz", TOKYO)
    document = json.loads(out)
    assert code == 0 and "Café con leche." in out
    assert set(document) == {
        "warning",
        "day",
        "time_zone",
        "previous_day",
        "next_day",
        "conversations",
        "memories",
        "log",
        "log_path",
        "log_error",
    }
    assert (document["day"], document["time_zone"]) == ("2026-10-05", TOKYO)
    conversation = document["conversations"][0]
    assert (
        conversation["message_count"] == 1 and conversation["started_at"] == "2026-10-05T07:15:00Z"
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["2026-02-30"], "not a calendar date"),
        (["yesterday"], "YYYY-MM-DD"),
        (["2026-10-05", "--tz", "Mars/Olympus"], "not a known time zone"),
        (["--format", "html"], "html"),
    ],
)
def test_a_bad_day_zone_or_format_is_a_usage_error(
    runner: CliRunner, db_path: Path, args: list[str], words: str
) -> None:
    code, out, err = invoke(runner, db_path, *args)
    error = json.loads(err)["error"]
    assert (code, out, error["type"]) == (2, "", "UsageError") and words in error["message"]


# Only reads


def snapshot(folder: Path) -> dict[str, tuple[int, str]]:
    """Every file under ``folder``: its modification time (ns) and SHA-256."""
    return {
        str(path.relative_to(folder)): (
            path.stat().st_mtime_ns,
            hashlib.sha256(path.read_bytes()).hexdigest(),
        )
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_reading_days_writes_nothing(tmp_path: Path, db_path: Path, log_dir: Path) -> None:
    (log_dir / "2026-10-04.md").write_text(LOG, encoding="utf-8")
    config = MemoryConfig(log_dir=str(log_dir))
    with MemoryService(db_path, config=config) as writer:
        session = writer.start_session(started_at=utc("2026-10-05T07:00"))
        writer.record_message(session.id, "user", "Hola.", created_at=utc("2026-10-05T07:15"))
        writer.remember("Diego toma café.")
        counts = writer.health().counts
    before = snapshot(tmp_path)

    with MemoryService(db_path, config=config) as reader:
        for day in ("2026-10-04", "2026-10-05", "2026-10-06"):
            reader.diary(day, tz=MADRID)
        reader.diary(tz=MADRID)

    # The database file (and the log) are byte for byte and mtime for mtime the same, and no
    # file appeared: the WAL a read may open is gone again once the last connection closes.
    assert snapshot(tmp_path) == before
    with MemoryService(db_path) as again:
        assert again.health().counts == counts


def test_the_fallback_log_is_looked_for_beside_the_database_in_use(tmp_path: Path) -> None:
    # --database elsewhere: the logs/ folder beside that database, not the configured one.
    from memstore import MemoryService

    database = tmp_path / "elsewhere" / "db.sqlite3"
    logs = database.parent / "logs"
    logs.mkdir(parents=True)
    (logs / "2026-11-02.md").write_text("Morgan Log — 2026-11-02", encoding="utf-8")
    diary = MemoryService(database).diary("2026-11-02", tz="UTC")
    assert diary.log == "Morgan Log — 2026-11-02"


def test_the_diary_of_a_missing_database_shows_the_log_and_creates_nothing(
    tmp_path: Path,
) -> None:
    # Found by a new-user trial: the read-only diary created a database at a mistyped path.
    database = tmp_path / "typo" / "memory.sqlite3"
    logs = tmp_path / "typo" / "logs"
    logs.mkdir(parents=True)
    (logs / "2026-10-05.md").write_text(LOG, encoding="utf-8")
    day = MemoryService(database).diary("2026-10-05", tz=MADRID)
    assert day.log == LOG and day.conversations == [] and day.memories == []
    assert day.previous_day is None and day.next_day is None
    assert not database.exists()


@pytest.mark.parametrize("kind", ["empty", "one page", "at base"])
def test_the_diary_of_an_empty_file_shows_the_log_and_leaves_it_empty(
    runner: CliRunner, tmp_path: Path, kind: str
) -> None:
    # Found by review: an empty file (no store yet) was made a whole store by the diary;
    # and one at Alembic's base or of one empty page (what a first import killed leaves; no
    # store either, refused by the reading commands as an empty file is) was refused with
    # "`memstore check` upgrades it", which check does not.
    database = tmp_path / "memory.sqlite3"
    if kind == "at base":
        base(database)
    elif kind == "one page":
        with closing(sqlite3.connect(database)) as connection:
            connection.execute("CREATE TABLE t (x)")
            connection.execute("DROP TABLE t")
            connection.execute("VACUUM")
    else:
        database.touch()
    before = database.read_bytes()
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "2026-10-05.md").write_text(LOG, encoding="utf-8")
    code, out, err = invoke(runner, database, "2026-10-05", "--tz", MADRID)
    assert code == 0, err
    assert json.loads(out)["log"] == LOG and json.loads(out)["conversations"] == []
    assert database.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs", "memory.sqlite3"]


def test_the_diary_of_a_backup_leaves_it_byte_for_byte_and_of_junk_says_damaged(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    # Found by review: the diary switched a backup (a rollback-journal file) to WAL, and
    # called a file of random bytes an older schema to upgrade.
    with MemoryService(db_path) as service:
        session = service.start_session()
        service.record_message(session.id, "user", "Hola.", created_at=utc("2026-10-05T07:15"))
        service.backup(tmp_path / "backup.sqlite3")
    backup = tmp_path / "backup.sqlite3"
    before = backup.read_bytes()
    code, out, err = invoke(runner, backup, "2026-10-05", "--tz", MADRID)
    assert code == 0, err
    assert [c["message_count"] for c in json.loads(out)["conversations"]] == [1]
    assert backup.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.sqlite3", "memory.sqlite3"]
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(bytes(range(256)) * 20)
    code, _, err = invoke(runner, junk, "2026-10-05", "--tz", MADRID)
    assert (code, json.loads(err)["error"]["type"]) == (1, "StoreDamaged")


def test_the_diary_of_an_older_schema_refuses_to_upgrade_it(
    runner: CliRunner, db_path: Path
) -> None:
    # Found by review: the diary, which never writes, upgraded a database at 0006 to 0007.
    from tests.test_migrations import downgrade

    with MemoryService(db_path) as service:
        service.remember("Diego toma café.")
    downgrade(db_path, "0006")
    before = hashlib.sha256(db_path.read_bytes()).hexdigest()
    code, _, err = invoke(runner, db_path, "2026-10-05", "--tz", MADRID)
    error = json.loads(err)["error"]
    assert (code, error["type"]) == (1, "SchemaError")
    assert "schema version 6, older than this code's 7" in error["message"]
    assert "only reads" in error["message"]
    assert hashlib.sha256(db_path.read_bytes()).hexdigest() == before
    with MemoryService(db_path) as service:  # any other use upgrades it, as before
        assert [m.content for m in service.list_memories().memories] == ["Diego toma café."]


def test_the_text_view_escapes_bidi_overrides_and_controls_in_a_real_process(
    db_path: Path, seeded: Seeded
) -> None:
    # The failing input: U+202E reversed what the terminal showed of the rest of the line.
    with seeded():
        talk("ses_bidi", ("2026-10-05T07:15", "user", "pay \u202e01$ ok\u2066 \x9b31m red \u200f"))
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "memstore",
            "--database",
            str(db_path),
            "diary",
            "2026-10-05",
            "--tz",
            MADRID,
            "--format",
            "text",
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert "pay \\u202e01$ ok\\u2066 \\x9b31m red \\u200f" in completed.stdout
    assert not any(c in completed.stdout for c in "\u202e\u2066\x9b\u200f")


def test_a_log_holding_only_its_header_is_no_day_to_go_to(
    logged: MemoryService, log_dir: Path, seeded: Seeded, tmp_path: Path
) -> None:
    # Found by review: a log of its header alone (no record) was "the closest earlier day
    # with a conversation", and that day showed nothing but the header.
    with seeded():
        talk("ses_first", ("2026-10-01T10:00", "user", "Primero."))
    (log_dir / "2026-09-30.md").write_text("Morgan Log — 2026-09-30\n", encoding="utf-8")
    (log_dir / "2026-10-02.md").write_text("Morgan Log — 2026-10-02\n\n", encoding="utf-8")
    (log_dir / "2026-10-03.md").write_text(LOG, encoding="utf-8")
    day = logged.diary("2026-10-01", tz=MADRID)
    assert (day.previous_day, day.next_day) == (None, date(2026, 10, 3))
    alone = MemoryService(tmp_path / "none.sqlite3", config=MemoryConfig(log_dir=str(log_dir)))
    assert alone.diary("2026-10-01", tz=MADRID).previous_day is None
    # Found by the next review: records an import refuses (stamps without an offset) are
    # still a conversation the diary shows on their day, so a day to go to.
    malformed = "Morgan Log — 2026-10-02\n\n[09:00:00] \nDiego: no offset\n"
    (log_dir / "2026-10-02.md").write_text(malformed, encoding="utf-8")
    assert logged.diary("2026-10-01", tz=MADRID).next_day == date(2026, 10, 2)
    assert alone.diary("2026-10-01", tz=MADRID).next_day == date(2026, 10, 2)
    # ... and so is a note without a header, its one line no header (the review after).
    (log_dir / "2026-09-29.md").write_text("Diego: a note without header", encoding="utf-8")
    (log_dir / "2026-09-30.md").write_text(
        "\ufeffMorgan Log — 2026-09-30\r\n\r\n", encoding="utf-8"
    )
    assert logged.diary("2026-10-01", tz=MADRID).previous_day == date(2026, 9, 29)
    # A file of white space (a BOM, line endings) is passed over; a header ending in a lone
    # carriage return, which an import refuses, is not (the review after).
    (log_dir / "2026-09-29.md").write_bytes(b"\xef\xbb\xbf\r\n \n")
    assert logged.diary("2026-10-01", tz=MADRID).previous_day is None
    (log_dir / "2026-09-29.md").write_bytes("Morgan Log — 2026-09-29\r".encode())
    assert logged.diary("2026-10-01", tz=MADRID).previous_day == date(2026, 9, 29)
    # A log too large to show is a day to go to: the diary says why (the last re-check).
    (log_dir / "2026-09-29.md").write_bytes(b" " * (MAX_LOG_BYTES + 10) + b"\nA: hi")
    assert logged.diary("2026-10-01", tz=MADRID).previous_day == date(2026, 9, 29)
