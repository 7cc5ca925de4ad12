"""The exception tree of memstore.

Every error memstore raises on purpose derives from :class:`MemstoreError`, so a host can catch
one type. Each message says what went wrong and ends with what to do next::

    MemstoreError
     ├── NotFound           a session, message or memory id that does not exist
     ├── InvalidInput       an argument outside what is allowed (which one, why, what is allowed)
     │    ├── InvalidQuery  a search query that is empty, too long or has too many tokens
     │    └── ImportConflict an imported record that disagrees with the database (same id,
     │                      other content; an active key or content another memory holds)
     ├── SecretRejected     a memory that looks like it holds a credential
     ├── MemoryDisabled     a memory write while the configuration says ``enabled: false``
     ├── FileError          a path that memstore must not open as asked: not a regular file
     │                      (a FIFO, a device, a folder), or another application's database
     ├── ImportRejected     a daily log that cannot be imported as it is (path, byte, reason)
     ├── SchemaError        a schema this code cannot use: newer, gapped, or an alembic_version
     │                      that disagrees with schema_migrations
     ├── Fts5Unavailable    the Python SQLite build has no FTS5
     ├── StoreBusy          the write lock was not free within the 500 ms wait (retryable)
     ├── StoreError         any other SQLite failure, with SQLite's own message
     │    ├── StoreDamaged  the file is not a SQLite database, or SQLite found it damaged
     │    └── StoreReadOnly a write to a database that this process cannot write
     └── DestinationExists  a destination that already exists (nothing is written over)
          ├── BackupExists  a backup's
          └── ExportExists  an export's
"""

from __future__ import annotations


class MemstoreError(Exception):
    """Base class of every error memstore raises on purpose.

    Attributes:
        retryable: True when the same call may succeed later unchanged (a busy lock).
    """

    retryable = False


class NotFound(MemstoreError):
    """A session, message or memory id that does not exist.

    Attributes:
        kind: What was looked up ("session", "message", "memory").
        item_id: The id that was not found.
    """

    def __init__(self, kind: str, item_id: str) -> None:
        super().__init__(f"No {kind} with id {item_id!r}; list or search to find a valid id.")
        self.kind = kind
        self.item_id = item_id


class InvalidInput(MemstoreError):
    """An argument outside what is allowed.

    Attributes:
        argument: The name of the offending argument.
        reason: Why it is refused and what is allowed.
    """

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.reason = message

    def named(self, name: str) -> InvalidInput:
        """The same error with its argument called ``name``: the command line's ``--expires``
        for the API's ``expires_at``."""
        renamed = type(self).__new__(type(self))  # its own __init__ may take other arguments
        renamed.__dict__.update(self.__dict__, argument=name)
        renamed.args = (f"{name}: {self.reason}",)
        return renamed


class InvalidQuery(InvalidInput):
    """A search query that is empty, longer than 512 characters or has over 32 distinct tokens."""


class SecretRejected(MemstoreError):
    """A memory write whose content (or key) looks like it holds a credential; nothing was
    stored. The message and attributes never hold the text itself.

    Attributes:
        argument: ``content`` or ``key``.
        kind: What the guard found ("GitHub Token", "labelled credential", ...).
        length: The text's length in characters.
    """

    def __init__(self, argument: str, kind: str, length: int) -> None:
        super().__init__(
            f"{argument} looks like it holds a credential ({kind}, {length} characters); "
            "nothing was stored. Keep secrets in a password manager, not in memories."
        )
        self.argument = argument
        self.kind = kind
        self.length = length


class MemoryDisabled(MemstoreError):
    """A memory write refused because the configuration says ``enabled: false``, or a memory
    tool refused because the tools are off (``message`` says which)."""

    def __init__(
        self,
        message: str = (
            "Memory is disabled (enabled: false in the configuration), so nothing was "
            "written; set enabled to true to save memories. Reading, import, deletion, check "
            "and backup still work."
        ),
    ) -> None:
        super().__init__(message)


