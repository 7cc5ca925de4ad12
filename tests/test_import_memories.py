"""import-memories: idempotent, one transaction, and every bad input a clear error that
writes nothing (not even a new database file)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from memstore import (
    ImportConflict,
    InvalidInput,
    MemoryConfig,
    MemoryDisabled,
    MemoryService,
    SecretRejected,
)
from tests import transfer_store

Seeded = Callable[[], AbstractContextManager[None]]


@pytest.fixture
def ids(seeded: Seeded) -> dict[str, str]:
    return transfer_store.fill(seeded)


@pytest.fixture
def export(service: MemoryService, ids: dict[str, str], tmp_path: Path) -> Path:
    path = tmp_path / "all.jsonl"
    service.export(path)
    return path


@pytest.fixture
def target(tmp_path: Path) -> MemoryService:
    """A database that already holds one memory, to see that a failed import leaves it."""
    service = MemoryService(tmp_path / "target.sqlite3")
    service.remember("Diego lives in Madrid.", key="home_city")
    return service


def state(service: MemoryService) -> tuple[dict[str, Any], dict[str, int]]:
    return transfer_store.memories(service), service.health().counts


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def test_importing_twice_adds_nothing(export: Path, target: MemoryService) -> None:
    first = target.import_memories(export)
    before = state(target)
    again = target.import_memories(export)
    assert (first.imported, again.imported, again.skipped) == (5, 0, 5)
    assert all(counts["imported"] == 0 for counts in again.records.values())
    assert again.records["message"] == {"imported": 0, "skipped": 4}
    assert state(target) == before


def test_an_export_into_its_own_database_adds_nothing(service: MemoryService, export: Path) -> None:
    before = state(service)
    report = service.import_memories(export)
    assert (report.imported, report.skipped) == (0, 5)
    assert state(service) == before


def test_supersession_may_point_forwards_in_the_file(
    export: Path, target: MemoryService, ids: dict[str, str], tmp_path: Path
) -> None:
    # A hand-ordered file: the superseded memory before the one that replaced it.
    records = lines(export)
    memories = [r for r in records if r["type"] == "memory"]
    memories.sort(key=lambda r: r["status"] != "superseded")
    others = [r for r in records if r["type"] != "memory"]
    path = write_lines(tmp_path / "reordered.jsonl", others[:-4] + memories + others[-4:])
    target.import_memories(path)
    assert target.get_memory(ids["spanish"]).superseded_by == ids["english"]  # type: ignore[union-attr]


def recounted(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with an end line that counts them again (a consistent edit)."""
    counts = Counter(r["type"] for r in records[1:-1])
    return [*records[:-1], {"type": "memstore_export_end", "counts": counts}]


def cut(export: Path, tmp_path: Path, keep: int) -> Path:
    path = tmp_path / "cut.jsonl"
    path.write_bytes(export.read_bytes()[:keep])
    return path


BAD_JSONL: dict[str, tuple[Callable[[list[dict[str, Any]]], list[dict[str, Any]]], str]] = {
    "wrong record type": (
        lambda rs: [*rs[:3], {**rs[3], "type": "memo"}, *rs[4:]],
        r"line 4: Input tag 'memo' found using 'type' does not match any of the expected tags",
    ),
    "unknown status": (
        lambda rs: [r if r["type"] != "memory" else {**r, "status": "archived"} for r in rs],
        r"line 8: memory.status: Input should be 'active', 'superseded', 'candidate' or "
        r"'expired'",
    ),
    "misspelled field": (
        lambda rs: [r if r["type"] != "memory" else {**r, "pinnned": True} for r in rs],
        r"line 8: memory.pinnned: Extra inputs are not permitted",
    ),
    "naive time": (
        lambda rs: [
            r if r["type"] != "memory" else {**r, "created_at": "2026-10-05T09:00:00"} for r in rs
        ],
        r"line 8: memory.created_at: Input should have timezone info",
    ),
    "no header": (lambda rs: rs[1:], r"line 1: not a memstore export"),
    "end line cut off": (lambda rs: rs[:-1], r"no memstore_export_end line at the end"),
    "a record lost": (  # the end line still counts it
        lambda rs: [r for r in rs if r["type"] != "deleted_source"],
        r"the end line counts .* but the file holds",
    ),
    "record after the end": (lambda rs: [*rs, rs[1]], r"a record after the memstore_export_end"),
    "history in a memories export": (
        lambda rs: [{**rs[0], "scope": "memories"}, *rs[1:]],
        r"line 2: a session record in an export of memories only",
    ),
    "dangling supersession": (
        lambda rs: [
            r if r.get("status") != "superseded" else {**r, "superseded_by": "mem_gone"} for r in rs
        ],
        r"superseded_by mem_gone is neither in the export nor in the database",
    ),
    "superseded_by on an active memory": (
        lambda rs: [
            r if r.get("status") != "active" else {**r, "superseded_by": "mem_gone"} for r in rs
        ],
        r"superseded_by is set but the status is active",
    ),
    "empty content": (
        lambda rs: [r if r["type"] != "memory" else {**r, "content": "  "} for r in rs],
        r"line 8 \(memory mem_\w+\): content: is empty",
    ),
    "message of a missing session": (
        lambda rs: recounted([r for r in rs if r["type"] != "session" or r["id"] != "ses_log"]),
        r"session ses_log is neither in the export nor in the database",
    ),
}


