"""Alembic migrations: one head, upgrade from empty, the stairway, no autogenerate drift,
the exact FTS objects, and the runtime's refusal of newer or gapped schemas."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from contextlib import closing
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from alembic import command
from memstore import MemoryService, SchemaError, StoreError
from memstore.store.database import Database
from memstore.store.engine import make_engine
from memstore.store.migrations import alembic_config, autogenerate_filter, script_location
from memstore.store.models import Base
from tests.conftest import REPO

EXPECTED_TRIGGERS = {
    "messages_fts_ai",
    "messages_fts_ad",
    "messages_fts_au",
    "messages_stem_fts_ai",
    "messages_stem_fts_ad",
    "messages_stem_fts_au",
    "memories_fts_ai",
    "memories_fts_ad",
    "memories_fts_au",
    "memories_stem_fts_ai",
    "memories_stem_fts_ad",
    "memories_stem_fts_au",
}
EXPECTED_VIEWS = {
    "messages_searchable",
    "memories_searchable",
    "messages_search",
    "memories_search",
}
EXPECTED_INDEXES = {
    "ix_messages_created_at",
    "ix_messages_speaker",
    "ix_messages_place",
    "ux_memories_active_normalized",
    "ux_memories_active_key",
    "ix_memory_sources_memory_id",
    "ix_memory_sources_message_id",
}


def names(path: Path, kind: str) -> set[str]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))
        return {name for (name,) in rows}


def upgrade(path: Path, revision: str) -> None:
    """Run `alembic upgrade` to ``revision`` the way a maintainer does, on any path."""
    config = alembic_config()
    config.cmd_opts = None
    engine = make_engine(path).execution_options(memstore_begin="IMMEDIATE")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
    engine.dispose()


def downgrade(path: Path, revision: str) -> None:
    """Run `alembic downgrade` to ``revision``, as :func:`upgrade` does."""
    config = alembic_config()
    engine = make_engine(path).execution_options(memstore_begin="IMMEDIATE")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
    engine.dispose()


def test_single_head_and_contiguous_readable_revision_ids() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert script.get_heads() == ["0007"]
    revisions = [rev.revision for rev in script.walk_revisions()]
    assert sorted(revisions) == ["0001", "0002", "0003", "0004", "0005", "0006", "0007"]


def test_upgrade_from_empty_creates_tables_fts_objects_and_records_versions(
    service: MemoryService, db_path: Path
) -> None:
    report = service.health()
    assert report.ok and report.schema_version == 7
    assert {"sessions", "messages", "memories", "memory_sources", "imports"} <= names(
        db_path, "table"
    )
    assert {"messages_fts", "memories_fts", "deleted_sources", "schema_migrations"} <= names(
        db_path, "table"
    )
    assert names(db_path, "trigger") == EXPECTED_TRIGGERS
    assert names(db_path, "index") >= EXPECTED_INDEXES
    assert names(db_path, "view") == EXPECTED_VIEWS
    with sqlite3.connect(db_path) as connection:
        versions = connection.execute(
            "SELECT version, applied_at FROM schema_migrations"
        ).fetchall()
    assert [version for version, _ in versions] == [1, 2, 3, 4, 5, 6, 7]
    assert all(applied.endswith("+00:00") for _, applied in versions)


def test_stairway_keeps_rows_written_between_revisions(db_path: Path) -> None:
    # Data written under revision 0001 must become searchable when 0002 builds the index.
    upgrade(db_path, "0001")
    with sqlite3.connect(db_path) as connection:
        connection.execute(
            "INSERT INTO sessions (id, started_at, metadata) VALUES ('s', "
            "'2026-10-05T09:00:00.000000+00:00', '{}')"
        )
        connection.execute(
            "INSERT INTO messages (id, session_id, sequence, role, content, created_at, status) "
            "VALUES ('m', 's', 1, 'user', 'lavanda azul', '2026-10-05T09:00:00.000000+00:00', "
            "'completed')"
        )
    upgrade(db_path, "0002")
    result = MemoryService(db_path).recall("lavanda")
    assert [c.matched_id for c in result.conversations] == ["m"]


def test_a_downgrade_past_0003_keeps_superseded_memories_and_their_sources(db_path: Path) -> None:
    # 0003's downgrade once copied memories and messages to drop their columns: dropping the
    # old tables failed on a memory's superseded_by, and would have deleted memory_sources
    # (ON DELETE CASCADE) and nulled their message ids (found by review).
    service = MemoryService(db_path)
    session = service.start_session()
    said = service.record_message(session.id, "user", "Prefiero español")
    service.remember("Prefiero español", key="lang", source_message_id=said.id)
    service.remember("Prefer English", key="lang")
    service.close()
    memories = "SELECT id, content, status, superseded_by FROM memories ORDER BY id"
    sources = "SELECT memory_id, message_id FROM memory_sources"
    before = rows(db_path, memories), rows(db_path, sources)
    assert [status for _, _, status, _ in before[0]].count("superseded") == 1
    assert before[1] and all(message_id == said.id for _, message_id in before[1])
    downgrade(db_path, "0002")
    assert (rows(db_path, memories), rows(db_path, sources)) == before
    upgrade(db_path, "head")
    assert (rows(db_path, memories), rows(db_path, sources)) == before
    assert rows(db_path, "PRAGMA foreign_key_check") == []
    assert MemoryService(db_path).health().ok


SESSIONS_0004 = (
    "INSERT INTO sessions (pk, id, started_at, ended_at, metadata) VALUES "
    "(7, 'ses_b', '2026-10-05T09:00:00.000000+00:00', NULL, '{\"client\": \"desktop\"}'), "
    "(3, 'log_a', '2026-10-04T09:00:00.000000+00:00', '2026-10-04T10:00:00.000000+00:00', '{}')"
)
MESSAGES_0004 = (
    "INSERT INTO messages (id, session_id, sequence, role, content, created_at, status) VALUES "
    "('m1', 'ses_b', 1, 'user', 'lavanda azul', '2026-10-05T09:00:00.000000+00:00', 'completed'), "
    "('m2', 'log_a', 1, 'user', 'agapantos', '2026-10-04T09:00:00.000000+00:00', 'completed')"
)
IMPORT_0004 = (
    "INSERT INTO imports VALUES ('/logs/2026-10-04.md', 'log_a', 10, 'ab', "
    "'2026-10-04T10:00:00.000000+00:00')"
)


def rows(path: Path, query: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute(query).fetchall()


def test_0005_keys_sessions_by_id_keeping_every_row_and_what_points_at_it(db_path: Path) -> None:
    # Rows written under 0004: the rebuild of sessions keeps them, each old pk as its rowid,
    # and the messages and imports that point at them; the downgrade puts the pk back.
    upgrade(db_path, "0004")
    with closing(sqlite3.connect(db_path)) as connection, connection:
        for statement in (SESSIONS_0004, MESSAGES_0004, IMPORT_0004):
            connection.execute(statement)
    before = rows(db_path, "SELECT pk, id, started_at, ended_at, metadata FROM sessions")
    children = rows(db_path, "SELECT * FROM messages"), rows(db_path, "SELECT * FROM imports")
    upgrade(db_path, "0005")
    keys = rows(db_path, "SELECT name, pk FROM pragma_table_info('sessions') WHERE pk > 0")
    assert keys == [("id", 1)]
    assert rows(db_path, "SELECT rowid, * FROM sessions ORDER BY rowid") == sorted(before)
    assert (rows(db_path, "SELECT * FROM messages"), rows(db_path, "SELECT * FROM imports")) == (
        children
    )
    assert rows(db_path, "PRAGMA foreign_key_check") == []
    assert MemoryService(db_path).get_session("ses_b").metadata == {"client": "desktop"}
    downgrade(db_path, "0004")
    assert rows(db_path, "SELECT pk, id, started_at, ended_at, metadata FROM sessions") == (
        sorted(before)
    )
    assert "messages_search" not in names(db_path, "view")
    assert rows(db_path, "PRAGMA foreign_key_check") == []


def test_0005_upgrades_a_file_with_an_orphan_message_and_check_still_names_it(
    db_path: Path,
) -> None:
    # The rebuild defers foreign keys to the commit, which fails only on rows the rebuild
    # orphaned; a message already pointing nowhere (written with foreign keys off, as other
    # programs do) does not stop the upgrade, and check reports it as before.
    upgrade(db_path, "0004")
    with closing(sqlite3.connect(db_path)) as connection, connection:
        connection.execute(SESSIONS_0004)
        connection.execute(MESSAGES_0004.replace("'log_a'", "'ses_gone'"))
    upgrade(db_path, "0005")
    assert rows(db_path, "SELECT version_num FROM alembic_version") == [("0005",)]
    assert rows(db_path, "SELECT count(*) FROM sessions") == [(2,)]
    report = MemoryService(db_path).health()
    assert not report.ok and [e["rowid"] for e in report.foreign_key_errors] == [2]


def test_downgrade_and_upgrade_again(db_path: Path) -> None:
    upgrade(db_path, "head")
    downgrade(db_path, "0001")
    assert not names(db_path, "trigger") and not names(db_path, "view")
    upgrade(db_path, "head")
    assert names(db_path, "trigger") == EXPECTED_TRIGGERS
    assert MemoryService(db_path).health().ok


def drift(db_path: Path) -> list[object]:
    """What Alembic's autogenerate finds different between the database and the models."""
    engine = make_engine(db_path)
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"include_name": autogenerate_filter, "render_as_batch": True}
        )
        found = list(compare_metadata(context, Base.metadata))
    engine.dispose()
    return found


