"""Tests of the daily log parser: one small input per rule of LOGFORMAT.md, then properties."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.errors import ImportRejected
from memstore.logs.parse import ParsedLog, parse_log
from memstore.logs.records import MAX_LISTED, LogWarning, Warnings
from tests.logrecords import LogRecord, records_of, warnings_of

NAME = "2026-10-05.md"
HEAD = "Morgan Log \u2014 2026-10-05".encode()
BOM = b"\xef\xbb\xbf"
SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def parse(data: bytes, file_name: str = NAME) -> ParsedLog:
    return parse_log(data, file_name)


def utc(*fields: int) -> datetime:
    return datetime(*fields, tzinfo=UTC)


def contents(log: ParsedLog) -> list[str]:
    return [record.content for record in records_of(log)]


def kinds(log: ParsedLog) -> list[tuple[str, int]]:
    return [(warning.kind, warning.byte) for warning in warnings_of(log)]


# --- the example of LOGFORMAT.md ---------------------------------------------------------------

SPEC_EXAMPLE = (
    "Morgan Log \u2014 2026-10-05\n"
    "\n"
    "[09:15:02 +0200] \n"
    "Diego: Hola Morgan, \u00bfme recuerdas el caf\u00e9 de la ma\u00f1ana?\n"
    "\n"
    "[09:15:09 +0200] \n"
    "Morgan: Claro, Diego: caf\u00e9 a las diez.\n"
    "Segunda l\u00ednea de la respuesta.\n"
    "\n"
    "[09:30:00 +0200] \n"
    "System: Session closed."
).encode()


def test_spec_example_gives_its_three_records() -> None:
    log = parse(SPEC_EXAMPLE)
    assert log.day == date(2026, 10, 5)
    assert log.assistant_name == "Morgan"
    offsets = [m.start() for m in re.finditer(rb"\[09:", SPEC_EXAMPLE)]
    assert records_of(log) == (
        LogRecord(
            offsets[0],
            "Diego",
            utc(2026, 10, 5, 7, 15, 2),
            "Hola Morgan, \u00bfme recuerdas el caf\u00e9 de la ma\u00f1ana?",
        ),
        LogRecord(
            offsets[1],
            "Morgan",
            utc(2026, 10, 5, 7, 15, 9),
            "Claro, Diego: caf\u00e9 a las diez.\nSegunda l\u00ednea de la respuesta.",
        ),
        LogRecord(offsets[2], "System", utc(2026, 10, 5, 7, 30), "Session closed."),
    )
    assert log.tail_start == offsets[2]
    assert warnings_of(log) == ()
    assert not log.open_fence


# --- file name, header, encoding: file-level errors --------------------------------------------


@pytest.mark.parametrize(
    "header",
    [b"# " + HEAD, HEAD, "Dr. M\u00f6 Log Bot Log \u2014 2026-10-05".encode()],
)
def test_header_is_accepted_with_or_without_markdown_hash(header: bytes) -> None:
    log = parse(header + b"\n\n[09:00:00 +0000]\nDiego: hi")
    assert log.assistant_name in {"Morgan", "Dr. M\u00f6 Log Bot"}
    assert contents(log) == ["hi"]


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ("Morgan Log \u2014 2026-10-06", "same date"),  # the file name says 10-05
        ("Morgan Log \u2013 2026-10-05", "em dash"),  # en dash
        ("Morgan Log - 2026-10-05", "em dash"),
        ("Morgan Log \u2014 2026-10-05 ", "em dash"),  # nothing may follow the date
        (" Log \u2014 2026-10-05", "em dash"),  # no assistant name
        ("  Log \u2014 2026-10-05", "em dash"),  # a blank assistant name
        ("", "em dash"),  # the file starts with a blank line
        ("[09:00:00 +0000]", "em dash"),
    ],
)
def test_bad_header_is_a_file_level_error(header: str, reason: str) -> None:
    with pytest.raises(ImportRejected, match=reason) as caught:
        parse(header.encode() + b"\n\n[09:00:00 +0000]\nDiego: hi")
    assert caught.value.byte == 0


def test_empty_file_has_no_header() -> None:
    with pytest.raises(ImportRejected, match="header"):
        parse(b"")


@pytest.mark.parametrize(
    "file_name",
    [
        "2026-02-30.md",  # not a real date
        "2026-13-01.md",
        "2026-10-05.txt",
        "2026-10-5.md",
        "20261005.md",
        "log.md",
        "logs/2026-10-05.md",  # a path, not a base name
        "\u0662\u0660\u0662\u0666-10-05.md",  # Arabic-Indic digits
    ],
)
def test_bad_file_name_is_a_file_level_error(file_name: str) -> None:
    with pytest.raises(ImportRejected, match=r"YYYY-MM-DD\.md") as caught:
        parse(HEAD, file_name)
    assert caught.value.byte is None


def test_leap_day_is_a_real_date() -> None:
    header = "Morgan Log \u2014 2028-02-29".encode()
    assert parse(header, "2028-02-29.md").day == date(2028, 2, 29)


@pytest.mark.parametrize(
    ("data", "bad_byte"),
    [
        (HEAD + b"\n\n[09:00:00 +0000]\nDiego: caf\xc3", 54),  # cut short at the end
        (HEAD + b"\n\n[09:00:00 +0000]\nDiego: \xff hi", 51),
        (HEAD + b"\n\n[09:00:00 +0000]\nDiego: \xed\xa0\x80", 51),  # an encoded surrogate
        (BOM + b"Morgan\xc0\xaf Log", 9),  # an overlong "/"; the BOM counts
    ],
)
def test_invalid_utf8_is_a_warning_or_a_header_error_with_its_byte(
    data: bytes, bad_byte: int
) -> None:
    # A record with bytes that are not UTF-8 (a write cut short) is left out with a warning at
    # the first bad byte; only a header that is not UTF-8 makes the whole file unreadable.
    if bad_byte > len(BOM + b"Morgan"):
        log = parse(data + b"\n\n[09:00:01 +0000]\nDiego: still here")
        assert [(w.kind, w.byte) for w in warnings_of(log)] == [("invalid_utf8", bad_byte)]
        assert contents(log) == ["still here"]
        return
    with pytest.raises(ImportRejected, match=f"byte {bad_byte}") as caught:
        parse(data)
    assert caught.value.byte == bad_byte


def test_header_only_file_has_nothing() -> None:
    for data in (HEAD, HEAD + b"\n", HEAD + b"\r\n\r\n"):
        log = parse(data)
        assert (records_of(log), warnings_of(log), log.tail_start, log.open_fence) == (
            (),
            (),
            None,
            False,
        )


# --- exact byte offsets ------------------------------------------------------------------------


def test_bom_counts_in_offsets() -> None:
    plain = HEAD + b"\n\n[09:00:00 +0000]\nDiego: hi"
    log = parse(BOM + plain)
    assert log.assistant_name == "Morgan"
    assert records_of(log)[0].byte == plain.index(b"[") + 3
    assert log.tail_start == plain.index(b"[") + 3


def test_crlf_counts_both_bytes_and_content_gets_lf() -> None:
    data = HEAD + b"\r\n\r\n[09:00:00 +0000]\r\nDiego: one\r\ntwo\r\n\r\n[09:00:05 +0000]\r\nMo: x"
    log = parse(data)
    assert [record.byte for record in records_of(log)] == [29, 66]
    assert data[29:30] == data[66:67] == b"["
    assert contents(log) == ["one\ntwo", "x"]


def test_mixed_line_endings() -> None:
    data = HEAD + b"\n\r\n[09:00:00 +0000]\nDiego: one\r\ntwo\nthree\n\r\n[09:00:05 +0000]\r\nMo: x"
    log = parse(data)
    assert [record.byte for record in records_of(log)] == [
        data.index(b"[09"),
        data.index(b"[09:00:05"),
    ]
    assert contents(log) == ["one\ntwo\nthree", "x"]


def test_multibyte_text_counts_bytes_not_characters() -> None:
    data = (
        "Morgan Log \u2014 2026-10-05\n\n[09:00:00 +0000]\nDiego: \u65e5\u672c\u8a9e \U0001f600\n\n"
        "[09:00:01 +0000]\nMo: ok"
    ).encode()
    assert records_of(parse(data))[1].byte == data.index(b"[09:00:01")


# --- what ends a line, and what is content -----------------------------------------------------


@pytest.mark.parametrize(
    "char", ["\u2028", "\u2029", "\x0c", "\x0b", "\x85", "\r", "\x1c", "\x1d", "\x1e"]
)
def test_only_lf_ends_a_line(char: str) -> None:
    # str.splitlines() would split at each of these; the format does not.
    text = f"a{char}{char}[09:00:01 +0000]{char}Mo: b"
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: " + text.encode()
    log = parse(data)
    assert contents(log) == [text]
    assert warnings_of(log) == ()


def test_lone_cr_at_the_end_of_the_file_is_content() -> None:
    assert contents(parse(HEAD + b"\n\n[09:00:00 +0000]\nDiego: hi\r")) == ["hi\r"]


def test_cr_before_a_crlf_is_content() -> None:
    log = parse(HEAD + b"\n\n[09:00:00 +0000]\nDiego: a\r\r\nb")
    assert contents(log) == ["a\r\nb"]


def test_continuation_lines_belong_to_the_message() -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: one\n  two\n\nfour: with a colon\n[09:00:07 +0000]"
    assert contents(parse(data)) == ["one\n  two\n\nfour: with a colon\n[09:00:07 +0000]"]


def test_trailing_line_endings_are_removed_but_not_other_trailing_space() -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: one\n\n\n\r\n\n[09:00:05 +0000]\nMo: two  \n  \n\n"
    assert contents(parse(data)) == ["one", "two  \n  "]


def test_text_after_name_keeps_colons_and_leading_spaces() -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego:   a: b: c"
    assert records_of(parse(data))[0].speaker == "Diego"
    assert contents(parse(data)) == ["  a: b: c"]


def test_message_may_start_on_the_second_line() -> None:
    assert contents(parse(HEAD + b"\n\n[09:00:00 +0000]\nDiego: \nhello")) == ["\nhello"]


# --- stamps and record boundaries --------------------------------------------------------------


@pytest.mark.parametrize("tail", [b"", b" ", b"\t", b" \t  "])
def test_stamp_may_end_with_spaces_and_tabs(tail: bytes) -> None:
    log = parse(HEAD + b"\n\n[09:00:00 +0000]" + tail + b"\nDiego: hi")
    assert contents(log) == ["hi"]


@pytest.mark.parametrize(
    "stamp",
    [
        b"[07:00:02]",
        b"[25:61:00 +0000]",
        b"[24:00:00 +0000]",
        b"[23:60:00 +0000]",
        b"[23:59:60 +0000]",
        b"[07:00:02 +1500]",  # offset over 14 hours
        b"[07:00:02 +0260]",
        b"[07:00:02 0200]",
        b"[07:00:02  +0200]",
        b"[07:00:02 +0200] x",
        b"[07:00:02 +0200]\x0c",  # only spaces and tabs may follow
        b"[07:",
    ],
)
def test_malformed_stamp_ends_the_previous_record_and_is_reported(stamp: bytes) -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: one\n\n" + stamp + b"\nMo: lost\n\nmore"
    log = parse(data)
    at = data.index(stamp)
    assert contents(log) == ["one"]
    assert kinds(log) == [("malformed_stamp", at)]
    assert log.tail_start == at


def test_record_after_a_malformed_one_is_read() -> None:
    data = HEAD + b"\n\n[07:00:02]\nDiego: lost\n\n[09:00:00 +0000]\nMo: kept"
    log = parse(data)
    assert contents(log) == ["kept"]
    assert kinds(log) == [("malformed_stamp", data.index(b"[07"))]
    assert log.tail_start == data.index(b"[09")


@pytest.mark.parametrize(
    "line",
    [b"[1:00:00 +0000]", b"[ab:00]", b"[\xd9\xa1\xd9\xa2:00]", b" [09:00:01 +0000]", b"(09:00"],
)
def test_lines_not_starting_with_bracket_two_digits_colon_are_content(line: bytes) -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: one\n\n" + line + b"\nMo: two"
    log = parse(data)
    assert contents(log) == ["one\n\n" + line.decode() + "\nMo: two"]
    assert warnings_of(log) == ()


def test_stamp_without_a_blank_line_before_it_is_content() -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: one\n[09:00:01 +0000]\nMo: two"
    assert contents(parse(data)) == ["one\n[09:00:01 +0000]\nMo: two"]


def test_line_of_spaces_and_tabs_is_a_blank_line() -> None:
    data = HEAD + b"\n \t\n[09:00:00 +0000]\nDiego: one\n  \n[09:00:01 +0000]\nMo: two"
    assert contents(parse(data)) == ["one\n  ", "two"]


@pytest.mark.parametrize("space", ["\x0c", "\u3000", "\u00a0"])
def test_other_white_space_does_not_make_a_blank_line(space: str) -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: one\n" + space.encode() + b"\n[09:00:01 +0000]"
    assert contents(parse(data)) == [f"one\n{space}\n[09:00:01 +0000]"]


# --- speaker lines -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "speaker_line",
    [
        b"Diego hi",
        b"Diego:hi",  # the colon must be followed by one space
        b"Diego:",
        b": hi",  # empty name
        b"",  # blank line instead of a speaker line
        ("D" * 101).encode() + b": hi",
    ],
)
def test_bad_speaker_line_is_reported_and_not_a_record(speaker_line: bytes) -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\n" + speaker_line + b"\nmore\n\n[09:00:01 +0000]\nMo: ok"
    log = parse(data)
    assert contents(log) == ["ok"]
    assert kinds(log) == [("malformed_speaker", len(HEAD) + 19)]


def test_stamp_at_the_very_end_is_reported_at_the_end_of_the_file() -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: one\n\n[09:00:01 +0000] "
    log = parse(data)
    assert contents(log) == ["one"]
    assert kinds(log) == [("malformed_speaker", len(data))]
    assert log.tail_start == data.rindex(b"[")


def test_speaker_name_of_100_characters_is_accepted_as_written() -> None:
    name = "\u00c9l \u00e8" * 25
    log = parse(HEAD + b"\n\n[09:00:00 +0000]\n" + name.encode() + b": hi")
    assert [record.speaker for record in records_of(log)] == [name]


# --- fenced code -------------------------------------------------------------------------------

PASTED = b"\n\n[10:00:07 -0500]\nDiego: pasted\n"


@pytest.mark.parametrize(
    ("opening", "closing"),
    [
        (b"```", b"```"),
        (b"~~~", b"~~~"),
        (b"```python", b"```"),
        (b"```", b"`````"),  # a longer closing fence
        (b"~~~~", b"~~~~  \t"),  # trailing spaces and tabs after the closing fence
        (b"   ```", b"```"),  # indented by 3 spaces
        (b"```", b"   ```"),
    ],
)
def test_pasted_stamp_inside_fenced_code_is_content(opening: bytes, closing: bytes) -> None:
    code = opening + PASTED + closing
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: look\n" + code + b"\n\n[09:00:01 +0000]\nMo: ok"
    log = parse(data)
    assert contents(log) == ["look\n" + code.decode(), "ok"]
    assert warnings_of(log) == ()
    assert not log.open_fence


@pytest.mark.parametrize(
    "closing",
    [b"~~~", b"``", b"``` x", b"    ```"],  # other char, too short, text after, 4 spaces
)
def test_line_that_does_not_close_the_fence(closing: bytes) -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: look\n```" + PASTED + closing + PASTED + b"ok"
    log = parse(data)
    assert len(records_of(log)) == 1
    assert log.open_fence


def test_shorter_fence_does_not_close_a_longer_one() -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: ````\n```" + PASTED + b"````"
    log = parse(data)
    assert contents(log) == ["````\n```" + PASTED.decode() + "````"]
    assert not log.open_fence


def test_four_spaces_do_not_open_a_fence() -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: look\n    ```" + PASTED + b"    ```"
    log = parse(data)
    assert contents(log) == ["look\n    ```", "pasted\n    ```"]
    assert not log.open_fence


def test_fence_opened_on_the_speaker_line() -> None:
    code = b"```sh" + PASTED + b"```"
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: " + code + b"\n\n[09:00:01 +0000]\nMo: ok"
    log = parse(data)
    assert contents(log) == [code.decode(), "ok"]


def test_a_backtick_in_a_backtick_fences_info_string_opens_no_fence() -> None:
    # Found by review: CommonMark says such a line is no fence; the rest of the log became
    # code, and its records stayed deferred.
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: code\n``` a`b" + PASTED.rstrip()
    log = parse(data)
    assert contents(log) == ["code\n``` a`b", "pasted"] and not log.open_fence
    tildes = HEAD + b"\n\n[09:00:00 +0000]\nDiego: code\n~~~ a`b" + PASTED + b"~~~"
    assert contents(parse(tildes)) == ["code\n~~~ a`b" + PASTED.decode() + "~~~"]


def test_name_ending_in_backticks_does_not_open_a_fence() -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\n```: text" + PASTED.rstrip()
    assert contents(parse(data)) == ["text", "pasted"]


def test_unterminated_fence_runs_to_the_end_and_is_flagged() -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: one\n\n[09:00:01 +0000]\nMo: ~~~" + PASTED
    log = parse(data)
    assert contents(log) == ["one", "~~~" + PASTED.decode().rstrip("\n")]
    assert log.tail_start == data.index(b"[09:00:01")
    assert log.open_fence


def test_fence_in_text_before_the_first_record_hides_its_stamps() -> None:
    data = HEAD + b"\n```" + PASTED
    log = parse(data)
    assert (records_of(log), log.tail_start, log.open_fence) == ((), None, True)
    assert kinds(log) == [("unexpected_text", len(HEAD) + 1)]


def test_archived_code_link_is_ordinary_text() -> None:
    link = b"**(python):** [01-1a2b3c4d.py](2026-10-02/01-1a2b3c4d.py)"
    log = parse(HEAD + b"\n\n[09:00:00 +0000]\nMorgan: Here it is:\n\n" + link)
    assert contents(log) == ["Here it is:\n\n" + link.decode()]
    assert warnings_of(log) == ()


# --- content and text outside records ----------------------------------------------------------


@pytest.mark.parametrize("message", [b"", b"   ", b" \n\t\n", b"\xe3\x80\x80\n\x0c"])
def test_empty_content_is_reported_and_not_a_record(message: bytes) -> None:
    data = HEAD + b"\n\n[09:00:00 +0000]\nDiego: one\n\n[09:00:01 +0000]\nMo: " + message
    log = parse(data)
    empty_at = data.index(b"[09:00:01")
    assert contents(log) == ["one"]
    assert kinds(log) == [("empty_content", empty_at)]
    assert log.tail_start == empty_at


def test_text_before_the_first_record_is_reported_once() -> None:
    # a stamp without a blank line before it is not a record boundary either
    data = HEAD + b"\n\nnotes\n[09:00:00 +0000]\nDiego: no\n\n[09:00:01 +0000]\nMo: ok"
    log = parse(data)
    assert contents(log) == ["ok"]
    assert kinds(log) == [("unexpected_text", len(HEAD) + 2)]


def test_warnings_come_in_file_order() -> None:
    data = (
        HEAD
        + b"\nstray\n\n[07:00:02]\nDiego: a\n\n[09:00:00 +0000]\nbad\n\n"
        + b"[09:00:01 +0000]\nMo: \n\n[09:00:02 +0000]\nMo: ok"
    )
    log = parse(data)
    assert [kind for kind, _ in kinds(log)] == [
        "unexpected_text",
        "malformed_stamp",
        "malformed_speaker",
        "empty_content",
    ]
    assert [byte for _, byte in kinds(log)] == sorted(byte for _, byte in kinds(log))
    assert all(warning.message.endswith(".") for warning in warnings_of(log))


# --- time --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        (b"[00:30:00 +0200]", utc(2026, 10, 4, 22, 30)),  # the previous day in UTC
        (b"[23:30:00 -0500]", utc(2026, 10, 6, 4, 30)),  # the next day in UTC
        (b"[12:00:00 +0530]", utc(2026, 10, 5, 6, 30)),
        (b"[12:00:00 -0000]", utc(2026, 10, 5, 12)),
        (b"[00:00:00 +1459]", utc(2026, 10, 4, 9, 1)),
        (b"[23:59:59 -1400]", utc(2026, 10, 6, 13, 59, 59)),
    ],
)
def test_time_is_converted_to_utc(stamp: bytes, expected: datetime) -> None:
    created_at = records_of(parse(HEAD + b"\n\n" + stamp + b"\nDiego: hi"))[0].created_at
    assert created_at == expected
    assert created_at.utcoffset() == timedelta(0)


def test_time_outside_the_calendar_after_conversion_is_reported() -> None:
    data = "Morgan Log \u2014 9999-12-31\n\n[23:00:00 -0200]\nDiego: hi".encode()
    log = parse(data, "9999-12-31.md")
    assert records_of(log) == ()
    assert kinds(log) == [("time_out_of_range", data.index(b"["))]


def test_a_stamp_within_a_day_of_the_calendars_ends_is_reported() -> None:
    # Found by review: 23:00 +0000 on 9999-12-31 was imported, and no zone east of UTC
    # could show it as local time (the diary and text views failed with a traceback).
    for name, stamp in (("9999-12-31", b"[23:00:00 +0000]"), ("0001-01-01", b"[23:00:00 +0000]")):
        data = f"Morgan Log \u2014 {name}\n\n".encode() + stamp + b"\nDiego: hi"
        log = parse(data, f"{name}.md")
        assert records_of(log) == ()
        assert kinds(log) == [("time_out_of_range", data.index(b"["))]


# --- properties --------------------------------------------------------------------------------

FUZZ_TOKENS = [
    b"\n", b"\r\n", b"\r", b"\n\n", b"[", b"]", b"09", b":", b" ", b"\t", b"+0200", b"-1460",
    b"Diego: ", b"```", b"~~~", b"    ", b"\xe2\x80\xa8", BOM, b"\xff", b"\xc3", b"x",
    b"\xc3\xa9", b"[10:00:07 -0500]", b"\n\n[09:15:02 +0200] \nDiego: hi",
]  # fmt: skip


def check_invariants(data: bytes, log: ParsedLog) -> None:
    offsets = [record.byte for record in records_of(log)]
    assert offsets == sorted(set(offsets))
    assert all(data[offset : offset + 1] == b"[" for offset in offsets)
    assert all(record.content.strip() for record in records_of(log))
    assert all(record.created_at.utcoffset() == timedelta(0) for record in records_of(log))
    if offsets:
        assert log.tail_start is not None
        assert log.tail_start >= offsets[-1]


@given(
    st.binary(max_size=300),
    st.sampled_from([NAME, "2026-02-30.md", "x.md", "9999-12-31.md", "0001-01-01.md"]),
)
def test_arbitrary_bytes_raise_nothing_but_import_rejected(data: bytes, file_name: str) -> None:
    try:
        log = parse_log(data, file_name)
    except ImportRejected:
        return
    check_invariants(data, log)


@given(
    st.lists(st.sampled_from(FUZZ_TOKENS), max_size=60).map(b"".join),
    st.sampled_from(["2026-10-05", "9999-12-31", "0001-01-01"]),
)
def test_arbitrary_bodies_raise_nothing_but_import_rejected(body: bytes, day: str) -> None:
    data = f"Morgan Log \u2014 {day}".encode() + body
    try:
        log = parse_log(data, f"{day}.md")
    except ImportRejected:
        return
    check_invariants(data, log)


FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
SPECIAL_CHARS = "ab [0123:]`~ \t\r\u2028\x0c\x0b\x85\u00e9\u4e2d+-"
SPECIAL_LINES = [
    "```", "~~~~", "   ```py", "    ```", "[10:00:07 -0500]", "[07:00:02]", "Diego: pasted",
    "", "", "  ", "\t",
]  # fmt: skip


def close_open_fence(lines: list[str]) -> list[str]:
    """Append a closing fence when the lines leave one open (as a writer must)."""
    opening = None
    for line in lines:
        match = FENCE_LINE.fullmatch(line)
        if match is None:
            continue
        marker, rest = match.groups()
        if opening is None:
            opening = marker
        elif marker[0] == opening[0] and len(marker) >= len(opening) and not rest.strip(" \t"):
            opening = None
    return lines if opening is None else [*lines, opening]


def writable_content(lines: list[str]) -> str:
    """Make generated lines into content a writer can write and a parser read back."""
    lines = [line.rstrip("\r") for line in lines]  # "\r" then a line ending reads as CRLF
    for index in range(1, len(lines)):
        if not lines[index - 1].strip(" \t") and re.match(r"\[[0-9]{2}:", lines[index]):
            lines[index] = " " + lines[index]  # a blank line then a stamp would start a record
    return "\n".join(close_open_fence(lines)).rstrip("\n")


@dataclass(frozen=True)
class Written:
    speaker: str
    clock: time
    offset_minutes: int
    stamp_tail: str
    content: str
    endings: tuple[str, ...]  # separator line endings, after the stamp, between content lines


@st.composite
def written_records(draw: st.DrawFn) -> Written:
    line = st.text(
        st.one_of(
            st.sampled_from(SPECIAL_CHARS),
            st.characters(exclude_categories=["Cs"], exclude_characters="\n"),
        ),
        max_size=20,
    )
    content = writable_content(
        draw(st.lists(st.one_of(line, st.sampled_from(SPECIAL_LINES)), min_size=1, max_size=6))
    )
    speaker = draw(
        st.text(
            st.characters(exclude_categories=["Cs"], exclude_characters=":\n"),
            min_size=1,
            max_size=100,
        )
    )
    ending = st.sampled_from(["\n", "\r\n"])
    lines = content.count("\n") + 1
    return Written(
        speaker=speaker,
        clock=draw(st.times()).replace(microsecond=0),
        offset_minutes=draw(st.integers(-(14 * 60 + 59), 14 * 60 + 59)),
        stamp_tail=draw(st.sampled_from(["", " ", "\t ", "  "])),
        content=content,
        endings=tuple(draw(st.lists(ending, min_size=lines + 2, max_size=lines + 2))),
    )


def render(day: date, records: list[Written], bom: bool, hashed: bool) -> tuple[bytes, list[int]]:
    """Write records as LOGFORMAT.md says; return the bytes and each record's offset."""
    data = bytearray(BOM if bom else b"")
    data += f"{'# ' if hashed else ''}Morgan Log \u2014 {day}".encode()
    offsets = []
    for record in records:
        first, second, after_stamp, *between = record.endings
        data += (first + second).encode()
        offsets.append(len(data))
        sign = "-" if record.offset_minutes < 0 else "+"
        hours, minutes = divmod(abs(record.offset_minutes), 60)
        data += f"[{record.clock:%H:%M:%S} {sign}{hours:02}{minutes:02}]".encode()
        data += f"{record.stamp_tail}{after_stamp}{record.speaker}: ".encode()
        first_line, *more_lines = record.content.split("\n")
        body = first_line + "".join(e + text for e, text in zip(between, more_lines, strict=True))
        data += body.encode()
    return bytes(data), offsets