class FileError(MemstoreError):
    """A path memstore refuses to open as asked; the file was left untouched.

    Attributes:
        path: The path, as given or resolved.
        reason: Why, and what to do instead.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ImportRejected(MemstoreError):
    """A daily log that cannot be imported as it is; nothing of it was written, and the
    other files of the import go on.

    Attributes:
        reason: What is wrong and what to do, e.g. "is a symbolic link; import the file it
            points to instead".
        path: The log file, once known (parsing works on bytes alone).
        byte: The byte offset of the problem in the file, when there is one place.
    """

    def __init__(self, reason: str, *, path: str | None = None, byte: int | None = None) -> None:
        where = "" if byte is None else f" (byte {byte})"
        super().__init__(f"{path}: {reason}{where}" if path else f"{reason}{where}")
        self.reason = reason
        self.path = path
        self.byte = byte

    def at(self, path: str) -> ImportRejected:
        """The same rejection, naming the file."""
        return ImportRejected(self.reason, path=path, byte=self.byte)


class SchemaError(MemstoreError):
    """The database schema cannot be used by this code; nothing was written.

    Attributes:
        database_version: The highest version recorded in ``schema_migrations``.
        code_version: The highest version this code knows.
        alembic_revision: What ``alembic_version`` holds (None when it is missing or empty).
    """

    def __init__(
        self,
        message: str,
        *,
        database_version: int,
        code_version: int,
        alembic_revision: str | None = None,
    ) -> None:
        super().__init__(message)
        self.database_version = database_version
        self.code_version = code_version
        self.alembic_revision = alembic_revision


class Fts5Unavailable(MemstoreError):
    """The SQLite library Python uses was built without FTS5, or is older than 3.35."""


class StoreBusy(MemstoreError):
    """Another process held the database lock for longer than the 500 ms wait, the other
    writers of this process kept their turn for 30 s, every one of the process's 20
    connections to the file stayed in use for 30 s, or the owner of a store this user may
    only read changed it while it was read (:mod:`memstore.store.readers`); retrying later
    is safe (nothing was written)."""

    retryable = True


class StoreError(MemstoreError):
    """SQLite reported an error that is not one of the cases above."""


class StoreDamaged(StoreError):
    """The database file is not a SQLite database, or SQLite found it damaged (malformed)."""


class StoreReadOnly(StoreError):
    """A write to a database this process cannot write (the file, its folder or the file
    system is read-only); nothing was written. Reading still works.

    Attributes:
        path: The database file.
    """

    CHANGE = "Copy it to a folder you can write to, or fix its permissions, to change it."
    """What to do, unless told otherwise."""

    def __init__(self, path: str, reason: str, advice: str = CHANGE) -> None:
        super().__init__(
            f"The database {path} is read-only ({reason}), so nothing was written. {advice}"
        )
        self.path = path


class DestinationExists(MemstoreError):
    """A destination that already exists; nothing was overwritten.

    Attributes:
        destination: The path that exists.
    """

    NAMED = "destination:"
    """How the message names the destination."""
    THERE = "one"
    """What the message calls the thing already there."""

    def __init__(self, destination: str) -> None:
        super().__init__(
            f"{self.NAMED} {destination!r} already exists; choose a new path or move the "
            f"existing {self.THERE} away first."
        )
        self.destination = destination


class BackupExists(DestinationExists):
    """The backup destination already exists; nothing was overwritten.

    Attributes:
        destination: The path that exists.
    """

    NAMED, THERE = "Backup destination", "file"


class ImportConflict(InvalidInput):
    """A record of an export that disagrees with the database it is imported into (an id
    held by other content, an active key or content another memory holds); the whole
    import was rolled back.

    Attributes:
        where: The file (and line) of the record.
        record_id: The id of the record.
    """

    def __init__(self, where: str, record_id: str, reason: str) -> None:
        super().__init__(
            "path",
            f"{where}: {record_id} {reason}; nothing was imported. Remove or edit that record, "
            "or import into another database.",
        )
        self.where = where
        self.record_id = record_id


class ExportExists(DestinationExists):
    """The export destination already exists; nothing was overwritten.

    Attributes:
        destination: The path that exists.
    """


ECHOED_CHARS = 60
"""The characters of a refused text its error repeats: a word or a zone name may be as long
as a message, and the error goes to a model's context (found by review: 4,000,000
characters did)."""


def quoted(text: str) -> str:
    """``text`` quoted for an error message, cut to :data:`ECHOED_CHARS` characters."""
    if len(text) <= ECHOED_CHARS:
        return repr(text)
    return f"{text[:ECHOED_CHARS]!r}… ({len(text)} characters)"