@pytest.mark.parametrize("case", BAD_JSONL, ids=list(BAD_JSONL))
def test_a_bad_jsonl_export_is_a_clear_error_and_writes_nothing(
    case: str, export: Path, target: MemoryService, tmp_path: Path
) -> None:
    change, message = BAD_JSONL[case]
    records = lines(export)
    path = write_lines(tmp_path / "bad.jsonl", change(records))
    before = state(target)
    with pytest.raises(InvalidInput, match=message) as raised:
        target.import_memories(path)
    assert raised.value.argument == "path"
    assert "nothing was imported" in str(raised.value)
    assert state(target) == before


def test_a_truncated_line_is_a_clear_error_and_writes_nothing(
    export: Path, target: MemoryService, tmp_path: Path
) -> None:
    data = export.read_bytes()
    path = cut(export, tmp_path, data.index(b'"type":"memory"') + 40)  # inside a memory line
    before = state(target)
    with pytest.raises(InvalidInput, match=r"cut\.jsonl line 8: Invalid JSON: EOF while parsing"):
        target.import_memories(path)
    assert state(target) == before


def test_a_line_that_is_not_utf8_is_named(
    export: Path, target: MemoryService, tmp_path: Path
) -> None:
    data = export.read_bytes().replace("jardín".encode(), b"jard\xedn", 1)
    (tmp_path / "latin1.jsonl").write_bytes(data)
    with pytest.raises(InvalidInput, match=r"line 6: not UTF-8 \(byte \d+ of the line\)"):
        target.import_memories(tmp_path / "latin1.jsonl")


def test_a_bad_input_into_a_new_database_creates_no_file(export: Path, tmp_path: Path) -> None:
    path = write_lines(tmp_path / "bad.jsonl", lines(export)[:-1])
    new = MemoryService(tmp_path / "new" / "memory.sqlite3")
    with pytest.raises(InvalidInput, match="cut short"):
        new.import_memories(path)
    assert not (tmp_path / "new").exists()


def test_an_id_held_by_other_content_is_a_conflict_and_writes_nothing(
    export: Path, target: MemoryService, ids: dict[str, str]
) -> None:
    target.import_memories(export)
    target.update_memory(ids["candidate"], "Diego likes green tea.")
    before = state(target)
    with pytest.raises(ImportConflict, match=f"{ids['candidate']} is in the database with other"):
        target.import_memories(export)
    assert state(target) == before


def test_an_active_key_another_memory_holds_is_a_conflict(
    export: Path, target: MemoryService, ids: dict[str, str]
) -> None:
    target.remember("Diego prefers answers in French.", key="response_language")
    before = state(target)
    with pytest.raises(
        ImportConflict, match=r"is active with the key 'response_language' that active memory"
    ) as raised:
        target.import_memories(export)
    assert raised.value.record_id == ids["english"]
    assert state(target) == before


def test_a_memory_that_looks_like_a_credential_is_refused_and_nothing_is_written(
    export: Path, target: MemoryService, tmp_path: Path
) -> None:
    records = lines(export)
    secret = "the wifi password is Sw0rdf1sh!2024"
    records = [r if r["type"] != "memory" else {**r, "content": secret} for r in records][:8]
    path = write_lines(
        tmp_path / "secret.jsonl", [*records, {"type": "memstore_export_end", "counts": {}}]
    )
    before = state(target)
    with pytest.raises(
        SecretRejected, match=r"secret\.jsonl line 8 \(memory mem_\w+\) content"
    ) as raised:
        target.import_memories(path)
    assert secret not in str(raised.value) and "Sw0rdf1sh" not in str(raised.value)
    assert state(target) == before