def expected_time(day: date, record: Written) -> datetime:
    zone = timezone(timedelta(minutes=record.offset_minutes))
    return datetime.combine(day, record.clock, zone).astimezone(UTC)


@given(
    st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 12, 31)),
    st.lists(written_records(), max_size=5).filter(
        lambda records: all(record.content.strip() for record in records)
    ),
    st.booleans(),
    st.booleans(),
)
def test_written_records_read_back_the_same(
    day: date, records: list[Written], bom: bool, hashed: bool
) -> None:
    data, offsets = render(day, records, bom, hashed)
    log = parse_log(data, f"{day}.md")
    assert warnings_of(log) == ()
    assert records_of(log) == tuple(
        LogRecord(offset, record.speaker, expected_time(day, record), record.content)
        for offset, record in zip(offsets, records, strict=True)
    )
    assert log.tail_start == (offsets[-1] if offsets else None)
    assert not log.open_fence


# --- real logs written by ../shared/tools/corpus2logs.py ---------------------------------------


@pytest.fixture(scope="module")
def corpus_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tool = SHARED / "tools" / "corpus2logs.py"
    if not tool.is_file() or not (SHARED / "corpora").is_dir():
        pytest.skip(f"{SHARED} (corpus2logs.py and its corpora) is absent")
    out = tmp_path_factory.mktemp("corpus_logs")
    subprocess.run([sys.executable, str(tool), str(out)], check=True, capture_output=True)
    return out


