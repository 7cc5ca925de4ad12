"""MemoryConfig: ranges, path rules, the data directory, and last-valid reloads."""

from __future__ import annotations

import copy
import json
import logging
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from memstore import FileError, InvalidInput, MemoryConfig, MemoryService
from memstore.config import data_dir
from memstore.config_file import ConfigLoader, read_section

EDGES = [
    ("max_results", 1, 50),
    ("context_chars", 512, 32000),
    ("recall_chars", 1024, 64000),
]


@pytest.mark.parametrize(("field", "low", "high"), EDGES)
def test_each_range_accepts_its_edges_and_refuses_one_beyond(
    field: str, low: int, high: int
) -> None:
    assert getattr(MemoryConfig(**{field: low}), field) == low
    assert getattr(MemoryConfig(**{field: high}), field) == high
    for outside in (low - 1, high + 1):
        with pytest.raises(InvalidInput, match=f"^{field}: Input should be") as caught:
            MemoryConfig(**{field: outside})
        assert caught.value.argument == field


@pytest.mark.parametrize("folder", [".", "./", "data/", "data\\", "~", "~diego", "~/.", "~/./."])
def test_a_database_path_naming_a_folder_is_refused_as_a_setting(folder: str) -> None:
    # Found by review: "." passed, named the data folder itself, and the host failed on
    # first use instead of keeping its last valid settings.
    with pytest.raises(InvalidInput, match="^database: database path names a folder"):
        MemoryConfig(database=folder)


def test_a_refused_setting_is_also_pydantic_s_validation_error() -> None:
    # Found by review: a pydantic model's caller catches ValidationError (or ValueError),
    # which memstore's InvalidInput alone was not; it is both, with pydantic's errors().
    for build in (
        lambda: MemoryConfig(max_results=0, recall_chars=10),
        lambda: MemoryConfig.model_validate({"max_results": 0, "recall_chars": 10}),
        lambda: MemoryConfig.model_validate_json('{"max_results": 0, "recall_chars": 10}'),
    ):
        with pytest.raises(ValidationError) as caught:
            build()
        refused = caught.value
        assert isinstance(refused, InvalidInput) and isinstance(refused, ValueError)
        assert refused.argument == "max_results"
        assert str(refused).startswith("max_results: Input should be greater than or equal to 1")
        assert "recall_chars: Input should be" in str(refused)
        assert [error["loc"] for error in refused.errors()] == [("max_results",), ("recall_chars",)]
        renamed = refused.named("--max-results")
        assert str(renamed).startswith("--max-results: Input should be greater than or equal")
        # found by review: a copy lost what pydantic built and failed to print
        for copied in (pickle.loads(pickle.dumps(refused)), copy.copy(refused)):
            assert type(copied) is InvalidInput and str(copied) == str(refused)


@pytest.mark.parametrize(("field", "low", "high"), EDGES)
@pytest.mark.parametrize("given", [True, "2048", 2048.0])
def test_a_limit_that_is_no_integer_is_refused(
    field: str, low: int, high: int, given: object
) -> None:
    with pytest.raises(InvalidInput, match=f"^{field}: Input should be a valid integer"):
        MemoryConfig(**{field: given})


@pytest.mark.parametrize("field", ["enabled", "store_history"])
@pytest.mark.parametrize("given", ["no", "false", 0, 1.0])
def test_a_switch_that_is_no_boolean_is_refused(field: str, given: object) -> None:
    with pytest.raises(InvalidInput, match=f"^{field}: Input should be a valid boolean"):
        MemoryConfig(**{field: given})


@pytest.mark.parametrize(
    "path", ["\\\\server\\share\\memory.sqlite3", "//server/share/memory.sqlite3"]
)
def test_unc_paths_are_refused(path: str) -> None:
    with pytest.raises(InvalidInput, match="UNC"):
        MemoryConfig(database=path)
    with pytest.raises(InvalidInput, match="UNC"):
        MemoryConfig(log_dir=path)


@pytest.mark.parametrize("path", ["../memory.sqlite3", "memory/../../x.sqlite3", "..\\x.sqlite3"])
def test_parent_traversal_is_refused(path: str) -> None:
    with pytest.raises(InvalidInput, match=r"'\.\.'"):
        MemoryConfig(database=path)


def test_relative_paths_resolve_under_the_data_directory_whatever_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = MemoryConfig(database="memory/memory.sqlite3")
    assert config.database_path() == data_dir() / "memory" / "memory.sqlite3"
    assert data_dir() == tmp_path / "home"  # MEMSTORE_HOME, set by the test fixture
    assert config.log_path() == data_dir() / "memory" / "logs"


