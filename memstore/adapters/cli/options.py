"""The options and argument types that several commands share, each written once.

Choices come from :mod:`memstore.kinds`, so the CLI offers exactly what the service accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from memstore import paths, times, zones
from memstore.arguments import MAX_POSITION, MAX_READER_ITEMS
from memstore.errors import InvalidInput
from memstore.kinds import Mode, Scope, SearchRole, values

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def choice(kind: Any) -> click.Choice:  # type: ignore[type-arg]  # generic only in new click
    """The click choice of the Literal type ``kind`` (:mod:`memstore.kinds`)."""
    return click.Choice(values(kind))


class Range(click.IntRange):
    """A click ``IntRange`` whose refusal of text that is no integer names the range too
    (found by review: ``--limit abc`` said only "'abc' is not a valid integer range")."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """``value`` as an integer within the range."""
        try:
            int(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a whole number; give one from {self.min} to {self.max}.")
        return super().convert(value, param, ctx)


def count(minimum: int) -> click.IntRange:
    """Integers from ``minimum`` to SQLite's largest (beyond it an offset cannot be bound)."""
    return Range(min=minimum, max=MAX_POSITION)


def combined(*options: Decorator) -> Decorator:
    """One decorator applying ``options`` so that they are listed in the order given."""

    def apply(command: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


class Parsed(click.ParamType):  # type: ignore[type-arg]  # generic only in new click
    """An option or argument read by one of memstore's own rules (:mod:`memstore.times`);
    the InvalidInput it raises is a usage error."""

    def parse(self, text: str, argument: str) -> Any:
        """The value ``text`` stands for, read with the rule of this type."""
        raise NotImplementedError

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The parsed ``value`` (one already parsed, a default, is kept)."""
        if not isinstance(value, str):
            return value
        try:
            return self.parse(value, param.name if param and param.name else self.name.lower())
        except InvalidInput as error:  # click names the option: its reason alone (review)
            self.fail(error.reason, param, ctx)


class AwareDateTime(Parsed):
    """An ISO 8601 timestamp with a time zone, e.g. 2026-10-05T09:00:00+02:00."""

    name = "TIMESTAMP"

    def parse(self, text: str, argument: str) -> Any:
        """The aware ``datetime`` written ``text``, as written (not converted)."""
        return times.parse_timestamp(text, argument)


class Day(Parsed):
    """A calendar day written YYYY-MM-DD."""

    name = "DAY"

    def parse(self, text: str, argument: str) -> Any:
        """The ``date`` written ``text``."""
        return times.parse_day(text)


class TimeZone(Parsed):
    """An IANA time zone name such as Europe/Madrid, a fixed offset (UTC+02:00, +02:00) or
    'local'."""

    name = "ZONE"

    def parse(self, text: str, argument: str) -> Any:
        """The zone's IANA key."""
        return zones.zone_name(zones.zone(text))


class GivenPath(click.Path):
    """A path argument or option. The empty text (an unset shell variable), which Python
    reads as the working directory, is a usage error saying what to give (found by review:
    ``import ''`` imported the working directory's logs).

    Args:
        wanted: What to give instead, e.g. "a daily log or a folder of them".
        file: Whether it names a file, so that a path ending in '/' (a folder's) is refused
            too: the Path it becomes has dropped the '/' (found by review: ``backup sub/``
            made a file named ``sub``).
        text: Whether to keep the path as given (a ``str``): for a destination that is a
            file or a folder depending on another option (``export``).
    """

    def __init__(self, wanted: str, *, file: bool = False, text: bool = False) -> None:
        super().__init__(path_type=str if text else Path)
        self.wanted = wanted
        self.file = file

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """``value`` as a Path, refusing the empty text (and a folder's, for a file)."""
        if isinstance(value, str) and not value.strip():
            self.fail(f"is empty; give {self.wanted}.", param, ctx)
        if self.file and paths.names_folder(value):
            self.fail(f"{paths.FOLDER_NAMED}; give {self.wanted}.", param, ctx)
        return super().convert(value, param, ctx)


NEW_PATH = "the path of a new file or folder"
"""What ``backup`` and ``export`` take: the path of a file or folder they create."""


def limit(help: str = "Page size: 1 to 1000; max_results (8) by default.") -> Decorator:
    """The ``--limit`` option: at most this many items, from 1 to
    :data:`~memstore.arguments.MAX_READER_ITEMS` (1,000); beyond that a usage error naming
    the range, never a silent cap."""
    return click.option("--limit", type=Range(1, MAX_READER_ITEMS), help=help)


def zone(whose: str, default: str) -> Decorator:
    """The ``--tz`` option: the time zone of ``whose`` (IANA, fixed offset or 'local'),
    ``default`` when not given."""
    return click.option(
        "--tz",
        type=TimeZone(),
        help=f"{whose}: IANA (Europe/Madrid), fixed offset (UTC+02:00) or 'local' ({default}).",
    )


def offset(help: str = "Where the page starts (a previous next_offset).") -> Decorator:
    """The ``--offset`` option: where a page starts, 0 by default."""
    return click.option("--offset", type=count(0), default=0, help=help)


mode = click.option(
    "--mode",
    type=choice(Mode),
    default="any",
    show_default=True,
    help="Any word, all words, or the exact phrase.",
)
"""recall's ``--mode``."""

filters = combined(
    click.option("--session-id", help="Only records in this session."),
    click.option("--role", type=choice(SearchRole), help="Only records by this role."),
    click.option("--since", type=AwareDateTime(), help="Created at or after (inclusive)."),
    click.option("--until", type=AwareDateTime(), help="Created before (exclusive)."),
    click.option(
        "--speaker",
        help="Only messages of the speaker of this name (without case, as import compares names).",
    ),
)
"""The filters of recall and the word commands: session, role, creation time, speaker."""

page = combined(offset(), limit())
"""``--offset`` and ``--limit``: one page of a listing."""

word_query = combined(
    click.option(
        "--scope",
        type=choice(Scope),
        default="history",
        show_default=True,
        help="Which store to count.",
    ),
    page,
    filters,
)
"""The scope, page and filters of ``words`` and ``instances``."""