def manifest(out: Path, set_name: str) -> dict[str, list[LogRecord]]:
    expected: dict[str, list[LogRecord]] = defaultdict(list)
    for line in (out / set_name / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        created_at = datetime.fromisoformat(row["created_at"])
        record = LogRecord(row["byte"], row["speaker"], created_at, row["content"])
        expected[row["file"]].append(record)
    return expected


@pytest.mark.corpora
@pytest.mark.parametrize("set_name", ["edge", "multilingual"])
def test_corpus_logs_give_exactly_their_manifest(corpus_logs: Path, set_name: str) -> None:
    expected = manifest(corpus_logs, set_name)
    files = sorted((corpus_logs / set_name).rglob("*.md"))
    assert sorted(str(path.relative_to(corpus_logs)) for path in files) == sorted(expected)
    for path in files:
        log = parse_log(path.read_bytes(), path.name)
        records = expected[str(path.relative_to(corpus_logs))]
        assert (warnings_of(log), log.open_fence) == ((), False), path
        assert list(records_of(log)) == records, path
        assert log.tail_start == records[-1].byte, path


@pytest.mark.parametrize("count", [1, MAX_LISTED, MAX_LISTED + 1, MAX_LISTED + 2])
def test_the_warning_of_a_final_record_past_the_sealed_bytes_is_left_out(count: int) -> None:
    found = Warnings()
    for byte in range(count):
        found.add(LogWarning("malformed_stamp", byte * 10, "bad stamp"))
    kept, dropped = found.within(sealed=(count - 1) * 10)
    assert dropped == 1 and sum(kept.counts.values()) == count - 1
    assert len(kept.shown()) == min(count - 1, MAX_LISTED + 1)
    assert kept.first_unlisted == (MAX_LISTED * 10 if count - 1 > MAX_LISTED else None)
    assert found.within(sealed=(count - 1) * 10 + 1) == (found, 0)