def test_the_data_directory_variable_takes_a_home_folder_and_refuses_a_relative_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: "~/x" was a folder literally named "~", and "rel" named another folder
    # from each working directory.
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MEMSTORE_HOME", "~/x")
    assert data_dir() == tmp_path / "x"
    monkeypatch.setenv("MEMSTORE_HOME", "rel")
    with pytest.raises(FileError, match=r"\$MEMSTORE_HOME must be an absolute path"):
        data_dir()
    monkeypatch.setenv("MEMSTORE_HOME", "~no_such_user_of_memstore/x")
    with pytest.raises(FileError, match="cannot be found"):
        data_dir()


def test_the_user_data_directory_has_no_author_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    # Found by review: on Windows, platformdirs put the author (by default the application's
    # name) above it: %LOCALAPPDATA%\memstore\memstore, not the README's %LOCALAPPDATA%\memstore.
    import platformdirs

    asked: list[dict[str, object]] = []
    monkeypatch.delenv("MEMSTORE_HOME")
    monkeypatch.setattr(
        platformdirs, "user_data_dir", lambda *args, **kwargs: asked.append(kwargs) or "/d"
    )
    assert data_dir() == Path("/d") and asked == [{"appauthor": False}]


def test_absolute_local_paths_are_allowed(tmp_path: Path) -> None:
    config = MemoryConfig(database=str(tmp_path / "db.sqlite3"), log_dir=str(tmp_path / "logs"))
    assert config.database_path() == tmp_path / "db.sqlite3"
    assert config.log_path() == tmp_path / "logs"


def test_unknown_settings_are_refused() -> None:
    with pytest.raises(InvalidInput, match="databse"):
        MemoryConfig(databse="x.sqlite3")  # type: ignore[call-arg]


def write(path: Path, memory: object) -> None:
    path.write_text(json.dumps({"other": {"theme": "dark"}, "memory": memory}), encoding="utf-8")


def test_invalid_then_valid_reloads_keep_the_last_valid_settings(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "config.json"
    loader = ConfigLoader(path)
    assert loader.load() == MemoryConfig()  # no file yet: the defaults
    write(path, {"max_results": 0})
    assert loader.load() == MemoryConfig()  # invalid on the first load: the defaults
    # found by review: "keeping the last valid ones" when there had been none
    assert "max_results" in caplog.text and "keeping the defaults" in caplog.text
    write(path, {"max_results": 20, "database": "other.sqlite3"})
    valid = loader.load()
    assert (valid.max_results, valid.database) == (20, "other.sqlite3")
    write(path, {"max_results": 20, "database": "../escape.sqlite3"})
    caplog.clear()
    assert loader.load() == valid  # invalid again: the last valid settings stay
    assert "keeping the last valid ones" in caplog.text
    path.write_text("{not json", encoding="utf-8")
    assert loader.load() == valid
    write(path, {"recall_chars": 2048})
    assert loader.load().recall_chars == 2048


def test_changing_the_database_path_selects_another_database(tmp_path: Path) -> None:
    from memstore import MemoryService

    first = MemoryService.from_config(MemoryConfig(database="a.sqlite3"))
    first.remember("Diego likes jazz.")
    second = MemoryService.from_config(MemoryConfig(database="b.sqlite3"))
    assert second.list_memories().total == 0 and first.list_memories().total == 1
    assert logging.getLogger("memstore").handlers == []  # the library adds no handlers


def test_bad_settings_are_named_in_plain_sentences(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
    settings = {"max_results": 500, "databse": "x.sqlite3", "api_key": key}
    path.write_text(json.dumps({"memory": settings}))
    with pytest.raises(ValueError) as raised:
        read_section(path)
    message = str(raised.value)
    assert "memory.max_results: Input should be less than or equal to 50 (given 500)" in message
    assert "memory.databse: unknown setting; known: enabled" in message
    assert "x.sqlite3" not in message and key not in message  # found by review: a key shown
    assert "errors.pydantic.dev" not in message and "type=" not in message


def test_a_deeply_nested_file_is_a_clear_error(tmp_path: Path) -> None:
    # Found by review: json's RecursionError escaped as a traceback.
    path = tmp_path / "deep.json"
    path.write_text('{"memory": {"database": ' + "[" * 100_000 + "}}", encoding="utf-8")
    with pytest.raises(ValueError, match="nested too deeply"):
        read_section(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"memory": {}}\xff', "byte 14 is not valid UTF-8; save the file as UTF-8"),
        (b'{"memory": ', "it is not valid JSON (Expecting value at line 1, column 12)"),
    ],
)
def test_a_file_that_is_not_utf8_or_not_json_says_so_in_words(
    tmp_path: Path, data: bytes, message: str
) -> None:
    # Found by review: Python's own "'utf-8' codec can't decode byte 0xff in position 0".
    path = tmp_path / "config.json"
    path.write_bytes(data)
    with pytest.raises(ValueError) as raised:
        read_section(path)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"memory": {"max_results": 5, "max_results": 50}}', "memory.max_results"),
        ('{"memory": {"enabled": false}, "memory": {}}', "memory"),
    ],
)
def test_a_setting_given_twice_is_refused(tmp_path: Path, text: str, message: str) -> None:
    # Found by review: JSON's last value won silently, so the first one a person reads in
    # the file was not the one in force.
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as raised:
        read_section(path)
    assert str(raised.value) == f"{message} is given twice; keep one of them"


