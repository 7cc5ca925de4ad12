"""The export and import-memories commands, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memstore import FileError, MemoryService
from memstore.adapters.cli import cli


def run(runner: CliRunner, database: Path, *args: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    result = runner.invoke(cli, ["--database", str(database), *args])
    out = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.exit_code, out, result.stderr


def remembered(db_path: Path) -> list[str]:
    service = MemoryService(db_path)
    session = service.start_session()
    service.record_message(session.id, "user", "Me llamo Diego.", speaker="Diego")
    old = service.remember("Diego prefers Spanish.", key="language")
    new = service.remember("Diego prefers English.", key="language")
    service.close()
    return [old.id, new.id]


def test_export_then_import_memories_into_a_new_database(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    old, new = remembered(db_path)
    code, report, _ = run(runner, db_path, "export", str(tmp_path / "out.jsonl"))
    assert code == 0
    assert report["export"] == str(tmp_path / "out.jsonl")
    assert (report["format"], report["scope"]) == ("jsonl", "all")
    assert report["counts"] == {  # every type, 0 included, as a Markdown export counts
        "session": 1,
        "message": 1,
        "memory": 2,
        "memory_source": 0,
        "deleted_source": 0,
    }
    fresh = tmp_path / "fresh.sqlite3"
    code, imported, _ = run(runner, fresh, "import-memories", str(tmp_path / "out.jsonl"))
    assert code == 0
    assert (imported["imported"], imported["skipped"]) == (2, 0)
    code, listed, _ = run(runner, fresh, "memories", "--all")
    by_id = {memory["id"]: memory for memory in listed["memories"]}
    assert by_id[old]["status"] == "superseded" and by_id[old]["superseded_by"] == new
    assert by_id[new]["status"] == "active"


def test_a_markdown_export_says_how_to_read_its_history_back(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    remembered(db_path)
    dest = tmp_path / "md"
    code, report, err = run(runner, db_path, "export", str(dest), "--as", "markdown", "--tz", "UTC")
    assert code == 0 and report["speakers"] == {"Diego": "user"}
    # Found by review: without --database, the line read the history into the default
    # store, which may be the one exported, and stored every message twice.
    hint = f"memstore --database NEW.sqlite3 import {dest}/history --speaker Diego=user"
    assert err.strip() == (
        "to read the history back into another database (this one holds it already): "
        f"{hint} --include-tail"
    )
    code, imported, _ = run(
        runner,
        tmp_path / "b.sqlite3",
        "import",
        f"{dest}/history",
        "--speaker",
        "Diego=user",
        "--include-tail",
    )
    assert (code, imported["imported"]) == (0, 1)


def test_export_refuses_an_existing_destination_with_exit_1(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    remembered(db_path)
    (tmp_path / "taken.jsonl").write_text("keep me")
    code, out, err = run(runner, db_path, "export", str(tmp_path / "taken.jsonl"))
    assert (code, out) == (1, {})
    assert json.loads(err)["error"]["type"] == "ExportExists"
    assert (tmp_path / "taken.jsonl").read_text() == "keep me"


def test_export_of_a_missing_database_is_an_error_and_creates_nothing(
    runner: CliRunner, tmp_path: Path
) -> None:
    code, _, err = run(runner, tmp_path / "typo.sqlite3", "export", str(tmp_path / "out.jsonl"))
    assert code == 1 and json.loads(err)["error"]["type"] == "FileError"
    assert not (tmp_path / "typo.sqlite3").exists() and not (tmp_path / "out.jsonl").exists()


def test_bad_options_are_usage_errors(runner: CliRunner, db_path: Path, tmp_path: Path) -> None:
    for args in (["--as", "yaml"], ["--scope", "history"], ["--tz", "Mars/Olympus"]):
        code, _, err = run(runner, db_path, "export", str(tmp_path / "x"), *args)
        assert code == 2 and json.loads(err)["error"]["type"] == "UsageError"
        assert args[0] in json.loads(err)["error"]["message"]


def test_export_takes_format_text_or_json_as_every_command_does(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    # Found by review: export's --format was only the file format, so the issue's
    # "--format text|json forces either" was refused there.
    remembered(db_path)
    code, report, _ = run(runner, db_path, "export", str(tmp_path / "a"), "--format", "json")
    assert code == 0 and report["format"] == "jsonl" and (tmp_path / "a").is_file()
    text = runner.invoke(cli, ["--database", str(db_path), "export", str(tmp_path / "b"),
                               "--as", "markdown", "--format", "text"])  # fmt: skip
    assert text.exit_code == 0 and not text.stdout.startswith("{")
    assert (tmp_path / "b" / "memories").is_dir()
    code, report, _ = run(runner, db_path, "export", str(tmp_path / "c"), "--format", "markdown")
    assert code == 0 and report["format"] == "markdown"
    code, _, err = run(runner, db_path, "export", str(tmp_path / "d"), "--as", "jsonl",
                       "--format", "markdown")  # fmt: skip
    assert code == 2 and "disagree" in json.loads(err)["error"]["message"]
    assert not (tmp_path / "d").exists()
    code, _, err = run(runner, db_path, "export", str(tmp_path / "e"), "--format", "text",
                       "--json")  # fmt: skip
    assert code == 2 and "disagree" in json.loads(err)["error"]["message"]  # found by review
    assert not (tmp_path / "e").exists()


def test_a_bad_import_is_a_json_error_naming_the_line(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    remembered(db_path)
    run(runner, db_path, "export", str(tmp_path / "out.jsonl"), "--scope", "memories")
    data = (tmp_path / "out.jsonl").read_text().replace('"status":"active"', '"status":"live"')
    (tmp_path / "bad.jsonl").write_text(data)
    fresh = tmp_path / "fresh.sqlite3"
    code, out, err = run(runner, fresh, "import-memories", str(tmp_path / "bad.jsonl"))
    error = json.loads(err)["error"]
    assert (code, out, error["type"]) == (1, {}, "InvalidInput")
    assert "bad.jsonl line 3: memory.status: Input should be" in error["message"]
    assert not fresh.exists()


def test_the_reimport_hint_gives_no_command_for_a_path_holding_control_characters(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    # click strips ANSI sequences it echoes into a pipe, and a terminal runs them. Found by
    # review: shown as escapes in single quotes, which keep backslashes, the path
    # named another folder (a line end first became a line break): no command is given.
    remembered(db_path)
    for name in ("out\x1b[31m", "ex\r\nport"):
        dest = tmp_path / name
        code, report, err = run(runner, db_path, "export", str(dest), "--as", "markdown")
        assert code == 0 and report["export"] == str(dest)
        assert "import its history folder with --include-tail and a --speaker for each" in err
        assert "\x1b" not in err and "--database NEW" not in err


def test_the_reimport_hint_without_a_command_names_the_speakers_escaped(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    # Found by review: the text view said "a --speaker for each speaker of the report" and
    # listed none, and a name holding U+200B cannot be seen.
    service = MemoryService(db_path)
    session = service.start_session()
    service.record_message(session.id, "user", "hola", speaker="a\u200bb")
    service.record_message(session.id, "assistant", "hola", speaker="Morgan")
    service.close()
    options = ["--database", str(db_path), "--format", "text"]
    result = runner.invoke(cli, [*options, "export", str(tmp_path / "out"), "--as", "markdown"])
    assert result.exit_code == 0
    assert "a --speaker for each of a\\u200bb=user, Morgan=assistant (" in result.stdout


def test_a_sync_says_how_many_memories_it_updated(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    # The command of the review: a later export imported where an earlier one was.
    other = tmp_path / "y.sqlite3"
    run(runner, db_path, "remember", "Diego prefers tea.", "--key", "drink")
    run(runner, db_path, "export", str(tmp_path / "e1.jsonl"))
    assert run(runner, other, "import-memories", str(tmp_path / "e1.jsonl"))[0] == 0
    run(runner, db_path, "remember", "Diego prefers coffee.", "--key", "drink")
    run(runner, db_path, "export", str(tmp_path / "e2.jsonl"))
    code, report, _ = run(runner, other, "import-memories", str(tmp_path / "e2.jsonl"))
    assert (code, report["imported"], report["updated"], report["skipped"]) == (0, 1, 1, 0)
    pinned = run(runner, db_path, "memories")[1]["memories"][0]["id"]
    run(runner, db_path, "pin", pinned)
    run(runner, db_path, "export", str(tmp_path / "e3.jsonl"))
    e3 = tmp_path / "e3.jsonl"
    result = runner.invoke(
        cli, ["--database", str(other), "import-memories", str(e3), "--format", "text"]
    )
    assert result.stdout.strip() == f"imported 0 memories from {e3} (1 already there, 1 updated)"


def test_a_sync_carries_a_message_deletion_and_check_stays_ok(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    # The review's commands: S deletes a message T imported; S's next export deletes it in T.
    other = tmp_path / "t.sqlite3"
    source = MemoryService(db_path)
    session = source.start_session()
    said = source.record_message(
        session.id, "user", "Diego repairs old clocks.", source_ref="/logs/a.md#byte=10"
    )
    assert said is not None
    source.remember("Diego repairs clocks.", source_message_id=said.id)
    run(runner, db_path, "export", str(tmp_path / "t1.jsonl"))
    assert run(runner, other, "import-memories", str(tmp_path / "t1.jsonl"))[0] == 0
    assert run(runner, db_path, "delete-message", said.id)[0] == 0
    run(runner, db_path, "export", str(tmp_path / "t1b.jsonl"))
    code, report, _ = run(runner, other, "import-memories", str(tmp_path / "t1b.jsonl"))
    assert (code, report["records"]["message"]["deleted"]) == (0, 1)
    assert run(runner, other, "recall", "old clocks")[1]["conversations"] == []
    code, health, _ = run(runner, other, "check")
    assert (code, health["ok"]) == (0, True)
    again = runner.invoke(
        cli,
        [
            "--database",
            str(other),
            "--format",
            "text",
            "import-memories",
            str(tmp_path / "t1b.jsonl"),
        ],
    )
    assert "1 message deleted" not in again.stdout  # a second import deletes nothing more
    source.close()


def test_one_markdown_memory_file_imports_as_itself(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    # Found by review: a single exported memory file was read as JSONL ("Invalid JSON").
    _, new = remembered(db_path)
    run(runner, db_path, "export", str(tmp_path / "md"), "--as", "markdown", "--tz", "UTC")
    fresh = tmp_path / "fresh.sqlite3"
    one = tmp_path / "md" / "memories" / f"{new}.md"
    code, imported, err = run(runner, fresh, "import-memories", str(one))
    assert code == 0, err
    assert (imported["imported"], imported["skipped"]) == (1, 0)
    _, listed, _ = run(runner, fresh, "memories")
    assert [(m["id"], m["content"]) for m in listed["memories"]] == [
        (new, "Diego prefers English.")
    ]


def test_the_text_view_of_a_sync_says_which_sessions_it_ended(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    # Found by review: a sync that ended a session printed nothing of it.
    source = MemoryService(db_path)
    source.start_session(session_id="live1")
    source.record_message("live1", "user", "Is the tea ready?")
    source.export(tmp_path / "e1.jsonl")
    other = tmp_path / "y.sqlite3"
    assert run(runner, other, "import-memories", str(tmp_path / "e1.jsonl"))[0] == 0
    source.end_session("live1")
    e2 = tmp_path / "e2.jsonl"
    source.export(e2)
    result = runner.invoke(
        cli, ["--database", str(other), "import-memories", str(e2), "--format", "text"]
    )
    assert result.stdout.strip() == (
        f"imported 0 memories from {e2} (0 already there); also 1 ended session"
    )


def test_a_jsonl_export_to_a_folders_name_is_refused_and_a_markdown_one_is_made(
    runner: CliRunner, db_path: Path, tmp_path: Path
) -> None:
    # Found by review: "export out/" wrote a JSONL file named "out", where backup refuses.
    service = MemoryService(db_path)
    service.remember("Diego likes tea.")
    for given in (f"{tmp_path / 'out'}/", f"{tmp_path / 'out'}/.", f"{tmp_path / 'out'}/.."):
        code, _, err = run(runner, db_path, "export", given)
        assert code == 2 and "names a folder" in err, given
        assert not (tmp_path / "out").exists()
    with pytest.raises(FileError, match="NUL"):
        service.export(f"{tmp_path}/x\0/")
    with pytest.raises(FileError, match="ends in '/'"):
        service.export(f"{tmp_path / 'out'}/")
    assert not (tmp_path / "out").exists()
    code, report, _ = run(runner, db_path, "export", f"{tmp_path / 'md'}/", "--as", "markdown")
    assert code == 0 and report["counts"]["memory"] == 1
    assert (tmp_path / "md" / "memories").is_dir()