def test_autogenerate_finds_no_difference(service: MemoryService, db_path: Path) -> None:
    service.health()
    assert drift(db_path) == []


def test_database_from_the_future_is_refused_with_nothing_written(db_path: Path) -> None:
    MemoryService(db_path).health()
    with sqlite3.connect(db_path) as connection:
        connection.execute("INSERT INTO schema_migrations VALUES (8, '2030-01-01T00:00:00+00:00')")
    before = db_path.read_bytes()
    with pytest.raises(SchemaError) as caught:
        MemoryService(db_path).recall("anything")
    assert caught.value.database_version == 8 and caught.value.code_version == 7
    assert "8" in str(caught.value) and "7" in str(caught.value)
    assert db_path.read_bytes() == before


def test_non_contiguous_versions_are_refused(db_path: Path) -> None:
    MemoryService(db_path).health()
    with sqlite3.connect(db_path) as connection:
        connection.execute("DELETE FROM schema_migrations WHERE version = 1")
    with pytest.raises(SchemaError, match="not contiguous"):
        MemoryService(db_path).health()


def test_version_records_older_than_the_tables_are_a_schema_error(db_path: Path) -> None:
    # Found by review: the upgrade's "index ... already exists" was a StoreError telling
    # the user to run `memstore check`, which failed the same way.
    MemoryService(db_path).health()
    with closing(sqlite3.connect(db_path)) as connection, connection:
        connection.execute("UPDATE alembic_version SET version_num = '0005'")
        connection.execute("DELETE FROM schema_migrations WHERE version > 5")
    with closing(sqlite3.connect(db_path)) as connection:  # the file holds what was written:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # a later close checkpoints it
    before = db_path.read_bytes()
    with pytest.raises(SchemaError, match="from schema version 5 to 7 failed") as caught:
        MemoryService(db_path).health()
    assert "already exists" in str(caught.value) and "memstore check" not in str(caught.value)
    assert (caught.value.database_version, caught.value.code_version) == (5, 7)
    assert db_path.read_bytes() == before


