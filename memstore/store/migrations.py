"""The glue to Alembic: where memstore's revisions are, which versions they stand for, and
running the pending ones on a connection inside the caller's transaction.

Alembic is imported only here, and only to upgrade: which revisions ship is read from the
revision files' text (``revision = "0004"``), so that opening an up-to-date database never
imports Alembic (a third of a second).
"""

from __future__ import annotations

import logging
import re
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memstore.errors import StoreError
from memstore.store.fts_names import FTS_TABLES, SEARCHABLE_VIEW_SUFFIX

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import Connection

log = logging.getLogger(__name__)

REVISION = re.compile(r"^revision(?:: *str)? *= *[\"']([^\"']+)[\"']", re.MULTILINE)
"""A revision file's ``revision = "0004"`` line, as Alembic's templates write it."""


SCHEMA_CLASH = re.compile(r"already exists|no such (table|index|column|trigger|view)")
"""What SQLite says of a revision's statement that the file's tables contradict."""


def script_location() -> str:
    """The folder holding env.py and versions/: the repository's alembic/, shipped in the
    package as ``memstore._alembic`` so that wheel installs find it too."""
    spec = find_spec("memstore._alembic")
    if spec is not None and spec.submodule_search_locations:
        return str(next(iter(spec.submodule_search_locations)))
    return str(Path(__file__).resolve().parents[2] / "alembic")


def alembic_config(location: str | None = None) -> Config:
    """An Alembic configuration pointing at memstore's migrations (or ``location``)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", location or script_location())
    return config


def revisions(location: str | None = None) -> dict[str, int]:
    """Every revision id shipped in ``location`` (memstore's by default), with the schema
    version it stands for (revision ``0002`` is version 2), read from the revision files of
    its ``versions`` folder without importing them."""
    versions = Path(location or script_location()) / "versions"
    texts = (path.read_text(encoding="utf-8") for path in sorted(versions.glob("*.py")))
    found = (REVISION.search(text) for text in texts)
    return {match[1]: int(match[1]) for match in found if match}


def code_version(location: str | None = None) -> int:
    """The schema version of the newest revision shipped in ``location``."""
    return max(revisions(location).values(), default=0)


def import_alembic() -> None:
    """Import what :func:`upgrade` runs, Alembic's commands and its migration context,
    before the write lock is taken: with it held, their import took a third of a second in
    which another process's first write could not get in (found by review)."""
    import alembic.command
    import alembic.runtime.migration  # noqa: F401


def upgrade(connection: Connection, location: str | None = None) -> None:
    """Apply every pending revision on ``connection``, in the caller's transaction."""
    from alembic import command

    config = alembic_config(location)
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def autogenerate_filter(name: str | None, type_: str, parent_names: Any) -> bool:
    """Alembic ``include_name``: keep the FTS5 tables, their shadow tables and their content
    views (raw DDL of revision 0002, not ORM models) out of autogenerate comparisons."""
    if type_ == "table" and name is not None:
        return not name.startswith(FTS_TABLES) and not name.endswith(SEARCHABLE_VIEW_SUFFIX)
    return True


def upgrade_file(path: Path, scripts: str | None, known: dict[str, int], code: int) -> None:
    """Apply the pending revisions of the database at ``path`` in one IMMEDIATE transaction,
    checking its schema again once the write lock is held (another process may have
    upgraded it, or written another application's tables, meanwhile). Alembic runs on
    SQLAlchemy, imported here.

    Args:
        scripts: Another Alembic script folder (tests use it); memstore's by default.
        known: Every revision id this code ships -> its schema version.
        code: The newest schema version this code ships.

    Raises:
        SchemaError: If SQLite refuses a statement of a revision (nothing is changed).
    """
    from memstore.store import probe, schema_records
    from memstore.store.engine import make_engine, raw_sqlite
    from memstore.store.sqlite_errors import translate_errors

    import_alembic()
    engine = make_engine(path).execution_options(memstore_begin="IMMEDIATE")
    try:
        with engine.begin() as connection:
            schema = schema_records.schema_of(raw_sqlite(connection))
            if probe.pending(schema, path, known, code):
                log.info("upgrading %s to schema version %d", path, code)
                found = max(schema.recorded or (0,))
                try:
                    with translate_errors(path):
                        upgrade(connection, scripts)
                except StoreError as error:
                    # a table or index there already, or not there (a file whose version
                    # records say older than its tables: found by review, its StoreError
                    # said to run `check`, which failed the same way); anything else (busy,
                    # read-only, damaged, a full disk) stays as it is
                    if type(error) is not StoreError or not SCHEMA_CLASH.search(str(error)):
                        raise
                    raise probe.upgrade_refused(path, found, code, error) from error
    finally:
        engine.dispose()
