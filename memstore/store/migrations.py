"""The glue to Alembic: where memstore's revisions are, which versions they stand for, and
running the pending ones on a connection inside the caller's transaction.

Alembic is imported only here.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import Any

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from alembic import command
from memstore.store.fts_names import FTS_TABLES, SEARCHABLE_VIEW_SUFFIX


def script_location() -> str:
    """The folder holding env.py and versions/: the repository's alembic/, shipped in the
    package as ``memstore._alembic`` so that wheel installs find it too."""
    spec = find_spec("memstore._alembic")
    if spec is not None and spec.submodule_search_locations:
        return str(next(iter(spec.submodule_search_locations)))
    return str(Path(__file__).resolve().parents[2] / "alembic")


def alembic_config(location: str | None = None) -> Config:
    """An Alembic configuration pointing at memstore's migrations (or ``location``)."""
    config = Config()
    config.set_main_option("script_location", location or script_location())
    return config


def revisions(location: str | None = None) -> dict[str, int]:
    """Every revision id shipped in ``location`` (memstore's by default), with the schema
    version it stands for (revision ``0002`` is version 2)."""
    script = ScriptDirectory.from_config(alembic_config(location))
    return {rev.revision: int(rev.revision) for rev in script.walk_revisions()}


def code_version(location: str | None = None) -> int:
    """The schema version of the newest revision shipped in ``location``."""
    return max(revisions(location).values(), default=0)


def upgrade(connection: Connection, location: str | None = None) -> None:
    """Apply every pending revision on ``connection``, in the caller's transaction."""
    config = alembic_config(location)
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def autogenerate_filter(name: str | None, type_: str, parent_names: Any) -> bool:
    """Alembic ``include_name``: keep the FTS5 tables, their shadow tables and their content
    views (raw DDL of revision 0002, not ORM models) out of autogenerate comparisons."""
    if type_ == "table" and name is not None:
        return not name.startswith(FTS_TABLES) and not name.endswith(SEARCHABLE_VIEW_SUFFIX)
    return True