def test_failing_revision_leaves_the_file_as_it_was(tmp_path: Path, db_path: Path) -> None:
    # Every pending revision runs in one transaction: a failure in the last one undoes all.
    scripts = tmp_path / "scripts"
    shutil.copytree(script_location(), scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "0008_broken.py").write_text(
        '"""Broken on purpose."""\n'
        "from alembic import op\n\n"
        'revision = "0008"\ndown_revision = "0007"\nbranch_labels = None\ndepends_on = None\n\n\n'
        "def upgrade() -> None:\n"
        '    op.execute("CREATE TABLE half_done (x INTEGER)")\n'
        '    op.execute("THIS IS NOT SQL")\n\n\n'
        "def downgrade() -> None:\n    pass\n"
    )
    with pytest.raises(StoreError, match="syntax error"):
        MemoryService(db_path, migrations=str(scripts)).health()
    with sqlite3.connect(db_path) as connection:
        tables = connection.execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == []


def test_runtime_upgrades_a_version_1_database_lazily(db_path: Path) -> None:
    upgrade(db_path, "0001")
    service = MemoryService(db_path)
    assert "messages_fts" not in names(db_path, "table")  # nothing happens until first use
    assert service.health().schema_version == 7


def test_runtime_upgrades_a_database_downgraded_to_base(db_path: Path) -> None:
    # Found by review: `alembic downgrade base` leaves an empty alembic_version table, which
    # memstore refused ("does not name exactly one revision") instead of migrating.
    upgrade(db_path, "head")
    downgrade(db_path, "base")
    assert names(db_path, "table") == {"alembic_version"}
    service = MemoryService(db_path)
    service.remember("Diego likes green tea.")
    assert service.health().ok and service.health().schema_version == 7


