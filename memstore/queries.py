"""The parameter objects of the search calls: the filters every recall and word query takes,
and the page a word query asks for. Built and checked once, where the service begins, then
handed down to the concerns and the repository as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TypedDict

from memstore.arguments import aware, position
from memstore.errors import InvalidInput
from memstore.kinds import Scope, SearchRole
from memstore.logs.write import MAX_SPEAKER_CHARS
from memstore.speakers import speaker_key
from memstore.times import format_utc


class FilterArguments(TypedDict, total=False):
    """The filters recall and the word queries take as keyword arguments, each on the matched
    record (a memory's source messages, for session and role); None or left out: no filter.

    Keys:
        session_id: Only this session.
        role: Only ``user`` or only ``assistant`` messages.
        since: Created at or after this aware time.
        until: Created before this aware time.
        speaker: Only messages of the speaker of this name, compared without case however
            its letters are typed, as an import compares names
            (:func:`memstore.speakers.speaker_key`).
    """

    session_id: str | None
    role: SearchRole | None
    since: datetime | None
    until: datetime | None
    speaker: str | None


class WordArguments(FilterArguments, total=False):
    """The keyword arguments of the word queries: the filters of :class:`FilterArguments`
    and the page.

    Keys:
        scope: ``history`` (the default), ``memories`` or ``all``.
        offset: Where the page starts: 0 (the default), or the previous ``next_offset``.
        limit: Page size, capped by the service's page size (``max_results`` by default,
            also its default); a page also stays within its characters of JSON
            (``recall_chars`` by default), so it may hold fewer.
    """

    scope: Scope
    offset: int
    limit: int | None


@dataclass(frozen=True)
class RecallFilters:
    """Filters on the matched record: its session, its role, its creation time in
    [``since``, ``until``), aware UTC, and its speaker's name."""

    session_id: str | None = None
    role: SearchRole | None = None
    since: datetime | None = None
    until: datetime | None = None
    speaker: str | None = None

    @classmethod
    def checked(
        cls,
        session_id: str | None = None,
        role: SearchRole | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        speaker: str | None = None,
    ) -> RecallFilters:
        """The filters with aware UTC times, ``since`` not after ``until`` (equal times are an
        empty interval).

        Raises:
            InvalidInput: For a naive time, ``since`` after ``until`` (swapped, most likely),
                a blank session id, or a speaker name that is empty or over 100 characters.
        """
        start, end = aware(since, "since"), aware(until, "until")
        if start is not None and end is not None and start > end:
            raise InvalidInput(
                "since", f"{start.isoformat()} is after the end {end.isoformat()}; swap them?"
            )
        if session_id is not None and not session_id.strip():  # found by review: no hits
            raise InvalidInput("session_id", "is blank; give a session's id, or none.")
        name = None if speaker is None else speaker.strip()
        if name is not None and not 1 <= len(name) <= MAX_SPEAKER_CHARS:
            size = f"is {len(name)} characters" if name else "is blank"
            raise InvalidInput(
                "speaker",
                f"{size} (spaces around it left out); give a name of 1 to "
                f"{MAX_SPEAKER_CHARS} characters, or none.",
            )
        return cls(session_id, role, start, end, name)

    @classmethod
    def of(cls, arguments: FilterArguments) -> RecallFilters:
        """The checked filters of keyword ``arguments`` (see :meth:`checked`)."""
        return cls.checked(
            arguments.get("session_id"),
            arguments.get("role"),
            arguments.get("since"),
            arguments.get("until"),
            arguments.get("speaker"),
        )

    def params(self) -> dict[str, str | None]:
        """The bound parameters ``:session_id``, ``:role``, ``:since``, ``:until`` and
        ``:speaker``, the speaker's name keyed as an import compares names
        (:func:`memstore.speakers.speaker_key`)."""
        return {
            "session_id": self.session_id,
            "role": self.role,
            "since": None if self.since is None else format_utc(self.since),
            "until": None if self.until is None else format_utc(self.until),
            "speaker": None if self.speaker is None else speaker_key(self.speaker),
        }

    def any(self) -> bool:
        """Whether any filter is set."""
        return any(value is not None for value in self.params().values())


@dataclass(frozen=True)
class WordQuery:
    """One page of a word query (:meth:`MemoryService.search_words`,
    :meth:`MemoryService.word_instances`): which records, from where, how many at most."""

    scope: Scope = "history"
    offset: int = 0
    limit: int = 8
    filters: RecallFilters = field(default_factory=RecallFilters)

    @classmethod
    def of(cls, arguments: WordArguments, limit: int) -> WordQuery:
        """The checked query of keyword ``arguments``, with ``limit`` already capped.

        Raises:
            InvalidInput: For an offset outside 0..2**63 - 1, or a filter
                :meth:`RecallFilters.checked` refuses.
        """
        offset = arguments.get("offset", 0)
        position(offset, "offset", "0 or a previous next_offset")
        filters = RecallFilters.of(arguments)
        return cls(arguments.get("scope", "history"), offset, limit, filters)

    @property
    def history(self) -> bool:
        """Whether the query reads conversation history."""
        return self.scope in ("history", "all")

    @property
    def memories(self) -> bool:
        """Whether the query reads memories."""
        return self.scope in ("memories", "all")

    @property
    def unfiltered_history(self) -> bool:
        """True when the vocabulary's row table answers the query directly: history alone,
        no filter."""
        return self.scope == "history" and not self.filters.any()