def test_keys_given_twice_outside_the_memory_section_are_the_host_applications(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"theme": 1, "theme": 2, "memory": {"max_results": 5}}', encoding="utf-8")
    assert read_section(path).max_results == 5


@pytest.mark.parametrize("setting", ["database", "log_dir"])
def test_the_home_folder_of_a_user_that_does_not_exist_is_refused(setting: str) -> None:
    # Found by review: accepted, then a RuntimeError traceback on first use.
    with pytest.raises(InvalidInput, match="names a home folder that cannot be found"):
        MemoryConfig(**{setting: "~nosuchuser-memstore/x"})


def test_a_nul_in_the_database_path_is_a_file_error(tmp_path: Path) -> None:
    # Found by review: "embedded null byte" escaped as a bare ValueError.
    with pytest.raises(FileError, match="NUL"):
        MemoryService(tmp_path / "a\x00b.sqlite3")


@pytest.mark.parametrize(("setting", "value"), [("database", "\ud800.db"), ("log_dir", "\ud800")])
def test_a_lone_surrogate_in_a_configured_path_is_refused(setting: str, value: str) -> None:
    # Found by review: it reached os.stat (database) or the JSON output (log_dir) and crashed.
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        MemoryConfig.model_validate({setting: value})


def test_a_database_path_that_is_not_utf8_is_a_file_error(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="UTF-8"):
        MemoryService(tmp_path / "bad\udcff.sqlite3")


def test_refused_settings_are_invalid_input_naming_each_one() -> None:
    # Found by review: pydantic's ValidationError, outside memstore's error tree.
    with pytest.raises(InvalidInput) as caught:
        MemoryConfig(max_results=0, context_chars=1)
    assert caught.value.argument == "max_results"
    assert str(caught.value) == (
        "max_results: Input should be greater than or equal to 1 (given 0); "
        "context_chars: Input should be greater than or equal to 512 (given 1)"
    )


def test_paths_may_be_given_as_pathlib_paths(tmp_path: Path) -> None:
    # Found by review: MemoryConfig(database=tmp_path / "memory.sqlite3") was refused.
    config = MemoryConfig(database=tmp_path / "memory.sqlite3", log_dir=tmp_path / "logs")
    assert config.database_path() == tmp_path / "memory.sqlite3"
    assert config.log_path() == tmp_path / "logs"
    with pytest.raises(InvalidInput, match="'..' is not allowed"):
        MemoryConfig(database=Path("..") / "memory.sqlite3")


def test_a_configuration_path_under_the_home_folder_is_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: "--config ~/c.json" in an MCP client's args (no shell) was "no file
    # there", and ConfigLoader fell back to the defaults.
    monkeypatch.setenv("HOME", str(tmp_path))
    database = tmp_path / "kept.sqlite3"
    (tmp_path / "c.json").write_text(json.dumps({"memory": {"database": str(database)}}))
    assert read_section(Path("~/c.json")).database == str(database)
    assert ConfigLoader(Path("~/c.json")).load().database == str(database)
    done = subprocess.run(
        [sys.executable, "-m", "memstore", "--config", "~/c.json", "--json", "remember", "Hi."],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert MemoryService(database).list_memories().total == 1


def test_a_configuration_under_a_home_folder_that_does_not_exist_is_a_usage_error(
    tmp_path: Path,
) -> None:
    # Found by review: since ~ is expanded, "~nosuchuser/x.json" was a FileError (exit 1)
    # that did not name --config.
    done = subprocess.run(
        [sys.executable, "-m", "memstore", "--config", "~nosuchuser/x.json", "--json", "memories"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    error = json.loads(done.stderr)["error"]
    assert error["type"] == "UsageError" and "--config" in error["message"]