def alembic_upgrade(target: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``alembic -x db=TARGET upgrade head`` as a maintainer runs it, with the umask 022."""
    alembic = Path(sys.executable).with_name("alembic")
    return subprocess.run(
        [str(alembic), "-c", str(REPO / "alembic.ini"), "-x", f"db={target}", "upgrade", "head"],
        capture_output=True,
        text=True,
        cwd=cwd,
        preexec_fn=lambda: os.umask(0o022),
    )


def test_alembic_command_line_upgrades_any_database_path(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "maintained.sqlite3"
    target.parent.mkdir()
    completed = alembic_upgrade(target, tmp_path)
    assert completed.returncode == 0, completed.stderr
    with sqlite3.connect(target) as connection:
        assert connection.execute("SELECT max(version) FROM schema_migrations").fetchone() == (7,)
    # found by review: created readable by everyone, though memstore creates its files 0600
    assert target.stat().st_mode & 0o777 == 0o600


def test_alembic_takes_the_file_a_configs_sqlalchemy_url_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: the URL was ignored, and the configured database was migrated instead.
    monkeypatch.setenv("MEMSTORE_HOME", str(tmp_path / "home"))
    target = tmp_path / "by-url.sqlite3"
    config = Config(str(REPO / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", f"sqlite:///{target}")
    command.upgrade(config, "head")
    with closing(sqlite3.connect(target)) as connection:
        assert connection.execute("SELECT max(version) FROM schema_migrations").fetchone() == (7,)
    assert not (tmp_path / "home").exists()
    # found by the next review: options after "?" were dropped, and text that is no URL
    # was SQLAlchemy's traceback
    for url in ("postgresql://u@h/memory", "sqlite://", f"sqlite:///{target}?mode=ro", "/x.db"):
        config.set_main_option("sqlalchemy.url", url)
        with pytest.raises(SystemExit, match="names no SQLite file alone"):
            command.upgrade(config, "head")


def test_alembic_command_line_expands_a_tilde_no_shell_expanded(tmp_path: Path) -> None:
    # Found by review: zsh leaves "-x db=~/x" alone, and a folder named "~" appeared.
    home = tmp_path / "home"
    home.mkdir()
    alembic = Path(sys.executable).with_name("alembic")
    completed = subprocess.run(
        [
            str(alembic),
            "-c",
            str(REPO / "alembic.ini"),
            "-x",
            "db=~/kept.sqlite3",
            "upgrade",
            "head",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "HOME": str(home)},
    )
    assert completed.returncode == 0, completed.stderr
    assert (home / "kept.sqlite3").exists() and not (tmp_path / "~").exists()
    nobody = subprocess.run(
        [alembic, "-c", str(REPO / "alembic.ini"), "-x", "db=~nosuchuser/x", "upgrade", "head"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert nobody.returncode == 1 and "Traceback" not in nobody.stderr
    assert "FileError" in nobody.stderr and "home folder that cannot be found" in nobody.stderr


def test_alembic_command_line_leaves_another_applications_file_alone(tmp_path: Path) -> None:
    # Found by review: it added memstore's tables to it, and check then called it ok.
    target = tmp_path / "shop.sqlite3"
    with closing(sqlite3.connect(target)) as connection, connection:
        connection.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    before = target.read_bytes()
    completed = alembic_upgrade(target, tmp_path)
    assert completed.returncode == 1
    assert "FileError" in completed.stderr and "not a memstore database" in completed.stderr
    assert "Traceback" not in completed.stderr
    assert target.read_bytes() == before


def test_two_services_on_one_new_file_migrate_once(db_path: Path) -> None:
    first, second = Database(db_path), Database(db_path)
    first.ensure_schema()
    second.ensure_schema()
    with first.read() as connection:
        assert connection.execute("SELECT count(*) FROM schema_migrations").fetchone() == (7,)


def test_a_wheel_install_finds_its_migrations(tmp_path: Path) -> None:
    # The top-level alembic/ folder ships inside the wheel as memstore._alembic.
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("memstore-*.whl")
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    assert (unpacked / "memstore" / "_alembic" / "versions" / "0003_speakers_cjk.py").is_file()
    probe = (
        "import memstore, memstore.store.migrations as db;"
        "from memstore import MemoryService;"
        "print(memstore.__file__); print(db.script_location());"
        f"print(MemoryService({str(tmp_path / 'w.sqlite3')!r}).health().schema_version)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(unpacked)},
        capture_output=True,
        text=True,
        check=True,
    )
    module_file, location, version = completed.stdout.split()
    assert module_file.startswith(str(unpacked)) and location.startswith(str(unpacked))
    assert version == "7"