def test_a_markdown_memory_without_front_matter_is_a_clear_error(
    service: MemoryService, ids: dict[str, str], target: MemoryService, tmp_path: Path
) -> None:
    service.export(tmp_path / "md", format="markdown", scope="memories")
    edited = tmp_path / "md" / "memories" / f"{ids['tricky']}.md"
    edited.write_text("Diego likes jazz.\n", encoding="utf-8")
    before = state(target)
    with pytest.raises(InvalidInput, match=rf"{edited}: has no front matter; a memory file is"):
        target.import_memories(tmp_path / "md")
    assert state(target) == before


MARKDOWN_CASES = {
    "unclosed": ("---\nid: mem_a\n", "has no line '---' closing its front matter"),
    "not yaml": ("---\nid: [mem_a\n---\nx\n", "the front matter is not YAML"),
    "not fields": ("---\n- a list\n---\nx\n", "the front matter is not YAML fields"),
    "content in front": (
        "---\nid: mem_a\ncontent: x\n---\nx\n",
        "the front matter names 'content'",
    ),
    "missing fields": (
        "---\nid: mem_a\n---\nDiego likes jazz.\n",
        "category: Field required; status: Field required; created_at: Field required",
    ),
    "unknown status": (
        "---\nid: mem_a\ncategory: fact\nstatus: archived\ncreated_at: 2026-10-05 09:00:00+00:00\n"
        "modified_at: 2026-10-05 09:00:00+00:00\n---\nDiego likes jazz.\n",
        "status: Input should be 'active', 'superseded', 'candidate' or 'expired'",
    ),
    "id unfit for a file name": (
        "---\nid: ../mem\ncategory: fact\nstatus: active\ncreated_at: 2026-10-05 09:00:00+00:00\n"
        "modified_at: 2026-10-05 09:00:00+00:00\n---\nDiego likes jazz.\n",
        "id: String should match pattern",
    ),
}


@pytest.mark.parametrize("case", MARKDOWN_CASES, ids=list(MARKDOWN_CASES))
def test_a_bad_memory_file_is_named_and_writes_nothing(
    case: str, target: MemoryService, tmp_path: Path
) -> None:
    text, message = MARKDOWN_CASES[case]
    folder = tmp_path / "memories"
    folder.mkdir()
    (folder / "a.md").write_text(text, encoding="utf-8")
    before = state(target)
    with pytest.raises(InvalidInput, match=message):
        target.import_memories(folder)
    assert state(target) == before


def test_a_hand_written_memory_file_takes_the_defaults(
    target: MemoryService, tmp_path: Path
) -> None:
    # What a person writes in an editor: YAML times unquoted, the optional fields left out.
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "jazz.md").write_text(
        "---\nid: mem_jazz\ncategory: preference\nkey: Music Taste\nstatus: active\n"
        "created_at: 2026-10-05 09:00:00+02:00\nmodified_at: 2026-10-05T09:00:00Z\n---\n\n"
        "Diego likes jazz.\n\n",
        encoding="utf-8",
    )
    report = target.import_memories(folder)
    memory = target.get_memory("mem_jazz")
    assert report.imported == 1 and memory is not None
    assert (memory.content, memory.key, memory.pinned, memory.origin) == (
        "Diego likes jazz.",
        "music_taste",
        False,
        "explicit",
    )
    assert memory.created_at.isoformat() == "2026-10-05T07:00:00+00:00"


def test_nothing_at_the_path_and_an_empty_folder_are_clear_errors(
    target: MemoryService, tmp_path: Path
) -> None:
    with pytest.raises(InvalidInput, match=r"^path: .*missing: nothing is there"):
        target.import_memories(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidInput, match=r"holds no memory files \(\*\.md\)"):
        target.import_memories(tmp_path / "empty")


def test_a_disabled_memory_refuses_the_import(export: Path, tmp_path: Path) -> None:
    disabled = MemoryService(tmp_path / "off.sqlite3", config=MemoryConfig(enabled=False))
    with pytest.raises(MemoryDisabled):
        disabled.import_memories(export)
    assert not (tmp_path / "off.sqlite3").exists()
