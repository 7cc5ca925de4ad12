"""Alembic environment for memstore.

Two callers: the runtime, which passes its own open connection (already inside the one
transaction that applies every pending revision) in ``config.attributes["connection"]``;
and maintainers running ``alembic [-x db=PATH] upgrade head``, for whom this opens the
database with memstore's own connection settings (the configured database by default).
Every applied or reverted version is mirrored in ``schema_migrations`` with its time.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, text

from alembic import context
from memstore import files, paths
from memstore.errors import MemstoreError
from memstore.store import examine
from memstore.store.engine import make_engine
from memstore.store.migrations import autogenerate_filter
from memstore.store.models import Base
from memstore.store.sqlite_errors import translate_errors
from memstore.times import format_utc


def record_version(ctx: Any, step: Any, heads: Any, run_args: Any) -> None:
    """Mirror each applied (or reverted) revision in schema_migrations."""
    if not str(step.up_revision_id).isdigit():  # found by review: a bare int() ValueError
        raise SystemExit(
            f"revision {step.up_revision_id!r} is not numbered: memstore's revisions are "
            "0001, 0002, ...; make one with `alembic revision --rev-id 0008 -m WHAT`."
        )
    version = int(step.up_revision_id)
    if step.is_upgrade:
        ctx.connection.execute(
            text("INSERT INTO schema_migrations (version, applied_at) VALUES (:v, :t)"),
            {"v": version, "t": format_utc(datetime.now(UTC))},
        )
    elif version > 1:
        ctx.connection.execute(
            text("DELETE FROM schema_migrations WHERE version = :v"), {"v": version}
        )


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        include_name=autogenerate_filter,
        render_as_batch=True,
        transactional_ddl=True,
        on_version_apply=record_version,
    )
    with context.begin_transaction():
        context.run_migrations()


def database_path() -> str:
    """The -x db=PATH argument, else the file of a ``sqlite:///PATH`` ``sqlalchemy.url``
    (set in alembic.ini or by a caller's ``Config``: found by review, it was ignored, and
    the configured database migrated instead), else memstore's configured database."""
    path = context.get_x_argument(as_dictionary=True).get("db")
    if path:
        return str(path)
    url = context.config.get_main_option("sqlalchemy.url")
    if url:
        return url_path(url)
    from memstore.config import MemoryConfig

    return str(MemoryConfig().database_path())


def url_path(url: str) -> str:
    """The file a SQLAlchemy URL names; SystemExit for text that is no URL, another
    database, none, or options after ``?`` (memstore opens the file its own way, so
    ``mode=ro`` or ``uri=true`` would be dropped: found by review)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        named = make_url(url)
    except ArgumentError:
        named = None
    if (
        named is None
        or named.get_backend_name() != "sqlite"
        or named.query
        or (named.database in (None, "", ":memory:"))
    ):
        shown = url if named is None else named.render_as_string(hide_password=True)
        raise SystemExit(
            f"sqlalchemy.url {shown!r} names no SQLite file alone: memstore migrates one, "
            "given as sqlite:///PATH (no options after '?') or -x db=PATH."
        )
    return str(named.database)


if context.is_offline_mode():
    raise SystemExit("memstore migrations run online only: drop --sql.")


def migrate_file(given: str) -> None:
    """Run the command on the file at ``path`` as memstore opens one: created private when
    missing, another application's database refused, a lock or damage a one-line error (found
    by review: the command migrated another application's file, created a world-readable
    one, and printed a traceback beside a writer)."""
    try:
        path = paths.expanded(given)  # "~/memory.sqlite3" no shell expanded (zsh's -x db=~/)
        with translate_errors(path):
            if files.regular(path, "the database") is None:
                files.create_store_file(path)
            examine.refuse_foreign(path)
            engine = make_engine(path).execution_options(memstore_begin="IMMEDIATE")
            try:
                with engine.begin() as connection:
                    run_migrations(connection)
            finally:
                engine.dispose()
    except MemstoreError as error:
        raise SystemExit(f"{type(error).__name__}: {error}") from error


given = context.config.attributes.get("connection")
if given is not None:
    run_migrations(given)
else:
    migrate_file(database_path())
