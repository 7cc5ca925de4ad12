"""Configuration: the ``memory`` settings and where memstore keeps its data.

The data directory is platformdirs' user data directory for "memstore", or ``MEMSTORE_HOME``
when that is set. A relative database (or log) path resolves under it, whatever the working
directory. Changing the path selects another database: nothing is moved or merged.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath
from typing import Any, Self, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)
from pydantic_core import InitErrorDetails

from memstore.arguments import MAX_READER_ITEMS, valid_unicode
from memstore.errors import FileError, InvalidInput
from memstore.lazy_modules import LazyModule

platformdirs = LazyModule("platformdirs")  # 6 ms of a start that names its files absolutely

HOME_VARIABLE = "MEMSTORE_HOME"
FOLDER_ONLY = re.compile(r"~[^/\\]*")  # a home folder ("~", "~diego"): found by review


@dataclass(frozen=True)
class PageSize:
    """The most one page of a listing or a read holds: ``items`` items when it asks for no
    ``limit``, at most ``most`` when it does (a larger limit is capped), and ``chars``
    characters of JSON (None: no character budget). An agent's pages are its configured
    ``max_results`` within ``recall_chars`` (:meth:`MemoryConfig.page_size`); a person's at
    the command line :meth:`MemoryConfig.reader_page_size`."""

    items: int
    most: int
    chars: int | None


def data_dir() -> Path:
    """The directory memstore keeps its data in: ``$MEMSTORE_HOME`` (``~`` expanded, as no
    shell does in an MCP client's ``env``) or the user data dir (``%LOCALAPPDATA%\\memstore``
    on Windows: no author folder above it).

    Raises:
        FileError: For a relative ``$MEMSTORE_HOME``: the store would depend on the working
            directory (found by review: another folder found no database); or one starting
            with the home folder (``~user``) of a user that does not exist.
    """
    override = os.environ.get(HOME_VARIABLE)
    if not override:
        return Path(platformdirs.user_data_dir("memstore", appauthor=False))
    try:
        home = Path(override).expanduser()
    except RuntimeError as error:  # ~user of no such user
        raise FileError(
            override, f"${HOME_VARIABLE} names a home folder that cannot be found ({error})."
        ) from error
    if not home.is_absolute():
        raise FileError(
            override,
            f"${HOME_VARIABLE} must be an absolute path (or start with ~): a relative one "
            "would name another folder from each working directory.",
        )
    return home


def local_path(value: str, what: str) -> str:
    """``value`` when it is a local path without '..'.

    Raises:
        ValueError: For a UNC path, one holding '..', a NUL character or a lone surrogate
            (no file system takes the first, memstore's output cannot print the second), or
            one starting with the home folder (``~user``) of a user that does not exist
            (found by review: a traceback on first use); ``what`` names it in the message.
    """
    if "\0" in value:
        raise ValueError(f"the {what} holds a NUL character")
    if not valid_unicode(value):
        raise ValueError(f"the {what} is not valid Unicode (it holds a lone surrogate)")
    if value.startswith(("\\\\", "//")) or PureWindowsPath(value).drive.startswith("\\\\"):
        raise ValueError("UNC paths are not allowed; use a path on a local disk")
    if ".." in Path(value).parts or ".." in PureWindowsPath(value).parts:
        raise ValueError(f"'..' is not allowed in the {what}")
    try:
        Path(value).expanduser()
    except RuntimeError as error:
        raise ValueError(f"the {what} names a home folder that cannot be found ({error})") from None
    return value


class MemoryConfig(BaseModel):
    """The ``memory`` section of the configuration (limits are characters, not tokens).

    The switches are JSON booleans and the limits JSON integers: ``"no"`` or ``0`` is no
    switch, and ``true``, ``"8000"`` or ``8000.0`` no limit (a review found
    ``recall_chars: true`` read as 1, and ``enabled: "no"`` as false).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(default=True, strict=True)
    """False disables memory writes, memory tools and injected context; nothing is deleted."""
    store_history: bool = Field(default=True, strict=True)
    """False stops new conversation persistence; explicit memories still work."""
    database: str = "memory/memory.sqlite3"
    """Database file (text or a ``pathlib.Path``): relative paths resolve under the data
    directory; no UNC, no '..'."""
    max_results: int = Field(default=8, ge=1, le=50, strict=True)
    """Most items one recall or word page returns."""
    context_chars: int = Field(default=4000, ge=512, le=32000, strict=True)
    """Budget of the per-turn context block, in characters."""
    recall_chars: int = Field(default=8000, ge=1024, le=64000, strict=True)
    """Budget of one recall or word page, in characters of JSON."""
    log_dir: str | None = None
    """The daily Markdown logs; default ``logs/`` beside the database. Relative paths resolve
    under the data directory; no UNC, no '..'."""

    @field_validator("database", "log_dir", mode="before")
    @classmethod
    def _path_text(cls, value: object) -> object:
        # a pathlib.Path, as its text (found by review: database=tmp_path / "m.sqlite3"
        # was refused, though MemoryService takes one)
        return os.fspath(value) if isinstance(value, os.PathLike) else value

    @field_validator("database")
    @classmethod
    def _local_path(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("database path is empty; give a file name such as memory.sqlite3")
        normal = os.path.normpath(value.strip())  # "~/." is "~" (found by review)
        folder = value.rstrip().endswith(("/", "\\")) or FOLDER_ONLY.fullmatch(normal)
        if PureWindowsPath(value).name in ("", ".") or folder:
            # found by review: "." named the data folder itself, refused only on first use
            raise ValueError(
                "database path names a folder; give a file name such as memory.sqlite3"
            )
        return local_path(value, "database path")

    @field_validator("log_dir")
    @classmethod
    def _local_log_dir(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("log_dir is empty; give a folder such as logs, or leave it out")
        return None if value is None else local_path(value, "log_dir")

    # Refused settings are InvalidSettings, memstore's InvalidInput and pydantic's
    # ValidationError at once, pydantic's own error its cause (see read_section). Raised
    # here, around pydantic: a ValidationError raised inside a validator comes out as
    # pydantic's own.
    def __init__(self, **data: Any) -> None:
        with refused_settings():
            super().__init__(**data)

    @classmethod
    def model_validate(cls, *args: Any, **kwargs: Any) -> Self:
        with refused_settings():
            return super().model_validate(*args, **kwargs)

    @classmethod
    def model_validate_json(cls, *args: Any, **kwargs: Any) -> Self:
        with refused_settings():
            return super().model_validate_json(*args, **kwargs)

    def page_size(self) -> PageSize:
        """The pages of an agent: ``max_results`` items within ``recall_chars``."""
        return PageSize(items=self.max_results, most=self.max_results, chars=self.recall_chars)

    def reader_page_size(self) -> PageSize:
        """The pages of a person at the command line: ``max_results`` items unless a limit
        asks for up to :data:`~memstore.arguments.MAX_READER_ITEMS` (1,000), texts whole
        (the character budget is for a model's context, not a terminal)."""
        return PageSize(items=self.max_results, most=MAX_READER_ITEMS, chars=None)

    def database_path(self) -> Path:
        """The database file as an absolute path (relative ones under :func:`data_dir`)."""
        path = Path(self.database).expanduser()
        return path if path.is_absolute() else data_dir() / path

    def log_path(self) -> Path:
        """The daily Markdown log folder as an absolute path: ``log_dir`` (relative ones under
        :func:`data_dir`), else ``logs`` beside :meth:`database_path`."""
        if self.log_dir is None:
            return self.database_path().parent / "logs"
        path = Path(self.log_dir).expanduser()
        return path if path.is_absolute() else data_dir() / path


class InvalidSettings(InvalidInput, ValidationError):
    """Settings :class:`MemoryConfig` refuses: an :class:`~memstore.errors.InvalidInput`
    naming the first, as every argument of the API is refused (found by review:
    ``MemoryConfig(max_results=0)`` raised an error outside memstore's), and a pydantic
    ``ValidationError`` (a ``ValueError``) with every error in ``errors()``, as a pydantic
    model's caller expects (found by a later review)."""

    def __init__(self, *args: object) -> None:
        """Left to :meth:`of`: pydantic builds the error from its data."""

    @classmethod
    def of(cls, error: ValidationError) -> InvalidSettings:
        """The refusal of what pydantic's ``error`` found."""
        # the same errors, as pydantic builds them (their shape is that of its own data)
        details = cast(list[InitErrorDetails], error.errors())
        refused = cls.from_exception_data(error.title, details)
        (name, reason), *others = settings_problems(error)
        refused.argument = name
        refused.reason = reason + "".join(f"; {other}: {why}" for other, why in others)
        refused.args = (f"{name}: {refused.reason}",)
        return refused

    def named(self, name: str) -> InvalidInput:
        """The same refusal with its argument called ``name``, as a plain InvalidInput
        (pydantic's part cannot be copied the way InvalidInput copies itself)."""
        return InvalidInput(name, self.reason)

    def __reduce__(self) -> tuple[type[InvalidInput], tuple[str, str]]:
        """Copied or pickled as the plain InvalidInput it says (found by review: a copy had
        lost what pydantic built, and failed to print)."""
        return InvalidInput, (self.argument, self.reason)

    def __str__(self) -> str:
        return f"{self.argument}: {self.reason}"


@contextmanager
def refused_settings() -> Iterator[None]:
    """pydantic's ValidationError of :class:`MemoryConfig` as :class:`InvalidSettings`."""
    try:
        yield
    except ValidationError as error:
        if isinstance(error, InvalidSettings):
            raise
        raise InvalidSettings.of(error) from error


def settings_problems(error: BaseException | None) -> list[tuple[str, str]]:
    """pydantic's errors (a ValidationError's) as settings' names and plain sentences, e.g.
    ``("max_results", "Input should be less than or equal to 50 (given 500)")``, without
    its error codes and links."""
    assert isinstance(error, ValidationError)  # the cause of MemoryConfig's InvalidInput
    problems = []
    for problem in error.errors():
        name = ".".join(map(str, problem["loc"])) or "config"
        reason = problem["msg"].removeprefix("Value error, ")
        if problem["type"] == "extra_forbidden":
            reason = "unknown setting; known: " + ", ".join(MemoryConfig.model_fields)
        # An unknown setting's value is not shown: it may be a credential kept in the same
        # file, such as an "api_key" (found by review: the key went to the log in full).
        shown = problem["type"] not in ("missing", "extra_forbidden")
        given = f" (given {problem['input']!r})" if shown else ""
        problems.append((name, f"{reason}{given}"))
    return problems
