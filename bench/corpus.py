"""The data set: the scale set corpus2logs generates (once, cached), its manifest, the raw
side's rows precomputed from it, and the utterances the memory steps remember."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.common import SHARED, SPEAKERS, utc_now
from memstore.concerns.memory_rules import MAX_CONTENT_CHARS, normalize_content
from memstore.guard import secret_kind
from memstore.text.cjk import index_form
from memstore.times import format_utc

CORPUS2LOGS = SHARED / "tools" / "corpus2logs.py"


def require_shared() -> None:
    """Exit with a clear message when ../shared (and its corpus2logs tool) is missing."""
    if not CORPUS2LOGS.is_file():
        sys.exit(
            f"bench: {CORPUS2LOGS} not found. The benchmark needs the shared folder beside the "
            f"repository ({SHARED}) with tools/corpus2logs.py and corpora/."
        )


def scale_set(out: Path, scale: int) -> Path:
    """The ``scale`` folder of a corpus2logs run for ``scale`` messages, generated once.

    A ``complete`` marker is written after a successful run, so an interrupted generation is
    redone rather than reused.
    """
    root = out / f"corpus-{scale}"
    marker = root / "complete"
    if not marker.is_file():
        shutil.rmtree(root, ignore_errors=True)
        print(f"generating the scale set ({scale} messages) in {root} ...", flush=True)
        command = [sys.executable, str(CORPUS2LOGS), str(root), "--scale", str(scale)]
        subprocess.run(command, check=True)
        marker.write_text(f"{scale}\n")
    return root / "scale"


def read_manifest(scale_dir: Path) -> list[dict[str, Any]]:
    """The manifest records of the scale set, in file then byte order."""
    with open(scale_dir / "manifest.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


# Raw rows, precomputed


@dataclass
class FileRows:
    """Everything the raw side inserts for one daily log, ready for ``executemany``."""

    session: tuple[str, str, str]
    messages: list[tuple[Any, ...]]
    imports: tuple[str, str, int, str, str]


def session_id_for(path: str) -> str:
    """The synthetic session id memstore gives a daily log path."""
    return "log_" + hashlib.sha256(path.encode()).hexdigest()[:24]


def stored_time(iso: str) -> str:
    """A manifest UTC time as memstore stores it (fixed-width UTC text)."""
    return format_utc(datetime.fromisoformat(iso))


def message_row(
    session_id: str, sequence: int, record: dict[str, Any], path: str
) -> tuple[Any, ...]:
    """One messages row: id, session_id, sequence, role, content, created_at, status,
    source_ref, speaker and the content's index form (precomputed, as every raw row is)."""
    return (
        "msg_" + uuid.uuid4().hex,
        session_id,
        sequence,
        SPEAKERS[record["speaker"]],
        record["content"],
        stored_time(record["created_at"]),
        "completed",
        f"{path}#byte={record['byte']}",
        record["speaker"],
        index_form(record["content"]),
    )


def file_rows(path: str, records: Sequence[dict[str, Any]], now: str) -> FileRows:
    """The session, message and imports rows of one file's manifest records.

    The imports row (sealed size and SHA-256 of the whole file) is what memstore records
    after an ``include_tail`` import, so both sides write the same rows.
    """
    session_id = session_id_for(path)
    metadata = json.dumps({"source": "daily_log", "path": path, "boundaries": "unknown"})
    data = Path(path).read_bytes()
    return FileRows(
        session=(session_id, stored_time(records[0]["created_at"]), metadata),
        messages=[
            message_row(session_id, sequence, record, path)
            for sequence, record in enumerate(records, start=1)
        ],
        imports=(path, session_id, len(data), hashlib.sha256(data).hexdigest(), now),
    )


def raw_plan(corpus_root: Path, manifest: Sequence[dict[str, Any]]) -> list[FileRows]:
    """Per-file raw rows for the whole manifest, files in name order (as memstore imports)."""
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in manifest:
        by_file[record["file"]].append(record)
    now = utc_now()
    return [
        file_rows(str((corpus_root / name).resolve()), by_file[name], now)
        for name in sorted(by_file)
    ]


# Utterances to remember


def secret_like(content: str) -> bool:
    """True when memstore's credential guard would refuse ``content``."""
    return secret_kind(content) is not None


def memory_contents(manifest: Sequence[dict[str, Any]], count: int) -> list[str]:
    """``count`` utterances of the manifest with distinct normalised contents, in a fixed
    pseudo-random order (by the SHA-256 of file and byte offset) so they span the corpus.

    Utterances memstore would refuse (over 4,000 characters, or credential-like) are skipped.
    """

    def place(record: dict[str, Any]) -> bytes:
        return hashlib.sha256(f"{record['file']}#{record['byte']}".encode()).digest()

    seen: set[str] = set()
    chosen: list[str] = []
    for record in sorted(manifest, key=place):
        content = record["content"].strip()
        normalized = normalize_content(content)
        if not content or len(content) > MAX_CONTENT_CHARS or normalized in seen:
            continue
        if secret_like(content):
            continue
        seen.add(normalized)
        chosen.append(content)
        if len(chosen) == count:
            return chosen
    sys.exit(f"bench: the manifest has fewer than {count} distinct usable utterances")
